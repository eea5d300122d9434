"""The ``evosoko`` command line.

Each command parses its arguments, calls one function of the package, and renders what comes
back. Bad input (an :class:`~evosoko.errors.EvosokoError`) is reported as one line
``error: FILE:LINE: message`` on stderr with exit code 2; warnings become ``warning: ...`` lines.
The commands live in modules named after what they act on; importing them registers them on
:data:`app`, in the order ``--help`` lists them.
"""

# isort: off
from evosoko.cli import levels, run, solve, generate, evolve_levels, experiments  # noqa: F401
from evosoko.cli import play, report, optimize, learn  # noqa: F401

# isort: on
from evosoko.cli.common import app, one_line_summaries

one_line_summaries(app)

__all__ = ["app"]
