"""Which own piece an intent names: by cell, then kind and hand where pieces share it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wec.engine import board
from wec.engine.errors import IllegalIntent
from wec.engine.formats import piece_order_key
from wec.engine.pieces import Hand, PieceKind, describe_kind
from wec.engine.position import Piece, Position


def select_own(position: Position, cell: int, kind: PieceKind | None, hand: Hand | None,
               rule: str, verb: str, exclude: Piece | None = None,
               kind_field: str = "kind", able: Callable[[Piece], bool] | None = None) -> Piece:
    """The side to act's piece at ``cell``, or a refusal that says what to fix.

    ``rule`` is the rule of the action (named when no such piece is there); ``verb``
    and ``kind_field`` phrase the advice when two pieces share the cell. Two pieces
    of one kind and hand (two Destroyers) differ only in what they carry: then the
    first, in ``twin_order_key`` order, that ``able`` accepts is the one (else the first).
    """
    side = position.side_to_act
    here = position.known_occupancy(side)[cell]
    own = [p for p in here if p.side is side and p is not exclude
           and (kind is None or p.kind is kind) and (hand is None or p.hand is hand)]
    if len(own) == 1:
        return own[0]
    where = board.describe_cell(cell)
    if not own:
        named = f" {hand.value}-handed" if hand else ""
        named += f" {describe_kind(kind)}" if kind else ""
        enemy = [p for p in here if p.side is not side]
        if enemy and (kind is None or any(p.kind is kind for p in enemy)):
            theirs = " and ".join(describe_kind(p.kind) for p in enemy)
            raise IllegalIntent("R4.1", f"it is {side.title}'s turn (turn {position.turn}); "
                                        f"{where} holds {side.other.title}'s {theirs}")
        other = " other" if exclude is not None else ""
        raise IllegalIntent(rule, f"{side.title} has no{other}{named} piece at {where}")
    if len({p.kind for p in own}) > 1:
        kinds = ", ".join(sorted(p.kind.value for p in own))
        raise IllegalIntent(rule, f"two {side.value} pieces share {where} ({kinds}): "
                                  f"name the one to {verb} with \"{kind_field}\"")
    if len({p.hand for p in own}) > 1:
        raise IllegalIntent(rule, f"two {side.value} {describe_kind(own[0].kind)}s share "
                                  f"{where}: name the one to {verb} with \"hand\"")
    own.sort(key=twin_order_key)
    if able is not None:
        for piece in own:
            if able(piece):
                return piece
    return own[0]


def twin_hand(position: Position, piece: Piece) -> Hand | None:
    """The hand, where another own piece of the same kind shares the cell (twin Choppers)."""
    for other in position.known_occupancy(piece.side)[piece.cell]:
        if other is not piece and other.side is piece.side and other.kind is piece.kind:
            return piece.hand
    return None


def twin_order_key(piece: Piece) -> tuple[Any, ...]:
    """The order in which pieces sharing cell, kind and hand are tried: canonical order,
    and the identifier for twins equal in every written field (never the order within
    a cell's occupancy, which depends on how the position was reached)."""
    return (piece_order_key(piece), piece.pid)


def earlier_twins(position: Position, piece: Piece) -> list[Piece]:
    """The own pieces of ``piece``'s kind and hand at its cell that ``select_own`` tries
    before it: an intent naming the cell, kind and hand acts with one of those when it
    is able to."""
    here = position.known_occupancy(piece.side)[piece.cell]
    if len(here) < 2:
        return []
    twins = [p for p in here
             if p.side is piece.side and p.kind is piece.kind and p.hand is piece.hand]
    if len(twins) < 2:
        return []
    twins.sort(key=twin_order_key)
    for index, twin in enumerate(twins):
        if twin.pid == piece.pid:
            return twins[:index]
    return []
