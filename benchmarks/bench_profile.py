"""Where a search spends its CPU, by compiled function: perf's samples of one search, named.

perf names code compiled at run time through ``/tmp/perf-PID.map``. This script compiles the
search's kernels afresh (into an empty numba cache folder of its own: a kernel loaded from the
cache keeps no list of the functions compiled into it), writes that map with every function
numba has compiled, then runs the search on one level while ``perf record`` samples the
process (999 samples a second of CPU time) for ``--seconds``. The share of each function counts
its own code (not its callees'); numba's reference counts appear as ``NRT_incref`` and
``NRT_decref``.

    python benchmarks/bench_profile.py --level 70 [--suite xsokoban] [--algo push-fess-bi]
        [--seconds 30] [--top 20]

Needs ``perf`` (Debian: ``apt-get install linux-perf``) and the right to sample the process
(``kernel.perf_event_paranoid`` at most 1, or root). Prints one JSON object on its first line,
then a markdown table of the functions of largest share.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

if __name__ == "__main__":  # every kernel compiled afresh, those of _common's imports too
    os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="bench-profile-")

from _common import load_level, machine, markdown_table, positive

SUITES = {"xsokoban": "xsokoban.txt", "microban": "microban.txt"}


def parse_arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", type=positive, required=True, help="1-based level number")
    parser.add_argument("--suite", choices=sorted(SUITES), default="xsokoban")
    parser.add_argument("--algo", default="push-fess-bi", help="the search to profile")
    parser.add_argument("--seconds", type=positive, default=30, help="seconds sampled")
    parser.add_argument("--top", type=positive, default=20, help="functions in the table")
    return parser.parse_args()


def short_name(symbol: str) -> str:
    """``evosoko.search.push_kernel._expand_chunk`` for numba's mangled name of any
    specialization of it; other names as they are."""
    if not symbol.startswith("_ZN"):
        return symbol
    parts, at = [], 3
    while at < len(symbol) and symbol[at].isdigit():
        digits = re.match(r"\d+", symbol[at:]).group()
        start = at + len(digits)
        parts.append(symbol[start : start + int(digits)])
        at = start + int(digits)
    return ".".join(parts) or symbol


def compiled_functions() -> dict[int, str]:
    """The address of every function compiled so far by numba, named."""
    from numba.core.registry import CPUDispatcher
    from numba.core.runtime import rtsys

    libraries = {}
    for value in gc.get_objects():
        if isinstance(value, CPUDispatcher):
            for compiled in value.overloads.values():
                libraries[id(compiled.library)] = compiled.library
    names = {}
    for library in libraries.values():
        for function in library._final_module.functions:
            if not function.is_declaration:
                address = library.get_pointer_to_function(function.name)
                if address:
                    names[address] = short_name(function.name)
    for name in ("NRT_incref", "NRT_decref"):
        names[rtsys.library.get_pointer_to_function(name)] = name
    return names


def write_perf_map(names: dict[int, str]) -> Path:
    """``/tmp/perf-PID.map``: each function from its address to the next one's."""
    path = Path(tempfile.gettempdir()) / f"perf-{os.getpid()}.map"
    starts = sorted(names)
    ends = [*starts[1:], starts[-1] + 4096]
    path.write_text(
        "".join(f"{a:x} {min(b - a, 1 << 20):x} {names[a]}\n" for a, b in zip(starts, ends))
    )
    return path


def shares(report: str) -> tuple[int, dict[str, float]]:
    """Samples and the percentage of each name of ``perf report --sort sym -n`` (the
    specializations of a function summed), largest first."""
    samples = 0
    total: Counter[str] = Counter()
    for line in report.splitlines():
        match = re.match(r"\s*([\d.]+)%\s+(\d+)\s+\[.\]\s+(\S+)", line)
        if match:
            samples += int(match.group(2))
            total[short_name(match.group(3))] += float(match.group(1))
    return samples, dict(total.most_common())


def profile(level, algo: str, seconds: int, data: Path):
    """Run the search on ``level`` while ``perf record`` samples this process for ``seconds``:
    (its result, ``perf report``'s text; None when perf failed)."""
    from evosoko.api import solve

    record = subprocess.Popen(
        ["perf", "record", "-q", "-e", "cpu-clock", "-F", "999", "-p", str(os.getpid()),
         "-o", str(data), "--", "sleep", str(seconds)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    time.sleep(0.5)
    result = solve(level, algo, seconds=seconds + 5.0, clock="cpu")
    _, errors = record.communicate()
    if record.returncode != 0 or not data.exists():
        print(f"error: perf record failed: {errors.strip()}", file=sys.stderr)
        return result, None
    report = subprocess.run(
        ["perf", "report", "-i", str(data), "--sort", "sym", "-n", "--stdio"],
        capture_output=True, check=True, text=True,
    ).stdout  # fmt: skip
    return result, report


def main() -> int:
    cache = Path(os.environ["NUMBA_CACHE_DIR"]).parent  # the folder made above
    try:
        return run(parse_arguments(), cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def run(arguments: argparse.Namespace, cache: Path) -> int:
    """Profile, print the JSON line and the table; the exit status."""
    if shutil.which("perf") is None:
        print(
            "skipped: perf is not installed (Debian: apt-get install linux-perf)", file=sys.stderr
        )
        return 0
    level = load_level(SUITES[arguments.suite], arguments.level)
    from evosoko.search import warm_up

    warm_up([arguments.algo], level.width * level.height)
    perf_map = write_perf_map(compiled_functions())
    try:
        result, report = profile(level, arguments.algo, arguments.seconds, cache / "perf.data")
    finally:
        perf_map.unlink(missing_ok=True)
    if report is None:
        return 2
    samples, by_name = shares(report)
    top = list(by_name.items())[: arguments.top]
    print(json.dumps({
        "suite": arguments.suite, "level": arguments.level, "algo": arguments.algo,
        "status": result.status, "samples": samples, "machine": machine(),
        "shares": {name: round(share, 2) for name, share in top},
    }))  # fmt: skip
    print()
    rows = [{"function": name, "share": round(share, 1)} for name, share in top]
    print(markdown_table([("function", "function"), ("share %", "share")], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
