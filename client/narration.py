"""Events in plain language, for the history list, the message line and replays.

"Black Tank (4,3) ground -> (6,3) ground", "White Flame Pawn hit by Rocket: 2 of 3
(1 defence)": what a player reads, one line per event. The events given are already
the ones the reader may see (the engine censors per side).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from wec.engine import board
from wec.engine.events import (
    ArticleDropped,
    Captured,
    Converted,
    Destroyed,
    Dozed,
    DozeFoiled,
    Dropped,
    Event,
    Exchanged,
    Fell,
    Fired,
    GameOver,
    Hit,
    HomingBroken,
    Moved,
    PickedUp,
    ProjectileLaunched,
    ProjectileRemoved,
    ProjectileStepped,
    Reinforced,
    ReinforceFoiled,
    Stunned,
    TransportEnded,
    TransportStepped,
    TurnEnded,
)
from wec.engine.pieces import ArticleKind, PieceKind, Side, describe_kind

_ACRONYMS = {"sam": "SAM", "xxx": "XXX"}


def article_name(article: ArticleKind | str) -> str:
    """``Rocket Launcher``, ``Anti-Stealth``, ``SAM``: as players say it."""
    value = article.value if isinstance(article, ArticleKind) else article
    text = " ".join(_ACRONYMS.get(w, w.capitalize()) for w in value.split("_"))
    return text.replace("Anti ", "Anti-")


def _who(side: Side, kind: PieceKind) -> str:
    return f"{side.title} {describe_kind(kind)}"


def _cell(cell: int) -> str:
    return board.describe_cell(cell)


def _square(sq: int) -> str:
    return board.describe_square(sq)


def _moved(e: Moved) -> str:
    text = f"{_who(e.side, e.kind)} {_cell(e.frm)} -> {_cell(e.to)}"
    if e.passenger is not None:
        text += f" carrying a {describe_kind(e.passenger)}"
    if e.reported != e.to:
        text += f" (stopped short of {_cell(e.reported)})"
    return text


def _captured(e: Captured) -> str:
    taken = ", ".join(f"{info.side.title} {describe_kind(info.kind)}" for info in e.pieces)
    return f"captured at {_cell(e.cell)}: {taken}"


def _hit(e: Hit) -> str:
    defence = f", {e.defences} defence{'s' if e.defences != 1 else ''}" if e.defences else ""
    return (f"{_who(e.side, e.kind)} at {_cell(e.cell)} hit by {article_name(e.weapon)}: "
            f"{e.total} hit{'s' if e.total != 1 else ''}{defence}")


def _destroyed(e: Destroyed) -> str:
    info = e.piece
    return (f"{info.side.title} {describe_kind(info.kind)} destroyed at {_cell(e.cell)} "
            f"({e.cause})")


def _fired(e: Fired) -> str:
    if e.dir is not None:
        aim = f"toward {e.dir}"
    elif e.target is not None:
        aim = f"at {_cell(e.target)}"
    elif e.dest is not None:
        aim = f"to {_square(e.dest)} ({e.path})"
    else:
        aim = ""
    strength = f" x{e.strength}" if e.strength > 1 else ""
    return f"{_who(e.side, e.kind)} at {_cell(e.cell)} fires {article_name(e.weapon)}" \
           f"{strength} {aim}".rstrip()


def _dozed(e: Dozed) -> str:
    pushed = ", ".join(f"{describe_kind(kind)} {_square(frm)} -> {_square(to)}"
                       for _side, kind, frm, to in e.moved)
    return f"{e.side.title} dozes toward {e.dir}: {pushed or 'nothing'}"


_LINES: dict[type, Callable[[Any], str]] = {
    Moved: _moved,
    Captured: _captured,
    ArticleDropped: lambda e: f"{article_name(e.article)} dropped on {_square(e.sq)}",
    PickedUp: lambda e: f"{_who(e.side, e.kind)} at {_cell(e.cell)} picks up "
                        f"{article_name(e.article)}",
    Dropped: lambda e: f"{_who(e.side, e.kind)} at {_cell(e.cell)} drops "
                       f"{article_name(e.article)}",
    Exchanged: lambda e: (f"{_who(e.side, e.kind)} at {_cell(e.frm)} gives "
                          f"{article_name(e.give)} to the {describe_kind(e.to_kind)} at "
                          f"{_cell(e.to)}"
                          + (f" for {article_name(e.take)}" if e.take else "")),
    Reinforced: lambda e: f"{_who(e.side, e.kind)} reinforces at {_square(e.sq)}",
    ReinforceFoiled: lambda e: f"{e.side.title}'s reinforcement at {_square(e.sq)} is foiled",
    TurnEnded: lambda e: f"turn {e.turn} begins",
    GameOver: lambda e: f"game over: {e.winner.title} wins ({e.reason})",
    Fired: _fired,
    Hit: _hit,
    Destroyed: _destroyed,
    Stunned: lambda e: f"{_who(e.side, e.kind)} at {_cell(e.cell)} stunned until turn "
                       f"{e.until}",
    Converted: lambda e: f"{describe_kind(e.kind)} at {_cell(e.cell)} converted to "
                         f"{e.side.title}",
    Fell: lambda e: f"{_who(e.side, e.kind)} falls {_cell(e.frm)} -> {_cell(e.to)}",
    ProjectileLaunched: lambda e: f"{e.side.title} {article_name(e.projectile)} launched "
                                  f"from {_square(e.sq)}",
    ProjectileStepped: lambda e: f"{e.side.title} {article_name(e.projectile)} "
                                 f"{_square(e.frm)} -> {_square(e.to)}",
    ProjectileRemoved: lambda e: f"{e.side.title} {article_name(e.projectile)} at "
                                 f"{_square(e.sq)} gone ({e.why})",
    HomingBroken: lambda e: f"{e.side.title} {article_name(e.projectile)} at "
                            f"{_square(e.sq)} loses its lock, flies on toward {e.dir}",
    TransportStepped: lambda e: f"{_who(e.side, e.kind)} travels {_cell(e.frm)} -> "
                                f"{_cell(e.to)}",
    TransportEnded: lambda e: f"{_who(e.side, e.kind)} stops at {_cell(e.cell)} ({e.why})",
    Dozed: _dozed,
    DozeFoiled: lambda e: f"{e.side.title}'s Doze from {_square(e.sq)} is foiled by a "
                          "hidden piece",
}


def narrate(event: Event) -> str:
    """One line of plain language for one event."""
    return _LINES[type(event)](event)


def narrate_all(events: Iterable[Event]) -> list[str]:
    return [narrate(e) for e in events]
