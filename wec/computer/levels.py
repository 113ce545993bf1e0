"""The computer's levels and per-move budgets (docs/computer.md, "Levels" and "Budgets").

A budget is work, not time: a number of rule applications (``search.Work``). A budget in
seconds is turned into work at ``WORK_PER_SECOND``, a constant measured once on the
reference machine (2 cores, ``wec bench computer`` prints today's figure), never on the
machine that plays: the same level, seed and history give the same turn anywhere.
"""

from __future__ import annotations

from dataclasses import replace

from wec.computer.search import Settings

# Rule applications per second of one core of the reference machine (wec bench computer
# measures it again and prints it beside this value).
WORK_PER_SECOND = 4000.0

LEVELS: dict[int, Settings] = {
    # beginner: one world, a narrow look at its own turn and at the enemy's best answer,
    # an uneven judgement (draws among turns within about a third of a pawn of the best)
    # and, about one turn in eight, no look at the answer at all: a beginner's mistakes
    1: Settings(worlds=1, generation_worlds=1, beam=2, depth=3, reuse=4, candidates=4,
                reply=1, counter=0.0, threat=1.0, temperature=0.3, forget=0.12,
                work=1500.0),
    # club player: three worlds, wider turns, the enemy's best capture or Fire as its
    # answer, then half its own best capture or Fire (its threats and recaptures)
    2: Settings(worlds=3, generation_worlds=1, beam=3, depth=3, reuse=6, candidates=8,
                reply=1, counter=0.5, threat=1.0, temperature=0.0, forget=0.0, work=3000.0),
    # strongest: four worlds (two of them building turns), the widest beam, twice the
    # club player's candidate turns and its best King moves, two-action answers that
    # try the enemy's four best first actions, then its own reply
    3: Settings(worlds=4, generation_worlds=2, beam=4, depth=4, reuse=8, candidates=16,
                reply=2, counter=0.5, threat=1.0, temperature=0.0, forget=0.0, work=12000.0,
                branch=4, escapes=3),
}
DEFAULT_LEVEL = 2
NAMES = {1: "beginner", 2: "club", 3: "strong"}


def settings_for(level: int, budget: float | None = None) -> Settings:
    """The search of ``level``; ``budget`` (seconds per move, optional) replaces its work
    budget with ``budget * WORK_PER_SECOND`` rule applications."""
    if level not in LEVELS:
        raise ValueError(f"level {level}: expected one of {', '.join(map(str, LEVELS))}")
    settings = LEVELS[level]
    if budget is not None:
        if not budget > 0:
            raise ValueError(f"budget {budget}: expected a positive number of seconds")
        work = budget * WORK_PER_SECOND
        # a smaller budget than the level's own also narrows the search, so that the
        # work it allows is spread over fewer worlds and candidate turns
        scale = min(1.0, work / settings.work)
        settings = replace(
            settings, work=work,
            worlds=max(1, round(settings.worlds * scale)),
            generation_worlds=max(1, round(settings.generation_worlds * scale)),
            candidates=max(2, round(settings.candidates * scale)),
            beam=max(1, round(settings.beam * scale)))
    return settings
