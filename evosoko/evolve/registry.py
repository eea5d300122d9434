"""Registries of the GA's parts: name -> operator, with the model of its parameters.

Five registries of the solution GA: :data:`mutations`, :data:`crossovers`,
:data:`parent_selections`, :data:`survivals` and :data:`fitness_terms`. The engine builds its
toolbox from them and never tests a name itself; the built-in parts are registered in
:mod:`evosoko.evolve.builtins`. Three more hold the parts of level evolution
(:mod:`evosoko.levelgen`), whose built-ins live there: :data:`level_mutations`,
:data:`level_crossovers` and :data:`level_objectives` (its selections and survivals are the ones
above).

Adding a part of your own takes a function with the part's contract (DEAP's, for operators)::

    @evosoko.register_mutation("swap")
    def swap_genes(genome, rng, rate: float = 0.05):
        ...
        return (genome,)

and naming it in a configuration: ``[ga.mutation] kind = "swap"`` with its parameters in the
same table (``rate = 0.1``), checked like every other key (a misspelled one is refused with
the closest valid key and its line). A function that is not registered is named by where it
lives, ``kind = "package.module:function"``: it is imported when the configuration is read.

Parameters and context. The leading positional parameters are what the part works on (see
:data:`CONTRACTS`). Of the others, those named like a context value (:data:`CONTEXT`) receive
it from the engine: ``rng`` is the run's ``random.Random`` (a part must draw every random
number from it, which keeps runs reproducible and resumable exactly); the rest are the part's
parameters, whose model pydantic builds from the annotations and defaults unless
``params=Model`` is given.

Workers. Configurations carry the operators they use; a configuration pickled to a worker
(islands, the processes and Dask backends) takes them along, and the jobs of ``compare`` and
``sweep`` ship the operators of their configuration (:func:`evosoko.evolve.parts.used_by`,
:func:`install`). A function defined in an importable module travels by reference, one defined
in a script by value on Dask; with the processes backend a script's functions reach the
workers when they start by fork (Linux) or when the script defines them at its top level.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from pydantic import BaseModel, ConfigDict, create_model

__all__ = [
    "CONTEXT",
    "CONTRACTS",
    "Operator",
    "Registry",
    "crossovers",
    "fitness_terms",
    "install",
    "level_crossovers",
    "level_mutations",
    "level_objectives",
    "mutations",
    "parent_selections",
    "registry_of",
    "survivals",
]

CONTRACTS = {
    "mutation": (("genome",), "modifies the genome in place and returns (genome,)"),
    "crossover": (("first", "second"), "modifies both in place and returns (first, second)"),
    "parent_selection": (("individuals", "count"), "returns count individuals (references)"),
    "survival": (
        ("population", "offspring", "count"),
        "returns count individuals of population + offspring",
    ),
    "fitness_term": (("level", "state"), "returns a number for the position a genome reaches"),
    "level_mutation": (("genome",), "changes a level genome's cells in place, returns (genome,)"),
    "level_crossover": (
        ("first", "second"),
        "exchanges cells between two level genomes in place, returns (first, second)",
    ),
    "level_objective": (
        ("level", "certificate"),
        "returns a number for a certified level (its solution's pushes, its floor, ...)",
    ),
}
"""Per kind: the leading positional parameters and what the function must do."""

CONTEXT = {
    "rng": "the run's random.Random (every random number must come from it)",
    "gene_range": "genes are drawn from 0 .. gene_range - 1",
    "gene_choices": "how many values a gene takes: an int for every gene (the GA: gene_range) "
    "or one count per position (a population of searches: each knob's choices)",
    "min_length": "ga.min_length: fewest genes a genome may have",
    "max_length": "ga.max_length: most genes a genome may have",
    "initial_length": "ga.initial_length: genes of a random new genome",
    "encoding": '"moves" or "pushes"',
    "level": "the Level being solved",
    "key": "selection's ranking key: key(individual) compares larger-is-better",
    "identity": "duplicate identity of an individual (its position's hash), or None when "
    "fitness.eliminate_duplicates is off",
    "evaluation": "fitness terms: the genome's Evaluation (solved, distance, length, ...)",
    "genes": "fitness terms: the genes scored (up to the position reached)",
    "space": "level parts: the LevelSpace searched (size, cells that may be floor, boxes)",
}
"""Names of parameters that receive a value from the engine instead of the configuration."""


class _Parameters(BaseModel):
    """Base of parameter models built from a signature: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", strict=True)


