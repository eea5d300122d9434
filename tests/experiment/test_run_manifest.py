"""A run folder that knows itself: resume checks the files against each other and the manifest.

Reproductions of issue 55, item 1, on an interrupted run of Microban 93, 105 and 145 with the
pushes preset (islands; smaller and serial here to be quick): ``"levels": []`` in summary.json
made the resume delete the rows of level 105; a checkpoint whose generation was moved back had
its later rows deleted and run again; a summary marked completed left its levels unrun. Each
resume was silent and exited 0.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import pytest
from experiment_helpers import StopAt, tiny_config

from evosoko.config import load_config
from evosoko.errors import EvosokoError, EvosokoWarning
from evosoko.experiment.interrupts import GracefulInterrupts
from evosoko.experiment.run.progress import NoProgress
from evosoko.experiment.run.runner import resume_run, start_run

REPO = Path(__file__).resolve().parents[2]
MICROBAN = next(
    (
        path
        for path in (place / "shared" / "levels" / "microban.txt" for place in REPO.parents[:2])
        if path.is_file()
    ),
    REPO.parent / "shared" / "levels" / "microban.txt",
)  # ../shared/levels beside the repository (or beside a worktree's folder)
STOP_LEVEL, STOP_GENERATION = 105, 14

pytestmark = pytest.mark.skipif(not MICROBAN.is_file(), reason="needs the Microban level file")


def _config(output: Path):
    return load_config(
        REPO / "configs" / "pushes.toml",
        [
            f"run.levels={MICROBAN}",
            "run.select=[93, 105, 145]",
            f"output.dir={output}",
            "parallel.backend=serial",
            "ga.population=10",
            "ga.offspring=10",
            "ga.islands.migration_every=4",
            "output.checkpoint_every=4",
            "run.budget.generations=20",
            "run.budget.seconds=none",
            "output.plots=false",
        ],
    )


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory):
    """A run stopped in level 105 (level 93 finished)."""
    interrupts = GracefulInterrupts()
    report = start_run(
        _config(tmp_path_factory.mktemp("manifest")),
        progress=StopAt(interrupts, STOP_LEVEL, STOP_GENERATION, abort=False),
        interrupts=interrupts,
    )
    assert report.status == "interrupted" and [r.index for r in report.results] == [93]
    return report.run_dir


@pytest.fixture
def run(interrupted, tmp_path):
    copy = tmp_path / "run"
    shutil.copytree(interrupted, copy)
    return copy


def _edit(path: Path, change) -> None:
    path.write_text(json.dumps(change(json.loads(path.read_text()))))


def _checkpoint(run: Path) -> Path:
    return run / "checkpoints" / f"level-{STOP_LEVEL}.json"


def _rows(run: Path) -> list[str]:
    return (run / "metrics.csv").read_text().splitlines()


def _refused(run: Path, pattern: str) -> EvosokoError:
    before = (run / "metrics.csv").read_bytes()
    with pytest.raises(EvosokoError, match=pattern) as caught:
        resume_run(run)
    assert (run / "metrics.csv").read_bytes() == before  # not a row lost
    return caught.value


def _resume_and_stop(run: Path, warnings_are: str) -> str:
    """Resume ``run`` and stop it at once (its checks and repairs only); the status, with
    EvosokoWarnings treated as ``warnings_are`` (``"ignore"``, ``"error"``)."""
    interrupts = GracefulInterrupts()
    interrupts.request()
    with warnings.catch_warnings():
        warnings.simplefilter(warnings_are, EvosokoWarning)  # type: ignore[arg-type]
        return resume_run(run, interrupts=interrupts).status


def test_an_undamaged_folder_resumes_without_a_warning(run):
    with warnings.catch_warnings():
        warnings.simplefilter("error", EvosokoWarning)
        assert resume_run(run).status == "completed"


def test_a_summary_without_its_finished_levels_is_refused(run):
    _edit(run / "summary.json", lambda s: {**s, "levels": []})
    error = _refused(run, r"lists the finished levels \[\], but the run finished \[93\]")
    assert error.path == str(run / "summary.json")
    error = _refused(run, r"lists the finished levels")  # the refusal itself blessed nothing


def test_without_a_manifest_the_rows_of_a_later_level_refuse_it_too(run):
    (run / "manifest.json").unlink()
    _edit(run / "summary.json", lambda s: {**s, "levels": []})
    error = _refused(run, "rows of level 105 .* which has not started")
    assert error.path == str(run / "metrics.csv")


def test_a_checkpoint_moved_back_to_generation_3_is_refused(run):
    generation = json.loads(_checkpoint(run).read_text())["generation"]
    assert generation > 3
    _edit(_checkpoint(run), lambda c: {**c, "generation": 3})
    error = _refused(run, f"not the checkpoint the run wrote at generation {generation}")
    assert error.path == str(_checkpoint(run))


def test_a_summary_marked_completed_resumes_its_unfinished_levels_and_says_so(run):
    kept = _rows(run)
    _edit(run / "summary.json", lambda s: {**s, "status": "completed"})
    with pytest.warns(EvosokoWarning, match="'completed' but levels 105, 145 have no result"):
        report = resume_run(run)
    assert report.status == "completed"
    assert [result.index for result in report.results] == [93, 105, 145]
    rows = _rows(run)
    level_93 = [row for row in kept if row.startswith("93,")]
    assert rows[: 1 + len(level_93)] == kept[: 1 + len(level_93)]


class _CrashAt(NoProgress):
    """Fails the run at level 2, generation 6: rows 5 and 6 follow the checkpoint at 4."""

    def __init__(self):
        self.current = None

    def on_level_start(self, level):
        self.current = level.index

    def on_generation(self, generation):
        if (self.current, generation.stats.generation) == (2, 6):
            raise RuntimeError("a crash")


def test_rows_after_the_checkpoint_are_dropped_with_a_warning(tmp_path):
    crashed = start_run(tiny_config(tmp_path, "ga.encoding=moves"), progress=_CrashAt())
    assert crashed.status == "failed"
    pattern = "2 rows \\(generations 5-6\\) of level 2 written after its checkpoint at generation 4"
    with pytest.warns(EvosokoWarning, match=pattern):
        assert resume_run(crashed.run_dir).status == "completed"


def test_a_deleted_checkpoint_restarts_its_level_and_says_which_rows_went(run):
    _checkpoint(run).unlink()
    with pytest.warns(EvosokoWarning, match="it has no checkpoint: dropped"):
        assert resume_run(run).status == "completed"


def test_a_folder_without_a_manifest_resumes_and_keeps_one_from_then_on(run):
    (run / "manifest.json").unlink()
    assert _resume_and_stop(run, "ignore") == "interrupted"
    manifest = json.loads((run / "manifest.json").read_text())
    assert manifest["finished"]["levels"] == [93]
    assert str(STOP_LEVEL) in manifest["checkpoints"]
    _edit(_checkpoint(run), lambda c: {**c, "generation": 3})
    _refused(run, "not the checkpoint the run wrote")


def test_edited_metrics_rows_before_the_checkpoint_are_refused(run):
    lines = (run / "metrics.csv").read_text().splitlines(keepends=True)
    del lines[2]  # a row of level 93, generation 1
    (run / "metrics.csv").write_text("".join(lines))
    _refused(run, "jumps to generation|rows were")


def test_a_rewritten_results_file_is_written_again_from_the_summary(run):
    original = (run / "results.csv").read_text()
    (run / "results.csv").write_text("index,level\n")
    interrupts = GracefulInterrupts()
    interrupts.request()
    with pytest.warns(EvosokoWarning, match="results.csv: not the finished levels of summary.json"):
        resume_run(run, interrupts=interrupts)
    assert (run / "results.csv").read_text() == original


def test_a_damaged_manifest_is_refused_with_its_name(run):
    (run / "manifest.json").write_text("[1, 2]\n")
    error = _refused(run, "not a manifest written by evosoko")
    assert error.path == str(run / "manifest.json")


@pytest.mark.parametrize("damage", ["deleted", "edited"])
def test_events_deleted_or_edited_are_refused(run, damage):
    """events.jsonl is appended to as metrics.csv is: its start is in the manifest."""
    lines = (run / "events.jsonl").read_text().splitlines(keepends=True)
    assert len(lines) >= 3
    if damage == "deleted":
        del lines[1]
    else:
        lines[1] = lines[1].replace('"event"', '"event" ', 1)
    (run / "events.jsonl").write_text("".join(lines))
    before = (run / "events.jsonl").read_bytes()
    error = _refused(run, f"events were {damage}")
    assert error.path == str(run / "events.jsonl")
    assert (run / "events.jsonl").read_bytes() == before


def test_events_appended_after_the_manifest_and_a_cut_last_line_resume(run):
    """Only the recorded start counts: a line cut short by a kill, at the end, is no damage."""
    with open(run / "events.jsonl", "a", encoding="utf-8") as events:
        events.write('{"time": "2026-01-01T00:00:00Z", "ev')
    assert _resume_and_stop(run, "error") == "interrupted"
    manifest = json.loads((run / "manifest.json").read_text())
    recorded = manifest["events"]
    data = (run / "events.jsonl").read_bytes()
    assert recorded["bytes"] == len(data) and recorded["rows"] == data.count(b"\n")
