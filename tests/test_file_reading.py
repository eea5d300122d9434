"""Reading never hangs and never reads without end (issue 55, item 6): ``evosoko levels
/dev/zero`` read forever, and a named pipe that no process writes blocked on its opening.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evosoko.config import load_config
from evosoko.errors import ConfigError, EvosokoError, LevelFormatError
from evosoko.file_reading import read_bounded
from evosoko.sokoban.formats import read_levels

REPO = Path(__file__).resolve().parents[1]
ZERO = Path("/dev/zero")
needs_dev_zero = pytest.mark.skipif(not ZERO.exists(), reason="no /dev/zero here")
needs_fifos = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


def test_a_file_is_read_whole_up_to_the_limit(tmp_path):
    path = tmp_path / "ten.txt"
    path.write_bytes(b"0123456789")
    assert read_bounded(path, 10) == b"0123456789"
    with pytest.raises(EvosokoError, match="too large: 10 bytes, more than the 9 bytes"):
        read_bounded(path, 9)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda folder: folder / "missing.txt", "no such file"),
        (lambda folder: folder, "is a directory"),
    ],
)
def test_a_path_that_is_no_file_is_named(tmp_path, make, message):
    with pytest.raises(LevelFormatError, match=message) as caught:
        read_bounded(make(tmp_path), 100, LevelFormatError)
    assert caught.value.path == str(make(tmp_path))


@needs_dev_zero
def test_a_device_without_end_is_refused_at_the_limit():
    with pytest.raises(EvosokoError, match="too large: more than the 1,000 bytes"):
        read_bounded(ZERO, 1000)


@needs_fifos
def test_a_named_pipe_that_nobody_writes_reads_as_empty(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    assert read_bounded(pipe, 100) == b""  # returns: it does not wait for a writer


@needs_fifos
def test_a_named_pipe_is_read_while_its_writer_writes(tmp_path):
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    writer = subprocess.Popen(
        [sys.executable, "-c", f"open({str(pipe)!r}, 'w').write('#####\\n#@$.#\\n#####\\n')"]
    )
    try:
        data = b""
        for _ in range(600):  # the writer may not have opened it yet: try until it has
            data = read_bounded(pipe, 100)
            if data:
                break
            time.sleep(0.05)
        assert data == b"#####\n#@$.#\n#####\n"
    finally:
        writer.wait(timeout=30)


@needs_dev_zero
def test_a_level_file_and_a_configuration_on_a_device_are_refused():
    with pytest.raises(LevelFormatError, match="the file is too large") as level:
        read_levels(ZERO)
    assert level.value.path == str(ZERO)
    with pytest.raises(ConfigError, match="the file is too large") as config:
        load_config(ZERO)
    assert config.value.path == str(ZERO)


def _evosoko(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evosoko.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        check=False,
    )


@needs_dev_zero
@pytest.mark.parametrize("command", [["levels"], ["run"], ["solve"]])
def test_the_command_line_refuses_dev_zero_in_one_line(command):
    completed = _evosoko(*command, str(ZERO))
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.startswith(f"error: {ZERO}: the file is too large")
    assert len(completed.stderr.splitlines()) == 1


@needs_fifos
def test_the_command_line_does_not_wait_on_a_silent_pipe(tmp_path):
    pipe = tmp_path / "levels.xsb"
    os.mkfifo(pipe)
    completed = _evosoko("levels", str(pipe), timeout=60)
    assert completed.returncode == 2
    assert completed.stderr.startswith(f"error: {pipe}: no level found")
