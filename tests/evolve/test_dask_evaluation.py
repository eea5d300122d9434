"""The dask backend gives what serial gives, in order, and survives workers that die mid-run.

One LocalCluster of two single-threaded worker processes on 127.0.0.1 (loopback only) serves
the module; evaluators connect to it by address. Tests that kill workers have a cluster of their
own, and one test starts its own cluster through ``local_workers`` to check that it is closed
again.
"""

from __future__ import annotations

import os
import random
import signal
import sys

import pytest
from evolve_levels import SMALL_ISLANDS, comparable, run, small_level
from hypothesis import given
from hypothesis import strategies as st

distributed = pytest.importorskip("distributed")

from evosoko.config import FitnessConfig, ParallelConfig, load_config
from evosoko.errors import ConfigError, EvosokoError
from evosoko.evolve import evolve_level, make_evaluator
from evosoko.evolve.genomes import random_genes
from evosoko.parallel.dask_cluster import DaskConnection
from evosoko.parallel.packing import pack_genomes, unpack_genomes


def client_of(local_cluster):
    dask_client = distributed.Client(local_cluster.scheduler_address, set_as_default=False)
    dask_client.wait_for_workers(2, timeout=120)
    return dask_client


@pytest.fixture
def client(cluster):
    with client_of(cluster) as dask_client:
        yield dask_client


def on_cluster(cluster, batch_size: int = 7) -> ParallelConfig:
    return ParallelConfig(backend="dask", address=cluster.scheduler_address, batch_size=batch_size)


def genomes_for(encoding: str, count: int = 60) -> list[list[int]]:
    rng = random.Random(8)
    return [random_genes(rng, rng.randint(1, 40), encoding) for _ in range(count)]


def serial_map(level, encoding, genomes):
    with make_evaluator(level, ParallelConfig(), encoding, FitnessConfig()) as serial:
        return serial.map(genomes)


def has_plugin(name, dask_worker):
    return name in dask_worker.plugins


@given(st.lists(st.lists(st.integers(0, 719), max_size=30), max_size=12))
def test_packed_batches_unpack_to_the_same_genomes(genomes):
    genes, lengths = pack_genomes(genomes)
    assert [row.tolist() for row in unpack_genomes(genes, lengths)] == genomes


@pytest.mark.parametrize("encoding", ["moves", "pushes"])
def test_dask_equals_serial_in_order(cluster, client, encoding):
    level = small_level("two-boxes")
    genomes = genomes_for(encoding)
    expected = serial_map(level, encoding, genomes)
    with make_evaluator(level, on_cluster(cluster), encoding, FitnessConfig()) as evaluator:
        assert evaluator.map(genomes) == expected
        assert evaluator.map([]) == []
        assert evaluator.map(genomes[:1]) == expected[:1]
        assert evaluator.map(genomes[::-1]) == expected[::-1]
        name = evaluator.plugin_name
        assert set(client.run(has_plugin, name).values()) == {True}  # the level is on every worker
    assert set(client.run(has_plugin, name).values()) == {False}  # and removed on close


def test_a_worker_dying_in_a_batch_is_replaced_and_the_batch_rerun(cluster_to_kill, tmp_path):
    level = small_level("two-boxes")
    genomes = genomes_for("pushes", 200)
    expected = serial_map(level, "pushes", genomes)
    marker = tmp_path / "crash-once"
    config = on_cluster(cluster_to_kill, batch_size=5)
    with make_evaluator(
        level, config, "pushes", FitnessConfig(), crash_marker=str(marker)
    ) as evaluator:
        assert evaluator.map(genomes) == expected  # healthy at first
        marker.write_text("die")
        assert evaluator.map(genomes) == expected  # a worker ended itself inside a batch
        assert not marker.exists()
        assert evaluator.map(genomes) == expected


