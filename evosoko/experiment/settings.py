"""Loading the TOML files of experiments (compare, sweep) into pydantic models.

The same rules as the run configuration (:mod:`evosoko.config`): unknown keys are errors that
name the key, suggest the closest valid one and give the line; ``--set KEY=VALUE`` overrides
take a TOML value; relative paths are tried against the current directory, then the file's
directory. Arrays of tables (``[[solver]]``) are located by their position in the file.
"""

from __future__ import annotations

import difflib
import re
import tomllib
import typing
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from evosoko.config import (
    OVERRIDE_SOURCE,
    assign_override,
    locate_key,
    parse_override,
    read_toml,
    toml_type_name,
)
from evosoko.errors import ConfigError, EvosokoError

__all__ = ["Section", "load_model", "resolve_path", "selection_error", "toml_value"]

Model = TypeVar("Model", bound=BaseModel)


class Section(BaseModel):
    """Base of experiment tables: unknown keys are errors, values are checked strictly."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_default=True)


def load_model(
    model: type[Model], path: str | Path, overrides: list[str] | tuple[str, ...] = ()
) -> tuple[Model, str]:
    """Read TOML ``path``, apply overrides, validate as ``model``; returns it and the file text.

    Raises :class:`ConfigError` with the file and line of the problem (or ``--set``).
    """
    text, data = read_toml(Path(path))
    override_keys = []
    for override in overrides:
        keys, value = parse_override(override)
        assign_override(data, keys, value, override)
        override_keys.append(keys)
    try:
        return model.model_validate(data), text
    except ValidationError as error:
        raise validation_error(model, error, text, str(path), override_keys) from None


def validation_error(
    model: type[BaseModel],
    error: ValidationError,
    text: str,
    source: str,
    override_keys: list[tuple[str, ...]] = (),
) -> ConfigError:
    """The first problem of ``error`` as a :class:`ConfigError` at its file line."""
    problems = error.errors()
    unknown = [p for p in problems if p["type"] == "extra_forbidden"]
    problem = (unknown or problems)[0]  # a typo also makes the right key "missing": name the typo
    loc = _clean_loc(model, tuple(problem["loc"]))
    dotted = ".".join(str(k) for k in loc)
    reason = problem["msg"].removeprefix("Value error, ")
    if problem["type"] == "extra_forbidden":
        message = f"unknown key {dotted!r}" + _suggestion(model, loc)
    elif problem["type"] == "missing":
        message = f"missing key {dotted!r}"
    elif isinstance(problem.get("input"), dict):
        message = f"[{dotted}]: {reason}" if dotted else reason
    else:
        got = problem.get("input")
        message = f"{dotted}: {reason} (got {got!r}, {toml_type_name(got)})"
    strings = tuple(k for k in loc if isinstance(k, str))
    if any(strings[: len(keys)] == keys[: len(strings)] for keys in override_keys):
        return ConfigError(message, OVERRIDE_SOURCE)
    return ConfigError(message, source, locate(text, loc))


def locate(text: str, loc: tuple[str | int, ...]) -> int | None:
    """1-based line of ``loc`` in TOML ``text``; ``("solver", 2, "name")`` finds the third
    ``[[solver]]`` table, then its ``name`` key (best effort)."""
    if len(loc) >= 2 and isinstance(loc[0], str) and isinstance(loc[1], int):
        headers = [
            number
            for number, line in enumerate(text.splitlines(), start=1)
            if re.match(rf"^\s*\[\[\s*{re.escape(loc[0])}\s*\]\]", line)
        ]
        if loc[1] < len(headers):
            start = headers[loc[1]]
            lines = text.splitlines()[start:]
            for offset, line in enumerate(lines, start=1):
                if line.strip().startswith("["):
                    break
                if len(loc) > 2 and re.match(rf"^\s*{re.escape(str(loc[2]))}\s*=", line):
                    return start + offset
            return start
    return locate_key(text, loc)


def resolve_path(value: str, base_dir: Path) -> str:
    """``value`` as an absolute path: tried against the current directory, then ``base_dir``;
    kept as written when neither exists (reading it then reports the error)."""
    if Path(value).is_absolute():
        return value
    for candidate in (Path(value), base_dir / value):
        if candidate.exists():
            return str(candidate.resolve())
    return value


def toml_value(value: Any) -> str:
    """``value`` written as a TOML value (for ``KEY=VALUE`` overrides)."""
    import tomli_w

    return tomli_w.dumps({"v": value}).split("=", 1)[1].strip()


def _clean_loc(model: type[BaseModel], loc: tuple) -> tuple:
    """Drop the tags pydantic inserts for tagged unions (``solver.0.search.name``)."""
    cleaned: list = []
    current: Any = model
    for key in loc:
        if isinstance(key, int) or current is None:
            cleaned.append(key)
            continue
        if isinstance(current, _Union) and key not in current.model_fields:
            variant = current.variant(key)
            if variant is not None:
                current = variant
                continue
        cleaned.append(key)
        current = _field_model(current, key)
    return tuple(cleaned)


def _field_model(model: Any, key: str) -> Any:
    """The model (or union of models) held by field ``key`` of ``model``, None for a value."""
    if isinstance(model, _Union):
        owners = [m for m in model.models if key in m.model_fields]
        return _field_model(owners[0], key) if owners else None
    field = model.model_fields.get(key)
    if field is None:
        return None
    return _unwrap(field.annotation)


def _unwrap(annotation: Any) -> Any:
    """The model inside ``list[M]``, ``M | None``, ``Annotated[A | B, ...]`` (a union stays a
    union, held as a tuple of models)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    models = [m for m in (_unwrap(a) for a in args) if m is not None]
    if len(models) == 1:
        return models[0]
    if models:
        return _Union(tuple(m for m in models if isinstance(m, type)))
    return None


