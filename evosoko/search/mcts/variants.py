"""The rules the Monte Carlo tree search kernel calls, chosen by the level's rules variant.

Each rule the kernel (:mod:`evosoko.search.mcts.kernel`) calls is one name here that compiles
to the standard rule (:mod:`evosoko.search.mcts.rules`) or to its given-holes counterpart
(:mod:`evosoko.search.mcts.holes`), by the type of the named tuples it is passed: the given-holes
arrays (:class:`~evosoko.search.mcts.holes.HolesArrays`) and work arrays
(:class:`~evosoko.search.mcts.holes.HolesScratch`) pick the given-holes rule. So the kernel is
one piece of code, compiled once per variant (numba specializes it by its argument types), and
a search pays for no branch on the variant. :func:`rules_arrays` and :func:`start_objective` make
the same choice in Python, from the level's rules (:func:`evosoko.sokoban.variants.level_rules`).
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

from numba.core.errors import NumbaIRAssumptionWarning
from numba.extending import overload

from evosoko.search.mcts import holes as mcts_holes
from evosoko.search.mcts import rules as mcts_rules
from evosoko.sokoban.holes.pairing import GIVEN_HOLES, STANDARD
from evosoko.sokoban.level import Level
from evosoko.sokoban.variants import Rules

HOLES_TYPES = (mcts_holes.HolesArrays, mcts_holes.HolesScratch)

# Compiling the given-holes kernel trips numba's internal "pedantic" SSA check on the inlined
# push rules (a NumbaIRAssumptionWarning naming a phi variable, with a request to report it):
# the kernel is correct (its solutions are replay-verified) and the user cannot act on the
# warning, so it is not shown on the first run.
warnings.filterwarnings("ignore", category=NumbaIRAssumptionWarning)


def _plays_given_holes(argument_types) -> bool:
    """Whether any argument is one of the given-holes named tuples (by its numba type)."""
    return any(getattr(kind, "instance_class", None) in HOLES_TYPES for kind in argument_types)


def by_variant(standard, holes) -> Callable[..., Any]:
    """A function compiled code calls with ``standard``'s arguments, compiling to ``holes``
    when one of them is a given-holes tuple, else to ``standard`` (both compiled functions with
    the same parameters; inlined where it is called)."""
    signature = inspect.signature(standard.py_func)

    def rule(*arguments):
        raise TypeError(f"{standard.py_func.__name__}: called from compiled code only")

    def choose(*argument_types):
        chosen = holes if _plays_given_holes(argument_types) else standard
        return chosen.py_func

    rule.__name__ = rule.__qualname__ = standard.py_func.__name__
    rule.__doc__ = standard.py_func.__doc__
    rule.__signature__ = signature  # type: ignore[attr-defined]
    choose.__signature__ = signature  # type: ignore[attr-defined]
    overload(rule, inline="always")(choose)
    return rule


start_position = by_variant(mcts_rules.start_position, mcts_holes.start_position)
candidates = by_variant(mcts_rules.candidates, mcts_holes.candidates)
normalized_player = by_variant(mcts_rules.normalized_player, mcts_holes.normalized_player)
play_push = by_variant(mcts_rules.play_push, mcts_holes.play_push)
objective = by_variant(mcts_rules.objective, mcts_holes.objective)
is_matched = by_variant(mcts_rules.is_matched, mcts_holes.is_matched)
assigned_goal = by_variant(mcts_rules.assigned_goal, mcts_holes.assigned_goal)
objective_after_push = by_variant(mcts_rules.objective_after_push, mcts_holes.objective_after_push)
candidate_gains = by_variant(mcts_rules.candidate_gains, mcts_holes.candidate_gains)


class Variant(NamedTuple):
    """What the MCTS driver does in Python for one rules variant."""

    arrays: Callable[[Level, str], tuple[Any, Any]]  # (level, heuristic) -> arrays, scratch
    start_objective: Callable[[Level, str], int]  # the start's objective (the rollouts' length)


VARIANTS = {
    STANDARD: Variant(
        lambda level, heuristic: mcts_rules.rules_arrays(level), mcts_rules.start_objective
    ),
    GIVEN_HOLES: Variant(mcts_holes.holes_arrays, mcts_holes.start_distance),
}
"""The variant of each rules name (:attr:`evosoko.sokoban.variants.Rules.name`)."""


def rules_arrays(rules: Rules, level: Level, heuristic: str) -> tuple[Any, Any]:
    """The arrays and work arrays the kernel plays ``level`` with under ``rules``."""
    return VARIANTS[rules.name].arrays(level, heuristic)


def start_objective(rules: Rules, level: Level, heuristic: str) -> int:
    """The start's objective under ``rules`` (it sets the rollouts' length)."""
    return VARIANTS[rules.name].start_objective(level, heuristic)
