"""Size of report.html and the time a browser takes to open it, for run, comparison or sweep
folders.

For each folder: the time to build the report in Python (best of ``--repeats``; ``evosoko run``
and ``evosoko compare`` pay it as they rewrite the report), the size of the written
``report.html``, and, in headless Chromium (Debian's ``chromium`` and ``chromium-driver``),
over ``--repeats`` loads from disk, each in a new browser with an empty cache: the median
``drawn`` (milliseconds from the start of navigation until the page's script has drawn all the
page opens with: tables, the first level's board and curves, the plots), the median
``dom_content_loaded`` and ``load``, and the slowest load (``slowest_ms``). Targets: under 5 MB
and under 2 s to open. Without a browser the timing columns are left out (the JSON says why).

    python benchmarks/bench_report.py runs/COMPARE_DIR runs/RUN_DIR --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

from _common import best_time, machine, report

from evosoko.errors import EvosokoError
from evosoko.experiment.report.browser import browser_missing, headless_chromium, open_report
from evosoko.experiment.report.writer import build_report, folder_kind, write_report

SIZE_TARGET_BYTES = 5 * 1024 * 1024
OPEN_TARGET_MS = 2000.0


def first_load(path: Path) -> dict[str, float]:
    """Timings of opening ``path`` in a new browser with an empty profile and cache, as a
    person opening the file does (the browser's own start is not counted)."""
    with headless_chromium() as driver:
        return open_report(driver, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="+", type=Path, help="run, compare or sweep folders")
    parser.add_argument("--repeats", type=int, default=5, help="builds and page loads per folder")
    args = parser.parse_args()
    try:
        kinds = [folder_kind(folder) for folder in args.folders]
    except EvosokoError as error:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    rows = []
    for folder, kind in zip(args.folders, kinds):
        build_seconds, _ = best_time(lambda folder=folder: build_report(folder), args.repeats)
        path = write_report(folder)
        rows.append(
            {
                "folder": str(folder),
                "kind": kind,
                "build_s": round(build_seconds, 4),
                "bytes": path.stat().st_size,
                "megabytes": round(path.stat().st_size / 1024**2, 3),
            }
        )
    missing = browser_missing()
    if missing is None:
        for row in rows:
            loads = [first_load(Path(row["folder"]) / "report.html") for _ in range(args.repeats)]
            for key in ("drawn", "dom_content_loaded", "load"):
                row[f"{key}_ms"] = round(statistics.median(t[key] for t in loads), 1)
            row["slowest_ms"] = round(max(max(t["drawn"], t["load"]) for t in loads), 1)
    for row in rows:
        row["under_5_mb"] = row["bytes"] < SIZE_TARGET_BYTES
        if "slowest_ms" in row:
            row["opens_under_2_s"] = row["slowest_ms"] < OPEN_TARGET_MS
    summary = {
        "reports": rows,
        "repeats": args.repeats,
        "browser": missing or "headless chromium",
        **machine(),
    }
    columns = [("folder", "folder"), ("kind", "kind"), ("MB", "megabytes"), ("build s", "build_s")]
    if missing is None:
        columns += [
            ("drawn ms", "drawn_ms"),
            ("DOMContentLoaded ms", "dom_content_loaded_ms"),
            ("load ms", "load_ms"),
            ("slowest ms", "slowest_ms"),
        ]
    report(summary, columns, rows)


if __name__ == "__main__":
    main()
