"""The plots of experiments, one module per kind of folder they are drawn from.

- :mod:`~evosoko.experiment.plots.fitness`: a run's ``fitness.png`` (its levels' best and mean
  distance, drawn while it runs and in notebooks);
- :mod:`~evosoko.experiment.plots.runs`: run folders drawn together (fitness band, diversity);
- :mod:`~evosoko.experiment.plots.compare`: a comparison (ECDFs, per-level solve rates, lengths);
- :mod:`~evosoko.experiment.plots.sweep`: a sweep (parameters, heatmap, history);
- :mod:`~evosoko.experiment.plots.folders`: ``evosoko plot``, which recognises a folder and
  draws its plots again;
- :mod:`~evosoko.experiment.plots.style`: the one look they share, and saving.

matplotlib is imported only by these modules, and only when a plot is drawn.
"""
