"""Checkpoints written by earlier versions of evosoko resume exactly.

``data/checkpoints_v1.json`` holds checkpoints of version 1 (positional evaluations and fitness
values, written before the engine named them; see ``data/make_checkpoints_v1.py``) taken half
way through four runs on Microban 60, with what the uninterrupted runs streamed after them;
``data/checkpoints_v2.json`` those of version 2 and the islands and searches checkpoints of
before the state models (commit 13c294a: one population with aging and the lost search, move
genomes, NSGA-II with a fitness term, MAP-Elites, the memetic step, islands, a population of
searches; ``data/make_checkpoints_v2.py``). Resuming them with today's engine must stream the
same statistics and end with the same best individual.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from evosoko.config import load_config
from evosoko.errors import EvosokoError
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.evolve.state import STATE_VERSION
from evosoko.experiment.run.resume_checks import check_checkpoint
from evosoko.sokoban.build import level_from_rows

HERE = Path(__file__).parent / "data"
DATA = {
    version: json.loads((HERE / f"checkpoints_v{version}.json").read_text()) for version in (1, 2)
}
CASES = [
    (version, name)
    for version, data in DATA.items()
    for name in data
    if name not in ("rows", "title")
]


def _level(version: int):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return level_from_rows(DATA[version]["rows"], title=DATA[version]["title"])


@pytest.mark.parametrize(("version", "name"), CASES)
def test_an_older_checkpoint_resumes_as_the_run_went_on(version, name):
    case = DATA[version][name]
    level = _level(version)
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


def _engine_state(data):  # islands keep one engine's state each
    return data["islands"][0]["state"] if "islands" in data else data


@pytest.mark.parametrize(("version", "name"), [c for c in CASES if c[1] != "searches"])
def test_the_resume_checks_accept_older_and_todays_checkpoints(version, name):
    """A run folder's checkpoint is checked before a resume reads it: older and today's
    versions pass, a damaged one of either is refused."""
    case = DATA[version][name]
    title = DATA[version]["title"]
    config = load_config(None, case["overrides"] + [f"run.budget.generations={case['whole']}"])
    old = json.loads(json.dumps(case["checkpoint"]))
    check_checkpoint(old, config, title, "level-1.json")
    written = []
    level = _level(version)
    stopped_at = config.set("run.budget.generations", 4).set("output.checkpoint_every", 2)
    with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as evaluator:
        evolve_level(level, stopped_at, evaluator=evaluator, on_checkpoint=written.append)
    new = json.loads(json.dumps(written[-1]))
    assert _engine_state(old)["version"] == version
    assert _engine_state(new)["version"] == STATE_VERSION and new["version"] == STATE_VERSION
    check_checkpoint(new, config, title, "level-1.json")
    for data in (old, new):
        member = _engine_state(data)["population"][0]
        member["evaluation"] = [1, 5, 0, 0, 0]  # solved at distance 5
        with pytest.raises(EvosokoError, match="evaluation"):
            check_checkpoint(data, config, title, "level-1.json")
