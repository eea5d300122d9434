"""compare on given-holes levels: every job plays the variant, and its solutions verify."""

from __future__ import annotations

from pathlib import Path

from evosoko.experiment.compare.config import load_compare_config
from evosoko.experiment.compare.runner import run_compare
from evosoko.sokoban.formats import read_levels
from evosoko.sokoban.solutions import verify_solution

LEVELS = Path(__file__).resolve().parents[2] / "levels" / "given-holes.xsb"

HOLES = f"""
[compare]
name = "holes"
levels = "{LEVELS}"
select = ["holes-easy-01", "holes-medium-02"]
seeds = [1]

[compare.budget]
seconds = 30
evaluations = 20000
nodes = 200000

[parallel]
backend = "serial"

[[solver]]
kind = "ga"
name = "ga-pushes"
set = ["ga.encoding=pushes", "fitness.lost_search_nodes=100"]

[[solver]]
kind = "ga"
name = "ga-moves"
set = ["ga.encoding=moves", "ga.mutation.push_macro=0.3"]

[[solver]]
kind = "search"
algorithm = "push-astar"

[[solver]]
kind = "search"
algorithm = "push-bfs"
"""


def test_compare_plays_the_variant_and_every_solution_verifies(tmp_path):
    path = tmp_path / "holes.toml"
    path.write_text(HOLES)
    outcome = run_compare(load_compare_config(path), tmp_path / "out", plots=False)
    levels = {level.name: level for level in read_levels(LEVELS)}
    ends = {(row["status"], row["exhausted"]) for row in outcome.rows}
    assert ends <= {("solved", None), ("budget", "seconds"), ("budget", "evaluations")}
    for row in outcome.rows:
        if row["solved"]:
            check = verify_solution(levels[row["level"]], row["solution"])
            assert check.valid and check.solved and check.final.remaining == 0
    searches = [row for row in outcome.rows if row["kind"] == "search"]
    assert all(row["solved"] for row in searches)
    optimal = {row["level"]: row["pushes"] for row in searches}
    assert optimal == {
        name: int(dict(levels[name].notes)["Pushes"])
        for name in ("holes-easy-01", "holes-medium-02")
    }
