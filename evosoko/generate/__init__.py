"""Level generation: rooms and pieces drawn at random, every level certified by push-A*.

A layer above :mod:`evosoko.search` (its certifier) and :mod:`evosoko.sokoban`; used by the
command line (``evosoko generate``) and by experiments that need fresh levels.
"""

from evosoko.generate.generator import GenerationError, generate_levels, generate_one
from evosoko.generate.spec import METHODS, GenerationSpec, generation_spec, parse_size

__all__ = [
    "METHODS",
    "GenerationError",
    "GenerationSpec",
    "generate_levels",
    "generate_one",
    "generation_spec",
    "parse_size",
]
