"""``python -m evosoko.cli``: the command line."""

from evosoko.cli import app

app(prog_name="evosoko")
