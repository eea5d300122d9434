"""What a resume puts right in a checked run folder, each repair stated as a warning.

A repair is made only where the right content follows exactly from what the checks accepted
(:mod:`evosoko.experiment.run.resume_checks`):

- rows of ``metrics.csv`` written after the checkpoint of the level in progress (or of a level
  whose checkpoint was deleted) are dropped: the resumed run writes them again;
- ``results.csv`` and ``solutions.sok`` that do not hold the summary's finished levels are
  written again from them;
- a summary whose status says ``completed`` while levels have no result resumes those levels.

Then the folder's manifest is written anew (:meth:`RunFolder.keep_manifest`).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

from evosoko.errors import EvosokoWarning
from evosoko.experiment.run.folder import METRICS_FILE, SUMMARY_FILE, RunFolder, results_files
from evosoko.experiment.run.records import level_index, run_index
from evosoko.experiment.run.resume_checks import ResumePoint
from evosoko.result import Result
from evosoko.sokoban.level import Level


def state_unfinished(folder: RunFolder, finished: list[Result], levels: list[Level]) -> None:
    """Warn that a summary marked ``completed`` has levels without a result (they resume)."""
    done = {result.index for result in finished}
    missing = [level_index(level) for level in levels if level_index(level) not in done]
    warnings.warn(
        EvosokoWarning(
            f"the status is 'completed' but level{'s' if len(missing) > 1 else ''} "
            f"{', '.join(map(str, missing))} {'have' if len(missing) > 1 else 'has'} no result: "
            "resuming the run",
            str(folder.file(SUMMARY_FILE)),
        ),
        stacklevel=3,
    )


def repair_folder(
    folder: RunFolder, point: ResumePoint, summary: dict[str, Any], file_levels: Sequence[Level]
) -> None:
    """Put right what a resume may (see the module docstring), saying each repair."""
    finished = {run_index(result) for result in point.finished}
    dropped = folder.repair_metrics(finished, point.position)
    for index, generations in sorted(dropped.items()):
        if point.position is not None and point.position[0] == index:
            after = f"after its checkpoint at generation {point.position[1]}"
        else:
            after = "and it has no checkpoint"
        warnings.warn(
            EvosokoWarning(
                f"{_rows(generations)} of level {index} written {after}: dropped, the "
                "resumed run writes them again",
                str(folder.file(METRICS_FILE)),
            ),
            stacklevel=3,
        )
    for name, text in results_files(point.finished, file_levels).items():
        path = folder.file(name)
        if not point.finished and not path.exists():
            continue  # no level has finished: the file is written when one does
        on_disk = path.read_bytes() if path.is_file() else None
        if on_disk != text.encode("utf-8"):
            if on_disk is None:
                problem = f"missing: written again from the finished levels of {SUMMARY_FILE}"
            else:
                problem = f"not the finished levels of {SUMMARY_FILE}: written again from them"
            folder.write_file(name, text)
            warnings.warn(
                EvosokoWarning(problem, str(path)),
                stacklevel=3,
            )
    folder.keep_manifest(summary)


def _rows(generations: list[int]) -> str:
    if len(generations) == 1:
        return f"1 row (generation {generations[0]})"
    return f"{len(generations)} rows (generations {generations[0]}-{generations[-1]})"
