"""Labelled positions: exact labels, split by level, balanced, stored with a manifest."""

from __future__ import annotations

import random

import numpy as np
import pytest
from learn_levels import seed_level, starter_levels

from evosoko.errors import ConfigError
from evosoko.learn.data import (
    DEAD,
    DataSettings,
    LevelSource,
    build_dataset,
    label_position,
    level_positions,
    load_split,
    random_positions,
    read_manifest,
    with_start,
)
from evosoko.search import PushSettings, solve


def test_random_positions_are_distinct_unsolved_and_avoid_dead_squares():
    level = seed_level("seed000-case3")
    states, depths = random_positions(level, random.Random(0), 30, 12)
    assert states and len(states) == len(depths)
    assert len({(s.player, s.boxes) for s in states}) == len(states)
    for state in states:
        assert not all(level.goals[b] for b in state.boxes)
        assert not any(level.dead_squares[b] for b in state.boxes)


def test_labels_agree_with_an_unpruned_exhaustive_search():
    level = starter_levels()[0]
    states, _ = random_positions(level, random.Random(5), 25, 15)
    plain = PushSettings(freeze=False, corrals=False, tunnels=False, goal_rooms=False)
    seen = set()
    for state in states:
        label = label_position(level, state, 50_000)
        truth = solve(with_start(level, state), "push-bfs", settings=plain).status
        assert (label == DEAD) == (truth == "unsolvable")
        seen.add(label)
    assert len(seen) == 2, "the sample should hold dead and alive positions"


def test_positions_record_what_the_exact_detectors_say():
    level = starter_levels()[0]
    positions = level_positions(level, DataSettings(positions_per_level=25, max_pushes=15), 5)
    assert len(positions.labels) == len(positions.detected) == len(positions.codes)
    # the detectors are sound: whatever they call dead, search proves dead
    assert np.all(positions.labels[positions.detected == 1] == DEAD)


def test_a_budget_too_small_leaves_positions_undecided():
    level = seed_level("seed000-case3")
    positions = level_positions(level, DataSettings(positions_per_level=10, node_budget=1), 1)
    assert positions.undecided > 0
    assert positions.undecided + len(positions.labels) == positions.sampled


def test_build_dataset_splits_by_level_balances_and_writes_a_manifest(tmp_path):
    levels = starter_levels()
    train = [LevelSource(level, "starter.xsb", k) for k, level in enumerate(levels[:6], 1)]
    test = [LevelSource(level, "starter.xsb", k) for k, level in enumerate(levels[6:9], 7)]
    settings = DataSettings(positions_per_level=20, max_pushes=12, validation=0.34, seed=2)
    manifest = build_dataset(tmp_path, train, test, settings)
    assert read_manifest(tmp_path) == manifest
    splits = {entry["split"] for entry in manifest["levels"]}
    assert splits == {"train", "valid", "test"}
    for split in ("train", "valid", "test"):
        data = load_split(tmp_path, split)
        counts = manifest["splits"][split]
        assert len(data) == counts["kept"] == 2 * min(counts["dead"], counts["alive"])
        assert np.sum(data.labels == DEAD) == len(data) // 2
        in_split = {k for k, entry in enumerate(manifest["levels"]) if entry["split"] == split}
        assert set(data.level.tolist()) <= in_split
    again = tmp_path / "again"
    build_dataset(again, train, test, settings, workers=2)
    assert np.array_equal(load_split(again, "train").codes, load_split(tmp_path, "train").codes)


def test_bad_settings_and_files_are_config_errors(tmp_path):
    with pytest.raises(ConfigError):
        DataSettings(positions_per_level=0).check()
    with pytest.raises(ConfigError, match="learn data"):
        load_split(tmp_path, "train")
    with pytest.raises(ConfigError, match="manifest"):
        read_manifest(tmp_path)
