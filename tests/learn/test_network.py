"""The deadlock network: numpy evaluation equals PyTorch's; model files."""

from __future__ import annotations

import numpy as np
import pytest
from learn_levels import needs_torch, seed_level

from evosoko.errors import ConfigError
from evosoko.learn.features import encode_states
from evosoko.learn.network import Architecture, load_model, save_model

SMALL = Architecture(convolutions=((6, 1), (6, 2)), hidden=5)


def _random_weights(architecture: Architecture, rng) -> dict:
    shapes = {}
    channels = architecture.in_channels
    for index, (out, _) in enumerate(architecture.convolutions):
        shapes[f"conv{index}.weight"] = (out, channels, 3, 3)
        shapes[f"conv{index}.bias"] = (out,)
        channels = out
    shapes |= {
        "hidden.weight": (architecture.hidden, 2 * channels),
        "hidden.bias": (architecture.hidden,),
        "out.weight": (1, architecture.hidden),
        "out.bias": (1,),
    }
    return {name: rng.normal(0, 0.5, shape).astype(np.float32) for name, shape in shapes.items()}


def test_a_saved_model_loads_with_the_same_outputs(tmp_path):
    weights = _random_weights(SMALL, np.random.default_rng(0))
    save_model(tmp_path / "m.npz", SMALL, weights)
    network = load_model(tmp_path / "m.npz")
    level = seed_level("seed000-case3")
    codes = encode_states(level, [level.start])
    p = network.probabilities(codes)
    assert p.shape == (1,) and 0 < p[0] < 1
    assert network.parameter_count() == sum(w.size for w in weights.values())


@pytest.mark.parametrize("floor_only", [True, False])
def test_numpy_evaluation_matches_pytorch(tmp_path, floor_only):
    torch = needs_torch()
    from evosoko.learn.features import floor_mask, planes
    from evosoko.learn.training import torch_network

    architecture = Architecture(convolutions=((6, 1), (6, 2)), hidden=5, floor_only=floor_only)
    torch.manual_seed(0)
    module = torch_network(architecture)
    save_model(tmp_path / "m.npz", architecture, module.numpy_weights())
    network = load_model(tmp_path / "m.npz")
    level = seed_level("seed000-case3")
    import random

    from evosoko.learn.data import random_positions

    states, _ = random_positions(level, random.Random(1), 12, 8)
    codes = encode_states(level, states)
    with torch.no_grad():
        expected = module(
            torch.from_numpy(planes(codes)),
            torch.from_numpy(floor_mask(codes)[:, None].astype(np.float32)),
        ).numpy()
    assert np.allclose(network.logits(codes), expected, atol=1e-4)
    assert np.allclose(network.for_level(level).logits(codes), expected, atol=1e-4)


@pytest.mark.parametrize("floor_only", [True, False])
def test_the_level_bound_network_gives_the_same_outputs(tmp_path, floor_only):
    import random

    from evosoko.learn.data import random_positions

    architecture = Architecture(
        convolutions=((6, 1), (6, 2), (5, 4)), hidden=5, floor_only=floor_only
    )
    save_model(
        tmp_path / "m.npz", architecture, _random_weights(architecture, np.random.default_rng(3))
    )
    network = load_model(tmp_path / "m.npz")
    assert network.architecture.floor_only is floor_only
    level = seed_level("seed004-blog")
    states, _ = random_positions(level, random.Random(2), 10, 8)
    codes = encode_states(level, states)
    bound = network.for_level(level)
    assert np.allclose(bound.logits(codes), network.logits(codes), atol=1e-5)
    assert np.allclose(bound.probabilities(codes[:1]), network.probabilities(codes[:1]), atol=1e-6)
    if floor_only:  # only the floor's features are computed
        assert len(bound.floor_cells) == int(level.floor.sum()) < level.cells


def test_a_floor_only_network_ignores_what_lies_off_the_floor(tmp_path):
    architecture = Architecture(convolutions=((6, 1), (6, 1)), hidden=4, floor_only=True)
    save_model(
        tmp_path / "m.npz", architecture, _random_weights(architecture, np.random.default_rng(4))
    )
    network = load_model(tmp_path / "m.npz")
    level = seed_level("seed000-case3")
    codes = encode_states(level, [level.start])
    padded = np.zeros((1, codes.shape[1] + 4, codes.shape[2] + 4), dtype=np.uint8)
    padded[:] = 1  # a wider ring of walls around the board changes nothing
    padded[:, 2:-2, 2:-2] = codes
    assert np.allclose(network.logits(padded), network.logits(codes), atol=1e-5)


def test_a_model_file_without_floor_only_is_read_as_dense(tmp_path):
    import json

    save_model(tmp_path / "m.npz", SMALL, _random_weights(SMALL, np.random.default_rng(0)))
    with np.load(tmp_path / "m.npz") as stored:
        arrays = dict(stored)
    record = json.loads(str(arrays["architecture"]))
    del record["floor_only"]  # as files written before the option
    arrays["architecture"] = np.array(json.dumps(record))
    np.savez(tmp_path / "old.npz", **arrays)
    assert load_model(tmp_path / "old.npz").architecture.floor_only is False


def test_the_shipped_model_is_small_and_loads():
    network = load_model()
    assert network.parameter_count() > 0
    from importlib import resources

    shipped = resources.files("evosoko.learn") / "models" / "deadlock.npz"
    assert shipped.stat().st_size < 2 * 1024 * 1024 if hasattr(shipped, "stat") else True


@pytest.mark.parametrize("content", [b"", b"not a zip", None])
def test_a_bad_model_file_is_a_config_error(tmp_path, content):
    path = tmp_path / "bad.npz"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ConfigError, match="bad.npz"):
        load_model(path)


def test_a_large_call_goes_in_pieces_with_the_same_outputs(monkeypatch):
    """Positions of a big board are computed in pieces of PIECE_ROWS rows (bounded memory and
    a clock check between them); the outputs are those of one piece."""
    import random

    from evosoko.learn import network as network_module
    from evosoko.learn.data import random_positions

    network = load_model()
    level = seed_level("seed004-blog")
    states, _ = random_positions(level, random.Random(5), 6, 8)
    codes = encode_states(level, states)
    whole = network.for_level(level).logits(codes)
    monkeypatch.setattr(network_module, "PIECE_ROWS", 7)
    calls = []
    bound = network.for_level(level, lambda: calls.append("table"))
    assert len(calls) == len(network.architecture.convolutions) * -(-len(bound.floor_cells) // 7)
    calls.clear()
    pieces = bound.logits(codes, lambda: calls.append("piece"))
    assert np.allclose(pieces, whole, atol=1e-6)
    piece = max(1, 7 // len(codes))
    layers = len(network.architecture.convolutions)
    assert len(calls) == layers * -(-len(bound.floor_cells) // piece) > layers
