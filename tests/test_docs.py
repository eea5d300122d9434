"""The README and docs/ as a newcomer meets them: the first commands, CI installing as the
README says, links that resolve, and a docs/ folder of pages for readers, not raw results."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
CI = (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def code_blocks(text: str) -> list[list[str]]:
    """The command lines of each fenced block (comments after ``#`` and blank lines dropped)."""
    blocks = re.findall(r"```[a-z]*\n(.*?)```", text, flags=re.DOTALL)
    return [
        [line.split("  #")[0].strip() for line in block.splitlines() if line.strip()]
        for block in blocks
    ]


def pip_installs(lines: list[str]) -> list[list[str]]:
    """Every ``pip install`` of these command lines, as argument lists without the prefix."""
    found = []
    for line in lines:
        for command in line.split("&&"):
            if "pip install" not in command:
                continue
            words = shlex.split(command)
            if words[:3] == ["python", "-m", "pip"]:
                words = words[2:]
            if words[:2] == ["pip", "install"]:
                found.append(words[2:])
    return found


def test_the_readme_starts_with_install_and_test_then_the_main_job():
    blocks = code_blocks(README)
    assert blocks[0] == ["pip install -e '.[dev]'", "python -m pytest -n 2"]
    assert blocks[1] == ["evosoko run configs/default.toml"]


def test_ci_installs_what_the_readme_says_and_runs_its_test_command():
    readme_lines = [line for block in code_blocks(README) for line in block]
    ci_lines = [line.strip() for line in CI.splitlines() if not line.lstrip().startswith("#")]
    assert pip_installs(ci_lines) == pip_installs(readme_lines)
    assert "python -m pytest -n 2" in ci_lines
    assert "apt-get install chromium chromium-driver" in " ".join(readme_lines)
    assert "apt-get install -y -qq chromium chromium-driver" in CI


def test_the_readme_links_resolve():
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", README)
    local = [target for target in targets if "://" not in target]
    assert local and all((ROOT / target).exists() for target in local), [
        target for target in local if not (ROOT / target).exists()
    ]


def test_docs_holds_pages_for_readers_under_a_megabyte():
    files = [path for path in (ROOT / "docs").rglob("*") if path.is_file()]
    files = [path for path in files if "__pycache__" not in path.parts]
    raw = [path for path in files if path.suffix not in {".md", ".py", ".png"}]
    assert not raw, f"raw results belong outside docs/: {raw}"
    assert sum(path.stat().st_size for path in files) < 1_000_000
