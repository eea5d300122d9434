"""The public Python API: everything the command line does, as functions.

::

    import evosoko

    levels = evosoko.load_levels("levels/seeds.xsb")
    config = evosoko.preset("default").set("run.budget.generations", 50)
    result = evosoko.evolve(levels[1], config)           # a Result
    found = evosoko.solve(levels[1], "push-astar", seconds=10)
    report = evosoko.run(config)                          # a run folder, as `evosoko run` writes
    table = evosoko.compare("configs/compare-boxoban.toml")
    evolved = evosoko.evolve_levels("configs/levels-sokevo.toml")  # certified levels

Every command of the ``evosoko`` command line calls one of these functions (one code path, two
doors). Bad input raises :class:`~evosoko.errors.EvosokoError` (its message names the file and
line), never a traceback deep inside. The names are re-exported by the package itself
(``evosoko.evolve``, ``evosoko.Config``, ...), which imports each part only when it is first
used, so ``import evosoko`` stays instant.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from os import PathLike
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evosoko.budget import Budget
    from evosoko.config import Config
    from evosoko.evolve.callbacks import Callback
    from evosoko.experiment.compare.config import CompareConfig
    from evosoko.experiment.compare.runner import CompareOutcome
    from evosoko.experiment.results_table import ResultsTable
    from evosoko.experiment.run.progress import RunProgress
    from evosoko.experiment.run.runner import RunReport
    from evosoko.experiment.sweep.config import SweepConfig
    from evosoko.experiment.sweep.runner import SweepOutcome
    from evosoko.levelgen.config import LevelsConfig
    from evosoko.levelgen.progress import LevelsProgress
    from evosoko.levelgen.run import LevelsReport
    from evosoko.result import Result
    from evosoko.search.clocks import Clock
    from evosoko.search.settings import SearchSettings, SettingsModel
    from evosoko.sokoban.level import Level
    from evosoko.sokoban.solution_files import SolutionEntry
    from evosoko.sokoban.solutions import Verification

__all__ = [
    "compare",
    "evolve",
    "evolve_levels",
    "export",
    "load_config",
    "load_levels",
    "load_levels_config",
    "open_levels",
    "open_run",
    "plot",
    "preset",
    "presets",
    "report",
    "results",
    "resume",
    "resume_levels",
    "run",
    "select_levels",
    "solve",
    "stored_solutions",
    "sweep",
    "verify",
]

StrPath = str | PathLike[str]
PRESETS_DIR = Path(__file__).resolve().parent.parent / "configs"
"""The presets of the source tree (``configs/``)."""


# ---- levels and configurations ------------------------------------------------------------------
def load_levels(
    path: StrPath,
    select: Sequence[str | int] | None = None,
    *,
    format: str | None = None,
    strict: bool = False,
) -> list[Level]:
    """The levels of a file (XSB/SOK/TXT collections, ``.grid``, ``.num``), or those ``select``
    names: 1-based indices or titles, ``"#N"`` always the N-th level, ``"title:T"`` always the
    level titled T. An invalid level in the file is left out with a warning unless ``strict``."""
    from evosoko.sokoban.formats import read_levels

    levels = read_levels(path, format, strict=strict)
    return select_levels(levels, select) if select else levels


def select_levels(levels: Sequence[Level], select: Sequence[str | int]) -> list[Level]:
    """The levels ``select`` names, in its order (see :func:`load_levels`)."""
    from evosoko.sokoban.formats import select_levels as chosen

    return chosen(levels, list(select))


def load_config(path: StrPath | None = None, overrides: Sequence[str] = ()) -> Config:
    """A run configuration from TOML (None: every default) with ``KEY=VALUE`` overrides, as
    ``evosoko run CONFIG --set KEY=VALUE`` reads it."""
    from evosoko.config import load_config as load

    return load(path, overrides)


def presets() -> list[str]:
    """The names of the presets in ``configs/`` (run configurations only)."""
    if not PRESETS_DIR.is_dir():
        return []
    return sorted(
        path.stem
        for path in PRESETS_DIR.glob("*.toml")
        if not path.stem.startswith(("compare", "sweep", "tune", "levels"))
    )


def preset(name: str = "default") -> Config:
    """The preset ``configs/<name>.toml`` of the source tree (``default``, ``moves``,
    ``pushes``, ``hybrid``, ``seed004``, ...)."""
    from evosoko.errors import ConfigError

    path = PRESETS_DIR / f"{name}.toml"
    if not path.is_file():
        known = ", ".join(presets()) or "none found: presets ship with the source tree"
        raise ConfigError(f"no preset {name!r}; presets: {known}", str(PRESETS_DIR))
    return load_config(path)


# ---- solving -------------------------------------------------------------------------------------
def evolve(
    levels: Level | Iterable[Level] | StrPath,
    config: Config | None = None,
    *,
    seed: int | None = None,
    seeds: Sequence[int] | None = None,
    budget: Budget | None = None,
    callbacks: Iterable[Callback] = (),
) -> Result | list[Result]:
    """Evolve solutions with the GA: a :class:`~evosoko.result.Result` for one level, a list
    for several (or a level file). Nothing is written to disk. ``seeds``: run each level once
    per seed instead, a list of results, level by level and seed by seed (each result and its
    history know their level, seed and solver: ``evosoko.results(them).to_pandas()``).

    ``config``: a :class:`~evosoko.config.Config` (default: the built-in defaults); its
    ``[parallel]`` backend scores the genomes (its workers start once for all levels).
    ``seed``: the seed of every level (default ``run.seed``); ``budget``: the limits (default
    ``run.budget``); ``callbacks``: :class:`~evosoko.evolve.callbacks.Callback` objects that see
    every level and generation (and may stop a level early).
    """
    from evosoko.config import Config
    from evosoko.evolve.evaluation import make_evaluator, worker_pool
    from evosoko.evolve.runner import evolve_level
    from evosoko.experiment.warmup import warm_up_config
    from evosoko.sokoban.level import Level

    config = config if config is not None else Config()
    if seed is not None and seeds is not None:
        raise TypeError("evolve() takes seed or seeds, not both")
    single = isinstance(levels, Level) and seeds is None
    runs = [seed] if seeds is None else list(seeds)
    if isinstance(levels, (str, PathLike)):
        chosen = load_levels(levels)
    elif isinstance(levels, Level):
        chosen = [levels]
    else:
        chosen = list(levels)
    callbacks = list(callbacks)
    warm_up_config(config, chosen)  # compiled before any level's clock starts
    results = []
    warm_up = functools.partial(warm_up_config, config)
    with worker_pool(config.parallel, warm_up=warm_up) as pool:
        for level in chosen:
            with make_evaluator(
                level, config.parallel, config.ga.encoding, config.fitness, pool=pool
            ) as evaluator:
                for run_seed in runs:
                    results.append(
                        evolve_level(
                            level,
                            config,
                            evaluator=evaluator,
                            seed=run_seed,
                            budget=budget,
                            callbacks=callbacks,
                        )
                    )
    return results[0] if single else results


def solve(
    level: Level,
    algorithm: str = "push-astar",
    *,
    seconds: float | None = None,
    nodes: int | None = None,
    budget: Budget | None = None,
    heuristic: str | None = None,
    weight: float | None = None,
    settings: SearchSettings | SettingsModel | Mapping[str, Any] | None = None,
    seed: int = 0,
    model: StrPath | None = None,
    clock: Clock = "wall",
    memory: int | None = None,
) -> Result:
    """Solve ``level`` by classical search: ``bfs``, ``dfs``, ``random``, ``astar``,
    ``greedy``, ``push-bfs``, ``push-astar``, ``push-wastar``, ``push-greedy``,
    ``push-idastar``, ``push-fess``, ``push-fess-bi``, ``push-learned`` or ``push-learned-source``
    (ordered by the deadlock network in ``model``, default the one shipped), or by Monte Carlo tree
    search (``mcts``), within ``seconds`` and ``nodes`` expanded (mcts: iterations; or a ``budget``
    with those limits); ``seed`` drives the stochastic ones (``random``, ``mcts``). The result's
    cost is in expanded nodes (mcts: iterations); ``details`` holds the search's statistics and
    ``best`` the position closest to solved it reached (mcts: its best rollout). ``clock``: what
    ``seconds`` counts, ``"wall"`` time or the process's ``"cpu"`` time. ``memory``: the bytes the
    search's tables and stored states may take (default 2 GiB); a search that would need more, or
    that the machine gives less, ends with ``memory-limit``.

    ``settings``: the search's knobs (:mod:`evosoko.search.settings`): a
    :class:`~evosoko.search.settings.SearchSettings`, the algorithm family's own model
    (``FessSettings(cluster_limit=3000)`` for ``push-fess``), or the ``[search]`` table as a
    mapping (``{"fess": {"cluster_limit": 3000}}``, checked as a file's keys are); None: the
    defaults. They are in the result's ``details["settings"]``. ``weight``, when given,
    replaces the settings' heuristic weight (``push-wastar``, ``push-fess``)."""
    from evosoko.search import ALGORITHMS
    from evosoko.search import solve as search
    from evosoko.search.search_run import DEFAULT_MEMORY
    from evosoko.search.settings import settings_for
    from evosoko.settings_digest import search_settings_digest

    if budget is not None:
        seconds = budget.seconds if seconds is None else seconds
        nodes = budget.nodes if nodes is None else nodes
    chosen = search_settings(settings)
    found = search(
        level,
        algorithm,
        heuristic,
        time_limit=seconds,
        node_limit=nodes,
        weight=weight,
        settings=chosen,
        seed=seed,
        model=None if model is None else str(model),
        partial=1,
        clock=clock,
        memory_limit=DEFAULT_MEMORY if memory is None else memory,
    )
    return found.as_result(
        level,
        seed=seed if ALGORITHMS[algorithm].stochastic else None,
        settings=search_settings_digest(
            algorithm,
            heuristic=heuristic,
            settings=settings_for(algorithm, chosen, weight=weight),
            seconds=seconds,
            nodes=nodes,
            clock=clock,
        ),
    )


def search_settings_of(
    config: StrPath | None = None, overrides: Sequence[str] = ()
) -> SearchSettings:
    """The ``[search]`` table of the run configuration ``config`` (None: every default) with
    ``KEY=VALUE`` overrides of its keys (``fess.cluster_limit=3000``): what ``evosoko solve
    --config FILE --set KEY=VALUE`` runs with. Errors name the file and line, or ``--set``, and
    the closest valid key."""
    from evosoko.config_loading import UNSET, set_key
    from evosoko.search.settings import SearchSettings

    settings = load_config(config).search if config is not None else SearchSettings()
    for override in overrides:
        settings = set_key(settings, override, UNSET)
    return settings


def search_settings(
    settings: SearchSettings | SettingsModel | Mapping[str, Any] | None,
) -> SearchSettings | SettingsModel | None:
    """``settings`` as a model: a mapping is read as the ``[search]`` table (an unknown key is
    a :class:`ConfigError` naming it, with the closest valid one)."""
    if settings is None or not isinstance(settings, Mapping):
        return settings
    from pydantic import ValidationError

    from evosoko.config_loading import validation_error
    from evosoko.search.settings import SearchSettings

    try:
        return SearchSettings.model_validate(dict(settings))
    except ValidationError as error:
        raise validation_error(SearchSettings, error, "", "settings") from None


def verify(
    level: Level, solution: str, *, path: str | None = None, line: int | None = None
) -> Verification:
    """Replay ``solution`` (LURD, run-length allowed) on ``level``: whether it is legal and
    solves the level, its moves and pushes and, when illegal, the first illegal step (``path``
    and ``line``: where the solution came from, for messages)."""
    from evosoko.sokoban.solutions import verify_solution

    return verify_solution(level, solution, path=path, line=line)


def stored_solutions(
    levels: Sequence[Level], solutions: StrPath, *, include_best: bool = True
) -> list[SolutionEntry]:
    """The solutions a collection holds for ``levels`` (``Solution:`` notes, and with
    ``include_best`` the GA's ``Best:`` prefixes), each matched to its level by title, else by
    index, as ``evosoko verify --solutions`` checks them."""
    from evosoko.sokoban.formats import read_levels
    from evosoko.sokoban.solution_files import match_solutions

    return match_solutions(levels, read_levels(solutions), include_best=include_best)


# ---- evolving levels -----------------------------------------------------------------------------
def load_levels_config(path: StrPath | None = None, overrides: Sequence[str] = ()) -> LevelsConfig:
    """A level-evolution configuration from TOML (None: every default; a preset's name such
    as ``"levels-sokevo"``: the preset of ``configs/``) with ``KEY=VALUE`` overrides, as
    ``evosoko evolve-levels CONFIG --set KEY=VALUE`` reads it."""
    from evosoko.levelgen.config import LevelsConfig, load_levels_config

    if path is None:
        config = LevelsConfig()
        return config.set(dict(_overrides(overrides))) if overrides else config
    preset_path = PRESETS_DIR / f"{path}.toml"
    if isinstance(path, str) and Path(path).name == path and preset_path.is_file():
        return load_levels_config(preset_path, overrides)
    return load_levels_config(path, overrides)


def evolve_levels(
    config: LevelsConfig | StrPath,
    *,
    overrides: Sequence[str] = (),
    progress: LevelsProgress | bool = False,
) -> LevelsReport:
    """Evolve Sokoban levels as ``evosoko evolve-levels`` does, into a new run folder under
    ``output.dir``: a GA over boards whose fitness is a certificate (a search solves each
    candidate within a node cap; push-A* by default). ``config``: a
    :class:`~evosoko.levelgen.config.LevelsConfig`, or a TOML file (or preset name) with
    ``overrides``. Returns the report: its folder, status and the levels written
    (``report.levels``, each with its verified ``Solution`` note), ready for
    :func:`compare`. Ctrl-C stops after the candidate being certified; :func:`resume_levels`
    continues."""
    from evosoko.levelgen.config import LevelsConfig
    from evosoko.levelgen.run import start_levels_run

    source = None
    if not isinstance(config, LevelsConfig):
        source = str(config)
        config = load_levels_config(config, overrides)
    elif overrides:
        config = config.set(dict(_overrides(overrides)))
    return start_levels_run(config, config_source=source, progress=_levels_progress(progress))


def resume_levels(run_dir: StrPath, *, progress: LevelsProgress | bool = False) -> LevelsReport:
    """Continue an interrupted level run from its folder exactly as it would have gone on."""
    from evosoko.levelgen.run import resume_levels_run

    return resume_levels_run(run_dir, progress=_levels_progress(progress))


def open_levels(run_dir: StrPath) -> LevelsReport:
    """A level run folder as it stands: its summary and the levels it wrote."""
    from evosoko.levelgen.run import read_levels_run

    return read_levels_run(run_dir)


def _overrides(overrides: Sequence[str]) -> list[tuple[str, Any]]:
    from evosoko.config import parse_override

    return [(".".join(keys), value) for keys, value in map(parse_override, overrides)]


def _levels_progress(progress: LevelsProgress | bool) -> LevelsProgress | None:
    if progress is True:
        from evosoko.levelgen.progress import make_levels_progress

        return make_levels_progress(quiet=False)
    return progress or None


# ---- experiments: run folders, comparisons, sweeps ---------------------------------------------
def run(
    config: Config | StrPath,
    *,
    overrides: Sequence[str] = (),
    progress: RunProgress | bool = False,
    callbacks: Iterable[Callback] = (),
    strict: bool = False,
) -> RunReport:
    """Run a configuration (a :class:`~evosoko.config.Config`, or a TOML file with
    ``overrides``) into a new run folder under ``output.dir``, exactly as ``evosoko run`` does:
    ``config.toml``, ``metrics.csv``, ``events.jsonl``, ``results.csv``, ``solutions.sok``,
    ``summary.json``, plots and checkpoints. Returns the report (its folder, status and a
    :class:`~evosoko.result.Result` per level), which shows itself in a notebook. Ctrl-C stops
    after the current generation; :func:`resume` continues."""
    from evosoko.config import Config
    from evosoko.experiment.run.runner import start_run

    source = None
    if not isinstance(config, Config):
        source, config = str(config), load_config(config, overrides)
    elif overrides:
        from evosoko.config import parse_override

        changes = dict(parse_override(override) for override in overrides)
        config = config.set({".".join(keys): value for keys, value in changes.items()})
    return start_run(
        config,
        config_source=source,
        progress=_progress(progress),
        strict=strict,
        callbacks=list(callbacks),
    )


def resume(
    run_dir: StrPath,
    *,
    progress: RunProgress | bool = False,
    callbacks: Iterable[Callback] = (),
    strict: bool = False,
) -> RunReport:
    """Continue an interrupted run from its folder exactly as it would have gone on."""
    from evosoko.experiment.run.runner import resume_run

    return resume_run(
        run_dir, progress=_progress(progress), strict=strict, callbacks=list(callbacks)
    )


def open_run(run_dir: StrPath) -> RunReport:
    """A run folder as it stands (finished or not), with a result per finished level and its
    history from ``metrics.csv``; it shows itself in a notebook."""
    from evosoko.experiment.run.runner import read_run

    return read_run(run_dir)


def compare(
    config: CompareConfig | StrPath | None = None,
    *,
    levels: StrPath | Sequence[Level] | None = None,
    solvers: Mapping[str, Config | str | Mapping[str, Any]] | None = None,
    select: Sequence[str | int] = (),
    seeds: Sequence[int] = (0,),
    budget: Budget | None = None,
    name: str = "compare",
    backend: str = "serial",
    workers: int = 2,
    overrides: Sequence[str] = (),
    out: StrPath | None = None,
    progress: Callable[[int, int, dict | None], None] | None = None,
    strict: bool = False,
) -> CompareOutcome:
    """Compare solvers on levels at equal budgets, as ``evosoko compare`` does, into a folder
    (``out``, or a new one under ``runs/``; an existing folder of the same comparison resumes).

    Either a comparison file (``config``, with ``overrides``), or in Python: ``levels`` (a
    file, with ``select``, or Level objects), ``solvers`` (label -> a GA
    :class:`~evosoko.config.Config`, a search algorithm's name, or a search table such as
    ``{"algorithm": "push-wastar", "weight": 2}``), the GA's ``seeds``, a ``budget`` per job
    (``seconds``, ``evaluations`` for the GA, ``nodes`` for search) and the job ``backend``
    (``serial``, ``processes``). Returns the outcome: every job's row and each solver's
    summary (solve rate, ERT, medians), shown as a table in a notebook."""
    from evosoko.experiment.compare.config import load_compare_config
    from evosoko.experiment.compare.from_python import python_comparison
    from evosoko.experiment.compare.runner import compare_folder, run_compare

    if config is None:
        if levels is None or not solvers:
            raise TypeError("compare() needs a comparison file, or levels and solvers")
        folder, settings = python_comparison(
            levels, solvers, select, seeds, budget, name, backend, workers, out
        )
    else:
        settings = (
            config
            if not isinstance(config, (str, PathLike))
            else load_compare_config(config, list(overrides))
        )
        folder = compare_folder(settings, out)
    return run_compare(settings, folder, progress=progress, strict=strict)


def sweep(
    config: SweepConfig | StrPath,
    *,
    overrides: Sequence[str] = (),
    out: StrPath | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    strict: bool = False,
) -> SweepOutcome:
    """Tune GA parameters as ``evosoko sweep`` does (grid, random or Optuna search) into a
    folder with ``index.csv`` and ``best.toml``."""
    from evosoko.experiment.sweep.config import load_sweep_config
    from evosoko.experiment.sweep.runner import run_sweep, sweep_folder

    settings = (
        config
        if not isinstance(config, (str, PathLike))
        else load_sweep_config(config, list(overrides))
    )
    folder = sweep_folder(settings, out)
    return run_sweep(settings, folder, progress=progress, strict=strict)


def results(source: Any) -> ResultsTable:
    """One long table of results, GA and search rows together: of a run, compare or sweep
    folder, of the outcome :func:`run`, :func:`compare` or :func:`sweep` returned, of
    :class:`~evosoko.result.Result` objects, or of a list of any of these. Columns: source,
    level index and title, solver, kind (ga or search), seed, a digest of the solver's
    settings, status and exhausted (:mod:`evosoko.status`), solved, cost and unit (also as
    evaluations or nodes), seconds, moves and pushes; ``.to_pandas()`` gives the DataFrame."""
    from evosoko.experiment.tidy import results as table

    return table(source)


def report(folders: StrPath | Sequence[StrPath], out: StrPath | None = None) -> Path:
    """Write the report page of a run, comparison or sweep folder, or one page of several
    side by side; its path.

    One folder: its ``report.html`` (or ``out``). Several (a list): one page that joins their
    results by level, overlays their runs' fitness curves and sets their settings side by
    side (:mod:`evosoko.experiment.report.side_by_side`), written to ``out`` (a folder puts
    ``report-compare.html`` in it; default: ``report-compare.html`` in the current
    directory), never over a folder's own ``report.html``."""
    from evosoko.experiment.report.side_by_side import write_side_by_side
    from evosoko.experiment.report.writer import write_report

    given = [folders] if isinstance(folders, (str, PathLike)) else list(folders)
    if len(given) == 1:
        return write_report(given[0], out)
    return write_side_by_side(given, out)


def plot(folders: Sequence[StrPath], out: StrPath | None = None, fmt: str = "png") -> list[Path]:
    """Draw the plots of run, compare and sweep folders (several runs: one figure with their
    median and inter-quartile band); the files written."""
    from evosoko.experiment.plots.folders import plot_folders

    return plot_folders(list(folders), out, fmt)


def export(folder: StrPath, out: StrPath | None = None) -> Path:
    """Export a comparison's or sweep's runs in IOHprofiler's format (for IOHanalyzer) into
    ``out`` (default ``folder/ioh``, replaced if present), as ``evosoko export --ioh`` does:
    one view per cost axis (``budget/``: evaluations or expanded nodes; ``time/``:
    milliseconds). The folder written."""
    from evosoko.experiment.analysis.ioh import export_folder

    return export_folder(folder, out)


def _progress(progress: RunProgress | bool) -> RunProgress | None:
    """A progress display: True picks one for stdout (bars on a terminal, lines otherwise)."""
    if progress is True:
        from evosoko.experiment.run.progress import make_progress

        return make_progress(quiet=False)
    return progress or None
