"""The :class:`~evosoko.result.Result` of a GA run on a level, from its hall of fame.

The best individual's scored genes are decoded to LURD and replay-verified by ``sokoban/``: a
solved level's solution (shortened first when ``output.optimize_seconds`` asks), else the best
prefix, which reaches the position its distance was measured at. The result is built once,
with its level, index, seed and settings digest. A genome that decodes to an illegal move
sequence (or a solving genome whose moves do not solve) is a bug, not bad input: it raises
``RuntimeError``.
"""

from __future__ import annotations

from evosoko.config import Config
from evosoko.evolve.genomes import decode_scored
from evosoko.evolve.objectives import Objectives
from evosoko.evolve.shortening import shortened
from evosoko.result import BestIndividual, HallOfFameEntry, History, Result
from evosoko.sokoban.level import Level
from evosoko.sokoban.solutions import verify_solution
from evosoko.status import Stop


def ga_result(
    level: Level,
    config: Config,
    objectives: Objectives,
    hall_of_fame: list,
    *,
    stop: Stop,
    generations: int,
    evaluations: int,
    seconds: float,
    restarts: int,
    history: History,
    seed: int | None,
    settings: str | None,
    shorten: bool = True,
) -> Result:
    """The result whose best individual is ``hall_of_fame[0]``; ``shorten=False``: never shorten
    its solution (an island's epoch: the island model shortens the level's)."""
    best = hall_of_fame[0]
    scored = list(best)[: best.evaluation.keep]  # the genes its fitness counts
    decoded = decode_scored(level, config.ga.encoding, scored, config.fitness)
    verification = verify_solution(level, decoded.lurd)
    if not verification.valid:
        raise RuntimeError(
            f"level {level.name}: the best genome decodes to an illegal move sequence "
            f"({verification.error})"
        )
    solution = moves = pushes = None
    played = (verification.lurd, verification.moves, verification.pushes)
    if best.evaluation.solved:
        if not verification.solved:
            raise RuntimeError(
                f"level {level.name}: the solving genome decodes to a move sequence that does "
                "not solve it"
            )
        if shorten and config.output.optimize_seconds:
            short = shortened(level, verification.lurd, config.output.optimize_seconds)
            played = (short.lurd, short.moves, short.pushes)
        solution, moves, pushes = played
    return Result(
        level_name=level.name,
        solver="ga",
        status=stop.status,
        exhausted=stop.exhausted,
        solution=solution,
        moves=moves,
        pushes=pushes,
        cost=evaluations,
        unit="evaluations",
        seconds=round(seconds, 3),
        index=level.index,
        generations=generations,
        restarts=restarts,
        best=BestIndividual(
            lurd=played[0],
            distance=int(best.evaluation.distance),
            moves=played[1],
            pushes=played[2],
            solved=solution is not None,
            genes=list(best),
        ),
        fitness=objectives.named(best.fitness.values),
        history=history,
        hall_of_fame=[
            HallOfFameEntry(
                list(ind), ind.evaluation.solved, ind.evaluation.distance, ind.evaluation.length
            )
            for ind in hall_of_fame
        ],
        level=level,
        seed=seed,
        settings=settings,
    )
