"""Running work on several processes or machines, for the GA and for experiments alike.

- :mod:`~evosoko.parallel.pool`: the one local process pool (restarted when a worker dies,
  worker logs forwarded, workers that end with their parent), its task queue, and the job
  backend's ``imap_unordered``;
- :mod:`~evosoko.parallel.dask_pool`: the one Dask wrapper (tasks, jobs), and the worker
  plugins it installs (:mod:`~evosoko.parallel.dask_plugins`: Ctrl-C left to the parent,
  warm-ups);
- :mod:`~evosoko.parallel.dask_cluster`: connecting to a scheduler or starting a local cluster
  (Dask is optional and imported only when chosen);
- :mod:`~evosoko.parallel.backends`: :func:`~evosoko.parallel.backends.make_backend`, the
  workers a ``[parallel]`` table names (serial, processes or dask);
- :mod:`~evosoko.parallel.jobs`: independent jobs (compare, sweep) on a backend, journaled so
  an interrupted experiment resumes;
- :mod:`~evosoko.parallel.packing`: genome batches as two flat arrays for the trip to workers;
- :mod:`~evosoko.parallel.worker_lifetime`: workers that end when their parent dies.

The GA's evaluators (which know levels and fitness) build on these in
:mod:`evosoko.evolve.evaluation` and :mod:`evosoko.evolve.dask_evaluation`. Nothing here
imports from ``evolve`` or ``experiment``.
"""
