"""The base of every configuration table, and the tables that name a part of the GA.

:class:`_Section` forbids unknown keys and checks values strictly. A *part table*
(:class:`_PartTable`: ``[ga.mutation]``, ``[ga.crossover]``, ``[ga.parents]``,
``[ga.survival]``, ``[[fitness.terms]]``) names a registered part or a plugin with ``kind``
(:mod:`evosoko.evolve.registry`) and holds its parameters: a built-in part reads its own keys,
a plugin the keys its parameter model defines, each checked like every other key (a misspelled
one is refused with the closest valid key and the line it is on).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import (
    BaseModel,
    ConfigDict,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic.json_schema import JsonDict
from pydantic_core import PydanticCustomError

_NONE_WORDS = frozenset({"none", "null"})


class _Section(BaseModel):
    """Base of every section: unknown keys are errors, values are checked strictly."""

    model_config = ConfigDict(extra="forbid", strict=True, validate_default=True)


def _none_word(value: Any) -> Any:
    """Map the strings ``"none"``/``"null"`` to None (TOML has no null)."""
    if isinstance(value, str) and value.strip().lower() in _NONE_WORDS:
        return None
    return value


OMIT_DEFAULT: JsonDict = {"omit_default": True}
"""``json_schema_extra`` of keys added after configurations were first written: a dump leaves
them out while they hold their default, so older resolved configurations (and the digests of
experiment jobs made from them) stay as they were."""


class _PartTable(_Section):
    """A table that names a part of the GA (``kind``, see :mod:`evosoko.evolve.registry`) and
    holds its parameters: a built-in part reads them from the table's own keys, a plugin part
    from keys that its model defines (checked like every other key)."""

    model_config = ConfigDict(extra="allow", strict=True, validate_default=True)
    part: ClassVar[str]
    shared: ClassVar[tuple[str, ...]] = ("kind",)
    """Keys the engine reads whatever the part; the table's other keys are the parameters of
    the built-in parts, read only by a part that takes them (:mod:`evosoko.config_reads`)."""
    _operator: Any = PrivateAttr(default=None)
    _params: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _part_parameters(self) -> _PartTable:
        name = getattr(self, "kind", None)
        own = list(type(self).model_fields)
        if name is None:  # the default of a selection scheme: no parameters of its own
            for key in self.model_extra or {}:
                raise _key_error(key, valid=own)
            return self
        from evosoko.evolve.registry import registry_of

        operator = registry_of(self.part).get(name)
        extras = dict(self.model_extra or {})
        accepted = operator.params.model_fields
        for key in extras:
            if key not in accepted:
                raise _key_error(key, valid=own + [k for k in accepted if k not in own])
        # a built-in part's parameters are the table's keys; a key a plugin shares with the
        # table takes the plugin's own default unless the table gives it
        given = set(own) if operator.builtin else self.model_fields_set
        values = {
            k: extras[k] if k in extras else getattr(self, k)
            for k in accepted
            if k in extras or k in given
        }
        try:
            params = operator.params.model_validate(values).model_dump()
        except ValidationError as error:
            problem = error.errors()[0]
            key = ".".join(str(k) for k in problem["loc"]) or "kind"
            if problem["type"] == "missing":
                raise _key_error(key, message=f"{name!r} needs this parameter") from None
            got = problem.get("input")
            reason = problem["msg"].removeprefix("Value error, ")
            raise _key_error(
                key, message=f"{reason} (got {got!r}, {toml_type_name(got)})"
            ) from None
        self.__pydantic_extra__ = {k: v for k, v in params.items() if k not in own}
        for key in own:  # one value per key: the table shows what the part receives
            if key in params:
                self.__dict__[key] = params[key]
        self._operator, self._params = operator, params
        return self

    @property
    def operator(self) -> Any:
        """The part this table names (an :class:`~evosoko.evolve.registry.Operator`)."""
        kind = getattr(self, "kind", None)  # declared by each kind of part table
        if self._operator is None and kind is not None:
            from evosoko.evolve.registry import registry_of

            self._operator = registry_of(self.part).get(kind)
        return self._operator

    @property
    def params(self) -> dict[str, Any]:
        """The part's parameters, as given in the table or by default."""
        return dict(self._params)


def _key_error(key: str, *, valid: list[str] | None = None, message: str = "") -> Exception:
    """An error at ``key`` of a part table: unknown (``valid`` keys to suggest from), or with a
    message about its value."""
    return PydanticCustomError(
        "config_key", "{key}: {message}", {"key": key, "valid": valid, "message": message}
    )


def unread_error(key: tuple[str, ...], message: str, deciders: list[tuple[str, ...]]) -> Exception:
    """The error of a key the run does not read (:mod:`evosoko.config_reads`): ``deciders``
    are the keys whose values make it unread, so that an override of one of them can drop the
    value a file gave it (:func:`evosoko.config_loading.load_config_model`)."""
    return PydanticCustomError(
        "unread_key", "{message}", {"keys": key, "message": message, "deciders": deciders}
    )


def written_fields(table: BaseModel) -> list[str]:
    """The keys of ``table`` a dump writes: all of them, except in a table naming a plugin
    part, which holds the keys the engine reads and the plugin's parameters only."""
    fields = list(type(table).model_fields)
    if not isinstance(table, _PartTable):
        return fields
    operator = table.operator
    if operator is None or operator.builtin:  # kept as written before (job digests)
        return fields
    return [name for name in fields if name in type(table).shared or name in table.params]


def _known_part(part: str):
    """A field validator: the value names a registered part, or an importable function."""

    def check(cls: type, name: str | None) -> str | None:
        if name is not None:
            from evosoko.evolve.registry import registry_of

            registry_of(part).get(name)  # a ValueError that lists the choices
        return name

    return field_validator("kind")(classmethod(check))


def toml_type_name(value: Any) -> str:
    """The TOML kind of ``value`` for messages ("an integer", "a string", ...)."""
    kinds = (
        (bool, "a boolean"),
        (int, "an integer"),
        (float, "a float"),
        (str, "a string"),
        (list, "an array"),
        (dict, "a table"),
    )
    for kind, name in kinds:
        if isinstance(value, kind):
            return name
    return type(value).__name__
