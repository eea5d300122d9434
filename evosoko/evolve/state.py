"""The state of a GA loop as a value: what its checkpoint holds, validated.

Three kinds, each a frozen pydantic model that is also the checkpoint file's content
(:meth:`LoopState.to_json` writes plain JSON, :func:`read_state` reads it back):

- :class:`EngineState`: one population (:class:`~evosoko.evolve.engine.Engine`): the members
  (genes, evaluation, age) and the hall of fame, the counters, the best fitness so far (named
  values), the aging table (compressed text), the positions proven lost and those the memetic
  step searched, and the state of the run's ``random.Random``;
- :class:`IslandsState`: several islands (:mod:`evosoko.evolve.islands`), each island's engine
  state after its last finished epoch with its outbox and the statistics not streamed yet;
- :class:`SearchesState`: a population of searches (:mod:`evosoko.evolve.search_population`).

A state holds everything its loop needs to continue exactly as if it had never stopped;
fitnesses are deterministic, so the fitness cache is not saved. Reading validates the shape
(types, ranges, random state, aging table); :meth:`LoopState.check` then checks it against the
configuration that resumes it (genes, sizes, limits), so a damaged or edited checkpoint is
refused with one line naming the value.

Versions: 3 is written now (every state has its ``kind`` and ``version``). Older run folders
resume: version 2 (named evaluations and fitness values) and version 1 (positional lists,
``best_values``) of an engine, and the islands and searches checkpoints of evosoko before these
models (no ``version`` of their own) are read into today's models.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    StrictInt,
    ValidationError,
)

from evosoko.config import FITNESS_VALUES, Config
from evosoko.errors import EvosokoError
from evosoko.evolve.fitness import Evaluation
from evosoko.evolve.genomes import gene_range
from evosoko.result import GenerationStats
from evosoko.sokoban.level import UNREACHABLE

__all__ = [
    "STATE_VERSION",
    "BestRecord",
    "EngineState",
    "IslandState",
    "IslandsState",
    "LoopState",
    "Member",
    "SearchMember",
    "SearchesState",
    "StreamedRecord",
    "is_int",
    "is_number",
    "kind_problem",
    "read_state",
]

STATE_VERSION: Literal[3] = 3
HASH_LIMIT = 1 << 64


# ---- values with a JSON form of their own --------------------------------------------------------
def evaluation_to_json(evaluation: Evaluation) -> dict[str, Any]:
    """An evaluation by name (``terms`` only when there are any, ``cell`` when it has one)."""
    data: dict[str, Any] = {
        "solved": bool(evaluation.solved),
        "distance": int(evaluation.distance),
        "length": int(evaluation.length),
        "keep": int(evaluation.keep),
        "state_hash": int(evaluation.state_hash),
        "gap": int(evaluation.gap),
    }
    if evaluation.terms:
        data["terms"] = [float(value) for value in evaluation.terms]
    if evaluation.cell >= 0:
        data["cell"] = int(evaluation.cell)
    return data


def evaluation_from_json(data: Any) -> Evaluation:
    """Inverse of :func:`evaluation_to_json`; also reads version 1's positional lists. A value
    out of range raises ``ValueError``."""
    if isinstance(data, Evaluation):
        return data
    if isinstance(data, list):
        if len(data) not in (5, 6):
            raise ValueError("neither an evaluation by name nor a list of 5 or 6")
        solved, distance, length, keep, state_hash, *gap = data
        values: dict[str, Any] = {
            "solved": solved,
            "distance": distance,
            "length": length,
            "keep": keep,
            "state_hash": state_hash,
        }
        values["gap"] = sum(gap) if all(is_int(g) for g in gap) else gap
    elif isinstance(data, dict):
        names = ("solved", "distance", "length", "keep", "state_hash")
        missing = [name for name in names if name not in data]
        if missing:
            raise ValueError(f"it has no {', '.join(map(repr, missing))}")
        values = {name: data[name] for name in names}
        values["gap"] = data.get("gap", 0)
        values["terms"] = data.get("terms", [])
        values["cell"] = data.get("cell", -1)
    else:
        raise ValueError("it is not an evaluation")  # noqa: TRY004 - pydantic reports ValueError
    solved, distance, terms = values["solved"], values["distance"], values.get("terms", [])
    valid = (solved in (0, 1) or isinstance(solved, bool)) and all(
        is_int(values[name]) and values[name] >= 0
        for name in ("distance", "length", "keep", "state_hash", "gap")
    )
    valid = valid and distance <= UNREACHABLE and values["state_hash"] < HASH_LIMIT
    valid = valid and isinstance(terms, list) and all(is_number(t) for t in terms)
    valid = valid and is_int(values.get("cell", -1)) and not (bool(solved) and distance != 0)
    if not valid:
        raise ValueError(f"{_short(data)} is out of range")
    return Evaluation(
        solved=bool(solved),
        distance=int(distance),
        length=int(values["length"]),
        keep=int(values["keep"]),
        state_hash=int(values["state_hash"]),
        gap=int(values["gap"]),
        terms=tuple(float(t) for t in terms),
        cell=int(values.get("cell", -1)),
    )


def rng_to_json(state: tuple) -> list:
    """``random.Random.getstate()`` as nested lists."""
    version, internal, gauss_next = state
    return [version, list(internal), gauss_next]


def rng_from_json(data: Any) -> tuple:
    """Inverse of :func:`rng_to_json`, ready for ``random.Random.setstate`` (checked:
    ``ValueError`` when it is not the state of a generator)."""
    try:
        version, internal, gauss_next = data
        state = (int(version), tuple(int(x) for x in internal), gauss_next)
        random.Random().setstate(state)
    except (TypeError, ValueError, OverflowError):
        raise ValueError("it is not the state of a random generator") from None
    return state


def restored_rng(state: tuple) -> random.Random:
    """A ``random.Random`` in ``state``."""
    rng = random.Random()
    rng.setstate(state)
    return rng


def _age_memory(text: Any) -> str | None:
    if text is None:
        return None
    from evosoko.evolve.aging import AgeMemory

    try:
        AgeMemory.from_json(text)
    except Exception:  # noqa: BLE001 - any decoding problem means a damaged table
        raise ValueError("it is not an age table written by evosoko") from None
    return str(text)


def _stats(data: Any) -> GenerationStats:
    if isinstance(data, GenerationStats):
        return data
    try:
        stats = GenerationStats.from_dict(data)
    except (TypeError, KeyError) as error:
        raise ValueError(f"malformed statistics ({error})") from None
    if not all(isinstance(v, bool) or is_number(v) for v in stats.as_dict().values()):
        raise ValueError("malformed statistics")
    return stats


EvaluationValue = Annotated[
    Evaluation, PlainValidator(evaluation_from_json), PlainSerializer(evaluation_to_json)
]
RngState = Annotated[tuple, PlainValidator(rng_from_json), PlainSerializer(rng_to_json)]
AgeTable = Annotated[str | None, PlainValidator(_age_memory)]
Stats = Annotated[GenerationStats, PlainValidator(_stats), PlainSerializer(lambda s: s.as_dict())]
Count = Annotated[StrictInt, Field(ge=0)]
Hash = Annotated[StrictInt, Field(ge=0, lt=HASH_LIMIT)]
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


# ---- one population ------------------------------------------------------------------------------
class Member(_Model):
    """One individual as plain data: its genes, its evaluation and its age."""

    genes: tuple[StrictInt, ...]
    evaluation: EvaluationValue
    age: Count = 0

    @classmethod
    def of(cls, genes: Sequence[int], evaluation: Evaluation, age: int = 0) -> Member:
        """A member of trusted values (no validation: the engine's own)."""
        return cls.model_construct(genes=tuple(genes), evaluation=evaluation, age=age)

    @property
    def position(self) -> int:
        """The position (state hash) its genes reach."""
        return self.evaluation.state_hash


class LoopState(_Model):
    """What every loop's state has: the level, the counters after its last generation."""

    level: str
    generation: Count
    evaluations: Count
    restarts: Count = 0
    seconds: Seconds
    version: Literal[3] = STATE_VERSION

    def to_json(self) -> dict[str, Any]:
        """The checkpoint: JSON-able plain data (lists, numbers, strings)."""
        return self.model_dump(mode="json")

    def check(self, config: Config) -> None:
        """Check the state against the configuration that resumes it; ``ValueError`` naming
        what does not fit."""


class EngineState(LoopState):
    """One population after a generation (see the module docstring)."""

    kind: Literal["engine"] = "engine"
    encoding: Literal["moves", "pushes"]
    stagnant: Count
    best_fitness: dict[str, float] | None
    rng_state: RngState
    population: tuple[Member, ...]
    hall_of_fame: tuple[Member, ...] = Field(min_length=1)
    age_memory: AgeTable = None
    lost_positions: tuple[Hash, ...] = ()
    memetic_searched: tuple[Hash, ...] = ()

    def check(self, config: Config, where: str = "") -> None:
        """The encoding, population and hall-of-fame sizes, genes and generation against
        ``config`` (``where``: a prefix of the values named)."""
        ga, budget = config.ga, config.run.budget
        if self.encoding != ga.encoding:
            raise ValueError(
                f"{where}encoding is {self.encoding!r}; the configuration {ga.encoding}"
            )
        if budget.generations is not None and self.generation > budget.generations:
            raise ValueError(f"{where}generation = {self.generation} is out of range")
        if len(self.population) != ga.population and not _archive(config):
            raise ValueError(
                f"{where}population has {len(self.population)} individuals; the "
                f"configuration {ga.population}"
            )
        if len(self.hall_of_fame) > ga.hall_of_fame:
            raise ValueError(
                f"{where}hall_of_fame has {len(self.hall_of_fame)} individuals "
                f"(1..{ga.hall_of_fame})"
            )
        if self.best_fitness is not None and "distance" not in self.best_fitness:
            raise ValueError(f"{where}best_fitness has no distance")
        top = gene_range(ga.encoding)
        for name in ("population", "hall_of_fame"):
            for number, member in enumerate(getattr(self, name)):
                _check_member(member, config, top, f"{where}{name}[{number}]")

    def with_population(self, population: Sequence[Member]) -> EngineState:
        """This state with another population (islands' migrants arriving)."""
        return self.model_copy(update={"population": tuple(population)})


def _archive(config: Config) -> bool:
    from evosoko.evolve.parts import parts_of

    return parts_of(config).archive


def _check_member(member: Member, config: Config, top: int, where: str) -> None:
    ga = config.ga
    if len(member.genes) > ga.max_length:
        raise ValueError(f"{where}.genes is not a list of at most {ga.max_length} genes")
    for position, gene in enumerate(member.genes):
        if not 0 <= gene < top:
            raise ValueError(
                f"{where}.genes[{position}] = {gene!r} is not a gene of {ga.encoding} genomes "
                f"(0..{top - 1})"
            )
    evaluation = member.evaluation
    if evaluation.length > len(member.genes) or evaluation.keep > len(member.genes):
        raise ValueError(f"{where}.evaluation = {evaluation!r} is out of range")


# ---- islands -----------------------------------------------------------------------------------
class BestRecord(_Model):
    """An island's best individual after a generation, as streamed."""

    genes: tuple[Count, ...]
    fitness: dict[str, float]
    evaluation: EvaluationValue


class StreamedRecord(_Model):
    """A generation's statistics with the island's best individual after it."""

    stats: Stats
    best: BestRecord | None = None


class IslandState(_Model):
    """One island of :class:`~evosoko.evolve.islands.IslandModel`: its engine's state after its
    last finished epoch (None: not started), the epochs finished, its outbox (epoch, copies of
    its best members after it) until the next island has taken them, the statistics not streamed
    yet and the last streamed."""

    state: EngineState | None = None
    epochs: Count = 0
    outbox: tuple[tuple[Count, tuple[Member, ...]], ...] = ()
    pending: tuple[StreamedRecord, ...] = ()
    latest: StreamedRecord | None = None


class IslandsState(LoopState):
    """Every island after its last finished epoch; ``generation`` is the last generation
    streamed, ``evaluations`` and ``restarts`` the sums of the islands' states."""

    kind: Literal["islands"] = "islands"
    islands: tuple[IslandState, ...]

    def check(self, config: Config) -> None:
        count = config.ga.islands.count
        if len(self.islands) != count:
            raise ValueError(f"it holds {len(self.islands)} islands; the configuration has {count}")
        states = [island.state for island in self.islands if island.state is not None]
        for number, island in enumerate(self.islands):
            where = f"islands[{number}]."
            if island.state is not None:
                island.state.check(config, where + "state.")
            top = gene_range(config.ga.encoding)
            for _, members in island.outbox:
                for member in members:
                    _check_member(member, config, top, f"{where}outbox member")
        if states and self.evaluations != sum(s.evaluations for s in states):
            raise ValueError("its evaluations are not the sum of its islands'")


# ---- a population of searches --------------------------------------------------------------------
class SearchMember(_Model):
    """A search genome and what its search did (the fields of
    :class:`~evosoko.evolve.search_population.SearchOutcome`, in order)."""

    genome: tuple[Count, ...]
    outcome: tuple[Any, ...]


class SearchesState(LoopState):
    """A population of searches after a generation."""

    kind: Literal["searches"] = "searches"
    members: tuple[SearchMember, ...] = Field(min_length=1)
    best: SearchMember | None
    history: tuple[Stats, ...]
    rng: RngState

    def check(self, config: Config) -> None:
        from evosoko.evolve.search_genomes import outcome_of, settings_of

        for number, member in enumerate([*self.members, *([self.best] if self.best else [])]):
            try:
                settings_of(member.genome)
                outcome_of(member.outcome)
            except (ValueError, TypeError, IndexError):
                raise ValueError(f"member {number} has a gene that is not a choice") from None


State = EngineState | IslandsState | SearchesState


def kind_problem(state: LoopState, config: Config) -> str | None:
    """Why ``state`` cannot resume under ``config`` (another kind of population), or None."""
    searches = isinstance(state, SearchesState)
    if searches != config.searches.enabled:
        what = "a population of searches" if searches else "genomes"
        enabled = str(config.searches.enabled).lower()
        return f"it holds {what}; the configuration has searches.enabled = {enabled}"
    count = config.ga.islands.count
    if not searches and isinstance(state, IslandsState) != (count > 1):
        held = (
            f"{len(state.islands)} islands" if isinstance(state, IslandsState) else "one population"
        )
        return f"it holds {held}; the configuration has {count} island(s)"
    return None


# ---- reading -----------------------------------------------------------------------------------
def read_state(data: Any) -> State:
    """The state a checkpoint holds, of any kind and version (see the module docstring);
    :class:`EvosokoError` naming the first value that is wrong."""
    if not isinstance(data, dict):
        raise EvosokoError("a damaged checkpoint: it is not a JSON object")
    kind = data.get("kind", "engine")
    models: dict[str, type[LoopState]] = {
        "engine": EngineState,
        "islands": IslandsState,
        "searches": SearchesState,
    }
    if kind not in models:
        raise EvosokoError(f"a damaged checkpoint: kind {kind!r} is not one evosoko writes")
    version = data.get("version")
    if kind == "engine" and version not in (1, 2, STATE_VERSION):
        raise EvosokoError(
            f"checkpoint version {version!r} is not one this evosoko reads (1, 2, 3)"
        )
    if version != STATE_VERSION:
        data = _upgraded(kind, data)
    if kind == "islands" and isinstance(data.get("islands"), list):  # counts: written until 7f84b3d
        data = {**data, "islands": [_without_counts(island) for island in data["islands"]]}
    try:
        return models[kind].model_validate(data)  # type: ignore[return-value]
    except ValidationError as error:
        raise EvosokoError(f"a damaged checkpoint: {_first_problem(error)}") from None


def _upgraded(kind: str, data: dict[str, Any]) -> dict[str, Any]:
    """A checkpoint of before these models in today's layout (values are checked after)."""
    if kind == "engine":
        return _engine_v3(data)
    if kind == "searches":
        return {**data, "version": STATE_VERSION}
    islands = data.get("islands")
    if not isinstance(islands, list) or not all(
        isinstance(i, dict) and "outbox" in i for i in islands
    ):
        raise EvosokoError("the checkpoint was written by an older evosoko; start the level again")
    return {
        **data,
        "version": STATE_VERSION,
        "islands": [_island_v3(island) for island in islands],
    }


def _engine_v3(data: dict[str, Any]) -> dict[str, Any]:
    upgraded = {**data, "kind": "engine", "version": STATE_VERSION}
    if data.get("version") == 1:
        values = upgraded.pop("best_values", None)
        upgraded["best_fitness"] = (
            dict(zip(FITNESS_VALUES, values)) if isinstance(values, list) else values
        )
    return upgraded


def _island_v3(island: dict[str, Any]) -> dict[str, Any]:
    state = island.get("state")
    return {
        **island,
        "state": _engine_v3(state) if isinstance(state, dict) else state,
        "pending": [_streamed_v3(s) for s in island.get("pending", [])],
        "latest": None if island.get("latest") is None else _streamed_v3(island["latest"]),
    }


def _without_counts(island: Any) -> Any:
    return (
        {k: v for k, v in island.items() if k != "counts"} if isinstance(island, dict) else island
    )


def _streamed_v3(record: Any) -> Any:
    """A streamed record of before (the statistics flat, ``best`` beside them)."""
    if not isinstance(record, dict):
        return record
    stats = {key: value for key, value in record.items() if key != "best"}
    return {"stats": stats, "best": record.get("best")}


def _first_problem(error: ValidationError) -> str:
    """The first problem pydantic found, as ``population[3].genes[0] = -1 is out of range``."""
    problem = error.errors()[0]
    where = ""
    for part in problem["loc"]:
        if isinstance(part, int):
            where += f"[{part}]"
        elif not part[0].isupper() and "[" not in part:  # not a union member's class name
            where += f".{part}" if where else part
    if problem["type"] == "missing":
        return f"{where} is missing"
    text = f"{where} = {_short(problem.get('input'))} is out of range"
    if problem["type"] in ("value_error", "assertion_error"):
        text += f" ({problem['msg'].removeprefix('Value error, ')})"
    return text


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def is_int(value: Any) -> bool:
    """An int that is not a bool."""
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    """A finite int or float that is not a bool."""
    return (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(float(value))
    )
