"""A short digest of what a solver was told, apart from the level and the seed.

The tidy results table (:func:`evosoko.results`) has a ``settings`` column so that rows of
equal settings group together, from one source or several: a run folder, a comparison's
solvers, a sweep's trials, results made in this process. Equal settings give equal digests
wherever the rows come from.

- GA: the run configuration, without what names the run and its levels (``run.name``,
  ``run.seed``, ``run.levels``, ``run.select``) and without ``[output]``, ``[parallel]`` and
  ``[tracking]``, which change neither a generation nor a stop. The budget stays: it decides
  where a run stops.
- Search: the algorithm, heuristic, the knobs of its family (weight, pruning switches, ...:
  :mod:`evosoko.search.settings`) and the budget (seconds, nodes).
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import BaseModel

    from evosoko.budget import Budget
    from evosoko.config import Config

__all__ = ["ga_settings_digest", "search_settings_digest"]

RUN_NAMING_KEYS = ("name", "seed", "levels", "select")
"""``[run]`` keys that say which run and which levels, not how the GA runs."""

NOT_SETTINGS_TABLES = ("output", "parallel", "tracking")
"""Tables that change neither a generation nor a stop."""


def _digest(data: Any) -> str:
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:10]


def _number(value: float | None) -> float | None:
    """Limits as floats: 60 and 60.0 seconds are one setting."""
    return None if value is None else float(value)


def ga_settings_digest(config: Config, budget: Budget | None = None) -> str:
    """The digest of a GA run configuration's settings (see the module docstring); ``budget``:
    the limits the run had when not ``run.budget``."""
    from evosoko.budget import LIMITS, Budget
    from evosoko.config_loading import dump_config

    data = tomllib.loads(dump_config(config))
    for table in NOT_SETTINGS_TABLES:
        data.pop(table, None)
    run = data.setdefault("run", {})
    for key in RUN_NAMING_KEYS:
        run.pop(key, None)
    limits = Budget.of(budget if budget is not None else config.run.budget)
    run["budget"] = {name: _number(getattr(limits, name)) for name in LIMITS}
    if limits.clock != "wall":  # seconds of another kind; wall keeps the digests it had
        run["budget"]["clock"] = limits.clock
    return _digest({"ga": data})


def search_settings_digest(
    algorithm: str,
    *,
    heuristic: str | None = None,
    settings: BaseModel | None = None,
    seconds: float | None = None,
    nodes: int | None = None,
    clock: str = "wall",
) -> str:
    """The digest of a classical search's settings: the algorithm, its heuristic, the knobs of
    its family (``settings``: :func:`evosoko.search.settings.settings_for`'s model; None: the
    family's defaults) and the budget (``clock``: what its seconds count)."""
    from evosoko.search.settings import settings_for

    if settings is None:
        settings = settings_for(algorithm)
    return _digest(
        {
            "search": algorithm,
            "heuristic": heuristic,
            "settings": None if settings is None else settings.model_dump(mode="json"),
            "seconds": _number(seconds),
            "nodes": nodes,
            **({} if clock == "wall" else {"clock": clock}),  # wall: the digests it had
        }
    )
