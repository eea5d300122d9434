"""One page for several folders: the results joined by level, the page's data, where it goes,
escaping, and ``evosoko report A B``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from report_folders import make_compare, make_other_run, make_run
from typer.testing import CliRunner

import evosoko
from evosoko.cli import app
from evosoko.errors import EvosokoError
from evosoko.experiment.report.side_by_side import (
    SIDE_BY_SIDE_FILE,
    join_by_level,
    side_by_side_data,
    side_by_side_path,
)
from evosoko.experiment.report.writer import REPORT_FILE
from evosoko.experiment.results_table import ResultsTable, make_row


def row(solver, level_index, status="solved", seed=None, cost=100, moves=10, **values):
    """A tidy row: a GA (evaluations) unless ``unit`` says otherwise."""
    unit = values.pop("unit", "evaluations")
    fields = {
        "source": "x",
        "level_index": level_index,
        "level": values.pop("level", f"L{level_index}"),
        "solver": solver,
        "kind": "ga" if unit == "evaluations" else "search",
        "seed": seed,
        "settings": values.pop("settings", f"digest-{solver}"),
        "status": status,
        "exhausted": values.pop("exhausted", None),
        "cost": cost,
        "unit": unit,
        "seconds": values.pop("seconds", 1.0),
        "moves": moves if status == "solved" else None,
        "pushes": moves // 2 if status == "solved" else None,
    }
    return make_row(**fields)


def test_the_same_level_in_two_folders_is_one_row():
    run = ResultsTable([row("ga", 1, cost=500, moves=30), row("ga", 2, cost=900)])
    compare = ResultsTable(
        [
            row("bfs", 2, cost=40, moves=12, unit="nodes"),
            row("bfs", 3, "budget", cost=99, unit="nodes", exhausted="nodes"),
            row("ga-pushes", 2, seed=1, cost=300, moves=20),
            row("ga-pushes", 2, "budget", seed=2, cost=700, exhausted="seconds"),
            row("ga-pushes", 2, seed=3, cost=500, moves=40),
        ]
    )
    joined = join_by_level([run, compare], ["run-a", "cmp"])
    assert [group.label for group in joined.groups] == ["run-a", "cmp · bfs", "cmp · ga-pushes"]
    assert [(g.source, g.unit, g.settings) for g in joined.groups] == [
        (0, "evaluations", "digest-ga"),
        (1, "nodes", "digest-bfs"),
        (1, "evaluations", "digest-ga-pushes"),
    ]
    assert joined.levels == [(1, "L1"), (2, "L2"), (3, "L3")]
    assert joined.cells[(0, 0)].status == "solved" and joined.cells[(0, 0)].moves == 30
    assert (0, 1) not in joined.cells  # bfs did not run level 1
    assert joined.cells[(2, 1)].status == "budget: nodes"
    assert joined.cells[(2, 1)].moves is None
    seeds = joined.cells[(1, 2)]
    assert (seeds.runs, seeds.solved, seeds.status) == (3, 2, "2 of 3 solved")
    assert seeds.cost == 500 and seeds.seconds == 1.0  # medians over the three runs
    assert seeds.moves == 30 and seeds.pushes == 15  # medians over the two solved runs


def test_a_level_is_its_index_and_its_title():
    one = ResultsTable([row("ga", 1, level="Alpha")])
    other = ResultsTable([row("ga", 1, level="Beta"), row("ga", 1, level="Alpha", seed=4)])
    joined = join_by_level([one, other], ["one", "other"])
    assert joined.levels == [(1, "Alpha"), (1, "Beta")]
    assert set(joined.cells) == {(0, 0), (0, 1), (1, 1)}


def test_runs_that_agree_show_their_status():
    table = ResultsTable(
        [row("ga", 1, "budget", seed=s, exhausted="evaluations", cost=900) for s in (1, 2)]
    )
    cell = join_by_level([table], ["run"]).cells[(0, 0)]
    assert (cell.status, cell.runs, cell.solved, cell.moves) == ("budget: evaluations", 2, 0, None)


@given(
    st.lists(
        st.lists(
            st.tuples(
                st.sampled_from(["ga", "bfs", "astar"]),
                st.integers(1, 4),
                st.sampled_from(["solved", "budget", "error"]),
            ),
            max_size=12,
        ),
        min_size=1,
        max_size=4,
    )
)
def test_every_row_lands_in_exactly_one_cell(folders):
    tables = [
        ResultsTable(
            [
                row(solver, level, status, exhausted="seconds" if status == "budget" else None)
                for solver, level, status in rows
            ]
        )
        for rows in folders
    ]
    joined = join_by_level(tables, [f"folder-{n}" for n in range(len(tables))])
    assert sum(cell.runs for cell in joined.cells.values()) == sum(map(len, tables))
    assert len(joined.groups) == sum(len({r["solver"] for r in table}) for table in tables)
    solved = sum(r["solved"] for table in tables for r in table)
    assert sum(cell.solved for cell in joined.cells.values()) == solved


# ---- real folders -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    """Two runs with other GA sizes and a comparison, all on the seed levels."""
    first = make_run(tmp_path_factory.mktemp("first"))
    second = make_other_run(tmp_path_factory.mktemp("second"), "seed000-case3")
    compare = make_compare(tmp_path_factory.mktemp("compare"))
    return first, second, compare


def embedded(page: str) -> dict:
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page)
    assert match, "no data block"
    return json.loads(match.group(1))


def test_runs_and_a_comparison_join_on_one_page(folders, tmp_path):
    first, second, compare = folders
    data = side_by_side_data(folders, tmp_path / "page.html")
    assert data["kind"] == "folders"
    assert [f["kind"] for f in data["folders"]] == ["run", "run", "compare"]
    labels = [group["label"] for group in data["groups"]]
    assert labels == [
        first.name,
        second.name,
        f"{compare.name} · ga-small",
        f"{compare.name} · bfs",
        f"{compare.name} · push-astar",
    ]
    assert [(level["index"], level["name"]) for level in data["levels"]] == [
        (1, "seed000-example"),
        (2, "seed000-case3"),
    ]
    example, case3 = data["levels"]
    assert example["cells"][1] is None  # the second run did not play level 1
    assert example["cells"][0]["status"] == "solved"
    assert case3["cells"][2]["runs"] == 2  # ga-small: seeds 1 and 2
    assert [curve["source"] for curve in example["curves"]] == [0]  # runs only
    assert [curve["source"] for curve in case3["curves"]] == [0, 1]
    assert case3["curves"][1]["e"][-1] > 0
    population = [d for d in data["differences"] if d[0] == "ga.population"]
    assert population == [["ga.population", "30", "24", ""]]
    assert data["folders"][0]["report"].endswith(f"{first.name}/{REPORT_FILE}")
    assert data["folders"][0]["config"] == (first / "config.toml").read_text()
    assert all(group["settings"] for group in data["groups"])


def test_a_sweep_joins_with_its_best_trial(tmp_path_factory):
    from report_folders import make_sweep

    sweep = make_sweep(tmp_path_factory.mktemp("sweep"))
    run = make_run(tmp_path_factory.mktemp("run"))
    data = side_by_side_data([sweep, run])
    (best,) = data["sweeps"]
    number = re.search(r"trial (\d+)", (sweep / "best.toml").read_text()).group(1)
    assert best["trial"] == int(number)
    assert set(best["params"]) == {"ga.mutation.replace_rate", "ga.tournament_size"}
    assert data["groups"][0]["label"] == f"{sweep.name} · best trial {number}"  # only it
    assert data["groups"][0]["solver"] == f"trial-{number}"


def test_the_page_goes_to_the_current_directory_or_out(folders, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert side_by_side_path(folders) == Path(SIDE_BY_SIDE_FILE)
    assert side_by_side_path(folders, tmp_path) == tmp_path / SIDE_BY_SIDE_FILE
    assert side_by_side_path(folders, tmp_path / "x.html") == tmp_path / "x.html"
    with pytest.raises(EvosokoError, match="folder's own report.html"):
        side_by_side_path(folders, folders[1] / REPORT_FILE)


def test_the_api_writes_one_page_and_leaves_the_folders_alone(folders, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = {folder: sorted(p.name for p in folder.iterdir()) for folder in folders}
    own = {folder: (folder / REPORT_FILE).read_bytes() for folder in folders}
    path = evosoko.report(list(folders))
    assert path == Path(SIDE_BY_SIDE_FILE) and path.is_file()
    assert embedded(path.read_text())["kind"] == "folders"
    assert {f: sorted(p.name for p in f.iterdir()) for f in folders} == before
    assert {folder: (folder / REPORT_FILE).read_bytes() for folder in folders} == own
    single = evosoko.report(folders[0], tmp_path / "one.html")  # one folder: its own page
    assert embedded(single.read_text())["kind"] == "run"


def test_report_command_writes_one_page_for_several_folders(folders, tmp_path):
    out = tmp_path / "side.html"
    result = CliRunner().invoke(app, ["report", *map(str, folders), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.replace("\n", "").startswith(f"wrote {out} (")
    assert embedded(out.read_text())["kind"] == "folders"


@pytest.mark.parametrize("case", ["twice", "own report", "level run", "not a folder"])
def test_what_cannot_be_joined_is_one_error_line(case, folders, tmp_path):
    first, second = folders[0], folders[1]
    (tmp_path / "levels").mkdir()
    (tmp_path / "levels" / "levels.toml").write_text("[levels]\n")
    (tmp_path / "levels" / "summary.json").write_text("{}")
    page = tmp_path / "page.html"
    arguments = {
        "twice": [first, second, first, "--out", page],
        "own report": [first, second, "--out", first / REPORT_FILE],
        "level run": [first, tmp_path / "levels", "--out", page],
        "not a folder": [first, tmp_path / "missing", "--out", page],
    }[case]
    own = (first / REPORT_FILE).read_bytes()
    result = CliRunner().invoke(app, ["report", *map(str, arguments)])
    assert result.exit_code == 2, result.output
    assert result.output.startswith("error: ") and result.output.count("error:") == 1
    assert "Traceback" not in result.output
    assert not page.exists()
    assert (first / REPORT_FILE).read_bytes() == own


def test_hostile_titles_and_names_stay_text(tmp_path):
    from evosoko.config import load_config
    from evosoko.experiment.run.runner import start_run

    hostile = '</script><script>alert(1)</script><b>bold</b> & "quotes"'
    levels = tmp_path / "hostile.xsb"
    levels.write_text(f"; {hostile}\n#####\n#@$.#\n#####\n")
    runs = []
    for number, name in enumerate(("one", hostile)):
        config = load_config(
            None,
            [
                f"run.levels={levels}",
                f"output.dir={tmp_path / str(number)}",
                f"run.name={name}",
                "run.budget.generations=1",
            ],
        )
        runs.append(start_run(config).run_dir)
    page = Path(evosoko.report(runs, tmp_path / "page.html")).read_text()
    assert "<script>alert(1)" not in page
    assert "<b>bold</b>" not in page
    assert page.count("<script") == 2  # the data block and the report's own script
    data = embedded(page)
    assert data["levels"][0]["name"] == hostile
    assert html_escaped(hostile) in page  # the joined table's level cell
    assert ["run.name", "one", hostile] in data["differences"]


def html_escaped(text: str) -> str:
    from html import escape

    return escape(text)
