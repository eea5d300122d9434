"""A search gives back what it took when it ends: the next search in the process starts clean.

``benchmarks/bench_search.py`` runs its levels one after the other in one process. At
``--memory 512`` on XSokoban 16-25 it reached 1.83 GB: push-fess-bi's pull searches held its
searches from the start in a dict, and it held them, a reference cycle, so each level's stores
stayed until the garbage collector happened to run (it runs when Python objects pile up, and a
search makes few of them).
"""

from __future__ import annotations

import gc
import weakref

import pytest
from numba.core.runtime import _nrt_python, rtsys
from tiny_levels import quiet_level

from evosoko.generate.stress import lattice_rows
from evosoko.search import solve
from evosoko.search import solver as solver_module
from evosoko.search import store as store_module
from evosoko.search.solver import warm_up
from evosoko.search.store import Store


@pytest.fixture
def no_garbage_collector():
    """The cyclic garbage collector off for the test (as it mostly is between two searches)."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


@pytest.fixture
def compiled_allocations():
    """Counts of the arrays the compiled kernels allocate and free (numba's NRT statistics)."""
    enabled = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    yield
    if not enabled:
        _nrt_python.memsys_disable_stats()


def _compiled_arrays_alive() -> tuple[int, int]:
    """Allocations of the compiled kernels not freed yet: (blocks, arrays)."""
    stats = rtsys.get_allocation_stats()
    return stats.alloc - stats.free, stats.mi_alloc - stats.mi_free


SEARCHES = [
    ("push-fess-bi", 8),  # a side search's eighth of the memory holds 4,096 states, the least
    ("push-fess", 1),
    ("push-wastar", 1),
    ("push-astar", 1),
]
"""Algorithms and the MiB of memory their stores fill on the lattice below, and drop states
or stop in."""


@pytest.mark.parametrize(("algo", "megabytes"), SEARCHES)
@pytest.mark.usefixtures("no_garbage_collector", "compiled_allocations")
def test_a_search_leaves_no_store_and_no_compiled_array_behind(monkeypatch, algo, megabytes):
    """Three searches one after the other, one filling its memory, one far from it (the pull
    searches of push-fess-bi are kept to the end then), and the first again: when each has
    returned, none of its stores is alive, the free pages were handed back after they were
    freed, and every array the compiled kernels allocated is freed."""
    level = quiet_level(lattice_rows(16, columns=8))
    warm_up([algo], level.cells)
    solve(level, algo, node_limit=20_000, memory_limit=megabytes << 20)  # compiled before:
    gc.collect()  # a compilation's own reference cycles hold its arguments, the stores' arrays
    stores: list[weakref.ref[Store]] = []
    create = Store.__init__

    def tracked(store: Store, *arguments, **keywords) -> None:
        create(store, *arguments, **keywords)
        stores.append(weakref.ref(store))

    alive_at_release: list[int] = []
    release = store_module.release_free_memory

    def counted_release() -> None:
        alive_at_release.append(sum(store() is not None for store in stores))
        release()

    monkeypatch.setattr(Store, "__init__", tracked)
    monkeypatch.setattr(solver_module, "release_free_memory", counted_release)
    before = _compiled_arrays_alive()
    for memory in (megabytes, 1024, megabytes):
        result = solve(level, algo, node_limit=20_000, memory_limit=memory << 20)
        assert result.expanded > 0
        assert [store() for store in stores if store() is not None] == []
        assert _compiled_arrays_alive() == before
    assert alive_at_release == [0, 0, 0]
    assert len(stores) >= 3


def test_the_free_pages_are_kept_where_the_c_library_is_not_glibc(monkeypatch):
    monkeypatch.setattr(store_module.sys, "platform", "darwin")
    assert store_module._glibc() is None
    store_module.release_free_memory()  # nothing to do, and no error