@dataclass(frozen=True, eq=False)
class Operator:
    """A registered part: its ``function``, the model of its parameters (``params``), the
    context values it takes (``wants``) and options of its kind (``maximize`` for fitness
    terms, ``multi_objective`` and ``archive`` for survivals: an archive keeps one individual
    per behaviour cell, as many as there are, see :mod:`evosoko.evolve.archive`)."""

    kind: str
    name: str
    function: Callable[..., Any]
    params: type[BaseModel]
    wants: frozenset[str]
    options: Mapping[str, Any] = field(default_factory=dict)
    builtin: bool = False
    explicit_params: type[BaseModel] | None = None

    def bind(self, params: Mapping[str, Any], context: Mapping[str, Any]) -> Callable[..., Any]:
        """The function with its parameters and the context values it takes filled in."""
        given = {name: context[name] for name in self.wants if name in context}
        missing = self.wants - set(given)
        if missing:
            raise TypeError(f"{self.kind} {self.name!r} needs {', '.join(sorted(missing))}")
        return partial(self.function, **given, **params)

    def __eq__(self, other: object) -> bool:  # the same part, wherever it was unpickled
        return isinstance(other, Operator) and (self.kind, self.name, self.function) == (
            other.kind,
            other.name,
            other.function,
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.name))

    def __reduce__(self):  # the model built from a signature is rebuilt, not pickled
        return (
            _rebuilt,
            (
                self.kind,
                self.name,
                self.function,
                self.explicit_params,
                dict(self.options),
                self.builtin,
            ),
        )


def _rebuilt(kind, name, function, explicit_params, options, builtin) -> Operator:
    return registry_of(kind).make(function, name, explicit_params, builtin=builtin, **options)


class Registry:
    """Name -> :class:`Operator` for one kind of part (see the module docstring)."""

    def __init__(
        self,
        kind: str,
        options: Mapping[str, Any] | None = None,
        builtins: str = "evosoko.evolve.builtins",
    ) -> None:
        self.kind = kind
        self.leading = CONTRACTS[kind][0]
        self.option_defaults = dict(options or {})
        self.builtins = builtins  # the module whose import registers this kind's built-ins
        self._builtins_loaded = False
        self._entries: dict[str, Operator] = {}

    def register(
        self,
        name: str | Callable[..., Any] | None = None,
        *,
        params: type[BaseModel] | None = None,
        **options: Any,
    ) -> Any:
        """Decorator: register a function under ``name`` (default: its own name); the function
        is returned unchanged. ``params``: a pydantic model of its parameters (default: built
        from the signature). Usable bare (``@register_mutation``) or called."""
        if callable(name):
            return self.register()(name)

        def decorate(function: Callable[..., Any]) -> Callable[..., Any]:
            operator = self.make(function, name or function.__name__, params, **options)
            self._load_builtins()
            existing = self._entries.get(operator.name)
            if existing is not None and existing.builtin:
                raise ValueError(
                    f"{operator.name!r} is a built-in {self.kind.replace('_', ' ')}; "
                    "register yours under another name"
                )
            self._entries[operator.name] = operator  # registering again replaces it
            function.__evosoko_operator__ = operator  # type: ignore[attr-defined]
            return function

        return decorate

    def make(
        self,
        function: Callable[..., Any],
        name: str,
        params: type[BaseModel] | None = None,
        *,
        builtin: bool = False,
        **options: Any,
    ) -> Operator:
        """An operator of this kind for ``function`` (not registered)."""
        unknown = set(options) - set(self.option_defaults)
        if unknown:
            raise TypeError(f"a {self.kind} has no option {', '.join(sorted(unknown))}")
        wants, model = _signature(function, self.leading, name)
        return Operator(
            kind=self.kind,
            name=name,
            function=function,
            params=params or model,
            wants=wants,
            options={**self.option_defaults, **options},
            builtin=builtin,
            explicit_params=params,
        )

    def install(self, operator: Operator) -> None:
        """Make ``operator`` known by its name (a worker receiving a configuration's parts)."""
        self._entries.setdefault(operator.name, operator)

    def get(self, name: str) -> Operator:
        """The operator registered as ``name``, or the function ``"package.module:function"``;
        a ``ValueError`` that lists the registered names otherwise."""
        self._load_builtins()
        if name in self._entries:
            return self._entries[name]
        if ":" in name:
            operator = self._imported(name)
            self._entries[name] = operator
            return operator
        known = ", ".join(self.names())
        raise ValueError(
            f"unknown {self.kind.replace('_', ' ')} {name!r}; registered: {known}; or name a "
            'function of your own as "package.module:function"'
        )

    def names(self) -> list[str]:
        """The registered names (built-in ones first)."""
        self._load_builtins()
        builtin = [n for n, o in self._entries.items() if o.builtin]
        return builtin + sorted(
            n for n, o in self._entries.items() if not o.builtin and ":" not in n
        )

    def __contains__(self, name: object) -> bool:
        self._load_builtins()
        return name in self._entries

    def _load_builtins(self) -> None:
        if not self._builtins_loaded:
            self._builtins_loaded = True
            importlib.import_module(self.builtins)

    def _imported(self, reference: str) -> Operator:
        """The function ``reference`` names; every way it can fail is a ``ValueError`` naming
        it (a bad name, a module that cannot be imported or raises while it is, a function
        that does not fit the part's contract)."""
        module_name, _, attribute = reference.partition(":")
        if not (_DOTTED_NAME.fullmatch(module_name) and _DOTTED_NAME.fullmatch(attribute)):
            raise ValueError(
                f"{reference!r} is not a function's name: write it as "
                '"package.module:function" (Python names joined by dots)'
            )
        try:
            target: Any = importlib.import_module(module_name)
        except ImportError as error:
            raise ValueError(
                f"cannot import {module_name!r} for {reference!r}: {error} (the module must be "
                "importable: installed, or on PYTHONPATH)"
            ) from None
        except Exception as error:  # noqa: BLE001 - a plugin's own failure is a config error
            raise ValueError(
                f"importing {module_name!r} for {reference!r} failed: "
                f"{type(error).__name__}: {error}"
            ) from None
        for part in attribute.split("."):
            target = getattr(target, part, None)
            if target is None:
                raise ValueError(f"module {module_name!r} has no {attribute!r}")
        if not callable(target):
            raise ValueError(  # noqa: TRY004 - pydantic reports ValueError
                f"{reference!r} is not a function"
            )
        registered = getattr(target, "__evosoko_operator__", None)
        if isinstance(registered, Operator) and registered.kind == self.kind:
            return registered
        try:
            return self.make(target, reference)
        except (TypeError, ValueError) as error:
            leading, duty = CONTRACTS[self.kind]
            kind = self.kind.replace("_", " ")
            raise ValueError(
                f"{reference!r} cannot be a {kind}: a {kind} takes {', '.join(leading)} first "
                f"and {duty} ({error})"
            ) from None


