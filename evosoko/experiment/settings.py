"""What the settings of experiments (compare, sweep) share besides loading.

:class:`Section` is the base of their tables and :data:`DistinctSeeds` their ``seeds``;
:func:`selection_error` points a bad level selection at its line and :func:`read_level_file` a
level file that cannot be read; :func:`check_same_experiment` refuses to resume a folder with
other settings. The files themselves are read by :func:`evosoko.config_loading.load_model`, with
the same rules as a run configuration.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict

from evosoko.config import (
    OVERRIDE_SOURCE,
)
from evosoko.config_loading import locate, locate_key, resolve_path, toml_value
from evosoko.errors import ConfigError, EvosokoError, LevelFormatError
from evosoko.sokoban.formats import LevelCollection, read_levels

__all__ = [
    "DistinctSeeds",
    "Section",
    "check_same_experiment",
    "read_level_file",
    "selection_error",
    "source_line",
]


class Section(BaseModel):
    """Base of experiment tables: unknown keys are errors, values are checked strictly."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_default=True)


def _distinct(seeds: list[int]) -> list[int]:
    if len(set(seeds)) != len(seeds):
        raise ValueError("seeds must be distinct")
    return seeds


DistinctSeeds = Annotated[list[int], AfterValidator(_distinct)]
"""The seeds of an experiment: integers, each given once (a repeated seed is an error)."""


def selection_error(
    error: EvosokoError,
    keys: tuple[str, ...],
    select: list,
    source: str | None,
    text: str | None = None,
) -> ConfigError:
    """A level selection error of a configuration key (such as ``run.select``) as a
    :class:`ConfigError` at the key's line in ``source`` (whose ``text`` is read when not
    given; ``--set`` when the value there is not the one used)."""
    return _error_at_key(error, keys, source, text, lambda found: found == select)


def read_level_file(
    levels: str,
    keys: tuple[str, ...],
    source: str | None,
    text: str | None = None,
    *,
    strict: bool = False,
) -> LevelCollection:
    """The levels of the file a configuration key (such as ``run.levels``) names. A file that
    cannot be read at all (missing, a folder, too large, no level in it) is a
    :class:`ConfigError` at the key's line in ``source``, naming the level file; an error in
    one of its levels stays at its own file and line."""
    try:
        return read_levels(levels, strict=strict)
    except LevelFormatError as error:
        if error.line is not None:
            raise
        base = Path(source).parent if source else Path()

        def same(found: Any) -> bool:
            return isinstance(found, str) and levels in (found, resolve_path(found, base))

        raise _error_at_key(error, keys, source, text, same) from None


def _error_at_key(
    error: EvosokoError,
    keys: tuple[str, ...],
    source: str | None,
    text: str | None,
    same: Callable[[Any], bool],
) -> ConfigError:
    """``error`` as a :class:`ConfigError` at the line of ``keys`` in ``source`` when the value
    there is the one used (``same``), else at ``--set``."""
    message = f"{'.'.join(keys)}: {error.message}"
    if error.path:
        message += f" (in {error.path})"
    if source is None:
        return ConfigError(message)
    try:
        text = Path(source).read_text(encoding="utf-8") if text is None else text
        data: Any = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return ConfigError(message, source)
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    if not same(data):
        return ConfigError(message, OVERRIDE_SOURCE)
    return ConfigError(message, source, locate(text, keys))


def settings_changes(stored: Any, given: Any, prefix: str = "") -> list[str]:
    """The dotted keys whose values differ between two plain-data settings, each as
    ``key: STORED in the folder, GIVEN here`` (list items by position, ``solver[1].set``)."""
    if isinstance(stored, dict) and isinstance(given, dict):
        changes = []
        for key in list(stored) + [k for k in given if k not in stored]:
            dotted = f"{prefix}.{key}" if prefix else str(key)
            changes += settings_changes(stored.get(key), given.get(key), dotted)
        return changes
    if (
        isinstance(stored, list)
        and isinstance(given, list)
        and len(stored) == len(given)
        and any(isinstance(item, dict) for item in stored)
    ):
        changes = []
        for position, (old, new) in enumerate(zip(stored, given)):
            changes += settings_changes(old, new, f"{prefix}[{position}]")
        return changes
    if stored == given:
        return []
    return [f"{prefix}: {_shown(stored)} in the folder, {_shown(given)} here"]


def _shown(value: Any) -> str:
    if value is None:
        return "unset"
    if isinstance(value, list):
        if len(value) > 8:
            return f"[{len(value)} items]"
        return "[" + ", ".join(_shown(item) for item in value) + "]"
    return toml_value(value) if not isinstance(value, dict) else "{...}"


def check_same_experiment(
    folder: Path,
    stored_file: Path,
    load: Callable[[Path], BaseModel],
    given: BaseModel,
    command: str,
    noun: str,
) -> None:
    """Refuse to continue the experiment of ``folder`` (its settings in ``stored_file``, read
    by ``load``; nothing to check while the file is not there) with different ``given``
    settings: a :class:`ConfigError` naming the keys that differ and how to resume. The
    ``parallel`` and ``tracking`` tables may differ (results do not depend on where the jobs
    run or where they are logged)."""
    if not stored_file.is_file():
        return
    stored = load(stored_file)
    unchanging = {"parallel", "tracking"}
    changes = settings_changes(
        stored.model_dump(exclude=unchanging), given.model_dump(exclude=unchanging)
    )
    if not changes:
        return
    shown = "; ".join(changes[:3]) + (f"; and {len(changes) - 3} more" if len(changes) > 3 else "")
    raise ConfigError(
        f"the folder holds a different {noun} ({shown}); continue it with "
        f"'evosoko {command} --resume {folder}', or write to another --out folder",
        str(folder),
    )


def source_line(settings: Any, key: tuple[str, ...]) -> tuple[str | None, int | None]:
    """The file of a comparison's or sweep's ``settings`` and the line of its dotted ``key``
    there (``("tracking", "enabled")``), for an error about that key (None when unknown)."""
    path, text = getattr(settings, "_source", None) or (None, "")
    return path, locate_key(text, key) if text else None
