"""results.csv of a comparison or sweep, written again from the journal: never silently.

Issue 55: a damaged ``results.csv`` of a compare or sweep folder was rebuilt from the journal
without a word.
"""

from __future__ import annotations

import warnings

import pytest
from report_folders import COMPARE, SWEEP

from evosoko.errors import EvosokoWarning
from evosoko.experiment.compare.config import load_compare_config
from evosoko.experiment.compare.runner import run_compare
from evosoko.experiment.journal_results import ResultsRewriter
from evosoko.experiment.sweep.config import load_sweep_config
from evosoko.experiment.sweep.runner import run_sweep

TEXT = "solver,level,status,seconds\nbfs,1,solved,0.1\nbfs,2,budget,3.0\n"


def _rewrite(path, found: str | None, text: str = TEXT) -> list[str]:
    if found is not None:
        path.write_text(found)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", EvosokoWarning)
        rewriter = ResultsRewriter(path)
        rewriter.write(text)
        rewriter.write(text)  # only the first rewrite compares
    assert path.read_text() == text
    return [str(warning.message) for warning in caught]


@pytest.mark.parametrize(
    "found",
    [
        None,  # a new folder
        TEXT,
        "solver,level,status,seconds\nbfs,1,solved,0.1\n",  # behind the journal: a kill
        "solver,level,status,seconds\nbfs,1,solved,0.1\nga,2,error,1.0\n",  # failed: runs again
    ],
)
def test_a_file_the_journal_gives_is_rewritten_without_a_word(tmp_path, found):
    assert _rewrite(tmp_path / "results.csv", found) == []


@pytest.mark.parametrize(
    ("found", "problem"),
    [
        (b"solver,level,status,seconds\nbfs,1,solved,0.1\nbfs,2,solved,0.5\n", "1 row not in"),
        (b"solver,level,status,seconds\nx\ny\n", "2 rows not in"),
        (b"", "its header is not"),
        (b"level,solver\n", "its header is not"),
        (b"\xff\xfe", "not UTF-8 text"),
    ],
)
def test_a_file_with_rows_the_journal_does_not_give_is_named_in_a_warning(tmp_path, found, problem):
    path = tmp_path / "results.csv"
    path.write_bytes(found)
    messages = _rewrite(path, None)
    assert len(messages) == 1 and problem in messages[0]
    assert messages[0] == f"{path}: {messages[0].split(': ', 1)[1]}"  # names the file
    assert messages[0].endswith("written again from journal.jsonl")


def test_a_damaged_compare_results_file_is_rebuilt_with_a_warning(tmp_path):
    config_path = tmp_path / "tiny.toml"
    config_path.write_text(COMPARE)
    config = load_compare_config(config_path)
    run_compare(config, tmp_path / "out", stop_after=3, plots=False)
    results = tmp_path / "out" / "results.csv"
    good = results.read_text().splitlines()
    results.write_text("\n".join(good[:-1] + [good[-1].replace(",", ";", 1)]) + "\n")
    with pytest.warns(EvosokoWarning, match="1 row not in the journal") as caught:
        run_compare(config, tmp_path / "out", stop_after=0, plots=False)
    assert caught[0].message.path == str(results)  # type: ignore[union-attr]
    assert results.read_text().splitlines() == good


def test_a_damaged_sweep_results_file_is_rebuilt_with_a_warning(tmp_path):
    config_path = tmp_path / "sweep.toml"
    config_path.write_text(SWEEP)
    config = load_sweep_config(config_path)
    run_sweep(config, tmp_path / "out", plots=False)
    results = tmp_path / "out" / "results.csv"
    good = results.read_text()
    results.write_text(good.replace("seed000-example", "seed000-edited", 1))
    with pytest.warns(EvosokoWarning, match="1 row not in the journal"):
        run_sweep(config, tmp_path / "out", plots=False)
    assert results.read_text() == good
