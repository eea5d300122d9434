"""The built-in presets' fixed-seed runs write what they wrote before the engine refactor.

``data/preset_fingerprints.json`` holds, per preset and level set, a digest of what a
40-generation serial run writes (``metrics.csv`` and ``results.csv`` without wall-clock
columns, ``solutions.sok``, the summary's levels), recorded with
``benchmarks/preset_fingerprint.py --out`` on the engine before issue 19 (the engine as a short
loop, registries, named fitness values). Any change to what a seed gives fails here. Two runs are
in the default suite; every preset on both level sets is a slow test.

The recorded digests are of the words evosoko wrote before the one status vocabulary; the
fingerprint translates today's ``stop_reason = budget`` with ``exhausted = generations`` back to
``stop_reason = generations`` (``preset_fingerprint.in_recorded_words``: one-to-one, so the
digest still pins both fields), and nothing else.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STORED = json.loads((ROOT / "tests" / "data" / "preset_fingerprints.json").read_text())
QUICK = ["default/microban1-5", "moves/seed000-case3"]
SLOW = [key for key in STORED["runs"] if key not in QUICK]


@pytest.fixture(scope="module")
def fingerprinter():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import preset_fingerprint
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    shared = preset_fingerprint.REPO_ROOT.parent / "shared" / "levels"
    if not shared.is_dir():
        pytest.skip(f"no shared level folder at {shared}")
    return preset_fingerprint, preset_fingerprint.level_sets(shared)


def _check(fingerprinter, key: str, tmp_path: Path) -> None:
    module, level_sets = fingerprinter
    preset, set_name = key.split("/")
    levels, select = level_sets[set_name]
    run_dir = module.run_preset(preset, levels, select, STORED["generations"], "serial", tmp_path)
    found = module.fingerprint(run_dir)
    stored = STORED["runs"][key]
    assert len(found["metrics"]) - 1 == stored["metrics_rows"]
    digest = hashlib.sha256(json.dumps(found, sort_keys=True).encode()).hexdigest()
    assert digest == stored["sha256"], f"{key}: the run differs from the recorded one"


@pytest.mark.parametrize("key", QUICK)
def test_a_preset_run_is_what_it_was(fingerprinter, key, tmp_path):
    _check(fingerprinter, key, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("key", SLOW)
def test_every_preset_run_is_what_it_was(fingerprinter, key, tmp_path):
    _check(fingerprinter, key, tmp_path)
