"""The rules of :mod:`evosoko.reference_counts`: a kernel compiled without numba's reference
counts (``uncounted``) calls only kernels that say which they are, and no array passes between
it and a counted kernel."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from numba.core.registry import CPUDispatcher

import evosoko
from evosoko.search.push_kernel import _expand_chunk


def _kernels() -> list[CPUDispatcher]:
    """Every compiled kernel of the package (modules that need an extra left out)."""
    found = {}
    for info in pkgutil.walk_packages(evosoko.__path__, "evosoko."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ImportError:
            continue
        for value in vars(module).values():
            if isinstance(value, CPUDispatcher):
                found[id(value)] = value
    return list(found.values())


def _uncounted(kernel: CPUDispatcher) -> bool:
    return kernel.targetoptions.get("_nrt") is False


def _callees(kernel: CPUDispatcher, seen: set[int]):
    """The kernels ``kernel`` calls by name, through the ones compiled into it (inlined)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(kernel.py_func)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            callee = kernel.py_func.__globals__.get(node.func.id)
            if isinstance(callee, CPUDispatcher) and id(callee) not in seen:
                seen.add(id(callee))
                if callee.targetoptions.get("inline") == "always":
                    yield from _callees(callee, seen)
                else:
                    yield callee


def _returns_arrays(kernel: CPUDispatcher) -> list[str]:
    return [str(sig) for sig in kernel.nopython_signatures if "array(" in str(sig.return_type)]


UNCOUNTED = [kernel for kernel in _kernels() if _uncounted(kernel)]
NAMES = [f"{kernel.py_func.__module__}.{kernel.__name__}" for kernel in UNCOUNTED]


def test_the_successor_loop_is_among_the_uncounted_kernels():
    assert _expand_chunk in UNCOUNTED
    assert len(UNCOUNTED) > 20


@pytest.mark.parametrize("kernel", UNCOUNTED, ids=NAMES)
def test_every_kernel_an_uncounted_one_calls_says_whether_it_counts(kernel):
    silent = [c.__name__ for c in _callees(kernel, set()) if "_nrt" not in c.targetoptions]
    assert silent == []


def array_crossings() -> list[str]:
    """The uncounted kernels that return an array, or call a kernel that returns one, among the
    kernels compiled so far (in this process)."""
    found = []
    for kernel in UNCOUNTED:
        found += [f"{kernel.__name__} returns {sig}" for sig in _returns_arrays(kernel)]
        for callee in _callees(kernel, set()):
            found += [f"{kernel.__name__} calls {sig}" for sig in _returns_arrays(callee)]
    return found


CHECK = f"""
import json, sys
sys.path.insert(0, {str(Path(__file__).parent)!r})
from evosoko.search import warm_up
from evosoko.search.push_kernel import _expand_chunk
import test_reference_counts as t
warm_up(["push-fess-bi", "push-astar"])
print(json.dumps([len(_expand_chunk.nopython_signatures), t.array_crossings()]))
"""


@pytest.mark.slow
def test_no_array_passes_between_counted_and_uncounted_kernels(tmp_path):
    # kernels loaded from numba's cache have no types: compile them afresh, in a process apart
    completed = subprocess.run(
        [sys.executable, "-c", CHECK],
        capture_output=True,
        check=True,
        text=True,
        timeout=1200,
        env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)},
    )
    compiled, crossings = json.loads(completed.stdout.splitlines()[-1])
    assert compiled > 0
    assert crossings == []