def test_batches_lost_with_killed_workers_are_submitted_again(tmp_path):
    """With no failures allowed, the scheduler gives up on the batch whose worker died
    (KilledWorker); the evaluator submits it again to the restarted worker."""
    import dask

    level = small_level("two-boxes")
    genomes = genomes_for("pushes", 30)
    marker = tmp_path / "crash-once"
    marker.write_text("die")
    expected = serial_map(level, "pushes", genomes)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        strict_cluster = distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, host="127.0.0.1", dashboard_address="127.0.0.1:0"
        )
    config = on_cluster(strict_cluster)
    with (
        strict_cluster,
        make_evaluator(
            level, config, "pushes", FitnessConfig(), crash_marker=str(marker)
        ) as evaluator,
    ):
        assert evaluator.map(genomes) == expected
        assert evaluator.resubmits == 1


def test_same_seed_same_metrics_serial_and_dask(cluster, microban):
    assert evolve_metrics(microban[9], dask_overrides(cluster)) == evolve_metrics(microban[9])


SEARCHES = [
    "searches.enabled=true",
    "searches.population=4",
    "searches.elitism=1",
    "searches.first_nodes=20",
    "searches.max_nodes=80",
    "run.seed=7",
    "run.budget.generations=3",
]


@pytest.mark.parametrize(
    ("index", "overrides"),
    [(64, [*SMALL_ISLANDS, "run.budget.generations=7"]), (59, SEARCHES)],
    ids=["islands", "searches"],
)
def test_a_loop_of_tasks_gives_the_serial_run_on_dask(cluster, microban, index, overrides):
    """Each island's epoch, or each search of a population of searches, runs as a Dask task;
    the run is the serial run."""
    serial, serial_stats = run(microban[index], overrides)
    on_dask, dask_stats = run(microban[index], overrides + dask_overrides(cluster))
    assert comparable(dask_stats) == comparable(serial_stats)
    assert (on_dask.best.genes, on_dask.evaluations, on_dask.stop) == (
        serial.best.genes,
        serial.evaluations,
        serial.stop,
    )


def test_a_run_survives_killed_workers_with_the_same_metrics(cluster_to_kill, microban, tmp_path):
    """One worker is killed from outside between generations, another ends itself in the
    middle of a batch later on; the run finishes with the serial run's metrics."""
    expected = evolve_metrics(microban[9])
    marker = tmp_path / "crash-once"
    client = client_of(cluster_to_kill)
    pids = list(client.run(os.getpid).values())

    def sabotage(stats):
        if stats.generation == 3:
            os.kill(pids[0], signal.SIGKILL)
        if stats.generation == 7:
            marker.write_text("die")

    with client:
        got = evolve_metrics(
            microban[9],
            dask_overrides(cluster_to_kill),
            crash_marker=str(marker),
            on_generation=sabotage,
        )
        assert not marker.exists()  # the crash hook did fire
        assert got == expected
        assert pids[0] not in client.run(os.getpid).values()  # the killed worker is gone


def dask_overrides(cluster) -> list[str]:
    return ["parallel.backend=dask", f'parallel.address="{cluster.scheduler_address}"']


def evolve_metrics(level, parallel=(), *, crash_marker=None, on_generation=None):
    """Per-generation statistics (without times), best genes and evaluations of a short run
    (serial unless ``parallel`` overrides say otherwise)."""
    overrides = [
        "run.budget.generations=12",
        "ga.population=40",
        "ga.offspring=40",
        "run.seed=3",
        "parallel.batch_size=8",
        *parallel,
    ]
    config = load_config(None, overrides)
    stats = []

    def collect(row):
        stats.append(row)
        if on_generation is not None:
            on_generation(row)

    with make_evaluator(
        level, config.parallel, config.ga.encoding, config.fitness, crash_marker=crash_marker
    ) as evaluator:
        outcome = evolve_level(level, config, evaluator=evaluator, on_generation=collect)
    rows = [{k: v for k, v in s.as_dict().items() if k != "seconds"} for s in stats]
    return rows, outcome.best.genes, outcome.evaluations


def ignores_ctrl_c():
    return signal.getsignal(signal.SIGINT) == signal.SIG_IGN


