"""The examples run as they are: a custom mutation compared with the built-in one (serial and
processes), a custom fitness term, a loop written with ask/tell, DEAP's own eaMuPlusLambda on
evosoko's toolbox, the tour, tidy results and level-evolution notebooks (executed with
nbclient)."""

from __future__ import annotations

import csv
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _environment() -> dict[str, str]:
    """This interpreter's environment with the source tree first on the path."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path}


def _rows(folder: Path) -> list[dict[str, str]]:
    with open(folder / "results.csv", newline="") as stream:
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(stream)]


@pytest.fixture(scope="module")
def mutation_runs(tmp_path_factory):
    """examples/custom_mutation.py on both job backends."""
    folders = {}
    for backend in ("serial", "processes"):
        folder = tmp_path_factory.mktemp(backend) / "compare"
        done = subprocess.run(
            [sys.executable, str(EXAMPLES / "custom_mutation.py"), "--backend", backend]
            + ["--out", str(folder)],
            capture_output=True,
            text=True,
            env=_environment(),
            cwd=tmp_path_factory.mktemp("cwd"),
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "| swap |" in done.stdout and "| standard |" in done.stdout
        folders[backend] = folder
    return folders


def test_the_custom_mutation_is_used(mutation_runs):
    rows = _rows(mutation_runs["serial"])
    standard = [(r["level"], r["seed"], r["used"]) for r in rows if r["solver"] == "standard"]
    swap = [(r["level"], r["seed"], r["used"]) for r in rows if r["solver"] == "swap"]
    assert len(standard) == len(swap) == 12
    assert standard != swap  # same levels, seeds and budget: only the mutation differs
    saved = [path.read_text() for path in (mutation_runs["serial"] / "solvers").iterdir()]
    assert any('kind = "swap"' in text and "swap_rate = 0.08" in text for text in saved)


def test_the_custom_mutation_gives_the_same_comparison_on_processes(mutation_runs):
    assert _rows(mutation_runs["serial"]) == _rows(mutation_runs["processes"])


def test_the_custom_fitness_term_is_a_named_value_that_changes_the_run():
    spec = importlib.util.spec_from_file_location("custom_fitness", EXAMPLES / "custom_fitness.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    plain, with_room = module.evolve_both(evaluations=600)
    assert all(
        "room" in result.fitness and "room" not in p.fitness for p, result in zip(plain, with_room)
    )
    assert [r.history for r in plain] != [r.history for r in with_room]


def _run_example(name: str, tmp_path: Path) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        env=_environment(),
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_loop_written_with_ask_and_tell_solves_a_bundled_level_and_resumes(tmp_path):
    printed = _run_example("ask_tell.py", tmp_path)
    assert "hard-01: solved after" in printed
    assert "resumed from generation 5: the same run" in printed


def test_deap_s_own_ea_mu_plus_lambda_solves_a_bundled_level_with_evosoko_s_toolbox(tmp_path):
    printed = _run_example("deap_loop.py", tmp_path)
    assert "\nsolved: " in printed  # the solution replay-verified


def _executed(name: str, monkeypatch) -> list:
    """The code cells of the notebook ``examples/<name>`` after running it with nbclient,
    none of them in error."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.read(EXAMPLES / name, as_version=4)
    monkeypatch.setenv("PYTHONPATH", _environment()["PYTHONPATH"])  # the kernel imports this tree
    client = nbclient.NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": EXAMPLES}}
    )
    client.execute()
    cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    errors = [o for c in cells for o in c.outputs if o.output_type == "error"]
    assert not errors
    return cells


def test_the_tour_notebook_runs(monkeypatch):
    cells = _executed("tour.ipynb", monkeypatch)
    kinds = [set(output.get("data", {})) for cell in cells for output in cell.outputs]
    assert {"image/png"} <= kinds[0]  # the level draws itself
    assert sum("text/html" in kind for kind in kinds) >= 4  # results, comparison, run


def test_the_results_notebook_plots_ga_against_push_astar_from_the_tidy_table(monkeypatch):
    cells = _executed("results.ipynb", monkeypatch)
    texts = [o.get("data", {}).get("text/plain", "") for c in cells for o in c.outputs]
    table, statuses = texts[0], texts[1]
    assert all(column in table for column in ("level_index", "solver", "status", "settings"))
    assert "push-astar" in statuses and "solved" in statuses
    assert any("image/png" in o.get("data", {}) for o in cells[-2].outputs)  # the plot


def test_the_level_evolution_notebook_runs(monkeypatch):
    cells = _executed("evolve_levels.ipynb", monkeypatch)
    outputs = [o for c in cells for o in c.outputs]
    texts = [o.get("data", {}).get("text/plain", "") for o in outputs]
    assert "('completed'" in texts[0]  # the evolution ran to its budget
    checks = next(text for text in texts if text.startswith("[(True,"))
    assert "False" not in checks  # every certificate replays
    assert any("text/html" in o.get("data", {}) for o in outputs)  # the comparison's table
