"""report.html of runs, comparisons and sweeps: the data it embeds, escaping, files, the CLI."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_folders import (
    CASE3_BEST,
    SEEDS,
    as_older_folder,
    give_best,
    make_compare,
    make_run,
    make_sweep,
)
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.errors import EvosokoError
from evosoko.experiment.report import writer as report_module
from evosoko.experiment.report.writer import (
    REPORT_FILE,
    build_report,
    folder_kind,
    report_data,
    write_report,
)
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.solutions import verify_solution


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    return make_run(tmp_path_factory.mktemp("run"))


@pytest.fixture(scope="module")
def compare_dir(tmp_path_factory):
    return make_compare(tmp_path_factory.mktemp("compare"))


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    return make_sweep(tmp_path_factory.mktemp("sweep"))


def embedded(html: str) -> dict:
    """The JSON data block of a report page."""
    match = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', html)
    assert match, "no data block"
    return json.loads(match.group(1))


def copy_files(source: Path, target: Path) -> Path:
    """A copy of the files (not the subfolders) of a run folder, to alter."""
    target.mkdir()
    for path in source.iterdir():
        if path.is_file():
            (target / path.name).write_bytes(path.read_bytes())
    return target


class Resources(HTMLParser):
    """Every URL a page would load: src and href attributes, CSS url(...)."""

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("src", "href") and value is not None:
                self.urls.append(value)


def test_run_and_compare_write_their_report_as_they_go(run_dir, compare_dir):
    for folder in (run_dir, compare_dir):
        page = (folder / REPORT_FILE).read_text(encoding="utf-8")
        assert page.startswith("<!DOCTYPE html>")
        assert not list(folder.glob(".report.html.*"))  # written atomically, nothing left


def test_run_report_holds_results_curves_and_tracks(run_dir):
    data = report_data(run_dir)
    assert data["kind"] == "run" and data["status"] == "completed"
    example, case3 = data["levels"]
    levels = read_levels(SEEDS)
    assert example["rows"] == levels[0].rows() and case3["rows"] == levels[1].rows()
    assert example["result"]["solved"] and not case3["result"]["solved"]
    assert example["track"]["solves"] and example["track"]["lurd"]
    curve = case3["curve"]
    assert curve["g"] == [0, 1, 2]
    assert all(len(curve[key]) == 3 for key in ("best", "mean", "std", "bsf", "e"))
    assert curve["bsf"] == [min(curve["best"][: i + 1]) for i in range(3)]


def test_an_unsolved_level_plays_the_gas_best_prefix(run_dir, tmp_path):
    folder = copy_files(run_dir, tmp_path / "copy")
    as_older_folder(folder)
    unsolved = report_data(folder)["levels"][1]
    assert unsolved["track"] is None  # a folder from before best individuals were kept
    give_best(folder)
    track = report_data(folder)["levels"][1]["track"]
    assert track == {
        "lurd": CASE3_BEST,
        "solves": False,
        "label": "GA's best prefix",
        "distance": 5,
    }
    assert report_data(folder)["levels"][1]["result"]["best_distance"] == 5


def test_a_fresh_run_shows_the_best_individual_its_folder_keeps(run_dir):
    summary = json.loads((run_dir / "summary.json").read_text())
    unsolved = summary["levels"][1]
    track = report_data(run_dir)["levels"][1]["track"]
    if "best" not in unsolved:  # a tree without issue 16: nothing to show for it
        assert track is None
        return
    best = unsolved["best"]
    assert track["lurd"] == best["lurd"] and not track["solves"]
    assert track["distance"] == best["distance"]
    check = verify_solution(read_levels(SEEDS)[1], track["lurd"])
    assert check.valid and not check.solved and check.moves == best["moves"] > 0


def test_best_notes_of_solutions_sok_are_the_fallback(run_dir, tmp_path):
    folder = copy_files(run_dir, tmp_path / "notes")
    as_older_folder(folder)
    case3 = read_levels(SEEDS)[1]
    with open(folder / "solutions.sok", "a", encoding="utf-8") as stream:
        stream.write(
            "\n" + "\n".join(case3.rows()) + "\nTitle: seed000-case3\nBest: dRRR\nDistance: 9\n"
        )
    track = report_data(folder)["levels"][1]["track"]
    assert (track["lurd"], track["solves"], track["distance"]) == ("dRRR", False, 9)


def test_boards_come_from_solutions_sok_when_the_level_file_is_gone(run_dir, tmp_path):
    folder = copy_files(run_dir, tmp_path / "moved")
    as_older_folder(folder)
    config = (folder / "config.toml").read_text()
    (folder / "config.toml").write_text(config.replace(str(SEEDS), str(tmp_path / "gone.xsb")))
    example, case3 = report_data(folder)["levels"]
    assert example["rows"] == read_levels(SEEDS)[0].rows()  # solved: in solutions.sok
    assert case3["rows"] is None  # unsolved and the level file is gone: no board
    assert "<table" in build_report(folder)


def test_long_runs_are_summarised_in_buckets():
    points = [(g, 10 * g, 50 - g % 7, 60.0, 2.0) for g in range(1000)]
    curve = report_module._curve(points)
    assert len(curve["g"]) <= report_module.MAX_CURVE_POINTS
    assert curve["g"][-1] == 999 and curve["bucket"] == 4
    assert curve["bsf"][-1] == 44 and min(curve["best"]) == 44


def test_compare_report_holds_summary_jobs_and_levels(compare_dir):
    data = report_data(compare_dir)
    assert data["kind"] == "compare" and data["status"] == "complete"
    assert data["solvers"] == ["ga-small", "bfs", "push-astar"]
    assert [s["solver"] for s in data["summary"]] == data["solvers"]
    assert [level["index"] for level in data["levels"]] == [1, 2]
    assert len(data["jobs"]) == data["jobs_planned"] == 2 * 2 + 2 + 2
    solved = [job for job in data["jobs"] if job[3]]
    assert solved and all(job[9] for job in solved)


def test_the_compare_report_table_is_summary_mds_with_its_intervals_and_tests(compare_dir):
    """The report once showed bare point estimates rounded to four digits (an ERT of 69,151
    as 69,150) where summary.md had intervals and paired tests."""
    page = build_report(compare_dir)
    table = page.split('id="summary-table"')[1].split("</table>")[0]
    cells = [re.sub("<[^>]+>", "", row).strip() for row in table.split("<tr>")[2:]]
    markdown = (compare_dir / "summary.md").read_text().splitlines()
    md_rows = [line for line in markdown if line.startswith("| ") and "---" not in line][1:4]
    for md_row, html_row in zip(md_rows, table.split("<tr>")[2:]):
        html_cells = [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", html_row)]
        assert html_cells == [c.strip() for c in md_row.strip("| ").split(" | ")]
    assert cells and "[" in table  # intervals
    assert 'id="tests-table"' in page and "Paired tests" in page


def test_sweep_report_holds_trials_and_figures(sweep_dir):
    data = report_data(sweep_dir)
    assert data["kind"] == "sweep"
    assert len(data["trials"]) == 4
    assert data["columns"][:2] == ["trial", "status"]
    assert {figure["name"] for figure in data["figures"]} >= {"parameters", "history"}
    page = build_report(sweep_dir)
    assert page.count("data:image/png;base64,") == len(data["figures"])


@pytest.mark.parametrize("kind", ["run", "compare", "sweep"])
def test_reports_need_no_network(kind, run_dir, compare_dir, sweep_dir):
    folder = {"run": run_dir, "compare": compare_dir, "sweep": sweep_dir}[kind]
    page = build_report(folder)
    parser = Resources()
    parser.feed(page)
    assert all(url.startswith("data:") for url in parser.urls), parser.urls
    assert "url(" not in page
    assert "@import" not in page


def test_text_from_files_cannot_become_markup(tmp_path):
    hostile = '</script><script>alert(1)</script><b>bold</b> & "quotes"'
    levels = tmp_path / "hostile.xsb"
    levels.write_text(f"; {hostile}\n#####\n#@$.#\n#####\n")
    from evosoko.config import load_config
    from evosoko.experiment.run.runner import start_run

    config = load_config(
        None,
        [
            f"run.levels={levels}",
            f"output.dir={tmp_path}",
            f"run.name={hostile}",
            "run.budget.generations=1",
        ],
    )
    folder = start_run(config).run_dir
    page = build_report(folder)
    assert "<script>alert(1)" not in page
    assert "<b>bold</b>" not in page
    assert page.count("<script") == 2  # the data block and the report's own script
    data = embedded(page)
    assert data["levels"][0]["name"] == hostile
    assert "&lt;b&gt;bold&lt;/b&gt;" in page  # the config shown as text


def test_write_report_and_folder_kinds(run_dir, compare_dir, sweep_dir, tmp_path):
    assert [folder_kind(d) for d in (run_dir, compare_dir, sweep_dir)] == [
        "run",
        "compare",
        "sweep",
    ]
    with pytest.raises(EvosokoError, match="not a run, comparison, sweep or level run folder"):
        folder_kind(tmp_path)
    with pytest.raises(EvosokoError, match="no such folder"):
        folder_kind(tmp_path / "missing")
    path = write_report(run_dir)
    assert path == run_dir / REPORT_FILE and path.stat().st_size > 1000


def test_report_command_writes_a_folders_report_and_refuses_others(run_dir, compare_dir, tmp_path):
    for folder in (run_dir, compare_dir):
        result = CliRunner().invoke(app, ["report", str(folder)])
        assert result.exit_code == 0, result.output
        assert f"wrote {folder / REPORT_FILE}" in result.output.replace("\n", "")
    result = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output.startswith(
        f"error: {tmp_path}: not a run, comparison, sweep or level run folder"
    )
    assert "Traceback" not in result.output


def test_a_broken_summary_is_one_error_line(run_dir, tmp_path):
    folder = tmp_path / "broken"
    folder.mkdir()
    (folder / "config.toml").write_text((run_dir / "config.toml").read_text())
    (folder / "summary.json").write_text("{ not json")
    result = CliRunner().invoke(app, ["report", str(folder)])
    assert result.exit_code == 2
    assert "summary.json:1: not valid JSON" in result.output


def test_a_report_that_fails_never_stops_the_run(monkeypatch, tmp_path):
    def boom(folder):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(report_module, "write_report", boom)
    assert report_module.refresh_report(tmp_path) is None


def test_a_run_in_progress_has_a_report_of_the_levels_it_finished(tmp_path):
    from experiment_helpers import tiny_config

    from evosoko.experiment.run.progress import NoProgress
    from evosoko.experiment.run.runner import start_run

    seen = {}

    class Probe(NoProgress):
        def on_level_start(self, level) -> None:
            (folder,) = tmp_path.glob("*_run_*")
            if (folder / REPORT_FILE).is_file():
                seen[level.index] = embedded((folder / REPORT_FILE).read_text(encoding="utf-8"))

    start_run(tiny_config(tmp_path), progress=Probe())
    assert sorted(seen) == [2, 3]  # none before the first level ends
    levels = seen[2]["levels"]
    assert seen[2]["status"] == "running"
    assert levels[0]["result"] is not None and levels[1]["result"] is None
    assert [level["result"] is not None for level in seen[3]["levels"]] == [True, True, False]


def test_a_comparison_in_progress_has_a_report_of_the_jobs_done(tmp_path):
    from report_folders import COMPARE

    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.compare.runner import run_compare

    path = tmp_path / "tiny.toml"
    path.write_text(COMPARE)
    run_compare(load_compare_config(path), tmp_path / "out", stop_after=3, plots=False)
    data = embedded((tmp_path / "out" / REPORT_FILE).read_text(encoding="utf-8"))
    assert (data["status"], data["jobs_done"], data["jobs_planned"]) == ("in progress", 3, 8)


def test_a_level_file_changed_since_the_run_gives_no_wrong_board(run_dir, tmp_path):
    folder = copy_files(run_dir, tmp_path / "changed")
    edited = tmp_path / "edited.xsb"
    edited.write_text(SEEDS.read_text().replace("#.$@-----#", "#.$-@----#", 1))
    config = (folder / "config.toml").read_text()
    (folder / "config.toml").write_text(config.replace(str(SEEDS), str(edited)))
    example, case3 = report_data(folder)["levels"]
    assert example["rows"] == read_levels(SEEDS)[0].rows()  # from solutions.sok, not the edit
    assert case3["rows"] == read_levels(SEEDS)[1].rows()  # unchanged in the file


def test_a_summary_that_is_not_a_runs_is_one_error_line(run_dir, tmp_path):
    folder = copy_files(run_dir, tmp_path / "odd")
    summary = json.loads((folder / "summary.json").read_text())
    summary["levels"] = [{"no index": 1}]
    (folder / "summary.json").write_text(json.dumps(summary))
    result = CliRunner().invoke(app, ["report", str(folder)])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {folder}: cannot read this run folder")


def test_infinite_numbers_in_a_summary_do_not_break_the_page(run_dir, tmp_path):
    folder = copy_files(run_dir, tmp_path / "inf")
    text = (folder / "summary.json").read_text()
    summary = json.loads(text)
    summary["levels"][1]["best_distance"] = float("inf")
    summary["levels"][1].pop("best", None)  # whose distance would be shown instead
    (folder / "summary.json").write_text(json.dumps(summary))  # writes Infinity
    data = embedded(build_report(folder))
    assert data["levels"][1]["result"]["best_distance"] is None