def test_local_workers_start_a_cluster_that_closes_with_the_evaluator():
    level = small_level("corridor")
    genomes = genomes_for("moves", 20)
    config = ParallelConfig(backend="dask", local_workers=1, batch_size=4)
    with make_evaluator(level, config, "moves", FitnessConfig()) as evaluator:
        local_cluster = evaluator.pool.connection.cluster
        assert local_cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        assert evaluator.map(genomes) == serial_map(level, "moves", genomes)
        # Ctrl-C is left to this process, which closes the cluster
        assert list(evaluator.client.run(ignores_ctrl_c).values()) == [True]
    assert evaluator.pool.connection.cluster is None
    assert local_cluster.status.name == "closed"


def test_an_unreachable_scheduler_is_an_evosoko_error():
    with pytest.raises(EvosokoError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"):
        DaskConnection(address="tcp://127.0.0.1:9", timeout=1)


def test_without_dask_the_backend_is_a_config_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    config = ParallelConfig(backend="dask", local_workers=2)
    with (
        pytest.raises(ConfigError, match=r"evosoko\[dask\]"),
        make_evaluator(small_level("corridor"), config, "moves", FitnessConfig()),
    ):
        pass


def test_dask_needs_exactly_one_of_address_and_local_workers():
    with pytest.raises(ConfigError, match="exactly one of address"):
        load_config(None, ["parallel.backend=dask"])
    with pytest.raises(ConfigError, match="exactly one of address"):
        load_config(
            None,
            [
                "parallel.backend=dask",
                "parallel.local_workers=2",
                'parallel.address="tcp://127.0.0.1:8786"',
            ],
        )
    with pytest.raises(ConfigError, match="scheduler address"):
        load_config(None, ["parallel.backend=dask", "parallel.address=localhost"])
    config = load_config(None, ["parallel.backend=dask", "parallel.local_workers=3"])
    assert (config.parallel.local_workers, config.parallel.address) == (3, None)


def _warmed(marker: str) -> None:
    """A stand-in warm-up: leaves a file per worker process that ran it."""
    with open(f"{marker}-{os.getpid()}", "w") as stream:
        stream.write("warm")


def test_one_connection_serves_every_level_of_a_run(cluster, client, tmp_path):
    import functools

    from evosoko.evolve.evaluation import worker_pool

    config = on_cluster(cluster)
    levels = [small_level("two-boxes"), small_level("corridor")]
    warm_up = functools.partial(_warmed, str(tmp_path / "warm"))
    with worker_pool(config, warm_up=warm_up) as pool:
        assert len(list(tmp_path.glob("warm-*"))) == 2  # every worker warmed up first
        for level in levels:
            genomes = genomes_for("pushes", 30)
            with make_evaluator(level, config, "pushes", FitnessConfig(), pool=pool) as evaluator:
                assert evaluator.map(genomes) == serial_map(level, "pushes", genomes)
                name = evaluator.plugin_name
            assert set(client.run(has_plugin, name).values()) == {False}  # the level removed
            assert pool.connection.client.status == "running"  # the connection stays up
    plugins = client.run(lambda dask_worker: list(dask_worker.plugins))
    assert not any(
        name.startswith("evosoko-warm-up") for names in plugins.values() for name in names
    )


def test_plugin_parts_give_the_same_run_on_dask(cluster):
    """A plugin mutation (run in this process) and a plugin fitness term (run where genomes
    are scored: the Dask workers, which import its module themselves) give the serial run."""
    level = small_level("two-boxes")
    plugins = [
        'ga.mutation.kind="plugin_parts:swap_genes"',
        "ga.mutation.swap_rate=0.2",
        'fitness.terms=[{kind = "plugin_parts:boxes_on_walls", after = "distance"}]',
    ]
    serial = evolve_metrics(level, plugins)
    on_dask = evolve_metrics(level, [*plugins, *dask_overrides(cluster)])
    assert on_dask == serial
