"""Reading configuration files from TOML: ``KEY=VALUE`` overrides, error lines, dumping.

One loader for every file evosoko reads settings from: run configurations
(:func:`load_config`) and the files of experiments, compare and sweep (:func:`load_model`, into
any pydantic model: unknown keys are errors that name the key, suggest the closest valid one
and give the line; arrays of tables such as ``[[solver]]`` are located by their position;
relative paths are tried against the current directory, then the file's directory).

:func:`load_config_model` reads a file, applies overrides and validates the result into a
model (:func:`evosoko.config.load_config`: the run configuration); a typo becomes a
:class:`~evosoko.errors.ConfigError` that names the key, suggests the closest valid one and gives
the line of the TOML file it is on (also for the parameters of a plugin part, whose model the part
brings: see :mod:`evosoko.evolve.registry`). :func:`dump_config` writes a configuration back with
every value; :func:`set_key` is what ``--set`` and :meth:`Config.set` do to one key. The models
themselves are in :mod:`evosoko.config`, which imports this module (never the other way round).
"""

from __future__ import annotations

import difflib
import os
import re
import tomllib
import typing
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any, TypeVar

import tomli_w
from pydantic import BaseModel, ValidationError

from evosoko.config_tables import toml_type_name, written_fields
from evosoko.errors import ConfigError
from evosoko.file_reading import read_bounded

OVERRIDE_SOURCE = "--set"
MAX_CONFIG_BYTES = 16 * 1024**2
"""The largest configuration file read (a few kilobytes is usual; a device or an endless pipe
named as one is refused at this size instead of read forever)."""
"""The pseudo path of errors caused by an override rather than by the file."""


class _Unset:
    def __repr__(self) -> str:
        return "UNSET"


UNSET: Any = _Unset()
"""The value of :meth:`~evosoko.config.Config.set` when the key holds ``KEY=VALUE``."""

ConfigModel = TypeVar("ConfigModel", bound=BaseModel)


def load_config_model(
    model: type[ConfigModel],
    path: str | PathLike[str] | None = None,
    overrides: Sequence[str] = (),
) -> ConfigModel:
    """Read ``path`` (TOML; None: all defaults), apply ``KEY=VALUE`` overrides, validate as
    ``model`` (:func:`evosoko.config.load_config` with the run configuration's model).

    Raises :class:`ConfigError` with file and line for a missing file, a TOML syntax error, an
    unknown key (with the closest valid key suggested) or a value of the wrong type.
    """
    text = ""
    data: dict[str, Any] = {}
    source = str(path) if path is not None else None
    if path is not None:
        text, data = read_toml(Path(path))
    override_keys: list[tuple[str, ...]] = []
    before = _part_kinds(model, data)
    for override in overrides:
        keys, value = parse_override(override)
        assign_override(data, keys, value, override)
        override_keys.append(keys)
    _reset_switched_parts(model, data, before, override_keys)
    try:
        config = validated(model, data, override_keys)
    except ValidationError as error:
        raise _config_error(model, error, text, source, override_keys) from None
    if path is not None:
        config = _resolve_levels(config, Path(path).parent)
    return config


def set_key(config: ConfigModel, key: str | Mapping[str, Any], value: Any) -> ConfigModel:
    """``config`` with keys changed and validated again, exactly as ``--set`` does
    (:meth:`Config.set`): one ``key`` and its ``value``, one ``"KEY=VALUE"`` (``value``
    :data:`~evosoko.config.UNSET`), or a mapping of keys to values, all set before one
    validation (for keys that must change together)."""
    changes: list[tuple[str | tuple[str, ...], Any, str]]
    if isinstance(key, Mapping):
        changes = [(k, v, f"{k}={v!r}") for k, v in key.items()]
    elif value is UNSET:
        changes = [(*parse_override(key), key)]
    else:
        changes = [(key, value, f"{key}={value!r}")]
    data = _plain(config)
    before = _part_kinds(type(config), data)
    override_keys: list[tuple[str, ...]] = []
    for name, new, override in changes:
        keys = parse_override(f"{name}=0")[0] if isinstance(name, str) else tuple(name)
        assign_override(data, keys, new, override)
        override_keys.append(keys)
    _reset_switched_parts(type(config), data, before, override_keys)
    try:
        return validated(type(config), data, override_keys)
    except ValidationError as error:
        raise _config_error(type(config), error, "", None, override_keys) from None


