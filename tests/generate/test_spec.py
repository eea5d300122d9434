"""Request validation: sizes, room capacity per method, and the pushes band."""

from __future__ import annotations

import pytest

from evosoko.errors import ConfigError
from evosoko.generate.spec import generation_spec, parse_size, room_capacity


@pytest.mark.parametrize(
    ("text", "size"), [("8x8", (8, 8)), ("10X7", (10, 7)), (" 12x 9 ", (12, 9))]
)
def test_parse_size(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["8x", "x8", "8", "8x8x8", "-8x8", "eightxeight", ""])
def test_parse_size_rejects_malformed_sizes(text):
    with pytest.raises(ConfigError, match="not of the form WIDTHxHEIGHT"):
        parse_size(text)


def test_room_capacity_per_method():
    assert room_capacity("reverse", 8, 8) == 17  # 36 interior cells, one for the player
    assert room_capacity("markov", 5, 5) == 4
    assert room_capacity("mask", 8, 8) == 8  # inner zone 4x4 holds 8 boxes and 8 goals
    assert room_capacity("mask", 5, 9) == 2  # inner zone 1x5
    assert room_capacity("mask", 5, 5) == 0


def test_spec_band_defaults_and_acceptance():
    spec = generation_spec("markov", 8, 8, 3, max_pushes=9)
    assert spec.min_pushes == 1 and spec.max_pushes == 9
    assert spec.accepts(1) and spec.accepts(9) and not spec.accepts(10) and not spec.accepts(0)
    assert generation_spec("mask", 8, 8, 2, min_pushes=4).accepts(400)


def test_mask_needs_an_inner_zone():
    with pytest.raises(
        ConfigError, match="at most 0: boxes and goals need distinct cells at least 2"
    ):
        generation_spec("mask", 5, 5, 1)
