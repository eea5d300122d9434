"""One count everywhere: a level's generations, evaluations and seconds are the same in the
progress display, the result line, results.csv, the last metrics.csv row, summary.json, the
--json summary and the level_finished event; an untitled level is labelled once."""

from __future__ import annotations

import io
import json

import pytest
from experiment_helpers import SEED_LEVELS, read_csv, tiny_config

from evosoko.experiment.run.progress import LineProgress, describe_result
from evosoko.experiment.run.runner import start_run
from evosoko.sokoban.formats import format_levels, read_levels, select_levels

STARTER = SEED_LEVELS.parent / "starter.xsb"


def levels_file(tmp_path):
    """The seed levels (solved within a few generations) and a starter level that 13
    generations do not solve."""
    hard = select_levels(read_levels(STARTER), ["hard-12"])
    path = tmp_path / "levels.xsb"
    path.write_text(SEED_LEVELS.read_text() + "\n" + format_levels(hard))
    return path


class Recorder(LineProgress):
    """The plain progress display, with the last generation it was shown per level."""

    def __init__(self) -> None:
        super().__init__(io.StringIO())
        self.shown: dict[str, tuple[int, int]] = {}
        self.current = None

    def on_level_start(self, level) -> None:
        self.current = level.name

    def on_generation(self, generation) -> None:
        stats = generation.stats
        self.shown[self.current] = (stats.generation, stats.evaluations)


@pytest.mark.parametrize(
    "overrides",
    [
        ["ga.encoding=pushes"],  # one population
        # islands that finish their epoch after one of them solved, and a level out of budget
        [
            "ga.encoding=pushes",
            "ga.islands.count=3",
            "ga.islands.migration_every=5",
            "parallel.backend=processes",
            "parallel.workers=2",
        ],
        ["ga.encoding=moves", "ga.islands.count=2", "ga.islands.migration_every=4"],
    ],
    ids=["population", "islands-processes", "islands-moves"],
)
def test_generations_evaluations_and_seconds_agree_everywhere(tmp_path, overrides):
    config = tiny_config(
        tmp_path, f"run.levels={levels_file(tmp_path)}", "run.budget.generations=13", *overrides
    )
    progress = Recorder()
    report = start_run(config, progress=progress)
    assert report.status == "completed", report.message
    folder = report.run_dir
    summary = json.loads((folder / "summary.json").read_text())
    cli_json = report.json_summary()
    results = read_csv(folder / "results.csv")
    metrics = read_csv(folder / "metrics.csv")
    finished = [
        event
        for event in map(json.loads, (folder / "events.jsonl").read_text().splitlines())
        if event["event"] == "level_finished"
    ]
    lines = progress.stream.getvalue().splitlines()
    for position, result in enumerate(report.results):
        last = [row for row in metrics if row["level_index"] == str(result.index)][-1]
        counts = (result.generations, result.evaluations, f"{result.seconds:.3f}")
        assert (int(last["generation"]), int(last["evaluations"]), last["seconds"]) == counts
        row = results[position]
        assert (int(row["generations"]), int(row["evaluations"]), row["seconds"]) == counts
        for entry in (summary["levels"][position], cli_json["levels"][position]):
            assert (entry["generations"], entry["evaluations"], entry["seconds"]) == (
                result.generations,
                result.evaluations,
                result.seconds,
            )
        event = finished[position]
        assert (event["generations"], event["evaluations"]) == counts[:2]
        assert progress.shown[result.level_name] == counts[:2]
        assert lines[position] == describe_result(result)
        assert (
            f"after {result.generations} generations, {result.evaluations} evaluations"
            in (lines[position])
        )
        assert last["solved"] == ("1" if result.solved else "0")
    assert any(r.solved for r in report.results) and not all(r.solved for r in report.results)


def test_an_untitled_level_is_named_once(tmp_path):
    levels = tmp_path / "plain.xsb"
    levels.write_text("#######\n#@ $ .#\n#######\n\n########\n#@ $  .#\n########\n")
    config = tiny_config(tmp_path, f"run.levels={levels}", "run.select=[2]")
    progress = Recorder()
    report = start_run(config, progress=progress)
    (line,) = progress.stream.getvalue().splitlines()
    assert line.startswith("level 2: solved")
    assert "level 2 2" not in (report.run_dir / "run.log").read_text()