def _part_tables(model: type[BaseModel]) -> list[tuple[tuple[str, ...], type[BaseModel]]]:
    """The tables of ``model`` that name a part (they have ``shared`` keys), by path."""
    found = []
    for key in _all_tables(model):
        table = _model_at(model, key)
        if table is not None and hasattr(table, "shared"):
            found.append((key, table))
    return found


def _all_tables(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    tables = [prefix] if prefix else []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            tables.extend(_all_tables(annotation, (*prefix, name)))
    return tables


def _part_kinds(model: type[BaseModel], data: dict) -> dict[tuple[str, ...], Any]:
    """The part each part table of ``data`` names (its default when not given)."""
    kinds = {}
    for path, table in _part_tables(model):
        node: Any = data
        for name in path:
            node = node.get(name, {}) if isinstance(node, dict) else {}
        default = table.model_fields["kind"].get_default() if "kind" in table.model_fields else None
        kinds[path] = node.get("kind", default) if isinstance(node, dict) else default
    return kinds


def _reset_switched_parts(
    model: type[BaseModel],
    data: dict,
    before: dict[tuple[str, ...], Any],
    override_keys: Sequence[tuple[str, ...]],
) -> None:
    """An override that names another part in a table drops the table's parameters of the
    part before (those the overrides do not give themselves): ``--set ga.mutation.kind=swap``
    on a preset with tuned rates runs the swap mutation with its own defaults."""
    after = _part_kinds(model, data)
    for path, table in _part_tables(model):
        if after[path] == before[path]:
            continue
        node: Any = data
        for name in path:
            node = node.get(name) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            continue
        for key in list(node):
            given = any(
                _common_prefix((*path, key), k) == min(len(path) + 1, len(k)) for k in override_keys
            )
            if key not in table.shared and not given:  # type: ignore[attr-defined]
                del node[key]


def validated(
    model: type[ConfigModel], data: dict, override_keys: Sequence[tuple[str, ...]]
) -> ConfigModel:
    """``data`` validated as ``model``; a value that ``data`` gave to a key that an override
    leaves unread (``--set ga.mutation.kind=swap`` over a file's mutation rates) is dropped,
    while one that the overrides give themselves, or that the file leaves unread on its own,
    stays an error (:mod:`evosoko.config_reads`)."""
    while True:
        try:
            return model.model_validate(data)
        except ValidationError as error:
            key = _unread_by_override(error, override_keys)
            if key is None or not _drop(data, key):
                raise


def _unread_by_override(
    error: ValidationError, override_keys: Sequence[tuple[str, ...]]
) -> tuple[str, ...] | None:
    """The key of an unread value that an override made unread, not one it set."""
    problem = error.errors()[0]
    if problem["type"] != "unread_key":
        return None
    key, deciders = tuple(problem["ctx"]["keys"]), problem["ctx"]["deciders"]

    def touched(path: tuple[str, ...]) -> bool:
        return any(_common_prefix(path, k) == min(len(path), len(k)) for k in override_keys)

    if touched(key) or not any(touched(tuple(decider)) for decider in deciders):
        return None
    return key


def _drop(data: dict, key: tuple[str, ...]) -> bool:
    """Remove ``key`` from nested ``data``; False when it is not there."""
    node: Any = data
    for name in key[:-1]:
        node = node.get(name) if isinstance(node, dict) else None
    if not isinstance(node, dict) or key[-1] not in node:
        return False
    del node[key[-1]]
    return True


def dump_config(config: BaseModel) -> str:
    """The configuration as TOML, every value written out; :func:`load_config` reads it back
    equal."""
    return tomli_w.dumps(_plain(config))


def parse_override(text: str) -> tuple[tuple[str, ...], Any]:
    """Split ``KEY=VALUE`` into the dotted key's parts and the value.

    The value is read as a TOML value (``2``, ``true``, ``["a", 3]``, ``"x"``); anything that is
    not valid TOML, such as a bare word, counts as a string.
    """
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise ConfigError(f"override {text!r} is not KEY=VALUE", OVERRIDE_SOURCE)
    parts = tuple(part.strip() for part in key.split("."))
    if any(not re.fullmatch(r"[A-Za-z0-9_-]+", part) for part in parts):
        raise ConfigError(f"override {text!r}: {key!r} is not a dotted key", OVERRIDE_SOURCE)
    raw = raw.strip()
    try:
        value = tomllib.loads(f"value = {raw}")["value"]
    except tomllib.TOMLDecodeError:
        value = raw
    return parts, value


def locate_key(text: str, keys: tuple[str | int, ...] | list[str | int]) -> int | None:
    """1-based line of TOML ``text`` where the dotted key ``keys`` is defined (best effort).

    Falls back to the line of the longest enclosing key or table that is found, and to None.
    """
    wanted = tuple(k for k in keys if isinstance(k, str))
    best_line, best_depth = None, 0
    table: tuple[str, ...] = ()
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        header = re.match(r"^\[\[?\s*([^\]]+?)\s*\]\]?", stripped)
        if header:
            table = _split_dotted(header.group(1))
            full = table
        else:
            assignment = re.match(r"^([A-Za-z0-9_\-\"'. ]+?)\s*=", stripped)
            if not assignment:
                continue
            full = table + _split_dotted(assignment.group(1))
        depth = _common_prefix(full, wanted)
        if depth == len(wanted) and len(full) == depth:
            return number
        if depth > best_depth and depth == len(full):
            best_line, best_depth = number, depth
    return best_line


def read_toml(path: Path) -> tuple[str, dict]:
    """The text and parsed table of a TOML file; :class:`ConfigError` with its line when bad.

    A UTF-8 byte-order mark (as some Windows editors write) is allowed, as in level files.
    """
    if not path.exists():
        raise ConfigError("configuration file not found", str(path))
    if path.is_dir():
        raise ConfigError("is a directory, not a configuration file", str(path))
    data = read_bounded(path, MAX_CONFIG_BYTES, ConfigError, "a configuration is a few lines")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ConfigError(
            f"not UTF-8 text: byte 0x{data[error.start]:02x} cannot be decoded", str(path), line
        ) from None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        match = re.search(r"\(at line (\d+), column (\d+)\)", message)
        line = int(match.group(1)) if match else max(1, len(text.splitlines()))
        message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", message)
        if match:
            message += f" (column {match.group(2)})"
        raise ConfigError(f"TOML syntax error: {message}", str(path), line) from None


def assign_override(data: dict, keys: tuple[str, ...], value: Any, override: str) -> None:
    """Set ``data[keys...] = value`` for a ``--set`` override, creating tables on the way."""
    node = data
    for depth, key in enumerate(keys[:-1]):
        child = node.setdefault(key, {})
        if not isinstance(child, dict):
            where = ".".join(keys[: depth + 1])
            raise ConfigError(
                f"override {override!r}: {where} is a value, not a table", OVERRIDE_SOURCE
            )
        node = child
    node[keys[-1]] = value


def _config_error(
    model: type[BaseModel],
    error: ValidationError,
    text: str,
    source: str | None,
    override_keys: list[tuple[str, ...]],
) -> ConfigError:
    """The first validation problem as a ConfigError pointing at the file line or override."""
    problem = error.errors()[0]
    loc = tuple(problem["loc"])
    key_path = tuple(k for k in loc if isinstance(k, str))
    dotted = ".".join(str(k) for k in loc)
    reason = problem["msg"].removeprefix("Value error, ")
    if problem["type"] == "unread_key":  # a key the run does not read (config_reads)
        key_path = tuple(problem["ctx"]["keys"])
        message = problem["ctx"]["message"]
    elif problem["type"] == "config_key":  # a key of a part's table (see config._PartTable)
        key_path, dotted, message = _part_key_problem(problem, key_path, dotted)
    elif problem["type"] == "extra_forbidden":
        message = f"unknown key {dotted!r}" + _suggestion(model, key_path)
    elif _model_at(model, key_path) is not None:  # a rule across a whole table
        message = f"[{dotted}]: {reason}" if dotted else reason
    else:
        got = problem.get("input")
        message = f"{dotted}: {reason} (got {got!r}, {toml_type_name(got)})"
    if any(
        _common_prefix(key_path, keys) == min(len(key_path), len(keys)) for keys in override_keys
    ):
        return ConfigError(message, OVERRIDE_SOURCE)
    line = locate_key(text, key_path) if text else None
    return ConfigError(message, source, line)


def _part_key_problem(
    problem: Any, key_path: tuple[str, ...], dotted: str
) -> tuple[tuple[str, ...], str, str]:
    """The key path, dotted key and message of a problem with a key of a part's table: an
    unknown key (with the closest valid one) or a bad value."""
    key, valid = problem["ctx"]["key"], problem["ctx"]["valid"]
    key_path, dotted = (*key_path, key), f"{dotted}.{key}" if dotted else key
    if valid is None:
        return key_path, dotted, f"{dotted}: {problem['ctx']['message']}"
    message = f"unknown key {dotted!r}" + _close_key(key, valid, dotted.rsplit(".", 1)[0])
    return key_path, dotted, message


def _close_key(unknown: str, valid: list[str], table: str) -> str:
    """``; did you mean 'table.x'?`` (or the valid keys) for an unknown key of one table."""
    close = difflib.get_close_matches(unknown, valid, n=1, cutoff=0.6)
    if close:
        return f"; did you mean {f'{table}.{close[0]}' if table else close[0]!r}?"
    return f"; valid keys here: {', '.join(valid)}"


def _suggestion(config_model: type[BaseModel], key_path: tuple[str, ...]) -> str:
    """``; did you mean 'x'?`` for an unknown key, searching its table, then every table."""
    *table, unknown = key_path
    model = _model_at(config_model, tuple(table))
    valid = list(model.model_fields) if model else []
    close = difflib.get_close_matches(unknown, valid, n=1, cutoff=0.6)
    if close:
        return f"; did you mean {'.'.join([*table, close[0]])!r}?"
    everywhere = [".".join(k) for k in leaf_keys(config_model)]
    elsewhere = [k for k in everywhere if k.rsplit(".", 1)[-1] == unknown]
    if not elsewhere:
        names = {k.rsplit(".", 1)[-1]: k for k in everywhere}
        elsewhere = [names[n] for n in difflib.get_close_matches(unknown, names, n=1, cutoff=0.75)]
    if elsewhere:
        return f"; did you mean {elsewhere[0]!r}?"
    if valid:
        return f"; valid keys here: {', '.join(valid)}"
    return ""


def _model_at(model: type[BaseModel], keys: tuple[str, ...]) -> type[BaseModel] | None:
    for key in keys:
        field = model.model_fields.get(key)
        annotation = field.annotation if field else None
        if not (isinstance(annotation, type) and issubclass(annotation, BaseModel)):
            return None
        model = annotation
    return model


def leaf_keys(model: type[BaseModel], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every value key of ``model`` (a table's keys inside it), in field order."""
    keys = []
    for name, field in model.model_fields.items():
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys.extend(leaf_keys(annotation, (*prefix, name)))
        else:
            keys.append((*prefix, name))
    return keys


def _split_dotted(key: str) -> tuple[str, ...]:
    return tuple(part.strip().strip("\"'") for part in key.split("."))


def _common_prefix(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    depth = 0
    for x, y in zip(a, b):
        if x != y:
            break
        depth += 1
    return depth


def _resolve_levels(config: Any, config_dir: Path) -> Any:
    levels = config.run.levels
    if levels is None or Path(levels).is_absolute():
        return config
    for candidate in (Path(levels), config_dir / levels):
        if candidate.exists():
            run = config.run.model_copy(update={"levels": absolute(candidate)})
            return config.model_copy(update={"run": run})
    return config


def absolute(path: str | PathLike[str]) -> str:
    """``path`` made absolute as the user spelled it: against the current directory, ``..``
    taken off by name, symbolic links kept (``/work/wt/shared/...`` stays that, not the
    folder the link points to); resolved only where taking ``..`` off by name would miss."""
    spelled = os.path.abspath(path)
    return spelled if os.path.exists(spelled) else str(Path(path).resolve())


def _plain(model: BaseModel) -> dict:
    """A model as TOML-ready data: an unset value is left out when that is its default and
    written as ``"none"`` otherwise, so the text loads back to an equal model."""
    data: dict[str, Any] = {}
    for name in written_fields(model):
        field = type(model).model_fields[name]
        value = getattr(model, name)
        default = field.get_default(call_default_factory=True)
        extra = field.json_schema_extra
        if isinstance(extra, dict) and extra.get("omit_default") and value == default:
            continue
        if isinstance(value, BaseModel):
            data[name] = _plain(value)
        elif value is None:
            if default is not None:
                data[name] = "none"
        elif isinstance(value, (list, tuple)):
            data[name] = [_plain(v) if isinstance(v, BaseModel) else v for v in value]
        else:
            data[name] = value
    for name, value in (model.model_extra or {}).items():  # a plugin part's parameters
        data[name] = "none" if value is None else value
    if "kind" in data:
        data["kind"] = _where_it_lives(model, data["kind"])
    return data


def _where_it_lives(table: BaseModel, kind: Any) -> Any:
    """A plugin registered under a name is written as ``"module:function"`` when its module can
    be imported (not a script), so the written configuration loads in any process."""
    operator = getattr(table, "_operator", None)
    if operator is None or operator.builtin or ":" in str(kind):
        return kind
    module = getattr(operator.function, "__module__", "__main__")
    qualname = getattr(operator.function, "__qualname__", "")
    if module in ("__main__", "__mp_main__") or "<" in qualname:
        return kind
    return f"{module}:{qualname}"


# ---- any model: the files of experiments (compare, sweep) ------------------------------------


Model = TypeVar("Model", bound=BaseModel)


def load_model(
    model: type[Model], path: str | PathLike[str], overrides: Sequence[str] = ()
) -> tuple[Model, str]:
    """Read TOML ``path``, apply overrides, validate as ``model``; returns it and the file text.

    Raises :class:`ConfigError` with the file and line of the problem (or ``--set``).
    """
    text, data = read_toml(Path(path))
    override_keys: list[tuple[str, ...]] = []
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
    override_keys: Sequence[tuple[str, ...]] = (),
) -> ConfigError:
    """The first problem of ``error`` as a :class:`ConfigError` at its file line."""
    problems = error.errors()
    unknown = [p for p in problems if p["type"] == "extra_forbidden"]
    problem = (unknown or problems)[0]  # a typo also makes the right key "missing": name the typo
    loc = _clean_loc(model, tuple(problem["loc"]))
    dotted = ".".join(str(k) for k in loc)
    reason = problem["msg"].removeprefix("Value error, ")
    if problem["type"] == "config_key":  # a key of a part's table (see config._PartTable)
        strings = tuple(k for k in loc if isinstance(k, str))
        _, dotted, message = _part_key_problem(problem, strings, dotted)
        loc = (*loc, problem["ctx"]["key"])
    elif problem["type"] == "extra_forbidden":
        message = f"unknown key {dotted!r}" + _model_suggestion(model, loc)
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
            return absolute(candidate)
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
        if isinstance(current, _Union):  # the tag pydantic puts first, even if a field's name
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


def _model_suggestion(model: type[BaseModel], loc: tuple) -> str:
    *table, unknown = loc
    current: Any = model
    for key in table:
        if current is not None and not isinstance(key, int):
            current = _field_model(current, key)
    valid = list(current.model_fields) if current is not None else []
    return _close_key(str(unknown), valid, ".".join(str(k) for k in table))
    return ""
