"""The board editor (R14.4): an immutable edit buffer over a full Position.

An ``Editor`` holds the position being edited (R14.4: the current position is the edit
buffer; it may be cleared). Every edit returns a new Editor and leaves the old one as it
was, so a user interface keeps its undo history for free. Edits refuse only what cannot
be said at all (a square off the board, a Tank without a hand, a reinforcement carrying
articles, removing a piece that is not there), with an ``EditorError``; a board that
breaks a rule of play (three pieces on one level, a side without a legal Move) can be
built step by step, and ``check_start`` lists every such problem with the constraint of
R14.4 it breaks and the square. ``Editor.start_position`` returns the buffer as a start
position, or raises an ``EditorError`` listing every problem.

Pure and deterministic, like the rest of the engine: no I/O and no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wec.engine import board
from wec.engine.articles import GROUND_ARTICLE_LIMIT, MAX_ARTICLES, ArticleTable
from wec.engine.board import GROUND, Level
from wec.engine.dozing import legal_dozes
from wec.engine.errors import EditorError, FormatError
from wec.engine.formats import piece_order_key, validate_position
from wec.engine.movement import has_legal_move
from wec.engine.options import Options, check_combination, options_from_dict
from wec.engine.pieces import (
    TRAITS,
    ArticleKind,
    Hand,
    PieceKind,
    Side,
    article_capacity,
    describe_kind,
    may_share,
)
from wec.engine.position import (
    FRESH_TURN,
    PROJECTILE_KINDS,
    Derived,
    Piece,
    Position,
    Projectile,
    Reinforcement,
    empty_ground,
)
from wec.engine.reinforcement import turn_start_squares
from wec.engine.visibility import refresh

Square = tuple[int, int]  # (row, col) in White coordinates (R1.2)


@dataclass(frozen=True, slots=True)
class EditorProblem:
    """One reason the buffer is not a valid start (R14.4): the constraint it breaks
    (``R14.4(a)`` .. ``R14.4(f)``, or ``R14.4`` for the editor's own preconditions), what
    is wrong (naming the underlying rule), and where: the square and level, when the
    problem has one."""

    constraint: str
    message: str
    square: Square | None = None
    level: Level | None = None

    def __str__(self) -> str:
        return f"{self.constraint}: {self.message}"


# ---------------------------------------------------------------- checking a start

def check_start(position: Position) -> list[EditorProblem]:
    """Every way ``position`` fails to be a valid start board (R14.4 (a)-(f)), in a fixed
    order: the editor's preconditions, then (f), (a), (b), (c) and, once the board is
    otherwise sound (a legal-Move search on a broken board means nothing), (d). (e)
    allows several primary government pieces per side, so it never adds a problem."""
    problems = _editor_preconditions(position)
    problems += _placement_problems(position)  # (f)
    problems += _board_problems(position)  # (a)
    problems += _transit_and_homing_problems(position)  # (b)
    problems += _article_total_problems(position)  # (c)
    if not problems:
        problems += _legal_move_problems(settle(position))  # (d)
    return problems


def _editor_preconditions(position: Position) -> list[EditorProblem]:
    out = []
    if position.viewer is not None:
        out.append(EditorProblem("R14.4", f"the edit buffer is the full state, not "
                                          f"{position.viewer.title}'s view"))
    if position.options.competitive:
        out.append(EditorProblem("R14.4", "the board editor exists only in non-competitive "
                                          "mode (R14.3): option O32 competitive is on"))
    return out


def _placement_problems(position: Position) -> list[EditorProblem]:
    """R14.4(f): each piece has a type, side, level, handedness if handed; each
    reinforcement a type and its activation square (and carries nothing: R10.1)."""
    out = []
    for p in _in_board_order(position.pieces):
        reason = _hand_reason(p.kind, p.hand)
        if reason is not None:
            out.append(_at_cell("R14.4(f)", f"the {_name(p.side, p.kind)} at "
                                            f"{board.describe_cell(p.cell)} {reason}", p.cell))
    for r in sorted(position.reinforcements, key=_reinforcement_key):
        where = board.describe_square(r.sq)
        if r.kind is None:
            out.append(_at_square("R14.4(f)", f"{r.side.title}'s reinforcement at {where} "
                                              "needs a type", r.sq))
            continue
        reason = _hand_reason(r.kind, r.hand)
        if reason is not None:
            out.append(_at_square("R14.4(f)", f"{r.side.title}'s {describe_kind(r.kind)} "
                                              f"reinforcement at {where} {reason}", r.sq))
    return out


def _hand_reason(kind: PieceKind, hand: Hand | None) -> str | None:
    if TRAITS[kind].handed and hand is None:
        return "needs a hand: right or left (R2.3)"
    if not TRAITS[kind].handed and hand is not None:
        return "has no hand (R2.3: only Tanks, Clerics and Choppers are handed)"
    return None


def _board_problems(position: Position) -> list[EditorProblem]:
    """R14.4(a): R1.6 (with R2.5 for passengers), R1.7, R2.6 (with R9.9) and R10.4."""
    out = []
    by_cell: dict[int, list[Piece]] = {}
    for p in _in_board_order(position.pieces):
        by_cell.setdefault(p.cell, []).append(p)
    for cell in sorted(by_cell):
        out += _cell_problems(cell, by_cell[cell])
    for p in _in_board_order(position.pieces):
        out += _carrying_problems(position.options, p)
    for sq, here in enumerate(position.ground_articles):
        if len(here) > GROUND_ARTICLE_LIMIT:
            out.append(_at_square("R14.4(a)", f"R1.7: {board.describe_square(sq)} holds "
                                              f"{len(here)} unowned articles (at most "
                                              f"{GROUND_ARTICLE_LIMIT})", sq))
    out += _reinforcement_square_problems(position.reinforcements)
    return out


def _cell_problems(cell: int, here: list[Piece]) -> list[EditorProblem]:
    """R1.6 (a)-(c) and R2.5 on one level of one square."""
    where = board.describe_cell(cell)
    if len(here) > 2:
        return [_at_cell("R14.4(a)", f"R1.6(a): {where} holds {len(here)} pieces (at most 2)",
                         cell)]
    out = []
    if len({p.side for p in here}) == 2:
        if not all(p.is_native_here() for p in here):
            out.append(_at_cell("R14.4(a)", f"R1.6(b): pieces of both sides share {where} and "
                                            "are not both independent there (R6.7.4)", cell))
    elif not may_share(len(here), any(TRAITS[p.kind].coexists for p in here)):
        out.append(_at_cell("R14.4(a)", f"R1.6(c): a {describe_kind(here[0].kind)} and a "
                                        f"{describe_kind(here[1].kind)} share {where} but "
                                        "neither can coexist", cell))
    for p in here:
        if p.is_native_here():
            continue
        carried = any(q is not p and q.side is p.side and TRAITS[q.kind].carries
                      and q.is_native_here() for q in here)
        if not carried:
            out.append(_at_cell("R14.4(a)", f"R2.5: the {_name(p.side, p.kind)} at {where} "
                                            "must be the passenger of an own Chopper or Sub "
                                            "there", cell))
    return out


def _carrying_problems(options: Options, p: Piece) -> list[EditorProblem]:
    """R2.6 capacity and R9.9 (no Stealth for a primary government piece unless O26)."""
    out = []
    where = board.describe_cell(p.cell)
    capacity = article_capacity(p.kind, p.articles)
    if len(p.articles) > capacity:
        out.append(_at_cell("R14.4(a)", f"R2.6: the {_name(p.side, p.kind)} at {where} "
                                        f"carries {len(p.articles)} articles (at most "
                                        f"{capacity})", p.cell))
    if (TRAITS[p.kind].primary and ArticleKind.STEALTH in p.articles
            and not options.king_may_be_stealthy):
        out.append(_at_cell("R14.4(a)", f"R9.9: the {_name(p.side, p.kind)} at {where} may "
                                        "not carry Stealth unless option O26 "
                                        "king_may_be_stealthy is on", p.cell))
    return out


def _reinforcement_square_problems(items: tuple[Reinforcement, ...]) -> list[EditorProblem]:
    """R10.4: at most 2 reinforcements per activation square, a handed one alone."""
    groups: dict[tuple[str, int], list[Reinforcement]] = {}
    for r in items:
        groups.setdefault((r.side.value, r.sq), []).append(r)
    out = []
    for (_, sq), group in sorted(groups.items(), key=lambda item: (item[0][1], item[0][0])):
        who = f"{group[0].side.title}'s reinforcements at {board.describe_square(sq)}"
        handed = [r for r in group if r.kind is not None and TRAITS[r.kind].handed]
        if len(group) > 2:
            out.append(_at_square("R14.4(a)", f"R10.4: {len(group)} of {who} (at most 2)", sq))
        elif handed and len(group) > 1:
            kind = handed[0].kind
            assert kind is not None
            out.append(_at_square("R14.4(a)", f"R10.4: {who}: a handed "
                                              f"{describe_kind(kind)} must wait alone", sq))
    return out


def _transit_and_homing_problems(position: Position) -> list[EditorProblem]:
    """R14.4(b): no piece in transit, no homing projectile (directional ones may stay)."""
    out = []
    for p in _in_board_order(position.pieces):
        if p.transit is not None:
            out.append(_at_cell("R14.4(b)", f"the {_name(p.side, p.kind)} at "
                                            f"{board.describe_cell(p.cell)} is in transit "
                                            f"({p.transit.article.value})", p.cell))
    for pr in sorted(position.projectiles, key=lambda pr: (pr.sq, pr.kind, pr.side.value)):
        if pr.target is not None:
            out.append(_at_cell("R14.4(b)", f"homing projectile at "
                                            f"{board.describe_cell(pr.cell)}", pr.cell))
    return out


def _article_total_problems(position: Position) -> list[EditorProblem]:
    """R14.4(c), R3.6: at most 200 articles, on the Ground and carried."""
    total = article_total(position)
    if total > MAX_ARTICLES:
        return [EditorProblem("R14.4(c)", f"R3.6: {total} articles (at most {MAX_ARTICLES})")]
    return []


def article_total(position: Position) -> int:
    """Every article of the position: unowned on the Ground plus carried (R3.6)."""
    return (sum(len(here) for here in position.ground_articles)
            + sum(len(p.articles) for p in position.pieces))


def _legal_move_problems(start: Position) -> list[EditorProblem]:
    """R14.4(d): each side has a legal Move (a Doze counts, R4.3) in its first turn of
    the game, on what it sees (R4.13): the side to act in this turn, the other in the
    next."""
    out = []
    for side in (Side.BLACK, Side.WHITE):
        turn = start.turn if start.side_to_act is side else start.turn + 1
        first_turn = start.evolve(turn=turn, actions=FRESH_TURN, derived=Derived())
        if not has_legal_move(first_turn) and not legal_dozes(first_turn):
            out.append(EditorProblem("R14.4(d)", f"{side.title} has no legal Move"))
    return out


# ---------------------------------------------------------------- the start position

def settle(position: Position) -> Position:
    """The buffer as a start position: no action taken in the turn, no hits, no result,
    no last-seen markers; if it states no locks, every Anti-Stealth instance acquires
    one (R9.4(d): in row-then-column order of the holders, Black's first); visibility
    computed (R9); the activation squares of the side to act noted (R10.3)."""
    start = position.evolve(actions=FRESH_TURN, hits=(), result=None, last_seen=(),
                            acquiring=() if position.locks else _initial_acquisitions(position))
    start = refresh(start, start)
    return start.evolve(turn_start_squares=turn_start_squares(start))


def _initial_acquisitions(position: Position) -> tuple[tuple[int, int], ...]:
    """R9.4(d): every Anti-Stealth instance, holders in row-then-column order, Black's
    first (then level, then the canonical order of pieces sharing a cell)."""
    holders = sorted((p for p in position.pieces if ArticleKind.ANTI_STEALTH in p.abilities()),
                     key=lambda p: (p.side is not Side.BLACK, p.row, p.col, piece_order_key(p)))
    return tuple((p.pid, instance) for p in holders
                 for instance in range(p.abilities().count(ArticleKind.ANTI_STEALTH)))


# ---------------------------------------------------------------- the editor

@dataclass(frozen=True, slots=True)
class Editor:
    """An immutable board editor over ``position`` (the full state, non-competitive)."""

    position: Position

    def __post_init__(self) -> None:
        problems = _editor_preconditions(self.position)
        if problems:
            raise EditorError([str(p) for p in problems])

    @classmethod
    def empty(cls, options: Options | None = None) -> Editor:
        """An empty board at turn 1 (Black to act, R4.1) with ``options`` (default: R13)."""
        return cls(Position(turn=1, pieces=(), ground_articles=empty_ground(),
                            options=options or Options()))

    # -- whole board

    def clear(self) -> Editor:
        """R14.4: the buffer cleared: no pieces, articles, reinforcements or projectiles;
        the options and the turn stay."""
        return Editor.empty(self.position.options).set_turn(self.position.turn)

    def set_turn(self, turn: int) -> Editor:
        """Start at ``turn`` (R4.1: Black acts on odd turns, White on even ones)."""
        if type(turn) is not int or turn < 1:
            raise EditorError([f"R4.1: turns are numbered 1, 2, 3, ... (got {turn!r})"])
        return self._with(turn=turn)

    def set_options(self, options: Options | Mapping[str, Any]) -> Editor:
        """Set every option (R13): an Options object (its combination checked, R5.6.1) or
        position-format option data (checked by ``options_from_dict``; missing keys take
        the standard defaults). The editor refuses competitive mode (R14.3)."""
        try:
            if isinstance(options, Options):
                check_combination(options)
                chosen = options
            else:
                chosen = options_from_dict(dict(options))
        except FormatError as exc:
            raise EditorError([str(exc)]) from None
        if chosen.competitive:
            raise EditorError(["R14.4: the board editor exists only in non-competitive mode "
                               "(R14.3): option O32 competitive must stay off"])
        return self._with(options=chosen)

    # -- pieces

    def add_piece(self, side: Side, kind: PieceKind, at: Square, level: Level = GROUND, *,
                  hand: Hand | None = None, articles: tuple[ArticleKind, ...] = (),
                  stunned_until: int = 0, reinforcement: bool = False) -> Editor:
        """Place a piece (R14.4(f)): on the board at ``at`` and ``level``, carrying
        ``articles`` (in acquisition order), stunned while the turn is below
        ``stunned_until`` (R7.1); or, with ``reinforcement``, waiting off-board for its
        activation square ``at`` (R10.1: it carries nothing and enters at Ground)."""
        sq = _square_of(at)
        refusal = _hand_reason(kind, hand)
        if refusal is not None:
            raise EditorError([f"R14.4(f): a {describe_kind(kind)} {refusal}"])
        if reinforcement:
            if articles or stunned_until or level is not GROUND:
                raise EditorError(["R14.4(f): a reinforcement waits off-board with no "
                                   "articles and no stun, and enters at Ground of its "
                                   "activation square (R10.1, R10.6)"])
            added = Reinforcement(side, kind, sq, hand)
            return self._with(reinforcements=(*self.position.reinforcements, added))
        if type(stunned_until) is not int or stunned_until < 0:
            raise EditorError([f"R7.1: stunned_until is a turn number >= 0 "
                               f"(got {stunned_until!r})"])
        pid = self.position.next_pid
        piece = Piece(pid, side, kind, sq, level, hand, tuple(articles),
                      stunned_until=stunned_until)
        return self._with(pieces=(*self.position.pieces, piece), next_pid=pid + 1)

    def remove_piece(self, at: Square, level: Level = GROUND, kind: PieceKind | None = None,
                     *, side: Side | None = None, hand: Hand | None = None) -> Editor:
        """Take a piece off the board, with what it carries (no drop: this is editing,
        not play); its locks and the hits it took go with it. Where two pieces that
        differ share the level, ``kind`` (then ``side``, ``hand``) says which."""
        cell = board.cell(_square_of(at), level)
        here = [p for p in _in_board_order(self.position.pieces) if p.cell == cell]
        chosen = [p for p in here if (kind is None or p.kind is kind)
                  and (side is None or p.side is side) and (hand is None or p.hand is hand)]
        where = board.describe_cell(cell)
        if not chosen:
            named = f" {describe_kind(kind)}" if kind else ""
            raise EditorError([f"no{named} piece at {where} to remove"])
        if len({(p.side, p.kind, p.hand) for p in chosen}) > 1:
            listed = " and ".join(_name(p.side, p.kind) for p in chosen)
            raise EditorError([f"{where} holds the {listed}: say which to remove (kind, side, "
                               "hand)"])
        return self._without(min(chosen, key=lambda p: p.pid))

    def remove_reinforcement(self, side: Side, kind: PieceKind, at: Square,
                             hand: Hand | None = None) -> Editor:
        """Take one waiting reinforcement off its activation square ``at``."""
        sq = _square_of(at)
        items = list(self.position.reinforcements)
        for i, r in enumerate(items):
            if r.side is side and r.kind is kind and r.sq == sq and (hand is None
                                                                     or r.hand is hand):
                del items[i]
                return self._with(reinforcements=tuple(items))
        raise EditorError([f"no {side.value} {describe_kind(kind)} reinforcement waits at "
                           f"{board.describe_square(sq)}"])

    # -- articles and projectiles

    def add_article(self, kind: ArticleKind, at: Square) -> Editor:
        """Lay an unowned article on the Ground of ``at`` (R1.7), placed last there."""
        table = ArticleTable(self.position.ground_articles, self.position.ground_ready)
        table.put(_square_of(at), kind)
        ground, ready = table.packed()
        return self._with(ground_articles=ground, ground_ready=ready)

    def remove_article(self, kind: ArticleKind, at: Square) -> Editor:
        """Take the first-placed unowned ``kind`` off the Ground of ``at``."""
        sq = _square_of(at)
        if kind not in self.position.ground_articles[sq]:
            raise EditorError([f"no unowned {kind.value} lies at {board.describe_square(sq)}"])
        table = ArticleTable(self.position.ground_articles, self.position.ground_ready)
        table.take(sq, kind)
        ground, ready = table.packed()
        return self._with(ground_articles=ground, ground_ready=ready)

    def add_projectile(self, kind: str, side: Side, at: Square, direction: tuple[int, int],
                       strength: int = 1) -> Editor:
        """Place a directional Rocket, SAM or Torpedo (R14.4(b): never a homing one) of
        ``side`` at ``at`` on its own level (R6.8.1), flying along ``direction``."""
        if kind not in PROJECTILE_KINDS:
            raise EditorError([f"R6.8.1: a projectile is one of {', '.join(PROJECTILE_KINDS)} "
                               f"(got {kind!r})"])
        if direction not in board.DIRECTIONS:
            raise EditorError([f"R1.10: a direction is one of the 8 king vectors "
                               f"(got {direction!r})"])
        if type(strength) is not int or not 1 <= strength <= 3:
            raise EditorError([f"R6.4.5: a projectile's strength is 1..3 (got {strength!r})"])
        added = Projectile(kind, side, _square_of(at), strength, direction)
        return self._with(projectiles=(*self.position.projectiles, added))

    def remove_projectile(self, kind: str, at: Square) -> Editor:
        """Take the first-placed projectile of ``kind`` at ``at`` off the board."""
        sq = _square_of(at)
        items = list(self.position.projectiles)
        for i, pr in enumerate(items):
            if pr.kind == kind and pr.sq == sq:
                del items[i]
                return self._with(projectiles=tuple(items))
        raise EditorError([f"no {kind} projectile at {board.describe_square(sq)}"])

    # -- the result

    def problems(self) -> list[EditorProblem]:
        """Every reason the buffer is not yet a valid start board (``check_start``)."""
        return check_start(self.position)

    def start_position(self) -> Position:
        """The buffer as a start position (``settle``), or an EditorError listing every
        problem (``check_start``). The position format's own checks stand behind it, so
        the result can always be written and read back."""
        problems = check_start(self.position)
        if problems:
            raise EditorError([str(p) for p in problems])
        start = settle(self.position)
        try:
            validate_position(start)
        except FormatError as exc:  # check_start covers every invariant; kept as a guard
            raise EditorError([f"R14.4(a): {exc}"]) from None
        return start

    # -- internals

    def _with(self, **changes: Any) -> Editor:
        return Editor(self.position.evolve(**changes))

    def _without(self, gone: Piece) -> Editor:
        p = self.position
        projectiles = tuple(pr if pr.target != gone.pid else
                            Projectile(pr.kind, pr.side, pr.sq, pr.strength, pr.dir)
                            for pr in p.projectiles)
        return self._with(
            pieces=tuple(q for q in p.pieces if q.pid != gone.pid),
            locks=tuple(lk for lk in p.locks if gone.pid not in (lk.holder, lk.target)),
            hits=tuple(h for h in p.hits if h[0] != gone.pid),
            last_seen=tuple(m for m in p.last_seen if m.pid != gone.pid),
            projectiles=projectiles)


# ---------------------------------------------------------------- helpers

def _square_of(at: Square) -> int:
    if (not isinstance(at, tuple) or len(at) != 2 or not all(type(v) is int for v in at)
            or not board.on_board(at[0], at[1])):
        raise EditorError([f"{at!r} is not a square of the board: (row, col) with rows and "
                           "columns 1..10 (R1.1, R1.2)"])
    return board.square(at[0], at[1])


def _in_board_order(pieces: tuple[Piece, ...]) -> list[Piece]:
    return sorted(pieces, key=piece_order_key)


def _reinforcement_key(r: Reinforcement) -> tuple[int, str, str]:
    return (r.sq, r.side.value, r.kind.value if r.kind else "")


def _name(side: Side, kind: PieceKind) -> str:
    return f"{side.title} {describe_kind(kind)}"


def _at_cell(constraint: str, message: str, cell: int) -> EditorProblem:
    sq = board.cell_square(cell)
    return EditorProblem(constraint, message, (board.row_of(sq), board.col_of(sq)),
                         board.cell_level(cell))


def _at_square(constraint: str, message: str, sq: int) -> EditorProblem:
    return EditorProblem(constraint, message, (board.row_of(sq), board.col_of(sq)))
