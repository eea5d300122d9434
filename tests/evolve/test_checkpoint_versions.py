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
    # no wall-clock budget: on a loaded machine the default 60 s could end the resumed run early
    whole = [f"run.budget.generations={case['whole']}", "run.budget.seconds=none"]
    config = load_config(None, case["overrides"] + whole)
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


@pytest.mark.parametrize("name", CASES)
def test_the_resume_checks_accept_version_1_and_version_2_checkpoints(name):
    """A run folder's checkpoint is checked before a resume reads it: both versions pass, a
    damaged one of either version is refused."""
    from evosoko.errors import EvosokoError
    from evosoko.experiment.run.resume_checks import check_checkpoint

    case = DATA[name]
    config = load_config(None, case["overrides"] + [f"run.budget.generations={case['whole']}"])
    old = json.loads(json.dumps(case["checkpoint"]))
    check_checkpoint(old, config, DATA["title"], "level-1.json")
    written = []
    level = _level()
    stopped_at = config.set("run.budget.generations", 4).set("output.checkpoint_every", 2)
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        evolve_level(level, stopped_at, evaluator=evaluator, on_checkpoint=written.append)
    new = json.loads(json.dumps(written[-1]))

    def engine_state(data):  # islands keep one engine's state each
        return data["islands"][0]["state"] if "islands" in data else data

    assert engine_state(old)["version"] == 1 and engine_state(new)["version"] == 2
    check_checkpoint(new, config, DATA["title"], "level-1.json")
    for data in (old, new):
        member = engine_state(data)["population"][0]
        member["evaluation"] = [1, 5, 0, 0, 0]  # solved at distance 5
        with pytest.raises(EvosokoError, match="evaluation"):
            check_checkpoint(data, config, DATA["title"], "level-1.json")
