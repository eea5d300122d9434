"""Text that came from outside (level titles and notes, file names, messages quoting them), made
safe to print: never read as rich markup, and no control character reaches the terminal.

A level file is untrusted input: a title ``[/r/sokoban]`` must not crash a table, ``[bold red]``
must not style the output, and ``\\x1b]0;...\\x07`` must not retitle the window. Every command
prints such text through :func:`plain` (strings) or :func:`plain_text` (rich renderables).
"""

from __future__ import annotations

import unicodedata

from rich.text import Text

__all__ = ["level_caption", "plain", "plain_lines", "plain_text"]

_SHOWN_ESCAPED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_INVISIBLE_CATEGORIES = ("Cc", "Zl", "Zp")
"""Control characters, line and paragraph separators."""
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""Marks that reorder the text around them on screen (a title could hide its real order)."""


def plain(text: object) -> str:
    """``str(text)`` with every control character written as an escape (``\\x1b``, ``\\n``,
    ``\\u202e``); everything else, markup brackets included, is left as it is."""
    value = str(text)
    if value.isprintable() and not _BIDI_CONTROLS.intersection(value):
        return value
    return "".join(_shown(char) for char in value)


def plain_lines(text: object) -> str:
    """:func:`plain` of each line of ``text``, the line breaks kept (for whole files)."""
    return "\n".join(plain(line) for line in str(text).split("\n"))


def plain_text(text: object, style: str = "") -> Text:
    """A rich :class:`~rich.text.Text` of :func:`plain` ``(text)``: shown literally in tables,
    progress bars and ``console.print``, never parsed as markup or emoji codes."""
    return Text(plain(text), style=style)


def level_caption(index: int | str, name: str) -> str:
    """``level 2 seed000-case3`` for messages and plots; ``level 93`` for a level named by its
    index (untitled, or titled with its own index), so the number is not said twice; and
    ``level 1 (title 0)`` when the title is another number."""
    name = str(name)
    if name == str(index):
        return f"level {index}"
    return f"level {index} (title {name})" if name.isdigit() else f"level {index} {name}"


def _shown(char: str) -> str:
    if char in _SHOWN_ESCAPED:
        return _SHOWN_ESCAPED[char]
    if char in _BIDI_CONTROLS or unicodedata.category(char) in _INVISIBLE_CATEGORIES:
        code = ord(char)
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
    return char
