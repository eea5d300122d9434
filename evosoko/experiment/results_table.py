"""The rows of the tidy results table (:func:`evosoko.results`): its columns, the table and the
row of one :class:`~evosoko.result.Result`.

Every row is one solver on one level with one seed, with the same columns whatever produced it
(:data:`COLUMNS`). :mod:`evosoko.experiment.tidy` reads folders and outcomes into it; this
module imports no runner, so the runners' ``to_pandas`` use it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas

    from evosoko.result import Result

__all__ = ["COLUMNS", "INTEGER_COLUMNS", "ResultsTable", "make_row", "result_row", "table_of"]

COLUMNS = (
    "source",
    "level_index",
    "level",
    "solver",
    "kind",
    "seed",
    "settings",
    "status",
    "exhausted",
    "solved",
    "cost",
    "unit",
    "evaluations",
    "nodes",
    "seconds",
    "moves",
    "pushes",
)
"""The columns of every row. ``source``: the folder's name (or ``python`` for results made in
this process); ``kind``: ``ga`` or ``search``; ``seed``: empty for a search that uses none;
``settings``: a digest of the solver's settings apart from the level and the seed
(:mod:`evosoko.settings_digest`: equal settings, equal digests, whatever the source; empty when
they cannot be known any more, e.g. a comparison whose GA configuration file is gone);
``evaluations`` / ``nodes``: ``cost`` when that is its unit (mcts's iterations count as nodes
here), else empty."""

INTEGER_COLUMNS = ("level_index", "seed", "cost", "evaluations", "nodes", "moves", "pushes")
"""Counts, as pandas' nullable integers in :meth:`ResultsTable.to_pandas` (empty cells stay
empty instead of turning the column into floats)."""


@dataclass
class ResultsTable:
    """Rows of :data:`COLUMNS` (plain dicts); :meth:`to_pandas` makes the DataFrame."""

    rows: list[dict[str, Any]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.rows)

    def __add__(self, other: ResultsTable) -> ResultsTable:
        return ResultsTable(self.rows + other.rows)

    def to_pandas(self) -> pandas.DataFrame:
        """The table as a pandas DataFrame, one row per (solver, level, seed) (needs pandas:
        ``pip install pandas``, part of the dev extra)."""
        try:
            import pandas
        except ImportError:
            raise ImportError(
                "to_pandas needs pandas, which evosoko does not install: pip install pandas "
                "(or pip install -e '.[dev]')"
            ) from None
        frame = pandas.DataFrame(self.rows, columns=list(COLUMNS))
        return frame.astype({column: "Int64" for column in INTEGER_COLUMNS})

    def __repr__(self) -> str:
        solvers = sorted({row["solver"] for row in self.rows})
        return f"<ResultsTable: {len(self.rows)} rows, solvers {', '.join(solvers) or 'none'}>"


def result_row(result: Result, source: str = "python") -> dict[str, Any]:
    """The row of one :class:`~evosoko.result.Result`."""
    kind = "ga" if result.unit == "evaluations" else "search"
    return make_row(
        source=source,
        level_index=result.index,
        level=result.level_name,
        solver=result.solver,
        kind=kind,
        seed=result.seed,
        settings=result.settings,
        status=str(result.status),
        exhausted=None if result.exhausted is None else str(result.exhausted),
        cost=result.cost,
        unit=result.unit,
        seconds=result.seconds,
        moves=result.moves,
        pushes=result.pushes,
    )


def make_row(**values: Any) -> dict[str, Any]:
    """A row of :data:`COLUMNS` from its values (``solved``, ``evaluations`` and ``nodes``
    derived from the status, cost and unit)."""
    unit, cost = values["unit"], values["cost"]
    values["solved"] = values["status"] == "solved"
    values["evaluations"] = cost if unit == "evaluations" else None
    values["nodes"] = cost if unit in ("nodes", "iterations") else None
    return {column: values.get(column) for column in COLUMNS}


def table_of(results: Iterable[Result], source: str = "python") -> ResultsTable:
    """The table of ``results`` (one row each), all from ``source``."""
    return ResultsTable([result_row(result, source) for result in results])
