"""Reading a folder's files for its report: text, JSON and TOML that fail with the file's
name, figures inlined as base64, and numbers made small and JSON-safe."""

from __future__ import annotations

import base64
import json
import math
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evosoko.errors import EvosokoError

__all__ = [
    "compact",
    "inline_figures",
    "json_number",
    "parse_toml",
    "read_json",
    "read_text",
]


def inline_figures(folder: Path, names: Sequence[str]) -> list[dict[str, str]]:
    """The folder's ``plots/<name>.png`` that exist, base64 inline."""
    figures = []
    for name in names:
        image = folder / "plots" / f"{name}.png"
        if image.is_file():
            figures.append(
                {"name": name, "png": base64.b64encode(image.read_bytes()).decode("ascii")}
            )
    return figures


def read_text(path: Path) -> str:
    """The text of ``path``; an unreadable file raises :class:`EvosokoError` naming it."""
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise EvosokoError(f"cannot read the file: {error}", str(path)) from None


def read_json(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; anything else raises :class:`EvosokoError` at its line."""
    try:
        data = json.loads(read_text(path))
    except json.JSONDecodeError as error:
        raise EvosokoError(f"not valid JSON: {error.msg}", str(path), error.lineno) from None
    if not isinstance(data, dict):
        raise EvosokoError("not a JSON object", str(path))
    return data


def parse_toml(text: str) -> dict[str, Any]:
    """The TOML table in ``text`` ({} when it does not parse)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return {}


def json_number(value: Any) -> Any:
    """``value`` as JSON holds it: an infinite or missing number becomes None."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def compact(value: float | None) -> float | int | None:
    """``value`` with 4 significant digits (ints stay ints): small JSON, same curves."""
    if value is None:
        return None
    if isinstance(value, int) or float(value).is_integer():
        return int(value)
    if not math.isfinite(value):
        return None
    return float(f"{value:.4g}")
