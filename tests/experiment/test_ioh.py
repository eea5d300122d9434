"""IOHprofiler export: the files IOHanalyzer reads, parsed back run by run."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evosoko.errors import EvosokoError
from evosoko.experiment.analysis.ioh import (
    FORMAT_VERSION,
    IOH_DIR,
    VIEWS,
    export_folder,
    read_ioh,
    safe_name,
    write_ioh,
)


def _row(solver, level, seed, solved, seconds, used, unit="evaluations", title=None):
    return {
        "solver": solver,
        "level_index": level,
        "level": title or str(level - 1),
        "seed": seed,
        "solved": solved,
        "seconds": seconds,
        "used": used,
        "unit": unit,
    }


ROWS = [
    _row("ga", 1, 1, True, 0.25, 700),
    _row("ga", 1, 2, False, 10.0, 30000),
    _row("ga", 2, 1, True, 0.0004, 1),  # solved at the first evaluation
    _row("ga", 2, 2, True, 1.5, 4100),
    _row("bfs", 1, None, True, 0.031, 82153, "nodes"),
    _row("bfs", 2, None, False, 10.0, 1000000, "nodes", title="level two"),
]


def test_every_run_reads_back_with_its_outcome_and_cost(tmp_path):
    write_ioh(tmp_path, ROWS, {1: 4, 2: 3}, algorithms=["ga", "bfs"])
    for view in VIEWS:
        runs = read_ioh(tmp_path / view)
        assert len(runs) == len(ROWS)
        by_key = {(r.algorithm, r.function_id, r.seed): r for r in runs}
        for row in ROWS:
            run = by_key[(row["solver"], row["level_index"], row["seed"])]
            cost = row["used"] if view == "budget" else math.ceil(row["seconds"] * 1000)
            assert run.solved == row["solved"]
            assert run.evals == max(1, cost) == run.trajectory[-1][0]
            assert run.dimension == {1: 4, 2: 3}[row["level_index"]]
            assert run.instance == 1
            # The format's rules: a run starts at evaluation 1, never repeats it, and ends
            # at its last evaluation; best-so-far reaches 0 exactly when it solved.
            evaluations = [e for e, _ in run.trajectory]
            assert evaluations[0] == 1 and evaluations == sorted(set(evaluations))
            assert (min(y for _, y in run.trajectory) == 0) == row["solved"]


def test_layout_and_meta_data_follow_iohexperimenter(tmp_path):
    write_ioh(tmp_path, ROWS, {1: 4, 2: 3}, info={"ga": "GA preset"})
    meta_path = tmp_path / "budget" / "bfs" / "IOHprofiler_f2_level-two.json"
    meta = json.loads(meta_path.read_text())
    version = tuple(map(int, meta["version"].split(".")))
    assert meta["version"] == FORMAT_VERSION and version >= (0, 3, 3)  # IOHanalyzer's reader
    assert {"suite", "function_id", "function_name", "maximization", "algorithm"} <= set(meta)
    assert meta["attributes"] == ["evaluations", "raw_y"] and meta["maximization"] is False
    assert "run_attributes" not in meta  # a deterministic search has no seeds
    (scenario,) = meta["scenarios"]
    assert scenario["path"] == "data_f2_level-two/IOHprofiler_f2_DIM3.dat"
    dat = (meta_path.parent / scenario["path"]).read_text().splitlines()
    assert dat == ["evaluations raw_y", "1 1", "1000000 1"]
    ga = json.loads((tmp_path / "time" / "ga" / "IOHprofiler_f1_0.json").read_text())
    assert ga["run_attributes"] == ["seed"] and [r["seed"] for r in ga["scenarios"][0]["runs"]]
    assert ga["algorithm"]["info"] == "GA preset (cost: milliseconds)"


def test_export_replaces_an_older_export(tmp_path):
    write_ioh(tmp_path, ROWS, {})
    write_ioh(tmp_path, ROWS[:1], {})
    assert len(read_ioh(tmp_path / "budget")) == 1


def test_a_data_file_that_disagrees_with_its_json_is_an_error(tmp_path):
    write_ioh(tmp_path, ROWS, {})
    dat = next((tmp_path / "budget" / "ga").rglob("*.dat"))
    dat.write_text(dat.read_text().split("evaluations", 2)[1])
    with pytest.raises(EvosokoError, match="runs in the data file"):
        read_ioh(tmp_path / "budget")


@given(st.text(max_size=20))
def test_safe_names_are_file_names(title):
    name = safe_name(title)
    assert name and "/" not in name and " " not in name and not name.startswith(".")


@settings(max_examples=30, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.integers(0, 10**6), st.floats(0, 100)),
        min_size=1,
        max_size=8,
    )
)
def test_round_trip_of_any_outcomes(tmp_path_factory, outcomes):
    folder = tmp_path_factory.mktemp("ioh")
    rows = [
        _row("s", 1 + i % 3, i, solved, seconds, used)
        for i, (solved, used, seconds) in enumerate(outcomes)
    ]
    write_ioh(folder, rows, {})
    runs = {(r.function_id, r.seed): r for r in read_ioh(folder / "budget")}
    for row in rows:
        run = runs[(row["level_index"], row["seed"])]
        assert (run.solved, run.evals) == (row["solved"], max(1, row["used"]))


def test_compare_writes_its_runs_for_iohanalyzer(tmp_path):
    from report_folders import COMPARE as TINY

    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.compare.files import read_results_csv
    from evosoko.experiment.compare.runner import run_compare

    path = tmp_path / "tiny.toml"
    path.write_text(TINY)
    run_compare(load_compare_config(path), tmp_path / "out", plots=False)
    rows = read_results_csv(tmp_path / "out" / "results.csv")
    runs = read_ioh(tmp_path / "out" / IOH_DIR / "budget")
    assert sorted((r.algorithm, r.function_id, r.solved, r.evals) for r in runs) == sorted(
        (row["solver"], row["level_index"], row["solved"], max(1, row["used"])) for row in rows
    )
    from report_folders import SEEDS

    from evosoko.sokoban.formats import read_levels

    boxes = {level.index: level.box_count for level in read_levels(SEEDS)}
    assert all(run.dimension == boxes[run.function_id] for run in runs)  # dimension: boxes
    again = export_folder(tmp_path / "out", tmp_path / "again")
    assert len(read_ioh(again / "time")) == len(rows)


def test_iohinspector_reads_the_export(tmp_path):
    """The field's own Python reader, when it is installed (``pip install iohinspector``)."""
    inspector = pytest.importorskip("iohinspector")
    write_ioh(tmp_path, ROWS, {1: 4, 2: 3})
    manager = inspector.DataManager()
    manager.add_folder(str(tmp_path / "budget"))
    overview = manager.overview
    assert overview.height == len(ROWS)
    assert sorted(overview["best_y"].to_list()) == sorted(0.0 if r["solved"] else 1.0 for r in ROWS)


