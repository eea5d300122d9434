"""Sphinx directive ``config-keys``: the tables and keys of a configuration model, generated.

    ```{config-keys} evosoko.Config
    ```

walks the pydantic model named by its import path and writes, per TOML table, one table of its
keys: the dotted key, its type, its default and the description the model gives it. The pages
therefore list every key the loader accepts, and a key added, renamed or moved in the models
shows up here at the next build.
"""

from __future__ import annotations

import importlib
import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive
from pydantic import BaseModel


@dataclass
class Table:
    """One TOML table: its header (``[ga.mutation]``, ``[[solver]] with kind = "ga"``), what it
    is, and its keys as (name, type, default, meaning)."""

    header: str
    text: str
    rows: list[tuple[str, str, str, str]] = field(default_factory=list)


def import_object(path: str) -> Any:
    """``package.module.Name`` (or ``package.Name``): the object it names."""
    module_name, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module_name), name)


def _args(annotation: Any) -> tuple[Any, ...]:
    return typing.get_args(annotation)


def _is_union(annotation: Any) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _strip_annotated(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = _args(annotation)[0]
    return annotation


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation holds (a model, or a union of models), else none."""
    annotation = _strip_annotated(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    if _is_union(annotation):
        found = [_models(arg) for arg in _args(annotation) if arg is not type(None)]
        if found and all(found):
            return [model for models in found for model in models]
    return []


def type_text(annotation: Any) -> str:
    """A reader's name for a value's type: ``int``, ``one of "a", "b"``, ``list of str``."""
    annotation = _strip_annotated(annotation)
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return "one of " + ", ".join(f'"{value}"' for value in _args(annotation))
    if _is_union(annotation):
        parts = [type_text(arg) for arg in _args(annotation) if arg is not type(None)]
        optional = type(None) in _args(annotation)
        return " or ".join(parts) + (" (optional)" if optional else "")
    if origin in (list, tuple, set, frozenset):
        return "list of " + " or ".join(type_text(arg) for arg in _args(annotation)[:1])
    if origin is dict:
        return "table"
    if isinstance(annotation, type):
        return {"str": "string", "bool": "boolean"}.get(annotation.__name__, annotation.__name__)
    return str(annotation)


def default_text(info: Any) -> str:
    """The default as TOML would spell it; empty when the key is required."""
    if info.is_required():
        return "required"
    value = info.get_default(call_default_factory=True)
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(f'"{v}"' if isinstance(v, str) else str(v) for v in value) + "]"
    return str(value)


def _docstring(model: type[BaseModel]) -> str:
    return " ".join((model.__doc__ or "").split("\n\n")[0].split())


def tables(
    model: type[BaseModel], path: str = "", text: str = "", header: str = ""
) -> Iterator[Table]:
    """Every table of ``model`` (at the dotted ``path``), its own keys first, then its
    sub-tables in field order."""
    own = Table(header or (f"[{path}]" if path else ""), text or _docstring(model))
    nested: list[Table] = []
    for name, info in model.model_fields.items():
        key = f"{path}.{name}" if path else name
        annotation = _strip_annotated(info.annotation)
        description = " ".join((info.description or "").split())
        models = _models(annotation)
        items = _models(_args(annotation)[0]) if typing.get_origin(annotation) is list else []
        values = _args(annotation)[1] if typing.get_origin(annotation) is dict else None
        if len(models) == 1:
            nested += tables(models[0], key, description or _docstring(models[0]))
        elif items:
            for item in items:
                array = f"[[{key}]]" + _discriminator(item)
                nested += tables(item, key, description or _docstring(item), array)
        elif values is not None and _models_in(values):
            own.rows.append((name, "table", "", description))
            for value_model in _models_in(values):
                nested += tables(value_model, f"{key}.NAME", _docstring(value_model))
        else:
            own.rows.append((name, type_text(annotation), default_text(info), description))
    if own.rows:
        yield own
    yield from nested


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    annotation = _strip_annotated(annotation)
    if _is_union(annotation):
        return [model for arg in _args(annotation) for model in _models(arg)]
    return _models(annotation)


def _discriminator(model: type[BaseModel]) -> str:
    """`` kind = "ga"`` for a member of a union told apart by a literal ``kind``."""
    kind = model.model_fields.get("kind")
    if kind is not None and typing.get_origin(kind.annotation) is typing.Literal:
        return f' with kind = "{_args(kind.annotation)[0]}"'
    return ""


def _entry(*children: nodes.Node) -> nodes.entry:
    return nodes.entry("", nodes.paragraph("", "", *children))


def table_nodes(table: Table) -> list[nodes.Node]:
    """A rubric naming the table, what it is, and its keys as a four-column table."""
    title = nodes.rubric("", "")
    title += nodes.literal(text=table.header) if table.header else nodes.Text("Top-level keys")
    found: list[nodes.Node] = [title]
    if table.text:
        found.append(nodes.paragraph(text=table.text))
    group = nodes.tgroup(cols=4)
    for width in (22, 20, 12, 46):
        group += nodes.colspec(colwidth=width)
    head = nodes.row()
    for label in ("key", "type", "default", "meaning"):
        head += _entry(nodes.Text(label))
    group += nodes.thead("", head)
    body = nodes.tbody()
    for name, kind, default, text in table.rows:
        row = nodes.row()
        row += _entry(nodes.literal(text=name))
        row += _entry(nodes.Text(kind))
        row += _entry(nodes.literal(text=default)) if default else _entry()
        row += _entry(nodes.Text(text))
        body += row
    group += body
    found.append(nodes.table("", group, classes=["config-keys"], width="100%"))
    return found


class ConfigKeys(Directive):
    """``config-keys MODEL``: the tables of the configuration model at that import path."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        model = import_object(self.arguments[0])
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            raise self.error(f"{self.arguments[0]} is not a pydantic model")
        return [node for table in tables(model) for node in table_nodes(table)]


def setup(app: Any) -> dict[str, Any]:
    app.add_directive("config-keys", ConfigKeys)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
