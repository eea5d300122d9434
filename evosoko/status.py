"""How a solver's run on a level ended: one vocabulary for the GA, every search and a job.

Every :class:`~evosoko.result.Result`, search result, ``results.csv`` row, ``summary.json``
entry, report and compare table says how a run ended with a :class:`Status` word; when the word
is ``budget``, the resource whose limit was reached is named in a field of its own,
``exhausted`` (a :class:`Resource`). So a table of GA and search rows groups by one column::

    solved        a replay-verified solution
    unsolvable    the search exhausted its space: a proof that there is none
    budget        a limit was reached; exhausted: generations, evaluations, seconds, nodes
                  or iterations (what mcts counts)
    memory-limit  its tables or state store would outgrow the memory it may use, or a search
                  that dropped states to stay within it ran out of states and restarts
    interrupted   Ctrl-C or SIGTERM; the run resumes from its checkpoint
    stopped       a callback asked the loop to stop
    error         the job raised (a compare or sweep job; its traceback is logged)
    rejected      the job's solution did not replay on the level (a compare job)

:func:`read_stop` reads what files hold, older ones included: evosoko before this vocabulary
wrote the exhausted limit itself as the GA's stop reason (``generations``, ``evaluations``,
``seconds``, ``nodes``) and ``timeout`` / ``node-limit`` for a search; those read as
``budget`` with that resource.

This module imports nothing from evosoko: every layer may use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["LEGACY_WORDS", "RESOURCES", "STATUSES", "Resource", "Status", "Stop", "read_stop"]


class Status(StrEnum):
    """How a run on a level ended (see the module docstring)."""

    SOLVED = "solved"
    UNSOLVABLE = "unsolvable"
    BUDGET = "budget"
    MEMORY_LIMIT = "memory-limit"
    INTERRUPTED = "interrupted"
    STOPPED = "stopped"
    ERROR = "error"
    REJECTED = "rejected"


class Resource(StrEnum):
    """What a ``budget`` stop ran out of: the limits of :class:`~evosoko.budget.Budget`, and
    mcts's iterations (its node limit counts iterations)."""

    GENERATIONS = "generations"
    EVALUATIONS = "evaluations"
    SECONDS = "seconds"
    NODES = "nodes"
    ITERATIONS = "iterations"


STATUSES: tuple[str, ...] = tuple(Status)
"""Every status word, in the order of the module docstring."""

RESOURCES: tuple[str, ...] = tuple(Resource)
"""Every resource a budget names."""

LEGACY_WORDS: dict[str, Resource | None] = {
    "generations": Resource.GENERATIONS,
    "evaluations": Resource.EVALUATIONS,
    "seconds": Resource.SECONDS,
    "nodes": Resource.NODES,
    "timeout": Resource.SECONDS,
    "node-limit": None,  # the search's own unit: nodes, or iterations for mcts
}
"""Words written before this vocabulary, each a ``budget`` stop of the resource given."""


@dataclass(frozen=True, slots=True)
class Stop:
    """A status and, for ``budget``, the exhausted resource; ``str()`` gives
    ``"solved"`` or ``"budget: evaluations"``. Raises ``ValueError`` for a word outside the
    vocabulary, a ``budget`` without its resource, or a resource on another status."""

    status: Status
    exhausted: Resource | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        if self.exhausted is not None:
            object.__setattr__(self, "exhausted", Resource(self.exhausted))
        if (self.status == Status.BUDGET) != (self.exhausted is not None):
            raise ValueError(
                "a budget stop names its exhausted resource, and no other stop does: "
                f"got {self.status!s} with exhausted={self.exhausted!r}"
            )

    @classmethod
    def budget(cls, resource: str) -> Stop:
        """The stop of a run whose ``resource`` limit was reached."""
        return cls(Status.BUDGET, Resource(resource))

    @property
    def solved(self) -> bool:
        """True for ``solved``."""
        return self.status == Status.SOLVED

    def __str__(self) -> str:
        if self.exhausted is None:
            return str(self.status)
        return f"{self.status}: {self.exhausted}"


def read_stop(word: str, exhausted: str | None = None, *, unit: str = "nodes") -> Stop:
    """The stop a file records as ``word`` (and ``exhausted``, when it has that field);
    older words (:data:`LEGACY_WORDS`) read as ``budget`` stops, ``node-limit`` of ``unit``
    (the search's: ``nodes``, or ``iterations`` for mcts). ``ValueError`` for anything else."""
    if word in LEGACY_WORDS and exhausted is None:
        return Stop.budget(LEGACY_WORDS[word] or unit)
    return Stop(Status(word), None if exhausted in (None, "") else Resource(exhausted))