def test_an_export_that_cannot_be_written_is_one_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(EvosokoError, match="cannot write the export here"):
        write_ioh(blocker / "ioh", ROWS, {})


def test_export_of_a_run_folder_is_refused(tmp_path):
    (tmp_path / "config.toml").write_text("")
    (tmp_path / "metrics.csv").write_text("")
    with pytest.raises(EvosokoError, match="give a compare or sweep folder"):
        export_folder(tmp_path)


def test_recorded_progress_is_the_best_distance_per_evaluation(tmp_path):
    """The objective is the best distance so far, not 1 until solved: the analyzer's
    fixed-target views then show how fast each solver gets how close."""
    rows = [
        {**_row("ga", 1, 1, False, 3.0, 900), "progress": [[100, 0.5, 9.0], [400, 1.4, 6.0]]},
        {**_row("ga", 1, 2, True, 2.0, 700), "progress": [[100, 0.4, 8.0], [700, 2.0, 0.0]]},
        {**_row("astar", 1, None, True, 0.2, 52, "nodes"),
         "progress": [[1, 0.001, 21.0], [5, 0.002, 20.0], [21, 0.05, 6.0], [52, 0.2, 0.0]]},
    ]  # fmt: skip
    write_ioh(tmp_path, rows, {1: 4})
    runs = {(r.algorithm, r.seed): r for r in read_ioh(tmp_path / "budget")}
    assert runs[("ga", 1)].trajectory == [(1, 9.0), (400, 6.0), (900, 6.0)]
    assert runs[("ga", 1)].best_y == 6.0 and not runs[("ga", 1)].solved
    assert runs[("ga", 2)].trajectory == [(1, 8.0), (700, 0.0)]
    assert runs[("astar", None)].trajectory == [(1, 21.0), (5, 20.0), (21, 6.0), (52, 0.0)]
    timed = {(r.algorithm, r.seed): r for r in read_ioh(tmp_path / "time")}
    assert timed[("ga", 1)].trajectory == [(1, 9.0), (1400, 6.0), (3000, 6.0)]


