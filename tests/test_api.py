"""The public Python API: what ``import evosoko`` offers, and that it is the CLI's code path."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import evosoko
from evosoko.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ROOT / "levels" / "seeds.xsb"


@pytest.fixture(scope="module")
def levels():
    return evosoko.load_levels(SEEDS)


@pytest.fixture(scope="module")
def config():
    return evosoko.preset("default").set("parallel.backend", "serial")


def test_import_evosoko_loads_nothing_else():
    code = (
        "import sys, evosoko; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('numba', 'numpy', 'pydantic', 'deap', 'matplotlib', 'evosoko')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    # the kernel cache's folder is set at import (stdlib only: evosoko/kernel_cache.py), and
    # evosoko.evolve is bound to the function of evosoko.api after the package of that name
    # loaded (both import only the standard library until a name is used)
    loaded = "['evosoko', 'evosoko.api', 'evosoko.evolve', 'evosoko.kernel_cache']"
    assert done.stdout.strip() == loaded


def test_every_public_name_resolves_and_dir_lists_them():
    for name in evosoko.__all__:
        assert getattr(evosoko, name) is not None, name
    assert set(evosoko.__all__) <= set(dir(evosoko))
    with pytest.raises(AttributeError):
        evosoko.no_such_thing  # noqa: B018


def test_evosoko_evolve_is_the_function_and_the_package_imports_by_name(levels, config):
    import types

    import evosoko.evolve.engine
    from evosoko.evolve import Engine
    from evosoko.evolve.engine import Engine as engine_class

    assert evosoko.evolve is evosoko.api.evolve  # after importing the package's modules too
    package = sys.modules["evosoko.evolve"]
    assert type(package) is types.ModuleType  # a plain module: no class swapped in
    assert Engine is engine_class is package.engine.Engine
    result = evosoko.evolve(levels[1], config)
    assert isinstance(result, evosoko.Result) and result.solved
    assert evosoko.verify(levels[1], result.solution).solved


def test_evolve_several_levels_gives_a_result_each(levels, config):
    results = evosoko.evolve(levels[:2], config)
    assert [r.level_name for r in results] == ["seed000-example", "seed000-case3"]
    assert all(r.unit == "evaluations" and r.history for r in results)


def test_evolve_is_what_run_writes(levels, config, tmp_path):
    """One code path: the statistics evolve returns are the rows run writes (times aside)."""
    chosen = config.set("run.select", ["#2"]).set("output.dir", str(tmp_path))
    report = evosoko.run(chosen)
    assert report.status == "completed"
    with open(report.run_dir / "metrics.csv", newline="") as stream:
        rows = [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(stream)]
    from evosoko.experiment.run.records import metrics_row

    result = evosoko.evolve(levels[1], config)
    written = [metrics_row(2, result.level_name, s) for s in result.history]
    assert [{k: v for k, v in row.items() if k != "seconds"} for row in written] == rows
    opened = evosoko.open_run(report.run_dir)
    assert opened.results[0].history.column("best_distance") == result.history.column(
        "best_distance"
    )
    assert opened.results[0].level == levels[1]


def test_solve_gives_a_result_in_nodes(levels):
    result = evosoko.solve(levels[1], "push-astar", seconds=10)
    assert result.solved and result.unit == "nodes" and result.cost == result.details["expanded"]
    limited = evosoko.solve(levels[2], "bfs", nodes=50)
    assert limited.exhausted == "nodes" and limited.solution is None and limited.moves is None


def test_config_set_is_set(config):
    assert config.set("ga.population", 50).ga.population == 50
    assert config.set("ga.population=60").ga.population == 60
    assert config.ga.population == 200  # unchanged: set returns a copy
    for key, value in (("ga.populaton", 5), ("ga.population", "many"), ("ga.mutation.kind", 3)):
        with pytest.raises(ConfigError) as by_set:
            config.set(key, value)
        from evosoko.config import load_config

        with pytest.raises(ConfigError) as by_override:
            load_config(None, [f"{key}={json.dumps(value)}"])
        assert str(by_set.value) == str(by_override.value)


def test_presets_and_an_unknown_preset():
    assert {"default", "moves", "pushes", "hybrid", "seed004"} <= set(evosoko.presets())
    with pytest.raises(ConfigError, match="no preset 'defualt'; presets: box-macros, default, "):
        evosoko.preset("defualt")


def test_callbacks_see_levels_and_generations_and_can_stop(levels, config):
    events = []

    class Probe(evosoko.Callback):
        def on_level_start(self, level):
            events.append(("start", level.name))

        def on_generation(self, generation):
            events.append(("generation", generation.number, generation.best.fitness["distance"]))
            assert generation.population is not None
            if generation.number == 3:
                generation.stop()

        def on_level_end(self, result):
            events.append(("end", result.status))

    moves = config.set("ga.encoding", "moves")
    result = evosoko.evolve(levels[2], moves, callbacks=[Probe()])
    assert result.status == "stopped" and result.generations == 3
    assert events[0] == ("start", "seed004-blog") and events[-1] == ("end", "stopped")
    assert [e[1] for e in events if e[0] == "generation"] == [0, 1, 2, 3]


def test_islands_report_the_best_and_stop_on_request(levels, config):
    seen = []

    class Probe(evosoko.Callback):
        def on_generation(self, generation):
            seen.append((generation.number, generation.best is not None, generation.population))
            if generation.number == 4:
                generation.stop()

    islands = config.set("ga.encoding", "moves").set("ga.islands.count", 2)
    islands = islands.set("ga.islands.migration_every", 2).set("ga.population", 20)
    result = evosoko.evolve(levels[2], islands.set("ga.offspring", 20), callbacks=[Probe()])
    assert result.status == "stopped" and result.generations == 4
    assert all(best and population is None for _, best, population in seen)


def test_results_convert_and_show_themselves(levels, config, tmp_path):
    pandas = pytest.importorskip("pandas")
    result = evosoko.evolve(levels[1], config)
    frame = result.history.to_pandas()
    assert isinstance(frame, pandas.DataFrame) and list(frame["generation"]) == list(
        range(result.generations + 1)
    )
    page = result._repr_html_()
    assert "<table>" in page and "data:image/png;base64," in page  # the fitness curve
    assert "data:image/gif;base64," in page  # the solution, animated
    assert levels[1]._repr_png_().startswith(b"\x89PNG")
    assert repr(levels[1]) == "<Level #2 'seed000-case3': 8x7, 5 boxes>"  # not its arrays
    again = evosoko.Result.from_dict(json.loads(json.dumps(result.to_dict())), levels[1])
    assert again == result


def test_results_print_as_one_line_without_their_history_or_genes(levels, config):
    result = evosoko.evolve(levels[1], config)
    line = repr(result)
    assert line.startswith("<Result ga on #2 'seed000-case3': solved, ")
    assert f"{result.moves} moves, {result.pushes} pushes" in line
    assert f"{result.generations} generations>" in line and "\n" not in line
    assert "GenerationStats" not in line and "HallOfFame" not in line
    assert repr(result.history).startswith(f"<History: {len(result.history)} generations")
    assert "genes" not in repr(result.best)
    search = evosoko.solve(levels[1], "bfs", nodes=10)
    assert repr(search) == (
        f"<Result bfs on #2 'seed000-case3': budget: nodes, 10 nodes, {search.seconds:.3f} s>"
    )


def test_unsolved_results_animate_their_best_prefix(levels, config):
    result = evosoko.evolve(
        levels[2], config.set("ga.encoding", "moves").set("run.budget.generations", 2)
    )
    assert not result.solved and result.best.lurd
    assert "best prefix" in result._repr_html_() and "image/gif" in result._repr_html_()


def test_compare_in_python_runs_a_comparison_folder(levels, config, tmp_path):
    outcome = evosoko.compare(
        levels=levels[:2],
        solvers={"ga": config, "astar": "push-astar", "greedy": {"algorithm": "push-greedy"}},
        seeds=[0, 1],
        budget=evosoko.Budget(seconds=30, evaluations=2000),
        out=tmp_path / "cmp",
    )
    assert outcome.complete and outcome.jobs == 2 * 2 + 2 + 2
    assert [s.solver for s in outcome.summaries] == ["ga", "astar", "greedy"]
    page = outcome._repr_html_()
    assert "<table>" in page and re.search(r"<td>\d+% \[\d+%, \d+%\]</td>", page)  # intervals
    again = evosoko.compare(
        levels=levels[:2],
        solvers={"ga": config, "astar": "push-astar", "greedy": {"algorithm": "push-greedy"}},
        seeds=[0, 1],
        budget=evosoko.Budget(seconds=30, evaluations=2000),
        out=tmp_path / "cmp",
    )
    assert again.resumed == again.jobs  # the same comparison: nothing runs again
    with pytest.raises(ConfigError, match="differ"):
        evosoko.compare(
            levels=levels[:2],
            solvers={"ga": config.set("ga.population", 30)},
            out=tmp_path / "cmp",
        )


def test_compare_in_python_keeps_the_levels_numbers_and_file(levels, tmp_path):
    chosen = [levels[1], levels[2]]  # the 2nd and 3rd levels of seeds.xsb
    outcome = evosoko.compare(
        levels=chosen, solvers={"astar": "push-astar"}, budget=evosoko.Budget(seconds=10),
        out=tmp_path / "cmp",
    )  # fmt: skip
    with open(outcome.folder / "results.csv", newline="") as stream:
        indices = [int(row["level_index"]) for row in csv.DictReader(stream)]
    assert indices == [2, 3]  # not renumbered 1 and 2
    stored = (outcome.folder / "compare.toml").read_text()
    assert str(SEEDS) in stored and not list(outcome.folder.glob("levels-*.xsb"))
    # a level made in memory has no file to name: it is written into the folder
    from evosoko.sokoban.build import level_from_rows

    made = level_from_rows(chosen[0].rows(), title="made")
    other = evosoko.compare(
        levels=[made], solvers={"astar": "push-astar"}, budget=evosoko.Budget(seconds=10),
        out=tmp_path / "made",
    )  # fmt: skip
    assert other.complete and len(list(other.folder.glob("levels-*.xsb"))) == 1


def test_levels_are_kept_where_the_user_named_them_through_links(tmp_path, monkeypatch):
    real = tmp_path / "real"
    real.mkdir()
    (real / "seeds.xsb").write_text(SEEDS.read_text())
    (tmp_path / "link").symlink_to(real)
    monkeypatch.chdir(tmp_path)
    config = evosoko.load_config(None, ["run.levels=link/seeds.xsb"])
    assert config.run.levels is None or config.run.levels == "link/seeds.xsb"
    path = tmp_path / "config.toml"
    path.write_text('[run]\nlevels = "link/seeds.xsb"\n')
    loaded = evosoko.load_config(path)
    assert loaded.run.levels == str(tmp_path / "link" / "seeds.xsb")  # the link, not real/


def test_run_writes_the_folder_the_cli_writes(config, tmp_path):
    report = evosoko.run(config.set("run.select", ["#1"]).set("output.dir", str(tmp_path)))
    files = {path.name for path in report.run_dir.iterdir()}
    assert {"config.toml", "metrics.csv", "results.csv", "solutions.sok", "summary.json"} <= files
    assert "<table>" in report._repr_html_() and "fitness.png" not in report._repr_html_()


def test_solve_checks_its_arguments_before_searching(levels):
    with pytest.raises(ConfigError):
        evosoko.solve(levels[0], "bogus")
    with pytest.raises(ConfigError):
        evosoko.solve(levels[0], "push-astar", seconds=-1)
    with pytest.raises(ConfigError):
        evosoko.solve(levels[0], "astar", heuristic="no-such")


def test_config_set_changes_keys_that_go_together(config):
    with pytest.raises(ConfigError, match="needs exactly one of address"):
        config.set("parallel.backend", "dask")
    both = config.set({"parallel.backend": "dask", "parallel.local_workers": 2})
    assert (both.parallel.backend, both.parallel.local_workers) == ("dask", 2)


def test_run_applies_overrides_to_a_config_object(config, tmp_path):
    report = evosoko.run(
        config,
        overrides=["run.select=['#1']", f"output.dir='{tmp_path}'", "run.name=overridden"],
    )
    assert report.status == "completed" and "overridden" in report.run_dir.name
    assert [r.index for r in report.results] == [1]


def test_solve_takes_search_settings_as_a_model_or_a_table():
    from evosoko.search import FessSettings

    level = evosoko.load_levels(SEEDS, ["seed000-case3"])[0]
    by_model = evosoko.solve(level, "push-fess", settings=FessSettings(alternate=2))
    by_table = evosoko.solve(level, "push-fess", settings={"fess": {"alternate": 2}})
    assert by_model.details["settings"] == by_table.details["settings"]
    assert by_model.details["settings"]["alternate"] == 2
    with pytest.raises(evosoko.ConfigError, match="did you mean 'fess.alternate'"):
        evosoko.solve(level, "push-fess", settings={"fess": {"alternat": 2}})
