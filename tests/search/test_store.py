"""The frontier heap pops keys in order; the hash table finds stored states again."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from evosoko.search.store import (
    HEAP,
    NODES,
    NodeFields,
    Store,
    add_node,
    find_slot,
    frontier_pop,
    frontier_push,
)


@given(st.lists(st.integers(0, 1 << 40), min_size=1, max_size=200))
def test_heap_pops_in_key_order(keys):
    store = Store(box_count=1)
    store.frontier = (np.zeros(len(keys), dtype=np.int64), np.zeros(len(keys), dtype=np.int32))
    for node, key in enumerate(keys):
        frontier_push(store.frontier, store.counters, HEAP, key, node)
    popped = [frontier_pop(store.frontier, store.counters, HEAP) for _ in keys]
    assert [keys[node] for node in popped] == sorted(keys)
    assert frontier_pop(store.frontier, store.counters, HEAP) == -1


@pytest.mark.parametrize("max_nodes", [None, 110])
def test_table_finds_states_through_collisions_and_growth(max_nodes):
    store = Store(box_count=2, capacity=16)
    states = [
        (np.array([a, a + 1 + b], dtype=np.int16), a + b) for a in range(20) for b in range(5)
    ]
    for index, (boxes, player) in enumerate(states):
        if store.size + 20 >= store.capacity:
            store.grow(max_nodes)
        key = np.uint64(index % 7)  # many equal hashes: collisions must be resolved by content
        slot = find_slot(store.nodes, store.table, key, boxes, player)
        assert store.table[slot] == -1
        add_node(
            store.nodes,
            store.table,
            store.counters,
            slot,
            boxes,
            NodeFields(player, player, -1, 0, 0, 0, 0, key),
        )
    for index, (boxes, player) in enumerate(states):
        slot = find_slot(store.nodes, store.table, np.uint64(index % 7), boxes, player)
        assert store.table[slot] == index


def test_the_last_growth_stops_at_the_node_limit_and_then_refuses():
    store = Store(box_count=3, capacity=64)
    store.counters[NODES] = 60  # nearly full: the node arrays must grow
    assert store.can_grow(100)
    store.grow(100)
    assert store.capacity == 100  # not 128: the limit, not the next doubling
    assert len(store.table) == 512 and len(store.nodes.boxes) == 100  # a power of two, >= 4 each
    store.counters[NODES] = 95
    assert not store.can_grow(110)  # less than a quarter more is not worth a copy
    assert store.can_grow(125)
    store.counters[NODES] = 10  # not nearly full: the frontier may still grow
    assert store.can_grow(100)


def test_the_kernels_arrays_are_the_store_s_current_ones_after_growth():
    store = Store(box_count=2, capacity=16)
    store.counters[NODES] = 15
    before = store.arrays
    store.grow()
    after = store.arrays
    assert after.nodes.boxes.shape[0] == 32 and before.nodes.boxes.shape[0] == 16
    assert after.nodes is store.nodes and after.table is store.table
    assert after.frontier is store.frontier and after.counters is store.counters
