"""Tests of the run folder: names, atomic files, appended rows and their repair on resume."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evosoko.errors import EvosokoError
from evosoko.experiment.atomic import write_json_atomic, write_text_atomic
from evosoko.experiment.run.folder import RunFolder, folder_name
from evosoko.experiment.run.records import METRICS_COLUMNS


def row(level: int, generation: int) -> dict[str, str]:
    values = dict.fromkeys(METRICS_COLUMNS, "0")
    values.update(level_index=str(level), level=f"L{level}", generation=str(generation))
    return values


def test_folder_name_format_and_unsafe_characters():
    when = datetime(2026, 11, 22, 3, 19, 55, tzinfo=UTC)
    assert folder_name("micro ban/1", when, "a1b2c3") == "20261122T031955Z_micro-ban-1_a1b2c3"
    assert folder_name("///", when, "a1b2c3") == "20261122T031955Z_run_a1b2c3"


def test_create_makes_distinct_folders_under_a_new_parent(tmp_path):
    first = RunFolder.create(tmp_path / "deep" / "runs", "x")
    second = RunFolder.create(tmp_path / "deep" / "runs", "x")
    assert first.path != second.path
    for folder in (first, second):
        assert (folder.path / "plots").is_dir() and (folder.path / "checkpoints").is_dir()
        assert folder.file("metrics.csv").read_text().strip() == ",".join(METRICS_COLUMNS)


def test_atomic_writes_replace_whole_files_and_leave_no_temporaries(tmp_path):
    target = tmp_path / "file.json"
    write_json_atomic(target, {"a": 1})
    write_text_atomic(target, "second\n")
    assert target.read_text() == "second\n"
    assert [p.name for p in tmp_path.iterdir()] == ["file.json"]


def test_failed_atomic_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "file.txt"
    write_text_atomic(target, "old\n")
    with pytest.raises(TypeError):
        write_text_atomic(target, None)  # type: ignore[arg-type]
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["file.txt"]


def test_checkpoints_round_trip(tmp_path):
    folder = RunFolder.create(tmp_path, "x")
    assert folder.load_checkpoint(4) is None
    path = folder.save_checkpoint(4, {"generation": 8, "genes": [[1, 2], [3]]})
    assert path.name == "level-4.json"
    assert folder.load_checkpoint(4) == {"generation": 8, "genes": [[1, 2], [3]]}


def test_repair_keeps_finished_levels_and_rows_up_to_the_checkpoint(tmp_path):
    folder = RunFolder.create(tmp_path, "x")
    for level, generations in ((1, 3), (2, 9)):
        for generation in range(generations):
            folder.add_metrics(row(level, generation))
    folder.close()
    with open(folder.file("metrics.csv"), "a") as file:
        file.write("2,L2,9,0")  # a row cut short by a crash
    assert len(folder.read_metrics()) == 12
    folder.repair_metrics({1}, (2, 5))
    kept = [(int(r["level_index"]), int(r["generation"])) for r in folder.read_metrics()]
    assert kept == [(1, g) for g in range(3)] + [(2, g) for g in range(6)]
    folder.add_metrics(row(2, 6))
    assert folder.read_metrics()[-1]["generation"] == "6"


def test_repair_without_checkpoint_drops_the_unfinished_level(tmp_path):
    folder = RunFolder.create(tmp_path, "x")
    folder.add_metrics(row(1, 0))
    folder.add_metrics(row(2, 0))
    folder.repair_metrics({1}, None)
    assert [r["level_index"] for r in folder.read_metrics()] == ["1"]


def test_open_rejects_other_folders_and_bad_metrics(tmp_path):
    with pytest.raises(EvosokoError, match="not a run folder"):
        RunFolder.open(tmp_path)
    folder = RunFolder.create(tmp_path, "x")
    folder.file("metrics.csv").write_text("a,b\n1,2\n")
    with pytest.raises(EvosokoError, match="expected columns"):
        folder.read_metrics()


def test_events_are_json_lines_with_utc_times(tmp_path):
    import json

    folder = RunFolder.create(tmp_path, "x")
    folder.add_event("level_started", index=2, level="L2")
    folder.add_event("solved", index=2, moves=10)
    events = [json.loads(line) for line in folder.file("events.jsonl").read_text().splitlines()]
    assert [e["event"] for e in events] == ["level_started", "solved"]
    assert events[1]["moves"] == 10 and events[0]["time"].endswith("Z")


UNTITLED = """\
#####
#@$.#
#####

######
#@ $.#
######

#######
#@  $.#
#######
"""


def test_solutions_of_untitled_levels_keep_their_positions():
    from evosoko.experiment.run.folder import solution_collection
    from evosoko.sokoban.formats import format_levels, parse_levels
    from evosoko.sokoban.solution_files import match_solutions

    levels = parse_levels(UNTITLED, "untitled.xsb")
    assert all(level.title is None for level in levels)
    written = parse_levels(format_levels(solution_collection(levels, {2: "rR"})), "solutions.sok")
    assert len(written) == 2 and dict(written[1].notes) == {"Solution": "rR"}
    (entry,) = match_solutions(levels, written)
    assert entry.level is levels[1] and entry.lurd == "rR"


def test_solutions_of_titled_levels_are_the_solved_ones_only():
    from evosoko.experiment.run.folder import solution_collection
    from evosoko.sokoban.formats import parse_levels

    boards = UNTITLED.split("\n\n")
    text = "\n".join(f"; {title}\n{board.strip()}\n" for title, board in zip("abc", boards))
    levels = parse_levels(text, "titled.xsb")
    assert [level.title for level in levels] == ["a", "b", "c"]
    collection = solution_collection(levels, {3: "rrR", 1: "R"})
    assert [(level.title, dict(level.notes)["Solution"]) for level in collection] == [
        ("c", "rrR"),
        ("a", "R"),
    ]
