"""The play screen's move list (issue 18): one line of plain language per action, in
the lichess manner, and the pieces each side has lost.

What a side may read follows the mode (R14): in a non-competitive game the history
shows everything, hidden enemy activity included (R14.2); in a competitive game each
player reads only what it saw (the engine's censored events, R14.3) until the game
ends, when everything is revealed. ``reveal_all`` says which; the lines come from the
engine's events through ``client.narration``, never from the client's own reckoning.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wec.client.narration import narrate
from wec.engine.events import Captured, Converted, Destroyed, Event, GameOver, TurnEnded
from wec.engine.intents import EndTurn
from wec.engine.match import Action, OptionChange
from wec.engine.pieces import PieceKind, Side, describe_kind


@dataclass(frozen=True, slots=True)
class MoveRow:
    """One line of the move list: ``index`` is the position index after the action
    (what a click on the line shows), ``turn`` the turn it happened in."""

    index: int
    turn: int
    side: Side
    text: str
    own: bool

    def line(self) -> str:
        return f"{self.turn}. {self.text}"


def reveals_all(competitive: bool, finished: bool) -> bool:
    """R14.2: everything in a non-competitive game; R14.3: in a competitive game only
    once it has ended."""
    return not competitive or finished


def seen_events(action: Action, viewer: Side, reveal_all: bool) -> tuple[Event, ...]:
    return action.events if reveal_all else action.events_for(viewer)


def move_rows(history: Sequence[Action], viewer: Side, reveal_all: bool) -> list[MoveRow]:
    """The move list as ``viewer`` may read it (see the module docstring). A turn's end
    gets a line only when something visible happened as the next turn began (projectiles
    flying, pieces in transit); an action of which the viewer saw nothing gets none."""
    rows: list[MoveRow] = []
    for index, action in enumerate(history, start=1):
        intent = action.intent
        if isinstance(intent, OptionChange):
            what = ("switched to competitive mode (R14.3)" if intent.options.competitive
                    else "the options were changed (R14.2)")
            rows.append(MoveRow(index, action.turn, action.side, what, True))
            continue
        events = [e for e in seen_events(action, viewer, reveal_all)
                  if not isinstance(e, TurnEnded)]
        if isinstance(intent, EndTurn):
            if not events:
                continue
            turn = action.turn + 1
            text = f"turn {turn} starts: " + "; ".join(narrate(e, turn) for e in events)
            rows.append(MoveRow(index, turn, action.side.other, text, False))
            continue
        if not events:
            continue
        text = "; ".join(narrate(e, action.turn) for e in events)
        rows.append(MoveRow(index, action.turn, action.side, text, action.side is viewer))
    return rows


def losses(events: Iterable[Event]) -> dict[Side, list[PieceKind]]:
    """The pieces each side lost (captured, destroyed, converted away), in order."""
    lost: dict[Side, list[PieceKind]] = {Side.BLACK: [], Side.WHITE: []}
    for event in events:
        if isinstance(event, Captured):
            for info in event.pieces:
                lost[info.side].append(info.kind)
        elif isinstance(event, Destroyed):
            lost[event.piece.side].append(event.piece.kind)
        elif isinstance(event, Converted):
            lost[event.side.other].append(event.kind)
    return lost


def history_losses(history: Sequence[Action], viewer: Side,
                   reveal_all: bool) -> dict[Side, list[PieceKind]]:
    return losses(e for action in history for e in seen_events(action, viewer, reveal_all))


def losses_line(side: Side, kinds: list[PieceKind]) -> str:
    """``Black lost: Pawn x2, Tank`` (in order of first loss), or that nothing was lost."""
    if not kinds:
        return f"{side.title} lost: nothing yet"
    counts: dict[str, int] = {}
    for kind in kinds:
        name = describe_kind(kind)
        counts[name] = counts.get(name, 0) + 1
    parts = [name + (f" x{n}" if n > 1 else "") for name, n in counts.items()]
    return f"{side.title} lost: " + ", ".join(parts)


def game_over_line(history: Sequence[Action]) -> str | None:
    for action in reversed(history):
        for event in action.events:
            if isinstance(event, GameOver):
                return f"Game over: {event.winner.title} wins ({event.reason})"
    return None
