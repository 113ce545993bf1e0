"""Replaying a game from its notation alone (R16, R4.6): each line is read back into
records, the records into candidate intents, and the order the actions were played in
is searched for, since the notation does not keep it.

An order is accepted when every action in it is legal and writes the element recorded
for it, and the whole turn then writes back the very line being replayed; the first
such order, in a fixed search order, is the one played. ``replay`` and
``replay_positions`` give positions, ``replay_steps`` every step (what a match needs to
play the game again, engine.replay). A line that cannot be replayed raises
``NotationError`` naming its turn and the first failure met.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from wec.engine import board
from wec.engine.errors import IllegalIntent
from wec.engine.game import apply, apply_plan, end_turn
from wec.engine.intents import Doze, Drop, EndTurn, Exchange, Fire, Intent, Move, PickUp, Reinforce
from wec.engine.movement import legal_plans, move_of
from wec.engine.notation_codes import TRANSPORT_ARTICLES
from wec.engine.notation_format import format_turn
from wec.engine.notation_parser import parse_turn
from wec.engine.notation_records import (
    DozeRecord,
    DropRecord,
    ExchangeRecord,
    FireRecord,
    NotationError,
    PickupRecord,
    ReinforceRecord,
    Step,
    TransportRecord,
    TurnRecord,
)
from wec.engine.notation_writer import record_turn, write_turn
from wec.engine.position import Position

__all__ = ["replay", "replay_positions", "replay_steps"]


@dataclass(frozen=True, slots=True)
class _Planned:
    """One action to place in the turn's order: its kind, the text its element must
    write, and the intents that may have made it (tried in order)."""

    kind: str
    text: str
    intents: tuple[Intent, ...]


def replay(start: Position, turns: Sequence[str], opening: Step | None = None) -> Position:
    """The position after replaying ``turns`` (notation strings) from ``start``, the
    position at the start of the first turn. ``opening``, if the history was written
    with it, is the EndTurn step that opened the first turn."""
    positions = replay_positions(start, turns, opening)
    return positions[-1] if positions else start


def replay_positions(start: Position, turns: Sequence[str],
                     opening: Step | None = None) -> list[Position]:
    """The position at the end of each replayed turn (after its end of turn, or where
    the game ended); NotationError names the first turn that cannot be replayed."""
    return [end for _, _, end in _replayed_turns(start, turns, opening)]


def replay_steps(start: Position, turns: Sequence[str],
                 opening: Step | None = None) -> list[Step]:
    """Every step of the replayed turns, each turn's actions in the order found and its
    end of turn (see ``replay_positions``): what a match needs to play them again.
    NotationError names the first turn that cannot be replayed."""
    steps: list[Step] = []
    for actions, closing, _ in _replayed_turns(start, turns, opening):
        steps += actions
        if closing is not None:
            steps.append(closing)
    return steps


def _replayed_turns(start: Position, turns: Sequence[str], opening: Step | None
                    ) -> Iterator[tuple[list[Step], Step | None, Position]]:
    """Each turn replayed in turn: its actions, its closing EndTurn step (None once the
    game is over) and the position it ends in, which the next turn starts from (its
    closing step opens the next one)."""
    position = start
    for number, text in enumerate(turns, 1):
        actions, opening = _replay_turn(position, text, opening, number)
        position = _turn_end(position, actions, opening)
        yield actions, opening, position


def _turn_end(start: Position, actions: list[Step], closing: Step | None) -> Position:
    """Where a replayed turn leaves the game: after its end of turn, else after its
    last action, else (no action, the game over) where it started."""
    return closing[2].position if closing else actions[-1][2].position if actions else start


def _replay_turn(position: Position, text: str, opening: Step | None,
                 number: int) -> tuple[list[Step], Step | None]:
    """One turn's actions in the first order that is legal and writes back the same
    notation, then its end of turn (R4.11), None if the game is over."""
    try:
        record = parse_turn(text)
        planned = _planned_actions(record)
    except NotationError as error:
        raise NotationError(f"turn {number}: {error}", error.column) from None
    search = _OrderSearch(record, opening)
    found = search.run(position, planned, [])
    if found is None:
        raise NotationError(
            f"turn {number} (T={position.turn}): no order of its actions is legal and "
            f"writes back {text!r} (R16.1, R4.6); first failure: "
            f"{search.first_failure or 'none'}")
    return found


class _OrderSearch:
    """Depth-first search over the orders of a turn's actions: at each point each
    remaining action in a fixed order (FI1 never after FI2), pruned as soon as an
    intent is illegal or its element does not write as recorded."""

    def __init__(self, record: TurnRecord, opening: Step | None) -> None:
        self.expected = format_turn(record)
        self.opening = opening
        self.first_failure = ""

    def failed(self, reason: str) -> None:
        """Keep the first failure met, for the error if no order is found."""
        self.first_failure = self.first_failure or reason

    def run(self, position: Position, pending: list[_Planned],
            done: list[Step]) -> tuple[list[Step], Step | None] | None:
        """The turn's steps and closing step once every action of ``pending`` is
        placed after ``done``, or None if no order of them works."""
        if not pending:
            return self.finish(position, done)
        for i, action in enumerate(pending):
            if action.kind == "fire2" and any(p.kind == "fire1" for p in pending):
                continue
            for step in self.attempts(position, action):
                found = self.run(step[2].position, pending[:i] + pending[i + 1:], [*done, step])
                if found is not None:
                    return found
        return None

    def attempts(self, position: Position, action: _Planned) -> Iterator[Step]:
        """The legal steps that make ``action`` and write its element as recorded."""
        for intent in action.intents:
            try:
                outcome = apply(position, intent)
            except IllegalIntent as refused:
                self.failed(f"{intent.describe()}: {refused}")
                continue
            step = (position, intent, outcome)
            if self.writes(step, action):
                yield step
        if action.kind == "move":
            yield from self.twin_moves(position, action)

    def writes(self, step: Step, action: _Planned) -> bool:
        """Whether ``step`` writes the element recorded for ``action``."""
        written = _element_text(step)
        if written != action.text:
            self.failed(f"{step[1].describe()} writes {written!r}, not {action.text!r}")
        return written == action.text

    def twin_moves(self, position: Position, action: _Planned) -> Iterator[Step]:
        """A Move intent names its piece by cell, kind and hand only, and the engine
        then moves the first such piece; where two own pieces share all three (two
        Destroyers, one carrying an article), move each of them by its plan, as
        ``play_turn`` does, and keep the one the record describes."""
        intent = action.intents[0]
        if not isinstance(intent, Move):
            return
        twins = [p for p in position.pieces
                 if p.cell == intent.frm and p.side is position.side_to_act
                 and p.kind is intent.kind and p.hand is intent.hand]
        for piece in twins if len(twins) > 1 else ():
            for plan in legal_plans(position, piece):
                if plan.route.dest == intent.to:
                    step = (position, move_of(position, plan), apply_plan(position, plan))
                    if self.writes(step, action):
                        yield step

    def finish(self, position: Position,
               done: list[Step]) -> tuple[list[Step], Step | None] | None:
        """``done`` if the whole turn writes back the line, with the turn's end
        (None once the game is over); None if it writes another line."""
        written = write_turn(done, self.opening)
        if written != self.expected:
            self.failed(f"this order writes {written!r}")
            return None
        if position.result is not None:
            return done, None
        try:
            outcome = end_turn(position)
        except IllegalIntent as refused:
            self.failed(str(refused))
            return None
        return done, (position, EndTurn(), outcome)


def _element_text(step: Step) -> str:
    """The element one action writes, in the full history: the Move (with its Doze),
    or a Fire (unnumbered), Pickup, Exchange, Reinforce or Drop."""
    record = record_turn((step,))
    if isinstance(step[1], Move | Doze):
        return _move_element(record)
    return format_turn(TurnRecord(None, (), record.fires, record.pickup, record.exchange,
                                  record.reinforce, record.drop))


def _move_element(record: TurnRecord) -> str:
    """``MV:`` and the Doze of a record: the part of the Move its intent decides (a
    passenger's ``-TRA->`` is checked with the whole turn)."""
    dozes = tuple(e for e in record.after_move if isinstance(e, DozeRecord))
    return format_turn(TurnRecord(record.move, dozes))


def _planned_actions(record: TurnRecord) -> list[_Planned]:
    """The turn's actions with their candidate intents, in the order orders are tried:
    the notation's order, the Move last (NotationError if a record cannot be an
    intent)."""
    planned: list[_Planned] = []
    for number, fire in enumerate(record.fires, 1):
        text = format_turn(TurnRecord(None, fires=(fire,)))
        planned.append(_Planned(f"fire{number}", text, (_fire_intent(fire),)))
    singles: tuple[tuple[str, TurnRecord, Intent | None], ...] = (
        ("pickup", TurnRecord(None, pickup=record.pickup), _pickup_intent(record.pickup)),
        ("exchange", TurnRecord(None, exchange=record.exchange),
         _exchange_intent(record.exchange)),
        ("reinforce", TurnRecord(None, reinforce=record.reinforce),
         _reinforce_intent(record.reinforce)),
        ("drop", TurnRecord(None, drop=record.drop), _drop_intent(record.drop)),
    )
    planned += [_Planned(kind, format_turn(part), (intent,))
                for kind, part, intent in singles if intent is not None]
    if record.move is not None:
        planned.append(_Planned("move", _move_element(record), _move_intents(record)))
    return planned


def _move_intents(record: TurnRecord) -> tuple[Intent, ...]:
    """The Doze, or the Move with and without its passenger: with it first when a
    ``-TRA->`` element starts from the mover's cell (R8.7)."""
    move = record.move
    assert move is not None
    piece = move.piece
    doze = next((e for e in record.after_move if isinstance(e, DozeRecord)), None)
    if doze is not None:
        d = (doze.dest.row - piece.loc.row, doze.dest.col - piece.loc.col)
        if d not in board.DIRECTIONS:
            raise NotationError(f"R8.8.3: the Doze destination {doze.dest} is not one square "
                                f"from the Dozer at {piece.loc}")
        squares = tuple(sorted({p.loc.square for p in doze.pieces[1:]}))
        return (Doze(piece.loc.square, squares, d),)
    to = board.cell(move.loc.square, move.level)
    first = record.after_move[0] if record.after_move else None
    carried = isinstance(first, TransportRecord) and first.piece.cell == piece.cell
    return tuple(Move(piece.cell, to, piece.kind, carry, piece.hand)
                 for carry in ((True, False) if carried else (False,)))


def _fire_intent(fire: FireRecord) -> Fire:
    """The Fire at a target, to a transport destination, or in the direction of
    the adjacent square written (NotationError if that square is not adjacent)."""
    piece = fire.piece
    if fire.target is not None:
        return Fire(piece.cell, fire.article, target=fire.target.cell, kind=piece.kind,
                    hand=piece.hand, target_kind=fire.target.kind)
    assert fire.dest is not None
    if fire.article in TRANSPORT_ARTICLES:
        return Fire(piece.cell, fire.article, dest=fire.dest.square, path=fire.path,
                    kind=piece.kind, hand=piece.hand)
    d = (fire.dest.row - piece.loc.row, fire.dest.col - piece.loc.col)
    if d not in board.DIRECTIONS:
        raise NotationError(f"R16.3: a directional Fire writes the adjacent square; "
                            f"{fire.dest} is not next to {piece.loc}")
    return Fire(piece.cell, fire.article, dir=d, kind=piece.kind, hand=piece.hand)


def _pickup_intent(record: PickupRecord | None) -> PickUp | None:
    """The PickUp of a Pickup element, if the line has one."""
    if record is None:
        return None
    p = record.piece
    return PickUp(p.cell, record.article, p.kind, p.hand)


def _drop_intent(record: DropRecord | None) -> Drop | None:
    """The Drop of a Drop element, if the line has one."""
    if record is None:
        return None
    p = record.piece
    return Drop(p.cell, record.article, p.kind, p.hand)


def _exchange_intent(record: ExchangeRecord | None) -> Exchange | None:
    """The Exchange of an Exchange element, if the line has one."""
    if record is None:
        return None
    g, r = record.giver, record.receiver
    return Exchange(g.cell, r.cell, record.give, record.take, g.kind, r.kind, g.hand, r.hand)


def _reinforce_intent(record: ReinforceRecord | None) -> Reinforce | None:
    """The Reinforce of a Reinforce element, if the line has one."""
    if record is None:
        return None
    return Reinforce(record.loc.square, record.kind, record.hand)
