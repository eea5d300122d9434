"""``evosoko solve``: table, JSON lines, exit codes, and bad input without a traceback."""

from __future__ import annotations

import json

from tiny_levels import BUNDLED_SEEDS
from typer.testing import CliRunner

from evosoko.cli import app
from evosoko.cli.solve import JSON_KEYS
from evosoko.search.result import BEST_KEYS
from evosoko.sokoban.formats import read_levels, select_levels
from evosoko.sokoban.solutions import verify_solution

runner = CliRunner()


def test_json_lines_carry_the_keys_and_verified_solutions():
    result = runner.invoke(
        app,
        ["solve", str(BUNDLED_SEEDS), "-l", "seed000-case3", "-l", "1", "--algo", "bfs", "--json"],
    )
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [tuple(record) for record in records] == [JSON_KEYS, JSON_KEYS]
    assert [record["level"] for record in records] == ["seed000-case3", "seed000-example"]
    assert records[0]["moves"] == 34
    level = select_levels(read_levels(BUNDLED_SEEDS), ["seed000-case3"])[0]
    assert verify_solution(level, records[0]["solution"]).solved


def test_the_table_names_each_level_and_an_unsolved_level_exits_1():
    solved = runner.invoke(app, ["solve", str(BUNDLED_SEEDS), "-l", "2"])
    assert solved.exit_code == 0
    assert "seed000-case3" in solved.stdout and "solved" in solved.stdout
    cut_short = runner.invoke(
        app, ["solve", str(BUNDLED_SEEDS), "-l", "2", "--algo", "bfs", "--node-limit", "3"]
    )
    assert cut_short.exit_code == 1
    assert "budget: nodes" in cut_short.stdout


def test_an_unsolved_level_has_no_moves_or_pushes_to_show():
    arguments = ["solve", str(BUNDLED_SEEDS), "-l", "2", "--algo", "bfs", "--node-limit", "3"]
    table = runner.invoke(app, arguments)
    (row,) = [line for line in table.stdout.splitlines() if "budget: nodes" in line]
    cells = [cell.strip() for cell in row.strip("│| ").split("│")]
    assert cells[2:4] == ["-", "-"], row  # not "0 moves, 0 pushes": there is no solution
    record = json.loads(runner.invoke(app, [*arguments, "--json"]).stdout)
    assert record["moves"] is None and record["pushes"] is None


def test_bad_names_exit_2_with_one_error_line():
    for arguments in (
        ["--algo", "quantum"],
        ["--heuristic", "manhattan-source"],
        ["-l", "no-such-level"],
        ["--time-limit", "0"],
    ):
        result = runner.invoke(app, ["solve", str(BUNDLED_SEEDS), *arguments])
        assert result.exit_code == 2, arguments
        assert result.stderr.startswith("error: ")
        assert "Traceback" not in result.output


def test_an_unfinished_search_reports_its_best_open_state():
    cut_short = runner.invoke(
        app,
        ["solve", str(BUNDLED_SEEDS), "-l", "seed000-case3", "--node-limit", "2", "--json"],
    )
    assert cut_short.exit_code == 1
    record = json.loads(cut_short.stdout)
    best = record["best"]
    assert (record["status"], record["exhausted"]) == ("budget", "nodes")
    assert record["solution"] is None
    assert tuple(best) == BEST_KEYS and best["solved"] is False and best["distance"] > 0
    level = select_levels(read_levels(BUNDLED_SEEDS), ["seed000-case3"])[0]
    check = verify_solution(level, best["lurd"])
    assert check.valid and not check.solved
    assert (check.moves, check.pushes) == (best["moves"], best["pushes"])
