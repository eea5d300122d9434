"""What to generate: the method, the room size, the boxes and the band of optimal pushes."""

from __future__ import annotations

import re
from dataclasses import dataclass

from evosoko.errors import ConfigError

METHODS = ("reverse", "markov", "mask")
"""Generation methods, see :mod:`evosoko.generate.reverse`, ``markov`` and ``mask``."""

MIN_SIDE = 5
MAX_SIDE = 64
MASK_MARGIN = 2
"""The mask method places boxes and goals at least this many cells from the outer edge."""

DEFAULT_NODE_LIMIT = 200_000
"""Push-A* expansions allowed to certify one level (deterministic, unlike a time limit)."""

DEFAULT_PULL_LIMIT = 30_000
"""Pull-states the reverse method explores per room."""


@dataclass(frozen=True)
class GenerationSpec:
    """A validated request: build it with :func:`generation_spec`."""

    method: str
    width: int
    height: int
    boxes: int
    min_pushes: int
    max_pushes: int | None
    node_limit: int = DEFAULT_NODE_LIMIT
    pull_limit: int = DEFAULT_PULL_LIMIT

    def accepts(self, pushes: int) -> bool:
        """True when ``pushes`` lies in the requested band."""
        return pushes >= self.min_pushes and (self.max_pushes is None or pushes <= self.max_pushes)


def generation_spec(
    method: str,
    width: int,
    height: int,
    boxes: int,
    min_pushes: int | None = None,
    max_pushes: int | None = None,
    node_limit: int = DEFAULT_NODE_LIMIT,
    pull_limit: int = DEFAULT_PULL_LIMIT,
) -> GenerationSpec:
    """Check a request and return it as a :class:`GenerationSpec`; ``ConfigError`` if invalid."""
    if method not in METHODS:
        raise ConfigError(
            f"unknown generation method {method!r}; choose one of {', '.join(METHODS)}"
        )
    for name, side in (("width", width), ("height", height)):
        if not MIN_SIDE <= side <= MAX_SIDE:
            raise ConfigError(
                f"the room {name} must be between {MIN_SIDE} and {MAX_SIDE} cells (walls "
                f"included), got {side}"
            )
    if boxes < 1:
        raise ConfigError(f"the number of boxes must be at least 1, got {boxes}")
    room = room_capacity(method, width, height)
    if boxes > room:
        raise ConfigError(
            f"{boxes} boxes do not fit a {width}x{height} room with the {method} method "
            f"(at most {room}{_capacity_reason(method)})"
        )
    if min_pushes is not None and min_pushes < 1:
        raise ConfigError(f"--min-pushes must be at least 1, got {min_pushes}")
    if max_pushes is not None and max_pushes < 1:
        raise ConfigError(f"--max-pushes must be at least 1, got {max_pushes}")
    low = 1 if min_pushes is None else min_pushes
    if max_pushes is not None and max_pushes < low:
        raise ConfigError(f"--max-pushes {max_pushes} is below --min-pushes {low}")
    if node_limit < 1 or pull_limit < 1:
        raise ConfigError("the node limits must be positive")
    return GenerationSpec(method, width, height, boxes, low, max_pushes, node_limit, pull_limit)


def room_capacity(method: str, width: int, height: int) -> int:
    """The most boxes a room of this size takes with ``method``.

    Boxes and goals need distinct cells in the mask method (within its inner zone); in every
    method the player needs a free cell and at least one box must start off its goal.
    """
    interior = (width - 2) * (height - 2)
    if method == "mask":
        zone = max(0, width - 2 * MASK_MARGIN) * max(0, height - 2 * MASK_MARGIN)
        return min(zone // 2, (interior - 1) // 2)
    return (interior - 1) // 2


def _capacity_reason(method: str) -> str:
    if method == "mask":
        return f": boxes and goals need distinct cells at least {MASK_MARGIN} cells from the border"
    return ": boxes and goals need distinct cells and the player one more"


_SIZE = re.compile(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*")


def parse_size(text: str) -> tuple[int, int]:
    """``"WxH"`` → ``(width, height)``; ``ConfigError`` naming the expected form otherwise."""
    match = _SIZE.fullmatch(text)
    if not match:
        raise ConfigError(f"size {text!r} is not of the form WIDTHxHEIGHT, e.g. 8x8")
    return int(match.group(1)), int(match.group(2))
