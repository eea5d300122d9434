"""Playing levels in the terminal (``evosoko play``): the game state, hints and replays from
push-A*, stored solutions and best prefixes, and the textual app that draws it all.

The app (:mod:`evosoko.play.app`) imports textual; :mod:`evosoko.play.game`,
:mod:`evosoko.play.hints` and :mod:`evosoko.play.stored` do not.
"""

from evosoko.play.game import Deadlock, Game, find_deadlock
from evosoko.play.hints import Hint, Plan, hint_from, plan_from
from evosoko.play.stored import StoredSolution, read_stored_solutions, save_solution

__all__ = [
    "Deadlock",
    "Game",
    "Hint",
    "Plan",
    "StoredSolution",
    "find_deadlock",
    "hint_from",
    "plan_from",
    "read_stored_solutions",
    "save_solution",
]
