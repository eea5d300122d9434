"""push-fess with settings of its own (:mod:`evosoko.search.fess_settings`)."""

from __future__ import annotations

import dataclasses

import pytest
from tiny_levels import ROOM, microban, quiet_level, search_signature

from evosoko.search import fess, solve
from evosoko.search.fess_settings import FessSettings, solve_fess
from evosoko.sokoban.solutions import verify_solution


def test_the_shipped_settings_run_the_search_push_fess_runs():
    level = quiet_level(ROOM)
    alone = solve(level, "push-fess", node_limit=5_000)
    own = solve_fess(level, FessSettings.shipped(), node_limit=5_000)
    assert search_signature(own) == search_signature(alone)


def test_shipped_reads_the_module_constants_now(monkeypatch):
    monkeypatch.setattr(fess, "ALTERNATE", 6)
    monkeypatch.setattr(fess, "CORRAL_DEADLOCKS", 0)
    shipped = FessSettings.shipped()
    assert (shipped.alternate, shipped.corral_deadlocks) == (6, 0)


def test_a_module_constant_set_after_import_reaches_the_search(monkeypatch):
    # CORRAL_DEADLOCKS was once a default argument, fixed when fess was imported
    level = microban("3")[0]  # the corral tests change its search
    shipped = solve(level, "push-fess", node_limit=5_000)
    monkeypatch.setattr(fess, "CORRAL_DEADLOCKS", 0)
    without = solve(level, "push-fess", node_limit=5_000)
    assert search_signature(without) != search_signature(shipped)
    settings = dataclasses.replace(FessSettings.shipped(), corral_deadlocks=0)
    assert search_signature(solve_fess(level, settings, node_limit=5_000)) == search_signature(
        without
    )


@pytest.mark.parametrize(
    "change",
    [
        {"alternate": 2},
        {"room_cap": 0},
        {"corral_deadlocks": 0},
        {"pack_macros": 2},
        {"cluster_deadlocks": 1 << 10},
        {"connectivity_limit": 4},
        {"cell_weights": (1, 3)},
        {"weight": 5.0},
    ],
)
def test_other_settings_still_solve_and_verify(change):
    level = quiet_level(ROOM)
    settings = dataclasses.replace(FessSettings.shipped(), **change)
    result = solve_fess(level, settings, node_limit=50_000)
    assert result.solved
    assert verify_solution(level, result.solution).solved


def test_settings_change_the_search_on_a_real_level():
    level = microban("144")[0]
    shipped = solve_fess(level, FessSettings.shipped(), node_limit=20_000)
    other = solve_fess(
        level,
        dataclasses.replace(FessSettings.shipped(), alternate=2, cell_weights=(1, 3)),
        node_limit=20_000,
    )
    assert search_signature(shipped) != search_signature(other)
