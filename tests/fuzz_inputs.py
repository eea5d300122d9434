"""Hostile inputs for the fuzz tests and the fuzz campaign (``benchmarks/fuzz_campaign.py``).

Deterministic generators (a seed in, the same inputs out) of mutated level files in the three
formats, mutated solution strings, mutated configurations and damaged run folders. Each input
must be either accepted or refused with an :class:`evosoko.errors.EvosokoError` (one ``error:``
line on the command line); anything else is a crash.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIGS = REPO / "configs"

SEED_LEVEL_TEXTS = {
    "plain.xsb": (REPO / "levels" / "seeds.xsb").read_text(encoding="utf-8"),
    "starter.xsb": (REPO / "levels" / "starter.xsb").read_text(encoding="utf-8")[:3000],
    "rle.xsb": "; run-length\n4#|#@$.#|4#\nTitle: rle one\n\n2(3(#-)#)\n#@$.#-\n5#\n",
    "notes.sok": (
        "; noted\n#######\n#@ $ .#\n#######\nAuthor: someone\nSolution: rrR\n\n"
        "Title: second\n#####\n#.$@#\n#####\nSolution (moves 1, pushes 1): L\n"
    ),
    "example.num": (REPO / "levels" / "seed000-example.num").read_text(encoding="utf-8"),
    "example.grid": (REPO / "levels" / "seed002-example.grid").read_text(encoding="utf-8"),
}
"""Valid level files to mutate, by name (the extension picks the format)."""

_BOARD_ALPHABET = "#@+$*.-_ 0123456789()|;:\n\tabcfxyzTitleSolution"
_HOSTILE_PIECES = [
    "; [/r/sokoban]\n",
    "; [bold red]loud[/]\n",
    "Title: \x1b]0;pwned\x07\n",
    "Title: \x1b[2J\n",
    "\ufeff",
    "\r\n",
    "\r",
    "\x00",
    "\u202e",
    "9" * 40 + "#",
    "9999999#",
    "(" * 30,
    ")" * 5,
    "|||",
    "Solution: " + "R" * 50 + "\n",
    "Solution: 99999999999999999999R\n",
    "#" * 300 + "\n",
    "@@\n",
    "$$$$\n",
    "....\n",
    "     \n",
    "\n\n\n",
]


def mutate_text(
    text: str, rng: random.Random, steps: int | None = None, most_steps: int = 6
) -> str:
    """``text`` after ``steps`` (default: 1 to ``most_steps``) random edits: characters inserted,
    deleted or replaced, lines duplicated, dropped or swapped, a hostile piece inserted, or the
    text cut short."""
    for _ in range(steps if steps is not None else rng.randint(1, most_steps)):
        kind = rng.randrange(8)
        position = rng.randrange(len(text) + 1)
        if kind == 0:
            text = text[:position] + rng.choice(_BOARD_ALPHABET) + text[position:]
        elif kind == 1 and text:
            text = text[:position] + text[position + 1 :]
        elif kind == 2 and text:
            text = text[:position] + rng.choice(_BOARD_ALPHABET) + text[position + 1 :]
        elif kind in (3, 4, 5):
            lines = text.split("\n")
            index = rng.randrange(len(lines))
            if kind == 3:
                lines.insert(index, lines[rng.randrange(len(lines))])
            elif kind == 4 and len(lines) > 1:
                del lines[index]
            else:
                other = rng.randrange(len(lines))
                lines[index], lines[other] = lines[other], lines[index]
            text = "\n".join(lines)
        elif kind == 6:
            text = text[:position] + rng.choice(_HOSTILE_PIECES) + text[position:]
        else:
            text = text[:position]
    return text


def mutated_level_files(
    count: int, seed: int = 0, most_steps: int = 6
) -> Iterator[tuple[str, bytes]]:
    """``count`` mutated level files as ``(file name, bytes)``; some are re-encoded oddly.
    Fewer ``most_steps`` keep more files valid (to reach the solvers)."""
    rng = random.Random(seed)
    names = sorted(SEED_LEVEL_TEXTS)
    for number in range(count):
        name = names[number % len(names)]
        text = mutate_text(SEED_LEVEL_TEXTS[name], rng, most_steps=most_steps)
        encoding = rng.choice(["utf-8", "utf-8", "utf-8", "utf-8-sig", "utf-16", "latin-1"])
        data = text.encode(encoding, errors="replace")
        if rng.random() < 0.05:
            data = data[: rng.randrange(len(data) + 1)] + bytes([rng.randrange(256)])
        yield f"{number:04d}-{name}", data


def mutated_solutions(count: int, seed: int = 0) -> Iterator[str]:
    """``count`` LURD-like strings: run-length counts, groups, whitespace, junk."""
    rng = random.Random(seed)
    clean = list("lurdLURD") * 4 + ["3", "2", " ", "\n", "2(", ")"]
    junk = [*clean, "(", ")", "x", "0", "99999999999", "é", "\x1b", "[/]"]
    for number in range(count):
        pieces = clean if number % 3 else junk
        yield "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))


def mutated_configs(count: int, seed: int = 0) -> Iterator[tuple[str, bytes]]:
    """``count`` configuration files derived from the presets, values and keys mangled."""
    rng = random.Random(seed)
    presets = sorted(p for p in CONFIGS.glob("*.toml") if "compare" not in p.name)
    presets = [
        p for p in presets if not any(word in p.name for word in ("sweep", "tune", "levels-"))
    ]
    replacements = [
        "-1",
        "0",
        "1e309",
        "nan",
        "inf",
        "99999999999999999999999",
        '"text"',
        "true",
        "[]",
        "{}",
        '"\x1b[2J"',
        '"[/]"',
        "2000-01-01",
        '""',
    ]
    for number in range(count):
        preset = presets[number % len(presets)]
        lines = preset.read_text(encoding="utf-8").split("\n")
        for _ in range(rng.randint(1, 4)):
            index = rng.randrange(len(lines))
            line = lines[index]
            kind = rng.randrange(5)
            if kind == 0 and "=" in line and not line.lstrip().startswith("#"):
                key = line.split("=", 1)[0]
                lines[index] = f"{key}= {rng.choice(replacements)}"
            elif kind == 1:
                lines.insert(index, rng.choice(["bogus_key = 1", "[nosuch]", "run = 3", "[["]))
            elif kind == 2:
                del lines[index]
            elif kind == 3:
                lines[index] = mutate_text(line, rng, steps=1)
            else:
                lines.insert(index, lines[rng.randrange(len(lines))])
        data = "\n".join(lines).encode("utf-8")
        if rng.random() < 0.1:
            data = b"\xef\xbb\xbf" + data
        if rng.random() < 0.05:
            data = data + b"\xff\xfe"
        yield f"{number:04d}-{preset.name}", data


# ---- damaged run folders -------------------------------------------------------------------------
def _json_edit(change: Callable) -> Callable[[Path], None]:
    def apply(path: Path) -> None:
        path.write_text(json.dumps(change(json.loads(path.read_text()))))

    return apply


def _first(folder: Path, pattern: str) -> Path:
    return min(folder.glob(pattern))


def _summary_edit(change: Callable) -> Callable[[Path], None]:
    return lambda run: _json_edit(change)(run / "summary.json")


def _first_level(change: Callable) -> Callable[[Path], None]:
    return _summary_edit(lambda s: {**s, "levels": [change(s["levels"][0])]})


def _checkpoint_edit(change: Callable) -> Callable[[Path], None]:
    return lambda run: _json_edit(change)(_first(run, "checkpoints/*.json"))


def _gene(value):
    def change(checkpoint):
        checkpoint["population"][0]["genes"][0] = value
        return checkpoint

    return change


def _cut(fraction: float) -> Callable[[Path], None]:
    def apply(run: Path) -> None:
        path = run / "metrics.csv"
        data = path.read_bytes()
        path.write_bytes(data[: int(len(data) * fraction)])

    return apply


def _replace_with_file(name: str) -> Callable[[Path], None]:
    def apply(run: Path) -> None:
        target = run / name
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)
        target.write_text("not what it should be\n")

    return apply


def _replace_with_folder(name: str) -> Callable[[Path], None]:
    def apply(run: Path) -> None:
        (run / name).unlink()
        (run / name).mkdir()

    return apply


DAMAGES: dict[str, Callable[[Path], None]] = {
    "checkpoint-list": lambda run: _first(run, "checkpoints/*.json").write_text("[1, 2]"),
    "checkpoint-empty": lambda run: _first(run, "checkpoints/*.json").write_text(""),
    "checkpoint-cut": lambda run: _first(run, "checkpoints/*.json").write_text('{"version": 1,'),
    "checkpoint-generation-negative": _checkpoint_edit(lambda c: {**c, "generation": -5}),
    "checkpoint-generation-huge": _checkpoint_edit(lambda c: {**c, "generation": 10**6}),
    "checkpoint-gene-negative": _checkpoint_edit(_gene(-1)),
    "checkpoint-gene-huge": _checkpoint_edit(_gene(10**9)),
    "checkpoint-gene-text": _checkpoint_edit(_gene("u")),
    "checkpoint-no-population": _checkpoint_edit(lambda c: {**c, "population": []}),
    "checkpoint-rng": _checkpoint_edit(lambda c: {**c, "rng_state": "random"}),
    "checkpoint-evaluations": _checkpoint_edit(lambda c: {**c, "evaluations": 1}),
    "checkpoint-level": _checkpoint_edit(lambda c: {**c, "level": "other"}),
    "checkpoint-age-memory": _checkpoint_edit(lambda c: {**c, "age_memory": "!!"}),
    "checkpoints-is-a-file": _replace_with_file("checkpoints"),
    "summary-list": lambda run: (run / "summary.json").write_text("[]"),
    "summary-not-json": lambda run: (run / "summary.json").write_text("{summary"),
    "summary-level-nameless": _first_level(lambda e: {k: v for k, v in e.items() if k != "level"}),
    "summary-levels-string": _summary_edit(lambda s: {**s, "levels": "all"}),
    "summary-status": _summary_edit(lambda s: {**s, "status": 7}),
    "summary-generations-text": _first_level(lambda e: {**e, "generations": "many"}),
    "summary-solution-wrong": _first_level(lambda e: {**e, "solution": "uuuu", "solved": True}),
    "metrics-deleted": lambda run: (run / "metrics.csv").unlink(),
    "metrics-cut-half": _cut(0.5),
    "metrics-cut-tenth": _cut(0.1),
    "metrics-header": lambda run: (run / "metrics.csv").write_text("a,b,c\n"),
    "metrics-is-a-folder": _replace_with_folder("metrics.csv"),
    "config-deleted": lambda run: (run / "config.toml").unlink(),
    "config-garbage": lambda run: (run / "config.toml").write_text("[[[\n"),
}
"""28 ways to damage a run folder that stopped in the middle of its second level (the first
level finished, the second with a checkpoint), as the fuzz campaign of issue 17 did."""


def _current_checkpoint(run: Path) -> Path:
    """The checkpoint of the level in progress (the one with the highest index)."""
    return max(run.glob("checkpoints/*.json"), key=lambda path: int(path.stem.split("-")[1]))


def _drop_line(name: str, number: int) -> Callable[[Path], None]:
    def apply(run: Path) -> None:
        path = run / name
        lines = path.read_text().splitlines(keepends=True)
        del lines[number]
        path.write_text("".join(lines))

    return apply


def _edit_metrics_best(run: Path) -> None:
    """The ``best`` of the first level's first row, one better: a row that still parses."""
    path = run / "metrics.csv"
    lines = path.read_text().splitlines(keepends=True)
    header = lines[0].rstrip("\n").split(",")
    cells = lines[1].rstrip("\n").split(",")
    at = header.index("best")
    cells[at] = str(max(float(cells[at]) - 1, 0))
    lines[1] = ",".join(cells) + "\n"
    path.write_text("".join(lines))


