"""Where numba keeps the compiled kernels: one folder per version of the package's sources.

numba checks a cached kernel against the source file of the function itself only. A kernel
that calls a kernel of another module (``search.fess.kernel`` calls ``corral_deadlock``'s tests, and
numba compiles the callee into it) is loaded from the cache unchanged after only the callee's
file has changed, and runs the old code. So the cache folder is named after a digest of every
source file of the package: any change starts a new folder, and the kernels are compiled
afresh.

The folders live under ``NUMBA_CACHE_DIR`` when it is set, else under the user's cache folder
(``$XDG_CACHE_HOME/evosoko/numba``, by default ``~/.cache/evosoko/numba``); the current one
and the :data:`KEEP` used most recently before it are kept. :func:`configure_kernel_cache` runs
when :mod:`evosoko` is imported. It sets ``NUMBA_CACHE_DIR`` for the process and the workers it
starts, and numba's setting if numba is already loaded, so numba code of other packages imported
after evosoko caches there too.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

KEEP = 3
"""Folders of past source versions kept beside the current one."""

PREFIX = "evosoko-"


def sources_digest(package: Path) -> str:
    """A digest of the names and contents of every Python file of ``package``."""
    digest = hashlib.sha1(usedforsecurity=False)
    for path in sorted(package.rglob("*.py")):
        digest.update(path.relative_to(package).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def default_base() -> Path:
    """The user's cache folder for evosoko's kernels."""
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "evosoko" / "numba"


def configure_kernel_cache(package: Path | None = None) -> Path:
    """Point numba's cache at the folder of this version of the sources and return it."""
    package = Path(__file__).parent if package is None else package
    given = os.environ.get("NUMBA_CACHE_DIR")
    base = Path(given) if given else default_base()
    if base.name.startswith(PREFIX):  # set by the process that started this one
        base = base.parent
    folder = base / f"{PREFIX}{sources_digest(package)}"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        os.utime(folder)
        _prune(base, keep=folder)
    except OSError:
        return folder  # numba falls back to a folder of its own choosing
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    numba = sys.modules.get("numba")
    if numba is not None:
        numba.config.CACHE_DIR = str(folder)
    return folder


def _prune(base: Path, keep: Path) -> None:
    """Remove all but the :data:`KEEP` most recently used version folders (and ``keep``)."""
    folders = [path for path in base.glob(f"{PREFIX}*") if path.is_dir() and path != keep]
    folders.sort(key=lambda path: path.stat().st_mtime, reverse=True)
    for old in folders[KEEP:]:
        shutil.rmtree(old, ignore_errors=True)
