"""A comparison described in Python (``evosoko.compare(levels=..., solvers=...)``), made into
the comparison file that ``evosoko compare`` runs.

GA solvers given as :class:`~evosoko.config.Config` objects and levels given as
:class:`~evosoko.sokoban.level.Level` objects are written into the output folder
(``solvers/<label>-<digest>.toml``, ``levels-<digest>.xsb``; the digest of their content, so a
different comparison never overwrites them), and the comparison names them like any other file:
the folder holds everything needed to resume or rerun it with ``evosoko compare --resume``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evosoko.budget import Budget
from evosoko.config import Config, dump_config
from evosoko.config_loading import validation_error
from evosoko.experiment.atomic import write_text_atomic
from evosoko.experiment.compare.config import CompareConfig
from evosoko.experiment.run.folder import make_output_folder, output_folder
from evosoko.sokoban.level import Level

SOURCE = "<evosoko.compare>"
"""The pseudo file of errors in a comparison given in Python."""


def python_comparison(
    levels: str | PathLike[str] | Sequence[Level],
    solvers: Mapping[str, Config | str | Mapping[str, Any]],
    select: Sequence[str | int],
    seeds: Sequence[int],
    budget: Budget | None,
    name: str,
    backend: str,
    workers: int,
    out: str | PathLike[str] | None,
) -> tuple[Path, CompareConfig]:
    """The output folder and the validated comparison (see the module docstring)."""
    folder = output_folder(name, out)
    make_output_folder(folder)
    if isinstance(levels, (str, PathLike)):
        levels_path = str(Path(levels).resolve())
    else:
        from evosoko.sokoban.formats import format_levels

        levels_path = str(_written(folder, "levels", format_levels(list(levels)), ".xsb"))
    limits = budget or Budget(seconds=60.0)
    compare_budget = {
        key: value
        for key, value in (
            ("seconds", limits.seconds if limits.seconds is not None else 60.0),
            ("evaluations", limits.evaluations),
            ("nodes", limits.nodes),
        )
        if value is not None
    }
    data = {
        "compare": {
            "name": name,
            "levels": levels_path,
            "select": list(select),
            "seeds": list(seeds),
            "budget": compare_budget,
        },
        "parallel": {"backend": backend, "workers": workers},
        "solver": [_solver(folder, label, spec) for label, spec in solvers.items()],
    }
    try:
        config = CompareConfig.model_validate(data)
    except ValidationError as error:
        raise validation_error(CompareConfig, error, "", SOURCE) from None
    return folder, config


def _solver(folder: Path, label: str, spec: Config | str | Mapping[str, Any]) -> dict[str, Any]:
    """The ``[[solver]]`` table of one solver given in Python."""
    if isinstance(spec, Config):
        path = _written(folder / "solvers", label, dump_config(spec), ".toml")
        return {"kind": "ga", "name": label, "config": str(path)}
    if isinstance(spec, str):
        return {"kind": "search", "name": label, "algorithm": spec}
    return {"kind": "search", "name": label, **spec}


def _written(folder: Path, stem: str, text: str, suffix: str) -> Path:
    """``text`` in ``folder/<stem>-<digest><suffix>``, written unless it is there already."""
    digest = hashlib.sha1(text.encode()).hexdigest()[:10]
    path = folder / f"{stem}-{digest}{suffix}"
    if not path.is_file():
        make_output_folder(folder)
        write_text_atomic(path, text)
    return path
