"""The one error family of evosoko.

Every error that comes from bad input carries the file and line it concerns, so that the
command line can print ``error: FILE:LINE: message`` and exit 2 without a traceback.
"""

from __future__ import annotations


class _Located(Exception):
    """A message about a file (``path``) and a line of it, shown as ``FILE:LINE: message``."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path
        self.line = line

    def location(self) -> str:
        """``FILE:LINE`` (or ``FILE``, or nothing) for the message prefix."""
        if self.path is None:
            return ""
        return f"{self.path}:{self.line}" if self.line is not None else str(self.path)

    def __str__(self) -> str:
        where = self.location()
        return f"{where}: {self.message}" if where else self.message


class EvosokoError(_Located):
    """Base of every error evosoko raises on purpose."""


class LevelFormatError(EvosokoError):
    """A level file that cannot be read, or a board that is not a valid level."""


class ConfigError(EvosokoError):
    """A configuration file or override that is malformed or names an unknown key."""


class SolutionError(EvosokoError):
    """A solution string that is malformed or does not fit its level."""


class OutOfMemory(EvosokoError):
    """The memory the process may use (the machine's, or a limit such as ``ulimit -v``) has no
    room for what was asked: a picture, an image, a table. A search that runs out of memory is
    not an error: it ends with the status ``memory-limit``."""


class EvosokoWarning(_Located, UserWarning):
    """Something suspicious but usable in the input (a solved level, a case mismatch in LURD)."""
