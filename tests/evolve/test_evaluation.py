"""Evaluation backends: processes give what serial gives, survive a dying worker, forward logs."""

from __future__ import annotations

import logging
import random

import pytest
from evolve_levels import small_level

from evosoko.config import FitnessConfig, ParallelConfig, load_config
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.evolve.genomes import random_genes
from evosoko.parallel.pool import results_in_order

PROCESSES = ParallelConfig(backend="processes", workers=2, batch_size=7)


def genomes_for(encoding: str, count: int = 60) -> list[list[int]]:
    rng = random.Random(8)
    return [random_genes(rng, rng.randint(1, 40), encoding) for _ in range(count)]


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_processes_equal_serial_in_order(encoding):
    level = small_level("two-boxes")
    genomes = genomes_for(encoding)
    fitness = FitnessConfig()
    with make_evaluator(level, ParallelConfig(), encoding, fitness) as serial:
        expected = serial.map(genomes)
    with make_evaluator(level, PROCESSES, encoding, fitness) as pool:
        assert pool.map(genomes) == expected
        assert pool.map([]) == []
        assert pool.map(genomes[:1]) == expected[:1]


def test_a_dying_worker_is_replaced_and_its_batch_rerun(tmp_path, caplog):
    level = small_level("two-boxes")
    genomes = genomes_for("pushes")
    marker = tmp_path / "crash-once"
    with make_evaluator(level, ParallelConfig(), "pushes", FitnessConfig()) as serial:
        expected = serial.map(genomes)
    with make_evaluator(
        level, PROCESSES, "pushes", FitnessConfig(), crash_marker=str(marker)
    ) as pool:
        assert pool.map(genomes) == expected  # the pool is healthy at first
        marker.write_text("die")
        with caplog.at_level(logging.WARNING, logger="evosoko.evolve.evaluation"):
            assert pool.map(genomes) == expected
        assert pool.pool_restarts == 1
        assert not marker.exists()
        assert pool.map(genomes) == expected
    assert any("worker died" in record.getMessage() for record in caplog.records)


def level_task(level, fitness_function, genomes, tag):
    """A task: runs where the level lives (importable by the workers)."""
    return tag, level.name, fitness_function(genomes)


def test_tasks_run_with_the_level_in_order_and_survive_a_death(tmp_path):
    level = small_level("two-boxes")
    genomes = genomes_for("pushes", 12)
    arguments = [(genomes[i : i + 3], i) for i in range(0, 12, 3)]
    with make_evaluator(level, ParallelConfig(), "pushes", FitnessConfig()) as serial:
        expected = results_in_order(serial.task_queue(level_task), arguments)
    assert [tag for tag, _, _ in expected] == [0, 3, 6, 9]
    assert expected[1][2] == serial.map(genomes[3:6])
    marker = tmp_path / "crash-once"
    with make_evaluator(
        level, PROCESSES, "pushes", FitnessConfig(), crash_marker=str(marker)
    ) as pool:
        assert results_in_order(pool.task_queue(level_task), arguments) == expected
        marker.write_text("die")
        assert results_in_order(pool.task_queue(level_task), arguments) == expected
        assert pool.pool_restarts == 1 and not marker.exists()


def worker_pid(level, fitness_function, number):
    """A task: which worker ran it, and the level it found there."""
    import os

    return os.getpid(), level.name


def test_one_pool_serves_level_after_level_and_survives_a_death(tmp_path):
    """A run keeps its workers: every level's evaluator uses the same processes, each level is
    evaluated as serial evaluates it, and a worker that dies on one level is replaced for
    the rest."""
    from evosoko.evolve.evaluation import worker_pool

    marker = tmp_path / "crash-once"
    levels = [small_level("two-boxes"), small_level("corridor"), small_level("two-boxes")]
    pids: list[set[int]] = []
    with worker_pool(PROCESSES, crash_marker=str(marker)) as pool:
        for number, level in enumerate(levels):
            pids.append(set(pool.on_every_worker()))  # the workers alive now
            genomes = genomes_for("pushes")
            with make_evaluator(level, ParallelConfig(), "pushes", FitnessConfig()) as serial:
                expected = serial.map(genomes)
            with make_evaluator(level, PROCESSES, "pushes", FitnessConfig(), pool=pool) as ev:
                if number == 1:
                    marker.write_text("die")
                assert ev.map(genomes) == expected
                assert ev.pool_restarts == (1 if number == 1 else 0)
                seen = results_in_order(ev.task_queue(worker_pid), [(i,) for i in range(8)])
                assert {name for _, name in seen} == {level.name}
        assert pool.restarts == 1
        pids.append(set(pool.on_every_worker()))
    assert all(len(workers) == 2 for workers in pids)
    # the same workers for every level, but for the two that replaced the dead one's pool
    assert pids[0] == pids[1] and pids[2] == pids[3] and not pids[1] & pids[2]


def test_worker_log_records_reach_the_parent(tmp_path):
    level = small_level("corridor")
    records: list[logging.LogRecord] = []

    class Collect(logging.Handler):
        def emit(self, record):
            records.append(record)

    root = logging.getLogger()
    handler = Collect(logging.DEBUG)
    old_level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    marker = tmp_path / "crash-once"
    marker.write_text("die")
    try:
        with make_evaluator(
            level, PROCESSES, "moves", FitnessConfig(), crash_marker=str(marker)
        ) as pool:
            pool.map(genomes_for("moves", 10))
        assert handler in root.handlers  # unwrapped again on exit
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
    messages = [r.getMessage() for r in records]
    assert any("dies on purpose" in m for m in messages)  # logged inside the dying worker
    assert any("ready for level" in m for m in messages)


def test_same_seed_same_metrics_serial_and_processes(microban):
    level = microban[9]
    results = []
    for backend in ("serial", "processes"):
        config = load_config(
            None,
            [
                f"parallel.backend={backend}",
                "parallel.workers=2",
                "run.budget.generations=12",
                "ga.population=40",
                "ga.offspring=40",
                "run.seed=3",
            ],
        )
        stats = []
        with make_evaluator(
            level, config.parallel, config.ga.encoding, config.fitness
        ) as evaluator:
            outcome = evolve_level(level, config, evaluator=evaluator, on_generation=stats.append)
        rows = [{k: v for k, v in s.as_dict().items() if k != "seconds"} for s in stats]
        results.append((rows, outcome.best.genes, outcome.evaluations))
    assert results[0] == results[1]