class _Union:
    """Several models at one place (a tagged union); fields are looked up in each."""

    def __init__(self, models: tuple[type[BaseModel], ...]) -> None:
        self.models = models
        self.model_fields = {k: f for m in models for k, f in m.model_fields.items()}

    def variant(self, tag: str) -> type[BaseModel] | None:
        """The model whose ``Literal`` field (its discriminator) admits ``tag``."""
        for model in self.models:
            for field in model.model_fields.values():
                if typing.get_origin(field.annotation) is typing.Literal and tag in typing.get_args(
                    field.annotation
                ):
                    return model
        return None


def _suggestion(model: type[BaseModel], loc: tuple) -> str:
    *table, unknown = loc
    current: Any = model
    for key in table:
        if current is not None and not isinstance(key, int):
            current = _field_model(current, key)
    valid = list(current.model_fields) if current is not None else []
    close = difflib.get_close_matches(str(unknown), valid, n=1, cutoff=0.6)
    prefix = ".".join(str(k) for k in table)
    if close:
        return f"; did you mean {(prefix + '.' if prefix else '') + close[0]!r}?"
    if valid:
        return f"; valid keys here: {', '.join(valid)}"
    return ""


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
    if data != select:
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
    folder: Path, stored: BaseModel | None, given: BaseModel, command: str, noun: str
) -> None:
    """Refuse to continue the experiment of ``folder`` (its settings ``stored``, None when it
    has none yet) with different ``given`` settings: a :class:`ConfigError` naming the keys
    that differ and how to resume. The ``parallel`` table may differ (results do not depend on
    where the jobs run)."""
    if stored is None:
        return
    changes = settings_changes(
        stored.model_dump(exclude={"parallel"}), given.model_dump(exclude={"parallel"})
    )
    if not changes:
        return
    shown = "; ".join(changes[:3]) + (f"; and {len(changes) - 3} more" if len(changes) > 3 else "")
    raise ConfigError(
        f"the folder holds a different {noun} ({shown}); continue it with "
        f"'evosoko {command} --resume {folder}', or write to another --out folder",
        str(folder),
    )
