"""Fingerprint of the built-in presets: what a fixed-seed run writes, wall-clock columns aside.

Runs each preset (``configs/<name>.toml``) on seed000-case3 and on Microban 1-5 with a
generation budget instead of a time budget (so the run is a function of the seed), through
the command line, and records each run folder's ``metrics.csv`` and ``results.csv`` (without
their ``seconds`` column), ``solutions.sok`` and the per-level entries of ``summary.json``
(without seconds). ``--out FILE`` saves them; ``--compare FILE`` runs again and reports every
difference against a saved fingerprint, exiting 1 when there is one.

Used to show that a refactoring of the engine keeps results identical::

    python benchmarks/preset_fingerprint.py --out /tmp/before.json     # on the old code
    python benchmarks/preset_fingerprint.py --compare /tmp/before.json # on the new code

Prints one JSON object (``{"runs": N, "identical": N, "different": [...]}``) and a table.

Fingerprints are taken in the words they were recorded in (:func:`in_recorded_words`): since
the one status vocabulary (:mod:`evosoko.status`) a level that ran out of budget says
``stop_reason = budget`` with the resource in an ``exhausted`` column, where the recording says
the resource itself (``generations``). The translation is one-to-one (no status word is also a
resource), so the digest still pins both fields.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from _common import REPO_ROOT, require_shared_levels

PRESETS = ("default", "moves", "pushes", "hybrid", "seed004")
VARIANTS = {
    "nsga2": ("default", ['ga.selection="nsga2"']),
    "plus-block": ("default", ['ga.selection="mu_plus_lambda"', 'ga.crossover.kind="block"']),
    "comma-onepoint-restart": (
        "default",
        [
            'ga.selection="mu_comma_lambda"',
            'ga.crossover.kind="one_point"',
            "ga.stagnation_restart=5",
        ],
    ),
    "truncation-twopoint-trim": (
        "default",
        [
            'ga.selection="truncation"',
            'ga.crossover.kind="two_point"',
            "fitness.trim_to_best=true",
            "ga.age_memory=false",
        ],
    ),
    "moves-visits-pressure": ("moves", ["ga.age_visits=true", "ga.length_pressure=0.5"]),
    "islands-lag1": ("pushes", ["ga.islands.migration_lag=1"]),
    "hybrid": ("hybrid", []),
    "seed004": ("seed004", []),
}
"""Variants run with ``--variants`` on Microban 5 and 60 (which the default preset does not solve
in 30 generations): the selection schemes, crossovers, restarts, aging options, islands and the
memetic step."""
WALL_CLOCK_COLUMNS = ("seconds",)


def level_sets(shared: Path) -> dict[str, tuple[str, list[str]]]:
    """Level set name -> (level file, selection)."""
    return {
        "seed000-case3": (str(REPO_ROOT / "levels" / "seeds.xsb"), ["seed000-case3"]),
        "microban1-5": (str(shared / "microban.txt"), ["#1", "#2", "#3", "#4", "#5"]),
    }


def run_preset(
    preset: str,
    levels: str,
    select: list[str],
    generations: int,
    backend: str,
    out: Path,
    extra: list[str] = (),
) -> Path:
    """Run one preset (with ``extra`` overrides) through the command line; the run folder."""
    overrides = {
        "run.levels": json.dumps(levels),
        "run.select": json.dumps(select),
        "run.budget.generations": str(generations),
        "run.budget.seconds": '"none"',
        "run.budget.evaluations": '"none"',
        "parallel.backend": json.dumps(backend),
        "output.dir": json.dumps(str(out)),
        "output.plots": "false",
    }
    command = [
        sys.executable,
        "-m",
        "evosoko.cli",
        "run",
        str(REPO_ROOT / "configs" / f"{preset}.toml"),
    ]
    for key, value in overrides.items():
        command += ["--set", f"{key}={value}"]
    for override in extra:
        command += ["--set", override]
    command.append("--quiet")
    done = subprocess.run(
        command, check=False, capture_output=True, text=True, env=os.environ.copy()
    )
    if done.returncode != 0:
        raise SystemExit(f"{preset}: exit {done.returncode}\n{done.stderr}")
    return Path(done.stdout.strip().splitlines()[-1])


def without_columns(text: str, dropped: tuple[str, ...]) -> list[list[str]]:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        return rows
    keep = [i for i, name in enumerate(rows[0]) if name not in dropped]
    return [[row[i] for i in keep] for row in rows]


def in_recorded_words(rows: list[list[str]]) -> list[list[str]]:
    """``results.csv`` rows as evosoko wrote them before the status vocabulary: a budget stop's
    ``stop_reason`` is its ``exhausted`` resource, and there is no ``exhausted`` column."""
    if not rows or "exhausted" not in rows[0]:
        return rows
    reason, exhausted = rows[0].index("stop_reason"), rows[0].index("exhausted")
    translated = [[cell for i, cell in enumerate(rows[0]) if i != exhausted]]
    for row in rows[1:]:
        if row[exhausted]:
            row = [row[exhausted] if i == reason else cell for i, cell in enumerate(row)]
        translated.append([cell for i, cell in enumerate(row) if i != exhausted])
    return translated


def entry_in_recorded_words(entry: dict) -> dict:
    """A ``summary.json`` level entry in the words of :func:`in_recorded_words`."""
    entry = dict(entry)
    exhausted = entry.pop("exhausted", None)
    if exhausted is not None:
        entry["stop_reason"] = exhausted
    return entry


def fingerprint(run_dir: Path) -> dict:
    """What a run folder holds that a fixed seed determines, in the recorded words
    (:func:`in_recorded_words`)."""
    summary = json.loads((run_dir / "summary.json").read_text())
    levels = [
        entry_in_recorded_words({k: v for k, v in entry.items() if k != "seconds"})
        for entry in summary["levels"]
    ]
    results = without_columns((run_dir / "results.csv").read_text(), WALL_CLOCK_COLUMNS)
    return {
        "metrics": without_columns((run_dir / "metrics.csv").read_text(), WALL_CLOCK_COLUMNS),
        "results": in_recorded_words(results),
        "solutions": (run_dir / "solutions.sok").read_text(),
        "summary_levels": levels,
        "status": summary["status"],
    }


def differences(before: dict, after: dict) -> list[str]:
    """Which parts of two fingerprints differ, and the first differing row of a table."""
    found = []
    for part, old_value in before.items():
        new_value = after.get(part)
        if old_value == new_value:
            continue
        detail = ""
        if isinstance(old_value, list):
            for number, (old, new) in enumerate(zip(old_value, new_value or [])):
                if old != new:
                    detail = f" (row {number}: {old} != {new})"
                    break
            else:
                detail = f" ({len(old_value)} rows != {len(new_value or [])})"
        found.append(part + detail)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, help="save the fingerprint here")
    parser.add_argument("--compare", type=Path, help="compare with a saved fingerprint")
    parser.add_argument("--generations", type=int, default=40)
    parser.add_argument("--backend", default="serial", choices=("serial", "processes"))
    parser.add_argument("--presets", nargs="*", default=list(PRESETS))
    parser.add_argument(
        "--variants", action="store_true", help="run the VARIANTS on Microban 5 and 60 instead"
    )
    args = parser.parse_args()
    shared = require_shared_levels()
    saved = json.loads(args.compare.read_text()) if args.compare else None
    prints: dict[str, dict] = {}
    different: list[str] = []
    rows = []
    if args.variants:
        microban = str(shared / "microban.txt")
        plan = [
            (f"{name}/microban5,60", preset, microban, ["#5", "#60"], extra)
            for name, (preset, extra) in VARIANTS.items()
        ]
    else:
        plan = [
            (f"{preset}/{set_name}", preset, levels, select, [])
            for preset in args.presets
            for set_name, (levels, select) in level_sets(shared).items()
        ]
    with tempfile.TemporaryDirectory() as scratch:
        for key, preset, levels, select, extra in plan:
            run_dir = run_preset(
                preset, levels, select, args.generations, args.backend, Path(scratch), extra
            )
            prints[key] = fingerprint(run_dir)
            verdict = "recorded"
            if saved is not None:
                found = differences(saved[key], prints[key]) if key in saved else ["missing"]
                verdict = "identical" if not found else "; ".join(found)
                if found:
                    different.append(f"{key}: {verdict}")
            rows.append((key, len(prints[key]["metrics"]) - 1, verdict))
    if args.out:
        args.out.write_text(json.dumps(prints, indent=1))
    print(
        json.dumps(
            {
                "runs": len(rows),
                "generations": args.generations,
                "backend": args.backend,
                "identical": sum(1 for r in rows if r[2] == "identical"),
                "different": different,
            }
        )
    )
    print("\n| preset/levels | metrics rows | result |\n|---|---|---|")
    for key, count, verdict in rows:
        print(f"| {key} | {count} | {verdict} |")
    if different:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
