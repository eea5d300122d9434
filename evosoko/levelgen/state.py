"""The state of a level evolution as a value: what its checkpoint holds, validated.

:class:`LevelsState` is a frozen pydantic model of the GA's loop states
(:class:`~evosoko.evolve.state.LoopState`, kind ``levels``): the counters after the last
generation (``generation``: generations after the first population; the evaluations, the
distinct puzzles certified and their CPU seconds, the wall seconds), the state of the run's
``random.Random``, the population and the best level so far, each member a board (one
hexadecimal digit per cell) with its certified score. It is the run folder's
``checkpoint.json`` as it stands (:meth:`~evosoko.evolve.state.LoopState.to_json`);
:func:`read_levels_state` reads it back, and also the checkpoints written before it (the loop's
counters in ``tally`` beside the GA's ``evolution`` of version 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, PlainSerializer, PlainValidator, ValidationError

from evosoko.errors import EvosokoError
from evosoko.evolve.state import STATE_VERSION, Count, LoopState, RngState, Seconds
from evosoko.levelgen.certificate import Scored
from evosoko.levelgen.space import WALL, Genes

__all__ = ["LevelMember", "LevelsState", "genes_from_text", "genes_to_text", "read_levels_state"]


def genes_to_text(genes: Sequence[int]) -> str:
    """A genome as one hexadecimal digit per cell."""
    return "".join(f"{code:x}" for code in genes)


def genes_from_text(text: str) -> Genes:
    """The genome of :func:`genes_to_text` (``ValueError`` for a digit that is no cell)."""
    try:
        genes = [int(char, 16) for char in text]
    except ValueError:
        raise ValueError("a board is hexadecimal digits, one per cell") from None
    if any(code & WALL and code != WALL for code in genes):
        raise ValueError("a wall cell that holds a piece")
    return genes


def _board(text: Any) -> str:
    if not isinstance(text, str):
        raise ValueError("a board is text")  # noqa: TRY004 - pydantic reports ValueError
    genes_from_text(text)
    return text


def _score(data: Any) -> Scored:
    if isinstance(data, Scored):
        return data
    try:
        return Scored.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ValueError("it is not a certified score") from None


Board = Annotated[str, PlainValidator(_board)]
ScoreValue = Annotated[Scored, PlainValidator(_score), PlainSerializer(Scored.to_dict)]


class LevelMember(BaseModel):
    """A level of the population: its board and its certified score."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    genes: Board
    score: ScoreValue


class LevelsState(LoopState):
    """A level evolution after a generation (see the module docstring); ``level`` is the
    run's name."""

    kind: Literal["levels"] = "levels"
    certifications: Count
    cpu_seconds: Seconds
    rng_state: RngState
    population: tuple[LevelMember, ...]
    best: LevelMember | None = None


def read_levels_state(data: Any, name: str) -> LevelsState:
    """The state a level checkpoint holds, today's or an older one's (``name``: the run's,
    which older ones lack); :class:`EvosokoError` naming the first value that is wrong."""
    if not isinstance(data, dict):
        raise EvosokoError("a damaged checkpoint: it is not a JSON object")
    if data.get("kind") != "levels":
        data = _upgraded(data, name)
    try:
        return LevelsState.model_validate(data)
    except ValidationError as error:
        problem = error.errors()[0]
        where = ".".join(str(part) for part in problem["loc"])
        raise EvosokoError(f"a damaged checkpoint: {where}: {problem['msg']}") from None


def _upgraded(data: dict[str, Any], name: str) -> dict[str, Any]:
    """A checkpoint of before :class:`LevelsState`: ``{"generation", "evolution": {"version":
    1, "batches", "evaluations", "rng_state", "population", "best"}, "tally":
    {"certifications", "cpu_seconds", "seconds"}}``."""
    evolution, tally = data.get("evolution"), data.get("tally")
    if not isinstance(evolution, dict) or not isinstance(tally, dict):
        raise EvosokoError("a damaged checkpoint: it has no kind, evolution or tally")
    if evolution.get("version") != 1:
        version = evolution.get("version")
        raise EvosokoError(f"a level checkpoint of version {version!r} (this evosoko reads 1)")
    return {
        "kind": "levels",
        "version": STATE_VERSION,
        "level": name,
        "generation": data.get("generation"),
        "evaluations": evolution.get("evaluations"),
        "seconds": tally.get("seconds"),
        "certifications": tally.get("certifications"),
        "cpu_seconds": tally.get("cpu_seconds"),
        "rng_state": evolution.get("rng_state"),
        "population": evolution.get("population"),
        "best": evolution.get("best"),
    }
