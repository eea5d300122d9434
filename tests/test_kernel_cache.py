"""The numba cache folder follows the package's sources, so no stale kernel is ever loaded."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import numba
import pytest

from evosoko import kernel_cache
from evosoko.kernel_cache import PREFIX, configure_kernel_cache, sources_digest


@pytest.fixture(autouse=True)
def numba_cache_setting(monkeypatch):
    """Give numba's cache setting back as it was: the tests point it at folders of their own."""
    monkeypatch.setattr(numba.config, "CACHE_DIR", numba.config.CACHE_DIR)


def make_package(root, text="x = 1\n"):
    package = root / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "kernel.py").write_text(text)
    return package


def test_any_change_to_any_source_file_changes_the_digest(tmp_path):
    package = make_package(tmp_path)
    before = sources_digest(package)
    assert sources_digest(package) == before
    (package / "sub" / "kernel.py").write_text("x = 2\n")
    assert sources_digest(package) != before
    (package / "sub" / "kernel.py").write_text("x = 1\n")
    assert sources_digest(package) == before
    (package / "other.py").write_text("")
    assert sources_digest(package) != before


def test_the_folder_is_named_after_the_sources_under_the_given_base(tmp_path, monkeypatch):
    package = make_package(tmp_path)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    folder = configure_kernel_cache(package)
    assert folder == tmp_path / "cache" / f"{PREFIX}{sources_digest(package)}"
    assert folder.is_dir() and os.environ["NUMBA_CACHE_DIR"] == str(folder)
    # a worker inherits the folder and keeps it, rather than nesting a second one in it
    assert configure_kernel_cache(package) == folder


def test_a_changed_source_gets_a_new_folder_and_old_ones_are_pruned(tmp_path, monkeypatch):
    package = make_package(tmp_path)
    base = tmp_path / "cache"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(base))
    folders = []
    for version in range(kernel_cache.KEEP + 3):
        (package / "sub" / "kernel.py").write_text(f"x = {version}\n")
        monkeypatch.setenv("NUMBA_CACHE_DIR", str(base))
        folders.append(configure_kernel_cache(package))
        stamp = time.time() - 100 + version  # distinct, increasing use times
        os.utime(folders[-1], (stamp, stamp))
    assert len(set(folders)) == len(folders)
    kept = sorted(path.name for path in base.iterdir())
    assert kept == sorted(path.name for path in folders[-(kernel_cache.KEEP + 1) :])


def test_importing_evosoko_points_numba_at_the_folder_of_its_sources(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    code = "import evosoko, numba; print(numba.config.CACHE_DIR)"
    command = [sys.executable, "-c", code]
    out = subprocess.run(command, check=False, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    digest = sources_digest(kernel_cache.Path(kernel_cache.__file__).parent)
    assert out.stdout.strip() == str(tmp_path / f"{PREFIX}{digest}")
