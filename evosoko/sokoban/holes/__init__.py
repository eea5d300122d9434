"""The given-holes rules variant at the level of the board, in one place.

Each box belongs to one hole and vanishes in it (see :mod:`evosoko.sokoban.holes.board`). The
modules: :mod:`~evosoko.sokoban.holes.pairing` reads and writes the pairs of a level,
:mod:`~evosoko.sokoban.holes.board` plays the rules, :mod:`~evosoko.sokoban.holes.pushes` holds
the compiled push tests the GA and MCTS share, and :mod:`~evosoko.sokoban.holes.render` draws the
pairs. :func:`evosoko.sokoban.variants.level_rules` picks these rules for a level; the searches
and the GA keep one module each for the variant (``search/given_holes.py``,
``search/mcts/holes.py``, ``evolve/given_holes.py``).
"""
