"""The deadlock network: numpy evaluation equals PyTorch's; model files."""

from __future__ import annotations

import numpy as np
import pytest

from evosoko.errors import ConfigError
from evosoko.learn.features import encode_states
from evosoko.learn.network import Architecture, load_model, save_model
from learn_levels import seed_level

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


def test_numpy_evaluation_matches_pytorch(tmp_path):
    torch = pytest.importorskip("torch")
    from evosoko.learn.features import floor_mask, planes
    from evosoko.learn.training import torch_network

    torch.manual_seed(0)
    module = torch_network(SMALL)
    save_model(tmp_path / "m.npz", SMALL, module.numpy_weights())
    network = load_model(tmp_path / "m.npz")
    level = seed_level("seed000-case3")
    from evosoko.learn.data import random_positions
    import random

    states, _ = random_positions(level, random.Random(1), 12, 8)
    codes = encode_states(level, states)
    with torch.no_grad():
        expected = module(
            torch.from_numpy(planes(codes)),
            torch.from_numpy(floor_mask(codes)[:, None].astype(np.float32)),
        ).numpy()
    assert np.allclose(network.logits(codes), expected, atol=1e-4)


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
