"""Kernels are compiled before any clock starts: after the warm-up of a configuration, a GA
run of it (on other levels) compiles or loads no kernel it did not already have."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numba
import pytest

from evosoko.experiment.warmup import watch_compilation

ROOT = Path(__file__).resolve().parents[2]

CHECK = textwrap.dedent(
    """
    import sys, warnings
    from numba.core.registry import CPUDispatcher

    import evosoko.evolve.hybrid, evosoko.evolve.lost_search, evosoko.evolve.macros
    import evosoko.search
    from evosoko.config import load_config
    from evosoko.evolve import evolve_level, make_evaluator
    from evosoko.experiment.warmup import warm_up_config
    from evosoko.sokoban.formats import read_levels
    from evosoko.sokoban.solutions import verify_solution


    def kernels():
        found = {}
        for name, module in list(sys.modules.items()):
            if name.startswith("evosoko") and module is not None:
                for value in vars(module).values():
                    if isinstance(value, CPUDispatcher):
                        found[id(value)] = value
        return {kernel: set(kernel.overloads) for kernel in found.values()}


    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        levels = read_levels(sys.argv[1])
    for preset, *overrides in [
        ("default",),
        ("pushes", "ga.islands.migration_every=4"),  # islands, lost search
        ("hybrid",),  # search seeding and the memetic step
        ("moves", "ga.mutation.push_macro=0.3", "fitness.trim_to_best=true"),
    ]:
        config = load_config(
            f"configs/{preset}.toml",
            ["parallel.backend=serial", "run.budget.generations=12", "run.budget.seconds=none",
             *overrides],
        )
        warm_up_config(config)
        before = kernels()
        for level in levels:
            with make_evaluator(level, config.parallel, config.ga.encoding, config.fitness) as ev:
                outcome = evolve_level(level, config, evaluator=ev)
            verify_solution(level, outcome.best.lurd)
        new = sorted(
            kernel.py_func.__qualname__
            for kernel, signatures in kernels().items()
            if signatures - before.get(kernel, set())
        )
        print(preset, new)
    """
)


def test_the_warm_up_compiles_every_kernel_a_run_uses():
    result = subprocess.run(
        [sys.executable, "-c", CHECK, str(ROOT / "levels" / "seeds.xsb")],
        cwd=ROOT,
        capture_output=True,
        check=False,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:4] == [
        "default []",
        "pushes []",
        "hybrid []",
        "moves []",
    ]


def test_watch_compilation_tells_when_a_kernel_compiles_not_when_it_is_ready():
    @numba.njit
    def fresh_kernel(x):  # not cached: compiled on first call in this process
        return x + 1

    calls = []
    with watch_compilation(lambda: calls.append("compiling")):
        assert fresh_kernel(1) == 2
        assert fresh_kernel(2) == 3
    with watch_compilation(lambda: calls.append("again")):
        assert fresh_kernel(3) == 4
    assert calls == ["compiling"]


@pytest.mark.slow
def test_a_cold_default_run_solves_its_level_with_compilation_outside_its_time(tmp_path):
    """The first run on a fresh machine (an empty numba cache) solves seed000-case3: it compiles
    before the level starts (that no kernel compiles later is the test above)."""
    import json
    import os

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "evosoko.cli",
            "run",
            "configs/default.toml",
            "--json",
            "--set",
            f"output.dir={tmp_path / 'runs'}",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        check=False,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    (level,) = summary["levels"]
    assert level["solved"] and level["level"] == "seed000-case3"
    log = (Path(summary["run_dir"]) / "run.log").read_text()
    assert "compiled the kernels in" in log


def test_a_run_says_when_it_compiles_before_the_run_starts(tmp_path, monkeypatch):
    from experiment_helpers import tiny_config

    from evosoko.experiment.run import runner as run_module
    from evosoko.experiment.run.progress import NoProgress

    @numba.njit
    def uncached(x):
        return x * 2

    real_warm_up = run_module.warm_up_config

    def warm_up_that_compiles(config, levels=()):
        uncached(2)  # compiled here: a kernel missing from the cache
        real_warm_up(config, levels)

    events = []

    class Probe(NoProgress):
        def compiling(self):
            events.append("compiling")

        def start(self, levels, done, budget):
            events.append("start")

    monkeypatch.setattr(run_module, "warm_up_config", warm_up_that_compiles)
    report = run_module.start_run(tiny_config(tmp_path, "run.select=[1]"), progress=Probe())
    assert report.status == "completed"
    assert events == ["compiling", "start"]  # said once, before the run's display starts
    assert "compiled the kernels in" in (report.run_dir / "run.log").read_text()
