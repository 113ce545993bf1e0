"""Reinforcements (R10): pieces waiting off-board that enter on their activation square."""

from __future__ import annotations

from collections.abc import Callable

from wec.engine import board
from wec.engine.board import GROUND
from wec.engine.budget import refuse_if_spent, spend
from wec.engine.errors import Reason, refuse
from wec.engine.events import Event, Reinforced, ReinforceFoiled
from wec.engine.intents import Reinforce
from wec.engine.pieces import ArticleKind, Side
from wec.engine.position import Piece, Position, Reinforcement


def turn_start_squares(position: Position, side: Side | None = None) -> tuple[int, ...]:
    """R10.3: ``side``'s (default: the side to act's) activation squares that hold one of
    its pieces at Ground now (called when its turn starts)."""
    side = side or position.side_to_act
    squares = _activation_squares(position.reinforcements, side)
    if not squares:
        return ()
    occ = position.known_occupancy(side)
    held = []
    for sq in squares:
        for p in occ[sq * 3 + GROUND]:
            if p.side is side:
                held.append(sq)
                break
    return tuple(held)


def _activation_squares(waiting: tuple[Reinforcement, ...], side: Side) -> list[int]:
    """The squares where ``side``'s waiting reinforcements enter, in order (memo: the
    tuple of waiting reinforcements rarely changes in a game)."""
    last = _LAST_SQUARES.get(side)
    if last is not None and last[0] is waiting:
        return last[1]
    squares = sorted({r.sq for r in waiting if r.side is side})
    _LAST_SQUARES[side] = (waiting, squares)
    return squares


_LAST_SQUARES: dict[Side, tuple[tuple[Reinforcement, ...], list[int]]] = {}


def _waiting(position: Position, sq: int) -> list[Reinforcement]:
    side = position.side_to_act
    return [r for r in position.reinforcements if r.side is side and r.sq == sq]


def reinforce_reason(position: Position, sq: int,
                     waiting: Reinforcement | None) -> Reason | None:
    """Why the side to act may not bring in a reinforcement at ``sq`` now (on what it knows)."""
    where = board.describe_square(sq)
    if waiting is None:
        return ("R10.1", f"no such reinforcement of {position.side_to_act.title} waits at {where}")
    if sq not in position.turn_start_squares:
        return ("R10.3", f"no own piece stood at Ground on {where} when this turn started, so "
                "no reinforcement may enter there this turn")
    if position.known_occupancy(position.side_to_act)[sq * 3 + GROUND]:
        return ("R10.3", f"Ground of {where} is not empty")
    return None


def resolve_reinforce(position: Position, intent: Reinforce,
                      occupied: Callable[[int], bool] | None = None
                      ) -> tuple[Position, list[Event]]:
    """Bring one waiting reinforcement onto Ground of its activation square (R10.3, R10.6).

    A square that is empty only on what the side knows (a hidden enemy stands there)
    foils the Reinforce: nothing enters and the action is spent (R4.13, D-12).
    ``occupied(cell)`` says whether enemy pieces stand at the cell: on a half state the
    other side answers it (engine.questions ``presence``); on the full state (None) the
    truth does.
    """
    refuse_if_spent(position, "reinforce")
    side = position.side_to_act
    waiting = [r for r in _waiting(position, intent.sq)
               if r.kind is intent.kind and (intent.hand is None or r.hand is intent.hand)]
    chosen = waiting[0] if waiting else None
    refuse(reinforce_reason(position, intent.sq, chosen))
    assert chosen is not None and chosen.kind is not None
    actions = spend(position.actions, "reinforce")
    cell = intent.sq * 3 + GROUND
    if occupied is None:
        enemy_here = any(p.side is not side for p in position.known_occupancy(side.other)[cell])
    else:
        enemy_here = occupied(cell)
    if enemy_here:
        return position.evolve(actions=actions), [ReinforceFoiled(side, intent.sq)]
    rest = list(position.reinforcements)
    rest.remove(chosen)
    # R10.6: no articles, no stun, cooldowns ready; hidden as visibility says (R9.7)
    piece = Piece(position.next_pid, side, chosen.kind, intent.sq, GROUND, chosen.hand)
    piece = piece.but(hidden=piece.is_stealthy(position.options))
    anti_stealth = piece.abilities().count(ArticleKind.ANTI_STEALTH)
    after = position.evolve(pieces=(*position.pieces, piece), reinforcements=tuple(rest),
                            next_pid=position.next_pid + 1, actions=actions,
                            acquiring=tuple((piece.pid, i) for i in range(anti_stealth)))
    return after, [Reinforced(side, chosen.kind, chosen.hand, intent.sq)]


def legal_reinforcements(position: Position) -> list[Reinforce]:
    """Every Reinforce the side to act may send now (R10.3, R4.3, R4.12)."""
    if (position.actions.reinforce or position.options.action_restriction == "move_only"
            or position.result is not None):
        return []
    out = []
    for sq in position.turn_start_squares:
        seen: list[tuple[object, object]] = []
        for r in _waiting(position, sq):
            key = (r.kind, r.hand)
            if key not in seen and reinforce_reason(position, sq, r) is None:
                seen.append(key)
                assert r.kind is not None
                out.append(Reinforce(sq, r.kind, r.hand))
    return out