def fixed_target_hits(folder: Path, k: int):
    """Per run and distance target 0..k: the first evaluation (or node) at which the run's best
    distance is at most the target (inf: never), by the IOHprofiler project's own reader and
    alignment. Loaded without ``monotonic``: iohinspector 0.0.8 drops a run whose first
    distance equals the previous run's last one there (it compares rows across runs), so
    the rows that improve a run's best distance are kept here, run by run."""
    iohinspector = pytest.importorskip("iohinspector")
    import polars

    manager = iohinspector.DataManager()
    manager.add_folder(str(folder))
    best = polars.col("raw_y").cum_min().over("data_id")
    runs = (
        manager.load(monotonic=False, include_meta_data=True)
        .with_columns(best)
        .filter(polars.col("raw_y").diff().over("data_id").fill_null(-1.0) != 0.0)
    )
    hits = iohinspector.align_data(
        runs,
        [float(target) for target in range(k + 1)],
        group_cols=["data_id", "algorithm_name"],
        x_col="raw_y",
        y_col="evaluations",
        silence_warning=True,
    )
    return runs, hits


def test_the_fixed_target_ecdf_at_distance_targets(tmp_path):
    """The fraction of (run, target) pairs reached within a budget, for targets 0..8, read
    back from the export by iohinspector: the values worked out by hand from the runs."""
    rows = [
        {**_row("ga", 1, 1, False, 3.0, 900), "progress": [[100, 0.5, 9.0], [400, 1.4, 6.0]]},
        {**_row("ga", 1, 2, True, 2.0, 700), "progress": [[100, 0.4, 8.0], [700, 2.0, 0.0]]},
        {**_row("ga", 1, 3, True, 0.001, 1), "progress": [[1, 0.001, 0.0]]},
    ]
    write_ioh(tmp_path, rows, {1: 4})
    runs, hits = fixed_target_hits(tmp_path / "budget", 8)
    assert runs["data_id"].n_unique() == 3  # every run, the one solved at once too
    assert hits.height == 3 * 9
    ecdf = {budget: (hits["evaluations"] <= budget).mean() for budget in (1, 100, 400, 700, 900)}
    # seed 1: targets 6-8 at 400, never below 6; seed 2: 8 at 1, 0-7 at 700; seed 3: all at 1
    assert ecdf == {1: 10 / 27, 100: 10 / 27, 400: 13 / 27, 700: 21 / 27, 900: 21 / 27}
    solved = hits.filter(hits["raw_y"] == 0.0)["evaluations"].is_finite().sum()
    assert solved == 2  # target 0: the solved runs


def test_the_iohprofiler_reader_gives_a_fixed_target_ecdf_of_a_comparison(tmp_path):
    """A real comparison's export, read by the IOHprofiler project's own reader
    (iohinspector): a fixed-target view at distance targets 0..k."""
    pytest.importorskip("iohinspector")
    from iohinspector.metrics import aggregate_running_time

    import evosoko

    levels = evosoko.load_levels(
        Path(__file__).resolve().parents[2] / "levels" / "starter.xsb", ["hard-01", "hard-03"]
    )
    ga = evosoko.preset("pushes").set(
        {"ga.population": 30, "ga.offspring": 30, "parallel.backend": "serial"}
    )
    outcome = evosoko.compare(
        levels=levels, solvers={"ga": ga, "astar": "push-astar", "bfs": "bfs"}, seeds=[1, 2],
        budget=evosoko.Budget(seconds=20, evaluations=1500, nodes=3000), out=tmp_path / "cmp",
    )  # fmt: skip
    k = 6
    data, hits = fixed_target_hits(outcome.folder / IOH_DIR / "budget", k)
    assert set(data["algorithm_name"]) == {"ga", "astar", "bfs"}
    assert data["data_id"].n_unique() == len(outcome.rows)
    best = {(run.algorithm, run.function_id, run.seed): run.best_y for run in read_ioh(
        outcome.folder / IOH_DIR / "budget")}  # fmt: skip
    for target in range(k + 1):  # the ECDF at the whole budget: the runs that got that near
        reached = hits.filter(hits["raw_y"] == float(target))["evaluations"].is_finite().sum()
        assert reached == sum(distance <= target for distance in best.values())
    for solver in ("ga", "astar", "bfs"):
        costs = hits.filter(hits["algorithm_name"] == solver)["evaluations"]
        ecdf = [(costs <= budget).mean() for budget in (1, 10, 100, 1000, 10000)]
        assert ecdf == sorted(ecdf)  # more budget reaches no fewer (run, target) pairs
    table = aggregate_running_time(data, f_min=0, f_max=k, scale_f_log=False)
    for solver in ("ga", "astar", "bfs"):
        rows = table[table["algorithm_name"] == solver].sort_values("raw_y")
        hits = list(rows["success_count"])
        assert hits == sorted(hits)  # a nearer target is reached by no more runs
        solved = sum(1 for row in outcome.rows if row["solver"] == solver and row["solved"])
        assert hits[0] == solved  # target 0: the solved runs
    ga_rows = table[table["algorithm_name"] == "ga"]
    assert ga_rows["success_count"].max() > ga_rows["success_count"].min()  # distances, not 0/1
