"""evosoko: evolutionary optimization and classical search for Sokoban."""

__version__ = "0.1.0"
