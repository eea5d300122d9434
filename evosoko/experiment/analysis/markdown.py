"""The statistics of :mod:`evosoko.experiment.analysis.statistics` as text: numbers and p-values,
the methods note and the table of paired tests that ``summary.md`` and the report show.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from evosoko.experiment.analysis.statistics import ALPHA, RESAMPLES, SOLVED, PairedTest

__all__ = [
    "METHODS_NOTES",
    "PAIRED_COLUMNS",
    "claims",
    "format_number",
    "format_p",
    "methods_markdown",
    "paired_test_cells",
    "paired_tests_markdown",
]


def format_number(value: float | None, digits: int = 3) -> str:
    """A figure for a table: ``–`` for none, ``∞``, thousands separators for large values,
    else ``digits`` significant digits."""
    if value is None or math.isnan(value):
        return "–"
    if math.isinf(value):
        return "∞" if value > 0 else "-∞"
    if abs(value) >= 1000:
        return f"{value:,.0f}"
    return f"{value:.{digits}g}"


def format_p(value: float, *, star: bool = True) -> str:
    """A p-value: ``<0.0001`` below that, else two significant digits; ``*`` at most alpha."""
    text = "<0.0001" if value < 1e-4 else f"{value:.2g}"
    return text + ("\\*" if star and value <= ALPHA else "")


METHODS_NOTES = (
    (
        "Intervals are 95 % confidence intervals over **levels**, the unit of replication: a "
        "solver's seeds on one level are not independent (a hard level defeats them all), and "
        "the levels are the sample the claims are about."
    ),
    (
        "Solve rate: Wilson score interval on the effective number of runs (Korn and Graubard's "
        "design-effect correction for seeds clustered in levels; with one run per level, plain "
        "Wilson). It stays sensible at 0 % and 100 % (50 of 50 solved: [93 %, 100 %]), where a "
        "bootstrap interval collapses to a point."
    ),
    (
        "ERT: BCa bootstrap over levels, computed on 1/ERT (so a resample without a success is "
        "allowed) and mapped back; an upper end of ∞ means the data cannot rule out a solver "
        "that almost never succeeds. Medians: percentile bootstrap over levels (BCa is "
        f"unreliable for medians). {RESAMPLES:,} resamples, seeded by the solver's name: the "
        "same results give the same summary."
    ),
    (
        "Paired tests compare two solvers level by level over the levels both ran, a solver's "
        "seeds on a level averaged first. Solved: the exact sign test on the levels' solve "
        "fractions (McNemar's exact test when both ran once per level). Cost: Wilcoxon's "
        "signed-rank test on the levels' mean cost, a failure counted at the budget, so speed "
        "and success count together; in the pair's shared unit (evaluations or expanded nodes, "
        "which the machine's load does not change), else in seconds. Both assume no distribution "
        "for costs that are skewed and capped at the budget."
    ),
    (
        "p-values are Holm-adjusted over every test in the table, which holds the chance of any "
        "false claim among them at 5 %."
    ),
)
"""How the intervals and tests were made, for a summary's footnote (one item per line)."""


def methods_markdown() -> list[str]:
    """The footnote that says which intervals and tests a summary uses, and why."""
    return ["### How these figures were made", "", *(f"- {note}" for note in METHODS_NOTES)]


def paired_tests_markdown(tests: Sequence[PairedTest]) -> list[str]:
    """The paired tests as markdown lines: a table with one row per pair, then the claims
    the tests support, in words."""
    if not tests:
        return []
    lines = [
        "## Paired tests",
        "",
        f"{len(tests)} tests, Holm-adjusted together; \\* marks p ≤ {ALPHA:g}. {TESTS_NOTE}",
        "",
        "| " + " | ".join(PAIRED_COLUMNS) + " |",
        "|---|---|---:|---:|---:|---:|---|---:|---:|",
    ]
    lines += ["| " + " | ".join(cells) + " |" for cells in paired_test_cells(tests)]
    lines += ["", *_claims(tests)]
    return lines


PAIRED_COLUMNS = (
    "first",
    "second",
    "levels",
    "solved more often",
    "p",
    "cheaper",
    "cost",
    "median difference (first − second)",
    "p",
)
"""The columns of the paired tests' table (summary.md and the report)."""
TESTS_NOTE = "Counts are levels: where the first solver of the pair did better, then the second."


def paired_test_cells(tests: Sequence[PairedTest], star: str = "\\*") -> list[list[str]]:
    """The paired tests' table, one row of cells per pair of solvers (``star`` marks a
    significant p-value: escaped for markdown, plain for HTML)."""
    pairs: dict[tuple[str, str], dict[str, PairedTest]] = {}
    for test in tests:
        key = "solved" if test.measure == SOLVED else "cost"
        pairs.setdefault((test.first, test.second), {})[key] = test

    def p(value: float) -> str:
        return format_p(value).replace("\\*", star)

    return [
        [
            first,
            second,
            str(pair["solved"].levels),
            f"{pair['solved'].first_better} : {pair['solved'].second_better}",
            p(pair["solved"].p_adjusted),
            f"{pair['cost'].first_better} : {pair['cost'].second_better}",
            pair["cost"].measure,
            format_number(pair["cost"].median_difference),
            p(pair["cost"].p_adjusted),
        ]
        for (first, second), pair in pairs.items()
    ]


def claims(tests: Sequence[PairedTest]) -> list[str]:
    """What the tests support, in words: one line per significant difference (markdown list
    items), or one sentence when none is."""
    return _claims(tests)


CLAIMS = {
    SOLVED: "solves more levels than",
    "seconds": "is faster than",
    "evaluations": "needs fewer evaluations than",
    "nodes": "expands fewer nodes than",
    "iterations": "needs fewer iterations than",
}


def _claims(tests: Sequence[PairedTest]) -> list[str]:
    claims = []
    for test in tests:
        if not test.significant:
            continue
        winner, loser = (
            (test.first, test.second)
            if test.first_better > test.second_better
            else (test.second, test.first)
        )
        what = CLAIMS.get(test.measure, f"costs fewer {test.measure} than")
        p_value = format_p(test.p_adjusted, star=False)
        relation = "< " + p_value[1:] if p_value.startswith("<") else "= " + p_value
        claims.append(f"- {winner} {what} {loser} (p {relation})")
    silent = len(tests) - len(claims)
    if not claims:
        levels = max(test.levels for test in tests)
        few = (
            f" With {levels} level{'s' if levels != 1 else ''} no paired test can get there (the "
            f"smallest two-sided p-value is 2/2^{levels}): compare on more levels."
            if 2 * 0.5**levels > ALPHA
            else ""
        )
        return [f"No difference between the solvers is significant at the 5 % level.{few}"]
    closing = (
        f"- no other difference is significant ({silent} of {len(tests)} tests)"
        if silent
        else "- every difference tested is significant"
    )
    return ["What the tests support:", "", *claims, closing]
