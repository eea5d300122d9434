"""A comparison described in Python (``evosoko.compare(levels=..., solvers=...)``), made into
the comparison file that ``evosoko compare`` runs.

GA solvers given as :class:`~evosoko.config.Config` objects and levels given as
:class:`~evosoko.sokoban.level.Level` objects are written into the output folder
(``solvers/<label>-<digest>.toml``; the digest of their content, so a different comparison never
overwrites them), and the comparison names them like any other file: the folder holds everything
needed to resume or rerun it with ``evosoko compare --resume``. Levels read from one file are
named in it by index, so they keep their numbers (results.csv, IOH function ids); others are
written as ``<their file's stem>-<digest>.xsb``.
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
from evosoko.config_loading import absolute, validation_error
from evosoko.errors import EvosokoError
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
        levels_path = absolute(levels)
    else:
        levels_path, select = _level_file(folder, list(levels), select)
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


def _level_file(
    folder: Path, levels: list[Level], select: Sequence[str | int]
) -> tuple[str, Sequence[str | int]]:
    """The level file and selection of levels given as objects: the file they were read from,
    by index (``#N``), when they all come from one file that still holds them as they are, so
    results keep the levels' own numbers and file; else a file of them written into the
    comparison's folder, named after the file they came from."""
    from evosoko.sokoban.formats import format_levels, read_levels

    paths = {level.origin.path if level.origin else None for level in levels}
    if len(paths) == 1 and None not in paths and not select:
        (path,) = paths
        try:
            on_file = {level.index: level.rows() for level in read_levels(str(path))}
        except EvosokoError:
            on_file = {}
        if all(on_file.get(level.index) == level.rows() for level in levels):
            return absolute(str(path)), [f"#{level.index}" for level in levels]
    stems = {Path(path).stem for path in paths if path is not None}
    stem = stems.pop() if len(stems) == 1 else "levels"
    return str(_written(folder, stem, format_levels(levels), ".xsb")), select


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
