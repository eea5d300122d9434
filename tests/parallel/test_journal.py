"""The job journal of compare and sweep folders: only appended, every skipped line said."""

from __future__ import annotations

import json

import pytest

from evosoko.errors import EvosokoWarning
from evosoko.parallel.jobs import Job, Journal, SerialBackend, run_jobs


def _square(payload: int) -> dict:
    return {"square": payload * payload}


def _jobs() -> list[Job]:
    return [Job(f"job-{n}", n) for n in range(4)]


def test_a_journal_resumes_with_every_job_once(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    run_jobs(_jobs()[:2], _square, SerialBackend(), journal=journal)
    results = run_jobs(_jobs(), _square, SerialBackend(), journal=journal)
    assert results == {f"job-{n}": {"square": n * n} for n in range(4)}
    keys = [json.loads(line)["key"] for line in journal.path.read_text().splitlines()]
    assert keys == ["job-0", "job-1", "job-2", "job-3"]


def test_a_damaged_line_is_said_with_its_line_and_its_job_runs_again(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    run_jobs(_jobs(), _square, SerialBackend(), journal=journal)
    lines = journal.path.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace('"result"', '"resu')
    journal.path.write_text("".join(lines))
    with pytest.warns(EvosokoWarning, match="not a finished job's record .damaged.") as caught:
        results = run_jobs(_jobs(), _square, SerialBackend(), journal=journal)
    assert [warning.message.line for warning in caught] == [2]
    assert results["job-1"] == {"square": 1}
    assert journal.path.read_text().splitlines()[:4] == [line.rstrip("\n") for line in lines]


def test_a_record_after_a_torn_last_line_starts_a_line_of_its_own(tmp_path):
    journal = Journal(tmp_path / "journal.jsonl")
    run_jobs(_jobs()[:1], _square, SerialBackend(), journal=journal)
    with open(journal.path, "a", encoding="utf-8") as stream:
        stream.write('{"key": "job-1", "res')  # the process died while writing
    with pytest.warns(EvosokoWarning, match="cut short by a crash"):
        run_jobs(_jobs()[:2], _square, SerialBackend(), journal=journal)
    with pytest.warns(EvosokoWarning, match="damaged"):  # the torn line stays, said each time
        assert journal.finished() == {"job-0": {"square": 0}, "job-1": {"square": 1}}
