"""A position on a board: the player's cell and the cells of the boxes.

:class:`State` is the standard rules' position; :class:`Position` is what drawing and printing
read of any position (a ``State`` or a given-holes
:class:`~evosoko.sokoban.holes.pairing.HolesState`). Both sit below :mod:`evosoko.sokoban.level`,
which hands them on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


class Position(Protocol):
    """What drawing and printing read of a position: the player's cell and the sorted cells of
    the boxes on the board (a :class:`State`, or a given-holes ``HolesState``)."""

    @property
    def player(self) -> int: ...

    @property
    def boxes(self) -> tuple[int, ...]: ...


@dataclass(frozen=True, slots=True, order=True)
class State:
    """A position: the player's cell and the sorted tuple of box cells."""

    player: int
    boxes: tuple[int, ...]

    @staticmethod
    def of(player: int, boxes) -> State:
        """A state with its boxes sorted (the canonical form)."""
        return State(int(player), tuple(sorted(int(b) for b in boxes)))
