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
    assert records[0]["found_by"] is None  # one search, not several
    assert records[0]["parts"] == []


def test_json_lines_say_which_of_push_fess_bis_searches_solved():
    result = runner.invoke(
        app,
        ["solve", str(BUNDLED_SEEDS), "-l", "seed000-case3", "--algo", "push-fess-bi", "--json"],
    )
    assert result.exit_code == 0, result.output
    record = json.loads(result.stdout)
    assert record["found_by"] in ("push-fess", "ball", "plain push-fess (room_links 1)")
    assert record["parts"][0]["name"] == "push-fess"
    assert sum(part["expanded"] for part in record["parts"]) == record["expanded"]


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


def test_set_changes_a_knob_and_the_json_line_records_the_settings():
    arguments = ["solve", str(BUNDLED_SEEDS), "-l", "seed000-case3", "--algo", "push-fess"]
    plain = runner.invoke(app, [*arguments, "--json"])
    tuned = runner.invoke(
        app, [*arguments, "--json", "--set", "fess.alternate=2", "--set", "fess.weight=5"]
    )
    assert plain.exit_code == tuned.exit_code == 0, tuned.output
    before, after = json.loads(plain.stdout), json.loads(tuned.stdout)
    assert before["settings"]["alternate"] == 3 and before["settings"]["weight"] == 3
    assert after["settings"]["alternate"] == 2 and after["settings"]["weight"] == 5
    weighted = runner.invoke(app, [*arguments, "--json", "--set", "fess.weight=5", "--weight", "4"])
    assert json.loads(weighted.stdout)["settings"]["weight"] == 4  # --weight replaces it
    moves = runner.invoke(app, ["solve", str(BUNDLED_SEEDS), "-l", "1", "--algo", "bfs", "--json"])
    assert json.loads(moves.stdout)["settings"] == {}


def test_config_reads_the_search_table_of_a_run_configuration(tmp_path):
    config = tmp_path / "tuned.toml"
    config.write_text("[search.fess]\ncluster_limit = 3000\n", encoding="utf-8")
    result = runner.invoke(
        app,
        ["solve", str(BUNDLED_SEEDS), "-l", "1", "--algo", "push-fess", "--json"]
        + ["--config", str(config), "--set", "fess.alternate=4"],
    )
    assert result.exit_code == 0, result.output
    settings = json.loads(result.stdout)["settings"]
    assert (settings["cluster_limit"], settings["alternate"]) == (3000, 4)


def test_a_bad_knob_is_one_line_with_the_closest_key(tmp_path):
    base = ["solve", str(BUNDLED_SEEDS), "-l", "1", "--algo", "push-fess"]
    typo = runner.invoke(app, [*base, "--set", "fess.cluster_limt=3000"])
    assert typo.exit_code == 2
    assert typo.stderr.strip() == (
        "error: --set: unknown key 'fess.cluster_limt'; did you mean 'fess.cluster_limit'?"
    )
    wrong = runner.invoke(app, [*base, "--set", "fess.alternate=-1"])
    assert wrong.exit_code == 2
    assert wrong.stderr.startswith("error: --set: fess.alternate: Input should be greater")
    config = tmp_path / "bad.toml"
    config.write_text("[search.fess]\n\ncluster_limt = 3000\n", encoding="utf-8")
    in_file = runner.invoke(app, [*base, "--config", str(config)])
    assert in_file.exit_code == 2
    assert in_file.stderr.strip() == (
        f"error: {config}:3: unknown key 'search.fess.cluster_limt'; "
        "did you mean 'search.fess.cluster_limit'?"
    )
    heavy = runner.invoke(app, [*base, "--weight", "0.5"])
    assert heavy.exit_code == 2 and "weight" in heavy.stderr
    assert "Traceback" not in typo.output + wrong.output + in_file.output + heavy.output


def test_ctrl_c_while_compiling_says_so_and_searches_nothing(monkeypatch):
    from evosoko import search

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(search, "warm_up", interrupted)
    result = runner.invoke(app, ["solve", str(BUNDLED_SEEDS), "-l", "1", "--algo", "bfs"])
    assert result.exit_code == 130
    assert result.stdout == ""
    assert result.stderr.strip() == (
        "interrupted while compiling the search's kernels (a first run only); no level was searched"
    )


def test_ctrl_c_prints_the_levels_done_and_names_the_one_cut_short(monkeypatch):
    from evosoko import api

    solve = api.solve
    calls = []

    def interrupted_on_the_second(level, *args, **kwargs):
        calls.append(level.name)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return solve(level, *args, **kwargs)

    monkeypatch.setattr(api, "solve", interrupted_on_the_second)
    arguments = ["solve", str(BUNDLED_SEEDS), "-l", "2", "-l", "1", "--algo", "bfs"]
    result = runner.invoke(app, arguments)
    assert result.exit_code == 130
    assert "seed000-case3" in result.stdout and "solved" in result.stdout
    assert "seed000-case3: " in result.stdout  # its solution line
    assert "seed000-example" not in result.stdout
    assert result.stderr.strip() == (
        "interrupted during level seed000-example (2 of 2); the levels before it are shown above"
    )
    calls.clear()
    lines = runner.invoke(app, [*arguments, "--json"])
    assert lines.exit_code == 130
    assert [json.loads(line)["level"] for line in lines.stdout.splitlines()] == ["seed000-case3"]
