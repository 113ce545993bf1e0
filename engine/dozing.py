"""Dozing (R8.8): a Dozer's Move that shoves its coincident and up to 4 adjacent
Ground pieces one square, never capturing.

Legality is judged on what the dozing side sees (R8.8.2: only visible pieces can be
selected); the shift is then checked again on the truth, and hidden enemy pieces
that block it cancel the Doze with the Move spent (R8.8.5, D-33).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import combinations
from typing import NamedTuple, overload

from wec.engine import board
from wec.engine.board import GROUND
from wec.engine.budget import has_acted, refuse_if_acted, refuse_if_spent, spend
from wec.engine.effects import Working
from wec.engine.errors import IllegalIntent, Reason, refuse
from wec.engine.events import Dozed, DozeFoiled
from wec.engine.intents import Doze
from wec.engine.movement import piece_cache
from wec.engine.outcome import DOZED, EventLog, about
from wec.engine.pieces import TRAITS, PieceKind, Side, describe_kind, may_share
from wec.engine.position import Piece, Position
from wec.engine.selection import select_own

MAX_DOZED = 4  # R8.8.2


def dozer_reason(position: Position, dozer: Piece) -> Reason | None:
    """Why this Dozer may not Doze at all now (R8.8.1, R8.8.5, R5.1.1), or None."""
    if dozer.stunned(position.turn):
        return ("R8.8.5", f"the Dozer at {board.describe_square(dozer.sq)} is stunned until "
                          f"turn {dozer.stunned_until}")
    if dozer.transit is not None:
        return ("R5.1.1", f"the Dozer at {board.describe_square(dozer.sq)} is in transit")
    if coincident_of(position, dozer) is None:
        return ("R8.8.1", "a Doze needs another own piece at Ground of "
                          f"{board.describe_square(dozer.sq)} with the Dozer")
    return None


def coincident_of(position: Position, dozer: Piece) -> Piece | None:
    for p in position.known_occupancy(dozer.side)[dozer.sq * 3 + GROUND]:
        if p is not dozer and p.side is dozer.side:
            return p
    return None


def _ground(pieces: Iterable[Piece]) -> dict[int, list[Piece]]:
    by_sq: dict[int, list[Piece]] = {}
    for p in pieces:
        if p.level is GROUND:
            by_sq.setdefault(p.sq, []).append(p)
    return by_sq


def _known_ground(position: Position) -> dict[int, list[Piece]]:
    """The Ground pieces the side to act knows of, by square (R4.13)."""
    occ = position.known_occupancy(position.side_to_act)
    return _ground(p for c in range(GROUND, board.CELLS, 3) for p in occ[c])


def selection_reason(position: Position, dozer: Piece, squares: tuple[int, ...],
                     ground: dict[int, list[Piece]]) -> Reason | None:
    """R8.8.2: adjacent squares holding Ground pieces, enemies only with O24, at most 4."""
    if len(set(squares)) != len(squares):
        return ("R8.8.2", "a square is selected twice")
    count = 0
    for sq in squares:
        where = board.describe_square(sq)
        if board.distance(sq, dozer.sq) != 1:
            return ("R8.8.2", f"{where} is not adjacent to the Dozer")
        here = ground.get(sq, [])
        if not here:
            return ("R8.8.2", f"{where} holds no piece at Ground to doze")
        if not position.options.enemy_dozing and any(p.side is not dozer.side for p in here):
            return ("R8.8.2", f"{where} holds an enemy piece and option O24 enemy_dozing is off")
        count += len(here)
    if count > MAX_DOZED:
        return ("R8.8.2", f"the selection holds {count} pieces (at most {MAX_DOZED})")
    return None


def shift_reason(movers: list[Piece], ground: dict[int, list[Piece]],
                 d: tuple[int, int]) -> Reason | None:
    """R8.8.4: every destination on the board and lawful at Ground (R1.6), counting the
    pieces that stay and those that arrive; vacated squares are free."""
    moving = {p.pid for p in movers}
    arriving: dict[int, list[Piece]] = {}
    for p in movers:
        dest = board.offset(p.sq, d)
        if dest is None:
            return ("R8.8.4", f"the {describe_kind(p.kind)} at {board.describe_square(p.sq)} "
                              "would leave the board")
        arriving.setdefault(dest, []).append(p)
    for dest in sorted(arriving):
        staying = [p for p in ground.get(dest, []) if p.pid not in moving]
        together = staying + arriving[dest]
        where = board.describe_square(dest)
        if len({p.side for p in together}) > 1:
            return ("R8.8.4", f"Ground of {where} would hold pieces of both sides")
        if not may_share(len(together), any(TRAITS[p.kind].coexists for p in together)):
            if len(together) > 2:
                return ("R8.8.4", f"Ground of {where} would hold {len(together)} pieces (R1.6)")
            return ("R8.8.4", f"Ground of {where} would hold two pieces neither of which can "
                              "coexist (R1.6)")
    return None


def _movers(dozer: Piece, coincident: Piece, squares: tuple[int, ...],
            ground: dict[int, list[Piece]]) -> list[Piece]:
    return [dozer, coincident] + [p for sq in squares for p in ground.get(sq, [])]


class DozePlan(NamedTuple):
    """A Doze legal on what its side knows: the Dozer and its coincident (R8.8.1)."""

    dozer: Piece
    coincident: Piece


def plan_doze(position: Position, intent: Doze) -> DozePlan:
    """Check a Doze on what the side to act knows (R8.8.1-R8.8.4, R4.13); IllegalIntent
    naming the rule otherwise."""
    refuse_if_spent(position, "move")
    dozer = select_own(position, intent.sq * 3 + GROUND, PieceKind.DOZER, None, "R8.8.1",
                       "doze", able=lambda p: dozer_reason(position, p) is None)
    refuse_if_acted(position, dozer)
    refuse(dozer_reason(position, dozer))
    if intent.dir not in board.DIRECTIONS:
        raise IllegalIntent("R1.10", f"a direction is one of the 8 king vectors "
                                     f"(got {list(intent.dir)})")
    coincident = coincident_of(position, dozer)
    assert coincident is not None
    known = _known_ground(position)
    refuse(selection_reason(position, dozer, intent.squares, known))
    refuse(shift_reason(_movers(dozer, coincident, intent.squares, known), known, intent.dir))
    return DozePlan(dozer, coincident)


def resolve_doze(position: Position, intent: Doze) -> tuple[Position, EventLog]:
    """Check a Doze on what the side knows, then shift on the truth (or foil it). A
    partial state asks the Referee instead (engine.game, question 4)."""
    dozer, coincident = plan_doze(position, intent)
    if position.viewer is not None:
        raise ValueError("a Doze resolves on the full state (hidden pieces may block it)")
    actions = spend(position.actions, "move", dozer)
    truth = _ground(position.pieces)
    movers = _movers(dozer, coincident, intent.squares, truth)
    w = Working(position)
    if (selection_reason(position, dozer, intent.squares, truth)
            or shift_reason(movers, truth, intent.dir)):
        w.events.emit(DozeFoiled(dozer.side, dozer.sq), about(dozer.pid))
        return w.finish(actions=actions), w.events
    moved = []
    movers.sort(key=lambda p: p.pid)  # R14.3: in identifier order (engine.sides shove)
    for p in movers:
        dest = board.offset(p.sq, intent.dir)
        assert dest is not None
        w.pieces[p.pid] = p.but(sq=dest, moved=True)
        moved.append((p.side, p.kind, p.cell, dest * 3 + GROUND))
    w.events.emit(Dozed(dozer.side, intent.dir, tuple(moved)),
                  (DOZED, tuple(p.pid for p in movers)))
    return w.finish(actions=actions), w.events


def legal_dozes(position: Position) -> list[Doze]:
    """Every legal Doze of the side to act, on what it knows.

    The shift is lawful when every moving square's destination is on the board and
    either another moving square (vacated: it receives only that square's pieces) or
    a square whose staying pieces accept the arrivals (R8.8.4); both facts are found
    once per square and direction, then combined for every selection.
    """
    out: list[Doze] = []
    for listing in doze_choices(position):
        out.extend(listing.all())
    return out


def doze_choices(position: Position) -> list[DozeListing]:
    """``legal_dozes`` as consecutive parts, one per Dozer, in order: each builds a Doze
    only when asked for it (a random player picks one Doze of many)."""
    if position.actions.move or position.result is not None:
        return []
    side, turn = position.side_to_act, position.turn
    out: list[DozeListing] = []
    cache: dict[int, tuple[Piece, DozeListing, int]] = piece_cache(position, "dozes", side)
    dozer_kind = PieceKind.DOZER
    for dozer in position.pieces:
        # dozer_reason's checks, without its messages: R8.8.5, R5.1.1, R8.8.1
        if (dozer.kind is not dozer_kind or dozer.side is not side
                or dozer.level is not GROUND or turn < dozer.stunned_until
                or dozer.transit is not None or has_acted(position, dozer)
                or coincident_of(position, dozer) is None):
            continue
        entry = cache.get(dozer.pid)
        if entry is None or entry[0] is not dozer:
            entry = cache[dozer.pid] = (dozer, *_dozer_listing(position, dozer))
        if entry[1]:
            out.append(entry[1])
    return out


class DozeListing(Sequence[Doze]):
    """The lawful Dozes of one Dozer (``_dozes_of``): (selection, direction) pairs by
    index (``_lawful``) over its near squares, each Doze built when asked for it."""

    __slots__ = ("built", "lawful", "near", "selections", "sq")

    def __init__(self, sq: int, near: tuple[int, ...],
                 selections: tuple[tuple[tuple[int, ...], int], ...],
                 lawful: tuple[tuple[int, int], ...]) -> None:
        self.sq, self.near, self.selections, self.lawful = sq, near, selections, lawful
        self.built: tuple[Doze, ...] | None = None

    def __len__(self) -> int:
        return len(self.lawful)

    @overload
    def __getitem__(self, index: int) -> Doze: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Doze]: ...

    def __getitem__(self, index: int | slice) -> Doze | Sequence[Doze]:
        if isinstance(index, slice) or self.built is not None:
            return self.all()[index]
        k, j = self.lawful[index]
        near = self.near
        return Doze(self.sq, tuple([near[i] for i in self.selections[k][0]]),
                    board.DIRECTIONS[j])

    def all(self) -> tuple[Doze, ...]:
        """Every one of these Dozes, in order (built once)."""
        if self.built is None:
            near, selections, directions = self.near, self.selections, board.DIRECTIONS
            self.built = tuple([Doze(self.sq, tuple([near[i] for i in selections[k][0]]),
                                     directions[j]) for k, j in self.lawful])
        return self.built


def _dozer_listing(position: Position, dozer: Piece) -> tuple[DozeListing, int]:
    """One Dozer's legal Dozes, and the bit mask of the Ground cells they depend on.

    Which selections are lawful in a direction depends only on the per-square
    conditions of ``_conditions`` and the piece counts of the selectable squares
    (R8.8.2's limit), so the listing is remembered by those. Those read the squares
    next to the Dozer and, as destinations, the squares next to those of them that
    hold pieces: a position keeps the listing (under PIECE_CACHES "dozes") until a
    piece on one of them changes."""
    side = dozer.side
    occ = position.known_occupancy(position.side_to_act)
    summary = {}  # the known Ground pieces of the 5x5 block, by square (_summary)
    for sq in _BLOCK[dozer.sq]:
        here = occ[sq * 3 + GROUND]
        if here:
            summary[sq] = _summary(here)
    near = [sq for sq in _NEXT_TO[dozer.sq] if sq in summary]
    if not position.options.enemy_dozing:  # O24: only squares of own pieces
        near = [sq for sq in near if summary[sq][1] is side]
    bit = {sq: 1 << i for i, sq in enumerate(near)}
    counts = tuple([summary[sq][0] for sq in near])
    conditions = tuple([_conditions(dozer.sq, near, summary, bit, steps)
                        for steps in _STEPS_BY_DIRECTION])
    key = (dozer.sq, tuple(near), counts, conditions)
    found = _MEMO.get(key)
    if found is None:
        if len(_MEMO) > _MEMO_LIMIT:
            _MEMO.clear()
        found = _MEMO[key] = _dozes_of(dozer.sq, near, counts, conditions)
    mask = _NEAR_GROUND[dozer.sq]
    for sq in _NEXT_TO[dozer.sq]:
        if sq in summary:
            mask |= _NEAR_GROUND[sq]
    return found, mask


# Per square: the squares of the 5x5 block around it, and those next to it in order.
_BLOCK = [tuple(other for other in range(board.SQUARES) if board.distance(sq, other) <= 2)
          for sq in range(board.SQUARES)]
_NEXT_TO = [tuple(sorted(board.neighbours(sq))) for sq in range(board.SQUARES)]
# Per direction (board.DIRECTIONS order), per square: the next square that way or None.
_STEPS_BY_DIRECTION = tuple(tuple(board.offset(sq, d) for sq in range(board.SQUARES))
                            for d in board.DIRECTIONS)


# Per square, the bit mask of the Ground cells of the 3x3 block around it.
_NEAR_GROUND = [sum(1 << (other * 3 + GROUND) for other in range(board.SQUARES)
                    if board.distance(sq, other) <= 1) for sq in range(board.SQUARES)]

Conditions = tuple[int, int, tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]

# Doze listings by square, selectable squares, their counts and conditions.
_MEMO: dict[tuple[object, ...], DozeListing] = {}
_MEMO_LIMIT = 50_000


def _dozes_of(sq: int, near: list[int], counts: tuple[int, ...],
              conditions: tuple[Conditions | None, ...]) -> DozeListing:
    """Every lawful (selection, direction) of the Dozer at ``sq``: the selections of at
    most MAX_DOZED pieces (R8.8.2) that meet the direction's conditions, as bit masks
    over ``near``. Which they are depends only on the counts and conditions, which
    speak of the near squares by index (``_lawful``, memoised): the Dozer's square and
    its near squares name them."""
    key = (counts, conditions)
    lawful = _LAWFUL.get(key)
    if lawful is None:
        if len(_LAWFUL) > _MEMO_LIMIT:
            _LAWFUL.clear()
        lawful = _LAWFUL[key] = _lawful(counts, conditions)
    return DozeListing(sq, tuple(near), _index_selections(counts), lawful)


def _lawful(counts: tuple[int, ...], conditions: tuple[Conditions | None, ...]
            ) -> tuple[tuple[int, int], ...]:
    """``_dozes_of`` by index: (selection in ``_index_selections(counts)``, direction in
    board.DIRECTIONS) of every lawful Doze, directions first, in order."""
    selections = _index_selections(counts)
    out = []
    for j, found in enumerate(conditions):
        if found is None:
            continue
        forbidden, required, with_dest, without_dest = found
        for k, (_, mask) in enumerate(selections):
            if mask & forbidden or mask & required != required:
                continue
            for b, dest in with_dest:
                if mask & b and not mask & dest:
                    break
            else:
                for b, dest in without_dest:
                    if mask & b and mask & dest:
                        break
                else:
                    out.append((k, j))
    return tuple(out)


# ``_lawful`` by piece counts of the near squares and conditions.
_LAWFUL: dict[tuple[object, ...], tuple[tuple[int, int], ...]] = {}


@lru_cache(maxsize=4096)
def _index_selections(counts: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every selection of the near squares, by index, holding at most MAX_DOZED pieces in
    all (R8.8.2), by size then in ``combinations`` order, with its bit mask over them
    (memo: they depend only on the piece counts of those squares)."""
    selections = []
    for size in range(len(counts) + 1):
        for chosen in combinations(range(len(counts)), size):
            if sum(counts[i] for i in chosen) <= MAX_DOZED:
                mask = 0
                for i in chosen:
                    mask |= 1 << i
                selections.append((chosen, mask))
    return tuple(selections)


def _conditions(dozer_sq: int, near: list[int], summary: dict[int, _Square],
                bit: dict[int, int], steps: tuple[int | None, ...]) -> Conditions | None:
    """For the direction of ``steps`` (per square, the next square that way or None):
    the near squares that may not move (forbidden), those that
    must (required: the Dozer's destination when only a vacated one takes its pieces),
    and pairs (square, destination) where the destination must move with the square
    or must stay. None if the Dozer itself may not shift that way. ``summary`` holds the
    known Ground pieces of the block's squares (``_summary``)."""
    forbidden = required = 0
    with_dest: list[tuple[int, int]] = []
    without_dest: list[tuple[int, int]] = []
    for sq in (dozer_sq, *near):
        to = steps[sq]
        mine = 0 if sq == dozer_sq else bit[sq]
        if to is None:
            if not mine:
                return None
            forbidden |= mine
            continue
        arrivals = summary.get(sq, _EMPTY)
        staying = summary.get(to, _EMPTY) if to != dozer_sq else _EMPTY
        if_vacated = _fits(_EMPTY, arrivals)
        if_staying = _fits(staying, arrivals)
        if to == dozer_sq:  # the Dozer's square always moves
            if_staying = False
        dest = bit.get(to, 0)
        if to != dozer_sq and not dest:  # a square that never moves: its pieces stay
            if_vacated = False
            if if_staying:
                continue
        if if_vacated and if_staying:
            continue
        if not if_vacated and not if_staying:
            if not mine:
                return None
            forbidden |= mine
        elif to == dozer_sq:
            continue  # vacated for sure
        elif not mine:  # the Dozer's own condition on its destination square
            if if_vacated:
                required |= dest
            else:
                forbidden |= dest
        elif if_vacated:
            with_dest.append((mine, dest))
        else:
            without_dest.append((mine, dest))
    return forbidden, required, tuple(with_dest), tuple(without_dest)


# What R1.6 asks of the Ground pieces of one square: how many, their side (None when
# none or both sides are there) and whether one of them can coexist.
_Square = tuple[int, Side | None, bool]
_EMPTY: _Square = (0, None, False)


def _summary(here: tuple[Piece, ...]) -> _Square:
    side: Side | None = here[0].side
    coexists = False
    for p in here:
        if p.side is not side:
            side = None
        coexists = coexists or TRAITS[p.kind].coexists
    return (len(here), side, coexists)


def _fits(staying: _Square, arriving: _Square) -> bool:
    """R1.6 for the pieces that would share one Ground square (R8.8.4): at most 2, and
    two only of one side with one that can coexist."""
    count = staying[0] + arriving[0]
    if count == 2:  # R1.6(b): two pieces, of one side
        if staying[0] and arriving[0]:
            same_side = staying[1] is not None and staying[1] is arriving[1]
        else:
            same_side = (staying if staying[0] else arriving)[1] is not None
        if not same_side:
            return False
    return may_share(count, staying[2] or arriving[2])
