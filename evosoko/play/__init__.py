"""Playing levels in the terminal (``evosoko play``): the game state, hints and replays from
push-A*, stored solutions and best prefixes, the progress kept from game to game, clicks on the
board, the level list, and the textual app that draws it all.

The app (:mod:`evosoko.play.app`), its board (:mod:`evosoko.play.board`) and its level browser
(:mod:`evosoko.play.browser`) import textual; the other modules do not.
"""

from evosoko.play.catalogue import LevelRow, find_level, level_rows
from evosoko.play.game import Deadlock, Game, find_deadlock
from evosoko.play.hints import Hint, Plan, hint_from, plan_from
from evosoko.play.mouse import Click, click_steps
from evosoko.play.progress import Progress, default_progress_path, load_progress
from evosoko.play.stored import StoredSolution, read_stored_solutions, save_solution

__all__ = [
    "Click",
    "Deadlock",
    "Game",
    "Hint",
    "LevelRow",
    "Plan",
    "Progress",
    "StoredSolution",
    "click_steps",
    "default_progress_path",
    "find_deadlock",
    "find_level",
    "hint_from",
    "level_rows",
    "load_progress",
    "plan_from",
    "read_stored_solutions",
    "save_solution",
]
