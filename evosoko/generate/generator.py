"""The generation loop: attempts, certification, the pushes band, duplicates and titles.

Every attempt draws its own seed from one ``random.Random(seed)``, so a run is reproducible and
each level records the seed that rebuilds it (:func:`generate_one`). Acceptance depends only on
node limits, never on time, so the output is the same on any machine.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from evosoko.errors import ConfigError, EvosokoError
from evosoko.generate.certify import Candidate
from evosoko.generate.markov import markov_level
from evosoko.generate.mask import mask_level
from evosoko.generate.reverse import reverse_level
from evosoko.generate.sketch import fingerprint
from evosoko.generate.spec import (
    DEFAULT_NODE_LIMIT,
    DEFAULT_PULL_LIMIT,
    GenerationSpec,
    generation_spec,
)
from evosoko.sokoban.build import level_from_rows
from evosoko.sokoban.holes.board import GIVEN_HOLES, RULES, STANDARD
from evosoko.sokoban.level import Level

ATTEMPTS_PER_LEVEL = 500
"""Default attempt budget per requested level before giving up."""

_METHODS: dict[str, Callable[[GenerationSpec, random.Random], Candidate | None]] = {
    "reverse": reverse_level,
    "markov": markov_level,
    "mask": mask_level,
}


class GenerationError(EvosokoError):
    """The requested levels could not be generated within the attempt budget."""


def generate_levels(
    method: str,
    width: int,
    height: int,
    boxes: int,
    count: int,
    min_pushes: int | None = None,
    max_pushes: int | None = None,
    seed: int = 0,
    on_progress: Callable[[int, int], None] | None = None,
    *,
    node_limit: int = DEFAULT_NODE_LIMIT,
    pull_limit: int = DEFAULT_PULL_LIMIT,
    max_attempts: int | None = None,
    avoid: Iterable[Level] = (),
    title_prefix: str | None = None,
    rules: str = "standard",
    pairing: str = "solution",
) -> list[Level]:
    """``count`` distinct certified levels of ``boxes`` boxes in a ``width`` x ``height`` room.

    Each level carries notes ``Method``, ``Seed`` (rebuilds it with :func:`generate_one`),
    ``Pushes`` (optimal), ``Moves``, ``Expanded`` and ``Solution`` (replay-verified LURD), and is
    titled ``{title_prefix or method}-01`` ... . ``on_progress(accepted, attempts)`` is called
    after every attempt. Levels equal to one in ``avoid`` (up to the player's start cell within
    its region) are skipped. With ``rules="given-holes"`` every level is a given-holes level
    (:mod:`evosoko.generate.given_holes`; ``pairing``: ``solution`` or ``random``), its
    certificate that of the variant. Raises
    ``ConfigError`` for a bad request and
    :class:`GenerationError` when ``max_attempts`` (default ``500 * count``) run out.
    """
    spec = generation_spec(
        method, width, height, boxes, min_pushes, max_pushes, node_limit, pull_limit
    )
    if count < 1:
        raise ConfigError(f"the number of levels must be at least 1, got {count}")
    if rules not in RULES:
        raise ConfigError(f"unknown rules {rules!r}; choose {' or '.join(RULES)}")
    from evosoko.generate.given_holes import PAIRINGS

    if pairing not in PAIRINGS:
        raise ConfigError(f"unknown pairing {pairing!r}; choose {' or '.join(PAIRINGS)}")
    budget = ATTEMPTS_PER_LEVEL * count if max_attempts is None else max_attempts
    master = random.Random(seed)
    seen = {fingerprint(level) for level in avoid}
    accepted: list[Level] = []
    attempts = 0
    while len(accepted) < count:
        if attempts >= budget:
            raise GenerationError(_exhausted_message(spec, count, len(accepted), attempts))
        attempts += 1
        attempt_seed = master.getrandbits(63)
        level = generate_one(spec, attempt_seed, rules, pairing)
        if level is not None and fingerprint(level) not in seen:
            seen.add(fingerprint(level))
            accepted.append(level)
        if on_progress is not None:
            on_progress(len(accepted), attempts)
    digits = max(2, len(str(count)))
    prefix = title_prefix or method
    return [
        _retitled(level, f"{prefix}-{number:0{digits}d}")
        for number, level in enumerate(accepted, start=1)
    ]


def generate_one(
    spec: GenerationSpec, seed: int, rules: str = STANDARD, pairing: str = "solution"
) -> Level | None:
    """The level one attempt with ``seed`` produces, or None (failed, trivial, outside the band)."""
    candidate = _METHODS[spec.method](spec, random.Random(seed))
    if candidate is not None and rules == GIVEN_HOLES:
        from evosoko.generate.given_holes import given_holes_candidate

        candidate = given_holes_candidate(candidate, spec.node_limit, pairing, seed)
    if candidate is None:
        return None
    certificate = candidate.certificate
    if certificate.pushes < 1 or not spec.accepts(certificate.pushes):
        return None
    notes = (("Method", spec.method), ("Seed", str(seed)), *candidate.notes, *certificate.notes())
    return candidate.sketch.to_level(notes=notes)


def _retitled(level: Level, title: str) -> Level:
    return level_from_rows(level.rows(), title=title, notes=level.notes)


def _exhausted_message(spec: GenerationSpec, count: int, found: int, attempts: int) -> str:
    band = f"{spec.min_pushes}..{spec.max_pushes if spec.max_pushes is not None else ''}"
    return (
        f"generated only {found} of {count} levels in {attempts} attempts ({spec.method}, "
        f"{spec.width}x{spec.height}, {spec.boxes} box{'es' if spec.boxes > 1 else ''}, pushes "
        f"{band}); widen the pushes band, "
        "change the room size or the number of boxes"
    )