def _cut_after_checkpoint(run: Path) -> None:
    """Drop the rows the level in progress wrote after its checkpoint (they are run again)."""
    checkpoint = _current_checkpoint(run)
    index = checkpoint.stem.split("-")[1]
    generation = json.loads(checkpoint.read_text())["generation"]
    path = run / "metrics.csv"
    lines = path.read_text().splitlines(keepends=True)
    kept = [
        line
        for line in lines
        if not (line.startswith(f"{index},") and int(line.split(",")[2]) > generation)
    ]
    path.write_text("".join(kept))


def _checkpoint_of_a_later_level(run: Path) -> None:
    checkpoint = _current_checkpoint(run)
    later = int(checkpoint.stem.split("-")[1]) + 1
    shutil.copy(checkpoint, run / "checkpoints" / f"level-{later}.json")


SEMANTIC_DAMAGES: dict[str, Callable[[Path], None]] = {
    "summary-levels-empty": _summary_edit(lambda s: {**s, "levels": []}),
    "summary-status-completed": _summary_edit(lambda s: {**s, "status": "completed"}),
    "summary-evaluations-edited": _first_level(
        lambda e: {**e, "evaluations": e["evaluations"] + 1}
    ),
    "checkpoint-generation-3": lambda run: _json_edit(lambda c: {**c, "generation": 3})(
        _current_checkpoint(run)
    ),
    "checkpoint-deleted": lambda run: _current_checkpoint(run).unlink(),
    "checkpoint-of-a-later-level": _checkpoint_of_a_later_level,
    "metrics-row-deleted": _drop_line("metrics.csv", 2),
    "metrics-best-edited": _edit_metrics_best,
    "metrics-rows-after-checkpoint-cut": _cut_after_checkpoint,
    "metrics-last-row-cut-short": lambda run: (run / "metrics.csv").write_bytes(
        (run / "metrics.csv").read_bytes()[:-7]
    ),
    "manifest-deleted": lambda run: (run / "manifest.json").unlink(),
    "manifest-garbage": lambda run: (run / "manifest.json").write_text('{"version": 1, "fin'),
    "manifest-checkpoint-digest": lambda run: _json_edit(
        lambda m: {
            **m,
            "checkpoints": {k: {**v, "sha256": "0" * 64} for k, v in m["checkpoints"].items()},
        }
    )(run / "manifest.json"),
    "events-line-deleted": _drop_line("events.jsonl", 1),
    "events-line-edited": lambda run: (run / "events.jsonl").write_text(
        (run / "events.jsonl").read_text().replace('"event"', '"event" ', 1)
    ),
    "results-garbage": lambda run: (run / "results.csv").write_text("index,level\n1,x\n"),
    "solutions-deleted": lambda run: (run / "solutions.sok").unlink(),
}
"""Damage that keeps a stopped run folder readable but makes its files disagree (issue 55):
each resume must be refused with one line, or go on with every metrics row kept, a repair
stated in a ``warning:`` line."""
