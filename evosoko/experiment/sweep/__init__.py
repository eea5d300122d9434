"""``evosoko sweep``: tuning settings by grid, random search or Optuna."""
