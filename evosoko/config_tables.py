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
        values = {
            k: extras[k] if k in extras else getattr(self, k)
            for k in accepted
            if k in extras or k in own
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