_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
"""A module's or attribute's dotted name: ``..x``, ``/x`` and empty names are not."""


def _signature(
    function: Callable[..., Any], leading: tuple[str, ...], name: str
) -> tuple[frozenset[str], type[BaseModel]]:
    """The context names ``function`` takes and the model of its other parameters."""
    try:
        signature = inspect.signature(function, eval_str=True)
    except (NameError, TypeError):
        signature = inspect.signature(function)
    positional = [
        p
        for p in signature.parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty
    ]
    if len(positional) < len(leading) and not any(
        p.kind is p.VAR_POSITIONAL for p in signature.parameters.values()
    ):
        raise TypeError(f"{name}: expected leading parameters {', '.join(leading)}")
    wants: set[str] = set()
    fields: dict[str, Any] = {}  # name -> (annotation, default): create_model's field keywords
    for index, parameter in enumerate(signature.parameters.values()):
        if index < len(leading) or parameter.kind in (
            parameter.VAR_POSITIONAL,
            parameter.VAR_KEYWORD,
        ):
            continue
        if parameter.name in CONTEXT:
            wants.add(parameter.name)
            continue
        annotation = Any if parameter.annotation is parameter.empty else parameter.annotation
        default = ... if parameter.default is parameter.empty else parameter.default
        fields[parameter.name] = (annotation, default)
    model = create_model(f"{name} parameters", __base__=_Parameters, **fields)
    return frozenset(wants), model


mutations = Registry("mutation")
crossovers = Registry("crossover")
parent_selections = Registry("parent_selection")
survivals = Registry("survival", {"multi_objective": False, "archive": False})
fitness_terms = Registry("fitness_term", {"maximize": False})
_LEVEL_BUILTINS = "evosoko.levelgen.builtins"
level_mutations = Registry("level_mutation", builtins=_LEVEL_BUILTINS)
level_crossovers = Registry("level_crossover", builtins=_LEVEL_BUILTINS)
level_objectives = Registry("level_objective", {"maximize": False}, builtins=_LEVEL_BUILTINS)

_REGISTRIES = {
    registry.kind: registry
    for registry in (
        mutations,
        crossovers,
        parent_selections,
        survivals,
        fitness_terms,
        level_mutations,
        level_crossovers,
        level_objectives,
    )
}


def registry_of(kind: str) -> Registry:
    """The registry of ``kind`` (``"mutation"``, ``"crossover"``, ...)."""
    return _REGISTRIES[kind]


def install(operators: Iterable[Operator]) -> None:
    """Make ``operators`` known by name in this process (see
    :func:`evosoko.evolve.parts.used_by`)."""
    for operator in operators:
        registry_of(operator.kind).install(operator)
