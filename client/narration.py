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
from wec.engine.replay import describe_step

_ACRONYMS = {"sam": "SAM", "xxx": "XXX"}


# what a player calls each network message (net.messages TAGs) in a refusal line
_MESSAGE_WORDS = {
    "invite": "invitation", "accept": "acceptance", "decline": "refusal", "colour": "colour",
    "coin_commit": "coin toss", "coin_reveal": "coin toss", "government": "government",
    "propose": "proposed rules", "approve": "approval", "reject": "rejection",
    "setup_done": "finished set-up", "rules_hash": "rules check", "intent": "move",
    "turn_hash": "turn check", "resign": "resignation",
    "takeback_request": "takeback request", "takeback_answer": "takeback answer",
    "takeback_cancel": "takeback cancel", "time_claim": "claim of a win on time",
    "chat": "chat line", "save": "save", "resume": "resume request",
    "propose_start": "start proposal", "fog": "fog-of-war message",
    "fog_part": "fog-of-war message", "fog_reveal": "end-of-game reveal",
}


def message_words(tag: str) -> str:
    """A network message's name in a player's words ("time_claim": "claim of a win on
    time"); an unknown tag (the peer's untrusted text) with its underscores as spaces."""
    return _MESSAGE_WORDS.get(tag, tag.replace("_", " "))


def article_name(article: ArticleKind | str) -> str:
    """``Rocket Launcher``, ``Anti-Stealth``, ``SAM``: as players say it."""
    value = article.value if isinstance(article, ArticleKind) else article
    text = " ".join(_ACRONYMS.get(w, w.capitalize()) for w in value.split("_"))
    return text.replace("Anti ", "Anti-")


def side_of_turn(turn: int) -> Side:
    """R4.1: Black plays odd turns, White even turns."""
    return Side.BLACK if turn % 2 == 1 else Side.WHITE


def own_turns_left(side: Side, now: int, until: int) -> int:
    """How many of ``side``'s own turns, from turn ``now`` on, fall before turn ``until``:
    the turns a piece of ``side`` still misses when stunned until ``until`` (R7.1) or
    when a weapon is ready again at ``until`` (R6.3.2). Durations are written in global
    turn numbers (D-7); players count them in their own turns (O12), so every screen
    shows this number."""
    return sum(1 for turn in range(now, until) if side_of_turn(turn) is side)


# a direction (R1.10) in the board's own numbers: "toward row 1 and column 10"
direction_words = board.describe_direction


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
        aim = direction_words(e.dir)
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
    return f"{e.side.title} dozes {direction_words(e.dir)}: {pushed or 'nothing'}"


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
                            f"{_square(e.sq)} loses its lock, flies on "
                            f"{direction_words(e.dir)}",
    TransportStepped: lambda e: f"{_who(e.side, e.kind)} travels {_cell(e.frm)} -> "
                                f"{_cell(e.to)}",
    TransportEnded: lambda e: f"{_who(e.side, e.kind)} stops at {_cell(e.cell)} ({e.why})",
    Dozed: _dozed,
    DozeFoiled: lambda e: f"{e.side.title}'s Doze from {_square(e.sq)} is foiled by a "
                          "hidden piece",
}


def narrate(event: Event, turn: int | None = None) -> str:
    """One line of plain language for one event; given the ``turn`` it happened in, a
    stun reads in the stunned piece's own turns (O12), as the board shows it."""
    if turn is not None and isinstance(event, Stunned):
        left = own_turns_left(event.side, turn, event.until)
        return (f"{_who(event.side, event.kind)} at {_cell(event.cell)} stunned for "
                f"{left} of its turns (until turn {event.until})")
    return _LINES[type(event)](event)


def narrate_all(events: Iterable[Event], turn: int | None = None) -> list[str]:
    return [narrate(e, turn) for e in events]


def intent_words(intent: Any, side: Side, position: Any = None) -> str:
    """An intent in plain language, as its player chose it ("Black Rocket Pawn (2,1)
    ground -> (3,2) ground"): where no event tells what it did yet (a network game
    still resolving it) or for a side's own steps in a replay; the replay's own summary
    of a step (engine.replay ``describe_step``), its piece named from ``position`` (the
    one it was played on) where the intent leaves its kind out."""
    return describe_step(side, None if position is None else position.turn, intent,
                         position)


def unseen_action_words(intent: Any) -> str:
    """What a player is told of an enemy action it saw nothing of (a hidden piece's Move,
    an Exchange between hidden pieces, R9): its kind, which the rules show, and no more.
    (A network game's message line read "move (1,1) air -> (1,1) air" there: the
    placeholder the hidden Move travels as.)"""
    from wec.engine.intents import Doze, Drop, Exchange, Move, PickUp, Reinforce

    # a hidden Dozer's Doze shows as a hidden Move (net.doze_judge: the other side
    # learns neither where it is nor whether it moved or dozed)
    kinds = ((Move, "a move"), (Doze, "a move"), (PickUp, "a pick-up"), (Drop, "a drop"),
             (Exchange, "an exchange"), (Reinforce, "a reinforcement"))
    what = next((words for kind, words in kinds if isinstance(intent, kind)), "an action")
    return f"{what} you do not see"
