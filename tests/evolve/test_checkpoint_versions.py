"""Checkpoints written by earlier versions of evosoko resume exactly.

``data/checkpoints_v1.json`` holds checkpoints of version 1 (positional evaluations and fitness
values, written before the engine named them; see ``data/make_checkpoints_v1.py``) taken half
way through four runs on Microban 60, with what the uninterrupted runs streamed after them.
Resuming them with today's engine must stream the same statistics and end with the same best
individual.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from evosoko.config import load_config
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.sokoban.build import level_from_rows

DATA = json.loads((Path(__file__).parent / "data" / "checkpoints_v1.json").read_text())
CASES = [name for name in DATA if name not in ("rows", "title")]


def _level():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return level_from_rows(DATA["rows"], title=DATA["title"])


@pytest.mark.parametrize("name", CASES)
def test_a_version_1_checkpoint_resumes_as_the_run_went_on(name):
    case = DATA[name]
    level = _level()
    config = load_config(None, case["overrides"] + [f"run.budget.generations={case['whole']}"])
    stats = []
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        outcome = evolve_level(
            level,
            config,
            evaluator=evaluator,
            on_generation=stats.append,
            resume_state=json.loads(json.dumps(case["checkpoint"])),
        )
    streamed = [
        {k: v for k, v in s.as_dict().items() if k not in ("seconds", "cache_hits")} for s in stats
    ]
    assert streamed == case["after"]
    assert outcome.solved == case["solved"]
    assert outcome.best.genes == case["best_genes"]
    assert outcome.best.lurd == case["best_lurd"]
