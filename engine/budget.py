"""The per-turn action budget (R4.3, R4.12): how often each action may be taken, and by whom."""

from __future__ import annotations

from wec.engine import board
from wec.engine.errors import IllegalIntent
from wec.engine.pieces import describe_kind
from wec.engine.position import ACTION_LIMITS, ActionCounts, Piece, Position

_NAMES = {"move": "Move", "fire": "Fire", "pickup": "Pick-up", "drop": "Drop",
          "exchange": "Exchange", "reinforce": "Reinforce"}


def refuse_if_spent(position: Position, action: str) -> None:
    """R4.3 limits per turn; R4.12(c) 'Move only' forbids every other action."""
    if action != "move" and position.options.action_restriction == "move_only":
        raise IllegalIntent("R4.12", f"option O3 action_restriction is move_only: no "
                                     f"{_NAMES[action]} at all")
    done = getattr(position.actions, action)
    if done >= ACTION_LIMITS[action]:
        if action == "move":
            raise IllegalIntent("R4.3", f"{position.side_to_act.title} has already made this "
                                        "turn's Move")
        raise IllegalIntent("R4.3", f"{position.side_to_act.title} has already used this turn's "
                                    f"{_NAMES[action]} ({ACTION_LIMITS[action]} per turn)")


def has_acted(position: Position, piece: Piece) -> bool:
    """R4.12(b): under 'one action per piece', a piece that acted this turn may not act again."""
    return (position.options.action_restriction == "one_action_per_piece"
            and piece.pid in position.actions.actors)


def refuse_if_acted(position: Position, piece: Piece) -> None:
    if has_acted(position, piece):
        raise IllegalIntent("R4.12", f"option O3 allows one action per piece and the "
                                     f"{describe_kind(piece.kind)} at "
                                     f"{board.describe_cell(piece.cell)} has acted this turn")


def transited(actions: ActionCounts, pid: int) -> ActionCounts:
    """The budget after piece ``pid`` was set in transport or advanced in transit (R4.5)."""
    a = actions
    return ActionCounts(a.move, a.fire, a.pickup, a.drop, a.exchange, a.reinforce, a.actors,
                        a.firers, a.mover, (*a.transited, pid))


def spend(actions: ActionCounts, action: str, *actors: Piece) -> ActionCounts:
    """The budget after one more ``action`` by ``actors`` (passive pieces are not actors)."""
    a = actions
    pids = tuple(p.pid for p in actors)
    return ActionCounts(a.move + (action == "move"), a.fire + (action == "fire"),
                        a.pickup + (action == "pickup"), a.drop + (action == "drop"),
                        a.exchange + (action == "exchange"),
                        a.reinforce + (action == "reinforce"),
                        a.actors + pids,
                        a.firers + pids if action == "fire" else a.firers,
                        pids[0] if action == "move" and pids else a.mover,
                        a.transited)
