"""Game-history notation (R16): one string per turn, written from the actions played,
read back into typed records, and replayed from the notation alone.

* **Writing** (``write_turn``, ``write_game``, ``TurnRecorder``): the actions of one
  turn, each a ``Step`` ``(position before, intent, outcome)`` exactly as
  ``engine.playout.play_turn`` hands them to its observer, plus the end of turn that
  opened the turn (its projectile and transport phases, R4.2), become a
  ``TurnRecord`` written in the fixed order of R16.1. Pieces are described as they
  stand when each action or effect happens (R16.3). ``viewer`` writes the censored
  copy of one player (R14.3).
* **Reading** (``parse_turn``): a string into a ``TurnRecord`` of frozen records;
  malformed input raises ``NotationError`` naming the column and what was expected.
* **Replaying** (``replay``): rebuild each turn's intents from its records, find the
  order they were played in (the notation does not keep it, R4.6) and apply them.

Every decision taken where R16 is silent is listed in docs/notation.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from wec.engine import board
from wec.engine.board import Level
from wec.engine.dozing import coincident_of
from wec.engine.errors import IllegalIntent
from wec.engine.events import (
    Captured,
    Converted,
    Destroyed,
    Dozed,
    DozeFoiled,
    Event,
    Fell,
    Moved,
    ProjectileLaunched,
    ProjectileRemoved,
    ProjectileStepped,
    Reinforced,
    Stunned,
    TransportEnded,
    TransportStepped,
)
from wec.engine.fire import plan_fire
from wec.engine.formats import piece_order_key
from wec.engine.game import Outcome, apply, apply_plan, end_turn
from wec.engine.intents import Doze, Drop, EndTurn, Exchange, Fire, Intent, Move, PickUp, Reinforce
from wec.engine.movement import legal_plans, move_of
from wec.engine.pieces import TRAITS, ArticleKind, Hand, PieceKind, Side
from wec.engine.position import Piece, Position
from wec.engine.referee import PieceInfo

__all__ = [
    "ARTICLE_CODES", "CONVERTED", "FIRE_ARTICLES", "KILL_CODES", "MAX_DOZE_ENTRIES",
    "PIECE_CODES", "PROJECTILE_CODES", "RESULT_CODES", "STUNNED", "TAKE", "TARGETED_ARTICLES",
    "TRANSPORT_ARTICLES", "DozeRecord", "DozedPiece", "DropRecord", "ExchangeRecord",
    "FireRecord", "Loc", "MoveRecord", "NotationError", "PickupRecord", "PieceRef",
    "PieceResult", "ProjectileGone", "ProjectileMoved", "ReinforceRecord", "Result", "Step",
    "TransportRecord", "TurnRecord", "TurnRecorder", "TurnSteps", "format_turn", "parse_turn",
    "record_turn", "remaining_stunned_turns", "replay", "replay_positions", "split_turns",
    "write_game", "write_turn",
]

A = ArticleKind

Step = tuple[Position, Intent, Outcome]
"""One action as ``play_turn``'s observer delivers it: position before, intent, outcome."""


class NotationError(ValueError):
    """Notation that is malformed (the message names the rule, the 1-based column and
    what was expected there) or that cannot be replayed (the message names the turn)."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.column = column


# ---------------------------------------------------------------- codes (R16.2)

PIECE_CODES: dict[PieceKind, str] = {kind: TRAITS[kind].code for kind in PieceKind}
_PIECE_BY_CODE: dict[str, PieceKind] = {code: kind for kind, code in PIECE_CODES.items()}
_PIECE_BY_CODE["SP"] = PieceKind.STUNNER_PAWN  # alias read, never written (D-45)

ARTICLE_CODES: dict[ArticleKind, str] = {
    A.FLAME: "FL", A.STUNNER: "ST", A.CONVERSION: "CS", A.TORPEDO_LAUNCHER: "TL",
    A.ROCKET_LAUNCHER: "RL", A.SAM_LAUNCHER: "SL", A.STEALTH: "SH", A.XXX: "XXX",
    A.ANTI_ROCKET: "ARL", A.ANTI_SAM: "ASL", A.ANTI_TORPEDO: "ATL", A.ANTI_CONVERSION: "ACS",
    A.ANTI_STUNNER: "AST", A.ANTI_FLAME: "AFL", A.ANTI_STEALTH: "ASH", A.BIKE: "BI",
    A.SCUBA_SUIT: "SC", A.JUMP_PACK: "JP",
}
_ARTICLE_BY_CODE: dict[str, ArticleKind] = {code: a for a, code in ARTICLE_CODES.items()}
_ARTICLE_BY_CODE["JU"] = A.JUMP_PACK  # alias read, never written (D-45)

FIRE_ARTICLES = frozenset({A.FLAME, A.STUNNER, A.CONVERSION, A.ROCKET_LAUNCHER,
                           A.TORPEDO_LAUNCHER, A.SAM_LAUNCHER, A.BIKE, A.SCUBA_SUIT,
                           A.JUMP_PACK})
TRANSPORT_ARTICLES = frozenset({A.BIKE, A.SCUBA_SUIT, A.JUMP_PACK})
TARGETED_ARTICLES = frozenset({A.ROCKET_LAUNCHER, A.SAM_LAUNCHER, A.TORPEDO_LAUNCHER})

PROJECTILE_CODES: dict[str, str] = {"rocket": "R", "torpedo": "T", "sam": "S"}
_PROJECTILE_BY_CODE = {code: kind for kind, code in PROJECTILE_CODES.items()}

# ResultType codes of effects on a piece; "CRK" (a crash: a failed landing, R7.3,
# R8.4.2) is added here as D-45 added FK and CV. A take by a Move writes the type
# of the taking piece instead (TAKE).
KILL_CODES: dict[str, str] = {"rocket": "RK", "torpedo": "TK", "sam": "SK", "flame": "FK",
                              "conversion_kill": "CK", "crash": "CRK"}
STUNNED = "STK"
CONVERTED = "CV"
TAKE = "take"
RESULT_CODES = frozenset({*KILL_CODES.values(), STUNNED, CONVERTED})

_LEVEL_MARKS = {Level.AIR: "^", Level.GROUND: "", Level.SUB: "v"}
_ORIENTS = {Hand.RIGHT: ">", Hand.LEFT: "<"}
_PATH_MARKS = {"beeline": "", "starboard": ">", "port": "<"}
_SIDE_CODES = {Side.BLACK: "B", Side.WHITE: "W"}
MAX_DOZE_ENTRIES = 5  # the coincident + at most 4 dozed pieces (R8.8.2)


# ---------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class Loc:
    """A square ``(row,col)`` in White's frame, rows and columns 1..10 (R1.2)."""

    row: int
    col: int

    @classmethod
    def of(cls, sq: int) -> Loc:
        return cls(board.row_of(sq), board.col_of(sq))

    @property
    def square(self) -> int:
        return board.square(self.row, self.col)

    def __str__(self) -> str:
        return f"({self.row},{self.col})"


@dataclass(frozen=True, slots=True)
class PieceRef:
    """``Piece``: a piece as it stood when the action or effect happened (R16.3):
    type, level, square, carried articles in acquisition order, and hand."""

    kind: PieceKind
    level: Level
    loc: Loc
    articles: tuple[ArticleKind, ...] = ()
    hand: Hand | None = None

    @classmethod
    def of(cls, piece: Piece) -> PieceRef:
        return cls(piece.kind, piece.level, Loc.of(piece.sq), piece.articles, piece.hand)

    @property
    def cell(self) -> int:
        return board.cell(self.loc.square, self.level)


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """``Move``: the piece that moved and the destination asked for (R5.2.4: a hidden
    collision ends it elsewhere; the Results say where)."""

    piece: PieceRef
    level: Level
    loc: Loc


@dataclass(frozen=True, slots=True)
class TransportRecord:
    """``Transport`` (``-TRA->``): a passenger carried by the Move, or a piece moved by
    a transport article this turn, from where it stood to where it ended."""

    piece: PieceRef
    level: Level
    loc: Loc


@dataclass(frozen=True, slots=True)
class DozedPiece:
    """``DozedPiece``: the type and origin square of one piece of a Doze."""

    kind: PieceKind
    loc: Loc


@dataclass(frozen=True, slots=True)
class DozeRecord:
    """``Doze`` (``,DO>``): the Dozer's destination, then the coincident and the dozed
    pieces (R8.8)."""

    dest: Loc
    pieces: tuple[DozedPiece, ...]


@dataclass(frozen=True, slots=True)
class FireRecord:
    """``Fire``: the article fired by a piece, aimed at the adjacent square of a
    direction or a transport destination (``dest``, with ``path``), or at a target."""

    article: ArticleKind
    piece: PieceRef
    dest: Loc | None = None
    path: str = "beeline"
    target: PieceRef | None = None


@dataclass(frozen=True, slots=True)
class PickupRecord:
    """``Pickup`` (``,PU:``): a piece picks up an unowned article (R4.7)."""

    piece: PieceRef
    article: ArticleKind


@dataclass(frozen=True, slots=True)
class ExchangeRecord:
    """``Exchange`` (``,EX:``): ``giver`` gives ``give`` to ``receiver``, which gives
    ``take`` back (a swap) or nothing (``take`` None, a transfer) (R4.9)."""

    giver: PieceRef
    give: ArticleKind
    take: ArticleKind | None
    receiver: PieceRef


@dataclass(frozen=True, slots=True)
class ReinforceRecord:
    """``Reinforce`` (``,RE:``): a reinforcement of ``kind`` enters at ``loc`` (R10.3)."""

    loc: Loc
    kind: PieceKind
    hand: Hand | None = None


@dataclass(frozen=True, slots=True)
class DropRecord:
    """``Drop`` (``,DR:``): a piece drops a carried article (R4.8)."""

    piece: PieceRef
    article: ArticleKind


@dataclass(frozen=True, slots=True)
class ProjectileMoved:
    """Result ``ProjType "->" Loc Offset``: a projectile now at ``loc`` heading
    ``offset`` (board frame), after its launch or a step."""

    projectile: str
    loc: Loc
    offset: tuple[int, int]


@dataclass(frozen=True, slots=True)
class ProjectileGone:
    """Result ``ProjType "v" Loc``: a projectile removed at ``loc`` (it hit, or it left
    the board from ``loc``)."""

    projectile: str
    loc: Loc


@dataclass(frozen=True, slots=True)
class PieceResult:
    """Result ``ResultType "*" Piece Stun Color``: an effect on a piece. ``effect`` is a
    code of RESULT_CODES, or TAKE with ``taker`` the type of the piece whose Move took
    it. ``stun`` is the piece's remaining stunned own turns; ``side`` its side when
    the effect found it."""

    effect: str
    piece: PieceRef
    stun: int
    side: Side
    taker: PieceKind | None = None


Result = ProjectileMoved | ProjectileGone | PieceResult


@dataclass(frozen=True, slots=True)
class TurnRecord:
    """One turn's notation: every element of R16.1 in its fixed order. ``move`` None
    is ``MV:-``; ``after_move`` holds the Transport and Doze elements in order."""

    move: MoveRecord | None
    after_move: tuple[TransportRecord | DozeRecord, ...] = ()
    fires: tuple[FireRecord, ...] = ()
    pickup: PickupRecord | None = None
    exchange: ExchangeRecord | None = None
    reinforce: ReinforceRecord | None = None
    drop: DropRecord | None = None
    results: tuple[Result, ...] = ()


# ---------------------------------------------------------------- formatting


def format_turn(record: TurnRecord) -> str:
    """The notation string of ``record`` (R16.1), with the canonical codes."""
    parts = ["MV:" + (_move_text(record.move) if record.move else "-")]
    parts += [_after_move_text(element) for element in record.after_move]
    parts += [f",FI{n}:{_fire_text(fire)}" for n, fire in enumerate(record.fires, 1)]
    if record.pickup:
        parts.append(f",PU:{_piece_text(record.pickup.piece)}^"
                     f"{ARTICLE_CODES[record.pickup.article]}")
    if record.exchange:
        parts.append(",EX:" + _exchange_text(record.exchange))
    if record.reinforce:
        r = record.reinforce
        parts.append(f",RE:{r.loc}{PIECE_CODES[r.kind]}{_orient(r.hand)}")
    if record.drop:
        parts.append(f",DR:{_piece_text(record.drop.piece)}v"
                     f"{ARTICLE_CODES[record.drop.article]}")
    if record.results:
        parts.append(",RS:" + ",".join(_result_text(r) for r in record.results))
    return "".join(parts)


def _orient(hand: Hand | None) -> str:
    return _ORIENTS[hand] if hand else ""


def _piece_text(piece: PieceRef) -> str:
    """``PieceType Level Loc [Count Article{Article}] [Orient]``."""
    articles = ""
    if piece.articles:
        articles = f"{len(piece.articles)}" + "".join(ARTICLE_CODES[a] for a in piece.articles)
    return (f"{PIECE_CODES[piece.kind]}{_LEVEL_MARKS[piece.level]}{piece.loc}{articles}"
            f"{_orient(piece.hand)}")


def _move_text(move: MoveRecord) -> str:
    return f"{_piece_text(move.piece)}->{_LEVEL_MARKS[move.level]}{move.loc}"


def _after_move_text(element: TransportRecord | DozeRecord) -> str:
    if isinstance(element, DozeRecord):
        return ",DO>" + str(element.dest) + ",".join(
            f"{PIECE_CODES[p.kind]}{p.loc}" for p in element.pieces)
    return f"-TRA->{_piece_text(element.piece)}{_LEVEL_MARKS[element.level]}{element.loc}"


def _fire_text(fire: FireRecord) -> str:
    head = f"{ARTICLE_CODES[fire.article]}/{_piece_text(fire.piece)}"
    if fire.target is not None:
        return f"{head}=>{_piece_text(fire.target)}"
    return f"{head}->{fire.dest}{_PATH_MARKS[fire.path]}"


def _exchange_text(ex: ExchangeRecord) -> str:
    give = ARTICLE_CODES[ex.give]
    back = f"<=>{ARTICLE_CODES[ex.take]}<-" if ex.take is not None else "->"
    return f"{_piece_text(ex.giver)}->{give}{back}{_piece_text(ex.receiver)}"


def _result_text(result: Result) -> str:
    if isinstance(result, ProjectileMoved):
        dr, dc = result.offset
        return f"{PROJECTILE_CODES[result.projectile]}->{result.loc}({dr},{dc})"
    if isinstance(result, ProjectileGone):
        return f"{PROJECTILE_CODES[result.projectile]}v{result.loc}"
    code = PIECE_CODES[result.taker] if result.taker is not None else result.effect
    return f"{code}*{_piece_text(result.piece)}{result.stun}{_SIDE_CODES[result.side]}"


# ---------------------------------------------------------------- parsing

_UPPER = re.compile(r"[A-Z]+")
_DIGITS = re.compile(r"[0-9]+")
_DOZED_PIECE_AHEAD = re.compile(r",[A-Z]+\(")
_ARTICLES_LONGEST_FIRST = sorted(_ARTICLE_BY_CODE, key=len, reverse=True)
# The optional sections after the Move and its Transport/Doze elements, in order.
_SECTIONS = (",FI1:", ",FI2:", ",PU:", ",EX:", ",RE:", ",DR:", ",RS:")


def parse_turn(text: str) -> TurnRecord:
    """Read one turn's notation into records; NotationError if it is malformed."""
    return _Parser(text).turn()


class _Parser:
    """A recursive-descent reader of the R16.1 grammar, one method per element."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    # ------------------------------------------------------------ primitives

    def at(self, literal: str) -> bool:
        return self.text.startswith(literal, self.pos)

    def take(self, literal: str) -> bool:
        if self.at(literal):
            self.pos += len(literal)
            return True
        return False

    def expect(self, literal: str, rule: str = "R16.1") -> None:
        if not self.take(literal):
            self.fail(f"'{literal}'", rule)

    def fail(self, expected: str, rule: str = "R16.1", at: int | None = None) -> NoReturn:
        pos = self.pos if at is None else at
        rest = self.text[pos:pos + 12]
        found = f"found {rest!r}" if rest else "found the end of the turn"
        raise NotationError(f"{rule}: expected {expected} at column {pos + 1}, {found}",
                            pos + 1)

    def token(self, pattern: re.Pattern[str]) -> str:
        found = pattern.match(self.text, self.pos)
        if found is None:
            return ""
        self.pos = found.end()
        return found.group()

    def number(self, low: int, high: int, what: str) -> int:
        start = self.pos
        digits = self.token(_DIGITS)
        if not digits or (len(digits) > 1 and digits[0] == "0") or not low <= int(digits) <= high:
            self.fail(what, at=start)
        return int(digits)

    # ------------------------------------------------------------ the turn

    def turn(self) -> TurnRecord:
        self.expect("MV:")
        move = None if self.take("-") else self.move()
        after_move: list[TransportRecord | DozeRecord] = []
        while True:
            if self.take("-TRA->"):
                after_move.append(self.transport())
            elif self.take(",DO>"):
                after_move.append(self.doze())
            else:
                break
        fires: list[FireRecord] = []
        if self.take(",FI1:"):
            fires.append(self.fire())
            if self.take(",FI2:"):
                fires.append(self.fire())
        pickup = self.pickup() if self.take(",PU:") else None
        exchange = self.exchange() if self.take(",EX:") else None
        reinforce = self.reinforce() if self.take(",RE:") else None
        drop = self.drop() if self.take(",DR:") else None
        results = self.results() if self.take(",RS:") else ()
        if self.pos < len(self.text):
            seen = [len(fires) > 0, len(fires) > 1, pickup is not None, exchange is not None,
                    reinforce is not None, drop is not None, bool(results)]
            self.fail(self.what_may_follow(seen))
        return TurnRecord(move, tuple(after_move), tuple(fires), pickup, exchange, reinforce,
                          drop, results)

    def what_may_follow(self, seen: list[bool]) -> str:
        """The elements R16.1 still allows where the parse stopped (``seen``: which of
        _SECTIONS were read), for the error message."""
        last = max((i for i, found in enumerate(seen) if found), default=-1)
        allowed = ["'-TRA->'", "',DO>'"] if last < 0 else []
        allowed += [f"'{marker}'" for i, marker in enumerate(_SECTIONS)
                    if i > last and (marker != ",FI2:" or seen[0])]
        return (", ".join(allowed) + " or " if allowed else "") + "the end of the turn"

    # ------------------------------------------------------------ pieces and squares

    def piece(self) -> PieceRef:
        """``PieceType Level Loc [Articles] [Orient]``."""
        kind = self.piece_type()
        level = self.level()
        loc = self.loc()
        return PieceRef(kind, level, loc, self.articles(), self.orient())

    def piece_type(self) -> PieceKind:
        start = self.pos
        code = self.token(_UPPER)
        kind = _PIECE_BY_CODE.get(code)
        if kind is None:
            self.fail("a piece type code", "R16.2", at=start)
        return kind

    def level(self) -> Level:
        if self.take("^"):
            return Level.AIR
        if self.take("v"):
            return Level.SUB
        return Level.GROUND

    def loc(self) -> Loc:
        self.expect("(")
        row = self.number(1, 10, "a row 1..10")
        self.expect(",")
        col = self.number(1, 10, "a column 1..10")
        self.expect(")")
        return Loc(row, col)

    def articles(self) -> tuple[ArticleKind, ...]:
        """``Count Article {Article}``: present when a digit is followed by an article
        code (otherwise the digit is a Result's stun count)."""
        if not (self.pos < len(self.text) and self.text[self.pos].isdigit()
                and self.article_ahead(self.pos + 1)):
            return ()
        count = int(self.text[self.pos])
        if not 1 <= count <= 3:
            self.fail("an article count 1..3 (Count = the number of article codes)")
        self.pos += 1
        return tuple(self.article() for _ in range(count))

    def article_ahead(self, pos: int) -> bool:
        return any(self.text.startswith(code, pos) for code in _ARTICLES_LONGEST_FIRST)

    def article(self) -> ArticleKind:
        """One article code; the codes are prefix-free, so the first that matches is it."""
        for code in _ARTICLES_LONGEST_FIRST:
            if self.take(code):
                return _ARTICLE_BY_CODE[code]
        self.fail("an article code", "R16.2")

    def orient(self) -> Hand | None:
        if self.take(">"):
            return Hand.RIGHT
        if self.take("<"):
            return Hand.LEFT
        return None

    # ------------------------------------------------------------ elements

    def move(self) -> MoveRecord:
        piece = self.piece()
        self.expect("->")
        level = self.level()
        return MoveRecord(piece, level, self.loc())

    def transport(self) -> TransportRecord:
        piece = self.piece()
        level = self.level()
        return TransportRecord(piece, level, self.loc())

    def doze(self) -> DozeRecord:
        dest = self.loc()
        pieces = [self.dozed_piece()]
        while _DOZED_PIECE_AHEAD.match(self.text, self.pos):
            if len(pieces) == MAX_DOZE_ENTRIES:
                self.fail("the end of the Doze: it lists at most 5 pieces, the coincident "
                          "first (R8.8.2)")
            self.take(",")
            pieces.append(self.dozed_piece())
        return DozeRecord(dest, tuple(pieces))

    def dozed_piece(self) -> DozedPiece:
        kind = self.piece_type()
        return DozedPiece(kind, self.loc())

    def fire(self) -> FireRecord:
        start = self.pos
        article = self.article()
        if article not in FIRE_ARTICLES:
            self.fail("a fire article code FL, ST, CS, RL, TL, SL, BI, SC or JP", "R16.2",
                      at=start)
        self.expect("/")
        piece = self.piece()
        aim = self.pos
        if self.take("=>"):
            if article not in TARGETED_ARTICLES:
                self.fail("'->': only RL, SL and TL fire at a target ('=>')", "R16.3", at=aim)
            return FireRecord(article, piece, target=self.piece())
        if not self.take("->"):
            self.fail("'->' (a direction or destination) or '=>' (a target)", "R16.3")
        dest = self.loc()
        path = "beeline"
        if article in TRANSPORT_ARTICLES:
            path = "starboard" if self.take(">") else "port" if self.take("<") else "beeline"
        return FireRecord(article, piece, dest, path)

    def pickup(self) -> PickupRecord:
        piece = self.piece()
        self.expect("^")
        return PickupRecord(piece, self.article())

    def exchange(self) -> ExchangeRecord:
        giver = self.piece()
        self.expect("->")
        give = self.article()
        take: ArticleKind | None = None
        if self.take("<=>"):
            take = self.article()
            self.expect("<-")
        elif not self.take("->"):
            self.fail("'<=>' (a swap) or '->' (a transfer)")
        return ExchangeRecord(giver, give, take, self.piece())

    def reinforce(self) -> ReinforceRecord:
        loc = self.loc()
        kind = self.piece_type()
        return ReinforceRecord(loc, kind, self.orient())

    def drop(self) -> DropRecord:
        piece = self.piece()
        self.expect("v")
        return DropRecord(piece, self.article())

    def results(self) -> tuple[Result, ...]:
        results = [self.result()]
        while self.take(","):
            results.append(self.result())
        return tuple(results)

    def result(self) -> Result:
        for code, projectile in _PROJECTILE_BY_CODE.items():
            if self.take(code + "->"):
                loc = self.loc()
                return ProjectileMoved(projectile, loc, self.offset())
            if self.at(code + "v("):
                self.pos += len(code) + 1
                return ProjectileGone(projectile, self.loc())
        start = self.pos
        code = self.token(_UPPER)
        taker = _PIECE_BY_CODE.get(code)
        if (code not in RESULT_CODES and taker is None) or not self.at("*"):
            self.fail("a projectile code R, T or S followed by '->' or 'v', or a result code "
                      "(RK, TK, SK, STK, CK, FK, CV, CRK or a taking piece's type) followed "
                      "by '*'", "R16.2", at=start)
        self.pos += 1
        piece = self.piece()
        stun = self.number(0, 255, "a stun count 0..255")
        side = Side.BLACK if self.take("B") else Side.WHITE if self.take("W") else None
        if side is None:
            self.fail("the affected piece's side B or W")
        if code in RESULT_CODES:
            return PieceResult(code, piece, stun, side)
        return PieceResult(TAKE, piece, stun, side, taker)

    def offset(self) -> tuple[int, int]:
        self.expect("(")
        dr = self.offset_part()
        self.expect(",")
        dc = self.offset_part()
        self.expect(")")
        return (dr, dc)

    def offset_part(self) -> int:
        sign = -1 if self.take("-") else 1
        if self.take("0"):
            return 0
        if self.take("1"):
            return sign
        self.fail("an offset component 0, 1 or -1")


# ---------------------------------------------------------------- writing


def remaining_stunned_turns(side: Side, stunned_until: int, turn: int) -> int:
    """R7.1: how many of its owner's turns after ``turn`` a piece stunned while the turn
    is below ``stunned_until`` still misses (Black plays odd turns, R4.1)."""
    first = turn + 1 if (turn + 1) % 2 == (1 if side is Side.BLACK else 0) else turn + 2
    return 0 if first >= stunned_until else (stunned_until - 1 - first) // 2 + 1


class _Scene:
    """A position's pieces followed through the events of one action or phase, so
    that each effect describes its piece as it stood at that moment (R16.3).

    Only what an effect later in the same step can see is followed: moves, takes,
    kills, stuns, conversions, falls, transport steps and reinforcements (article
    actions end their step with nothing after them)."""

    def __init__(self, position: Position) -> None:
        self.pieces: dict[int, Piece] = {p.pid: p for p in position.pieces}
        self.next_pid = position.next_pid

    def find(self, cell: int, side: Side, kind: PieceKind,
             test: Callable[[Piece], bool] | None = None,
             prefer: int | None = None) -> Piece | None:
        """The piece of ``side`` and ``kind`` at ``cell`` that passes ``test``: the
        preferred pid if it qualifies, else the first in canonical order (the order in
        which the engine resolves the pieces of one cell)."""
        here = [p for p in self.pieces.values()
                if p.cell == cell and p.side is side and p.kind is kind
                and (test is None or test(p))]
        for p in here:
            if p.pid == prefer:
                return p
        return min(here, key=piece_order_key) if here else None

    def find_or_any(self, cell: int, side: Side, kind: PieceKind,
                    test: Callable[[Piece], bool], prefer: int | None = None) -> Piece:
        """``find`` with ``test`` if one qualifies, else without it, else a stand-in built
        from what the event says (never expected: the engine's events name real pieces)."""
        return (self.find(cell, side, kind, test, prefer)
                or self.find(cell, side, kind, prefer=prefer)
                or Piece(-1, side, kind, board.cell_square(cell), board.cell_level(cell)))

    def put(self, piece: Piece) -> None:
        if piece.pid >= 0:
            self.pieces[piece.pid] = piece

    def remove(self, piece: Piece) -> None:
        self.pieces.pop(piece.pid, None)


@dataclass(slots=True)
class _Travel:
    """A piece moved by a transport article this turn: how it stood before its first
    transport movement, and the cell its last one left it in."""

    start: Piece
    to: int
    concealed: bool


def _piece_by_pid(position: Position, pid: int | None) -> Piece | None:
    return next((p for p in position.pieces if p.pid == pid), None)


def _concealed(viewer: Side | None, *positions: Position) -> frozenset[int]:
    """R14.3: the pieces concealed from ``viewer`` in a step: enemy pieces hidden from
    it in the position before or after the step (none for the full history)."""
    if viewer is None:
        return frozenset()
    return frozenset(p.pid for position in positions for p in position.pieces
                     if p.side is not viewer and p.hidden)


class _TurnBuilder:
    """Collects one turn's elements while its phases and actions are followed in the
    order they happened; ``record`` puts them in R16.1's fixed order."""

    def __init__(self, viewer: Side | None) -> None:
        self.viewer = viewer
        self.move: MoveRecord | None = None
        self.passenger: TransportRecord | None = None
        self.doze: DozeRecord | None = None
        self.fires: list[FireRecord] = []
        self.pickup: PickupRecord | None = None
        self.exchange: ExchangeRecord | None = None
        self.reinforce: ReinforceRecord | None = None
        self.drop: DropRecord | None = None
        self.results: list[Result] = []
        self.travels: dict[int, _Travel] = {}

    def record(self) -> TurnRecord:
        after_move: list[TransportRecord | DozeRecord] = []
        if self.passenger is not None:
            after_move.append(self.passenger)
        if self.doze is not None:
            after_move.append(self.doze)
        after_move += [TransportRecord(PieceRef.of(t.start), board.cell_level(t.to),
                                       Loc.of(board.cell_square(t.to)))
                       for t in self.travels.values() if not t.concealed]
        return TurnRecord(self.move, tuple(after_move), tuple(self.fires), self.pickup,
                          self.exchange, self.reinforce, self.drop, tuple(self.results))

    # ------------------------------------------------------------ steps

    def add_phase(self, step: Step) -> None:
        """The end of turn that opened this turn: its projectile and transport phases
        (R4.2) belong to this turn."""
        before, _, outcome = step
        hide = _concealed(self.viewer, before, outcome.position)
        self.follow(_Scene(before), outcome.events, outcome.position.turn, hide, None)

    def add_action(self, step: Step) -> None:
        """One action: its element from the position before it (R16.3), then its
        effects from its events."""
        before, intent, outcome = step
        after = outcome.position
        hide = _concealed(self.viewer, before, after)
        actor: int | None = None
        if isinstance(intent, Move):
            actor = after.actions.mover
            self.note_move(before, intent, actor, hide)
        elif isinstance(intent, Doze):
            actor = after.actions.mover
            foiled = any(isinstance(e, DozeFoiled) for e in outcome.events)
            self.note_doze(before, intent, actor, foiled, hide)
        elif isinstance(intent, Fire):
            actor = self.note_fire(before, after, intent, hide)
        elif isinstance(intent, PickUp | Drop):
            actor = after.actions.actors[-1]
            self.note_article_action(before, intent, actor, hide)
        elif isinstance(intent, Exchange):
            self.note_exchange(before, intent, after.actions.actors[-2:], hide)
        elif isinstance(intent, Reinforce):
            self.note_reinforce(before, intent, outcome, hide)
        self.follow(_Scene(before), outcome.events, before.turn, hide, actor)

    # ------------------------------------------------------------ action elements

    def note_move(self, before: Position, intent: Move, mover_pid: int | None,
                  hide: frozenset[int]) -> None:
        """The Move writes the destination asked for (R5.2.4); a concealed mover's Move
        is left out, which writes ``MV:-`` (R14.3)."""
        mover = _piece_by_pid(before, mover_pid)
        if mover is not None and mover.pid not in hide:
            self.move = MoveRecord(PieceRef.of(mover), board.cell_level(intent.to),
                                   Loc.of(board.cell_square(intent.to)))

    def note_doze(self, before: Position, intent: Doze, dozer_pid: int | None, foiled: bool,
                  hide: frozenset[int]) -> None:
        """A Doze is the Dozer's Move (R8.8): ``MV:`` the Dozer to its destination, then
        ``,DO>`` that destination, the coincident and every Ground piece of the
        selected squares, by square. A foiled Doze (R8.8.5) writes what was asked: the
        destination, and the pieces its player saw on the selected squares."""
        dozer = _piece_by_pid(before, dozer_pid)
        dest = board.offset(dozer.sq, intent.dir) if dozer is not None else None
        if dozer is None or dest is None or dozer.pid in hide:
            return
        self.move = MoveRecord(PieceRef.of(dozer), Level.GROUND, Loc.of(dest))
        coincident = coincident_of(before, dozer)
        seen = before.known_occupancy(dozer.side) if foiled else None
        dozed = sorted((p for p in before.pieces
                        if p.level is Level.GROUND and p.sq in intent.squares
                        and (seen is None or p in seen[p.cell])),
                       key=piece_order_key)
        group = ([coincident] if coincident is not None else []) + dozed
        shown = tuple(DozedPiece(p.kind, Loc.of(p.sq)) for p in group if p.pid not in hide)
        if shown:
            self.doze = DozeRecord(Loc.of(dest), shown)

    def note_fire(self, before: Position, after: Position, intent: Fire,
                  hide: frozenset[int]) -> int:
        """FI1, FI2 in the order fired; a directional Fire writes the adjacent square, a
        transport Fire its destination and path, an aimed one its target (R16.3).

        R9.8: a Fire reveals its firer where it fired, so the firer is judged on the
        state after the Fire (before it, when the Fire took it out of play), exactly as
        the censored event stream judges ``Fired`` (engine.censor)."""
        plan = plan_fire(before, intent)
        firer, target = plan.piece, plan.target
        if self._firer_concealed(firer, after) or (target is not None and target.pid in hide):
            return firer.pid
        if target is not None:
            fire = FireRecord(plan.weapon, PieceRef.of(firer), target=PieceRef.of(target))
        elif plan.dir is not None:
            adjacent = board.offset(firer.sq, plan.dir)
            assert adjacent is not None  # legality needs an adjacent square (R6.8.2)
            fire = FireRecord(plan.weapon, PieceRef.of(firer), Loc.of(adjacent))
        else:
            assert plan.dest is not None
            fire = FireRecord(plan.weapon, PieceRef.of(firer), Loc.of(plan.dest), plan.path)
        self.fires.append(fire)
        return firer.pid

    def _firer_concealed(self, firer: Piece, after: Position) -> bool:
        if self.viewer is None or firer.side is self.viewer:
            return False
        still = _piece_by_pid(after, firer.pid)
        return (still if still is not None else firer).hidden

    def note_article_action(self, before: Position, intent: PickUp | Drop, actor_pid: int,
                            hide: frozenset[int]) -> None:
        actor = _piece_by_pid(before, actor_pid)
        if actor is None or actor.pid in hide:
            return
        if isinstance(intent, PickUp):
            self.pickup = PickupRecord(PieceRef.of(actor), intent.article)
        else:
            self.drop = DropRecord(PieceRef.of(actor), intent.article)

    def note_exchange(self, before: Position, intent: Exchange, actors: tuple[int, ...],
                      hide: frozenset[int]) -> None:
        giver, receiver = (_piece_by_pid(before, pid) for pid in actors)
        if giver is None or receiver is None or giver.pid in hide or receiver.pid in hide:
            return
        self.exchange = ExchangeRecord(PieceRef.of(giver), intent.give, intent.take,
                                       PieceRef.of(receiver))

    def note_reinforce(self, before: Position, intent: Reinforce, outcome: Outcome,
                       hide: frozenset[int]) -> None:
        """The reinforcement asked for, with its hand. The enemy's copy leaves out an
        entry whose piece is hidden from it, and a foiled one (R10.5: the enemy never
        learns the types of reinforcements that have not entered)."""
        side = before.side_to_act
        waiting = next((r for r in before.reinforcements
                        if r.side is side and r.sq == intent.sq and r.kind is intent.kind
                        and (intent.hand is None or r.hand is intent.hand)), None)
        entered = any(isinstance(e, Reinforced) for e in outcome.events)
        if self.viewer not in (None, side) and (not entered or before.next_pid in hide):
            return
        hand = waiting.hand if waiting is not None else intent.hand
        self.reinforce = ReinforceRecord(Loc.of(intent.sq), intent.kind, hand)

    # ------------------------------------------------------------ events

    def follow(self, scene: _Scene, events: Iterable[Event], turn: int,
               hide: frozenset[int], actor: int | None) -> None:
        """Results and transport movements from a step's events, in the order they
        happened; ``actor`` is the acting piece (it wins ties between twins)."""
        at = _Following(scene, turn, hide, actor)
        for event in events:
            match event:
                case Moved():
                    at.taker = self.moved(at, event)
                case Captured():
                    self.captured(at, event)
                case Dozed():
                    _shove(scene, event)
                case ProjectileLaunched():
                    self.results.append(
                        ProjectileMoved(event.projectile, Loc.of(event.sq), event.dir))
                case ProjectileStepped():
                    self.results.append(
                        ProjectileMoved(event.projectile, Loc.of(event.to), event.dir))
                case ProjectileRemoved():
                    self.results.append(ProjectileGone(event.projectile, Loc.of(event.sq)))
                case Destroyed():
                    self.destroyed(at, event)
                case Stunned():
                    self.stunned(at, event)
                case Converted():
                    self.converted(at, event)
                case TransportStepped():
                    self.transport_stepped(at, event)
                case TransportEnded():
                    self.transport_ended(at, event)
                case Fell():
                    self.fell(at, event)
                case Reinforced():
                    scene.put(Piece(scene.next_pid, event.side, event.kind, event.sq,
                                    Level.GROUND, event.hand))
                    scene.next_pid += 1
                case _:
                    pass  # no notation: hits, drops, article actions, turn and game end

    def moved(self, at: _Following, event: Moved) -> Piece:
        """The mover and its passenger arrive where the Move stopped; the passenger is
        written ``-TRA->`` from its cell to that stop (R8.7)."""
        mover = at.scene.find_or_any(event.frm, event.side, event.kind,
                                     lambda p: p.hand is event.hand, at.actor)
        if event.passenger is not None:
            passenger = at.scene.find(event.frm, event.side, event.passenger,
                                      lambda p: p.pid != mover.pid and p.transit is None)
            if passenger is not None:
                if passenger.pid not in at.hide:
                    self.passenger = TransportRecord(
                        PieceRef.of(passenger), board.cell_level(event.to),
                        Loc.of(board.cell_square(event.to)))
                at.scene.put(_placed(passenger, event.to))
        at.scene.put(_placed(mover, event.to))
        return mover

    def captured(self, at: _Following, event: Captured) -> None:
        """Takes by a Move, written with the taking piece's type. Pieces taken by the
        viewer's own Move are shown to it (the collision reveals them, R5.2.4)."""
        taker = at.taker
        for info in event.pieces:
            piece = at.scene.find_or_any(event.cell, info.side, info.kind, _described_by(info))
            mentions = [piece.pid]
            if taker is not None:
                mentions = [taker.pid] if taker.side is self.viewer else [taker.pid, piece.pid]
            if not at.hide.intersection(mentions):
                self.results.append(PieceResult(
                    TAKE, PieceRef.of(piece),
                    remaining_stunned_turns(piece.side, piece.stunned_until, at.turn),
                    piece.side, taker.kind if taker is not None else None))
            at.scene.remove(piece)

    def destroyed(self, at: _Following, event: Destroyed) -> None:
        info = event.piece
        code = KILL_CODES.get(event.cause)
        if code is None:
            raise ValueError(f"R16.2: no result code for a piece destroyed by {event.cause!r}")
        piece = at.scene.find_or_any(event.cell, info.side, info.kind, _described_by(info))
        self.effect(at, code, piece, piece.stunned_until)
        at.scene.remove(piece)

    def stunned(self, at: _Following, event: Stunned) -> None:
        """R7.3: the stunned piece drops its articles and leaves any transport; its
        Result describes it as the stun found it, with the new stun."""
        piece = at.scene.find_or_any(event.cell, event.side, event.kind,
                                     lambda p: p.pid not in at.stunned)
        at.stunned.add(piece.pid)
        self.effect(at, STUNNED, piece, event.until)
        at.scene.put(piece.but(stunned_until=event.until, articles=(), transit=None))

    def converted(self, at: _Following, event: Converted) -> None:
        """R6.7.2: Color is the side the conversion took the piece from."""
        piece = at.scene.find_or_any(event.cell, event.side.other, event.kind, lambda p: True)
        self.effect(at, CONVERTED, piece, piece.stunned_until)
        at.scene.put(piece.but(side=event.side))

    def effect(self, at: _Following, code: str, piece: Piece, stunned_until: int) -> None:
        """A Result on ``piece`` as the effect found it; Stun counts its owner's turns
        after the current one still stunned (R7.1)."""
        if piece.pid not in at.hide:
            self.results.append(PieceResult(
                code, PieceRef.of(piece),
                remaining_stunned_turns(piece.side, stunned_until, at.turn), piece.side))

    def transport_stepped(self, at: _Following, event: TransportStepped) -> None:
        """R8.3.1, R8.4: a rise on a Jump Pack or Scuba Fire, or a transit step."""
        piece = at.scene.find_or_any(event.frm, event.side, event.kind,
                                     lambda p: p.transit is not None, at.actor)
        self.travelled(at, piece, event.to)
        at.scene.put(_placed(piece, event.to))

    def transport_ended(self, at: _Following, event: TransportEnded) -> None:
        """An arrived or blocked Jump Pack or Scuba transport lands or surfaces next:
        that fall is the transport's last movement (R8.3.2, R8.4.2)."""
        piece = at.scene.find_or_any(event.cell, event.side, event.kind,
                                     lambda p: p.transit is not None, at.actor)
        if event.why in ("arrived", "blocked"):
            at.landing.add(piece.pid)
        at.scene.put(piece.but(transit=None))

    def fell(self, at: _Following, event: Fell) -> None:
        """A landing transport is a transport movement; a stunned flyer's fall or a
        passenger's fall from a destroyed carrier is not (R7.3)."""
        piece = at.scene.find_or_any(event.frm, event.side, event.kind,
                                     lambda p: p.pid in at.landing)
        if piece.pid in at.landing:
            at.landing.discard(piece.pid)
            self.travelled(at, piece, event.to)
        at.scene.put(piece.but(level=Level.GROUND, transit=None))

    def travelled(self, at: _Following, piece: Piece, to: int) -> None:
        """Note a transport movement: one ``-TRA->`` per piece and turn, from where it
        stood before its first to where its last left it."""
        travel = self.travels.get(piece.pid)
        if travel is None:
            self.travels[piece.pid] = _Travel(piece, to, piece.pid in at.hide)
        else:
            travel.to = to
            travel.concealed = travel.concealed or piece.pid in at.hide


@dataclass(slots=True)
class _Following:
    """What following one step's events needs: the scene, the turn (for stun counts),
    the pieces concealed from the viewer, the acting piece, the taker of the step's
    Move, transports about to land, and pieces already stunned by the step."""

    scene: _Scene
    turn: int
    hide: frozenset[int]
    actor: int | None
    taker: Piece | None = None
    landing: set[int] = field(default_factory=set)
    stunned: set[int] = field(default_factory=set)


def _shove(scene: _Scene, event: Dozed) -> None:
    """Every piece of a Doze one square on (R8.8.3); the Dozer's coincident may be
    another Dozer, so each piece moves once."""
    shoved: set[int] = set()
    for side, kind, frm, to in event.moved:
        piece = scene.find(frm, side, kind, lambda p: p.pid not in shoved)
        if piece is not None:
            shoved.add(piece.pid)
            scene.put(piece.but(sq=board.cell_square(to)))


def _described_by(info: PieceInfo) -> Callable[[Piece], bool]:
    """Whether a piece has the hand and articles an event's PieceInfo gives."""
    return lambda p: p.hand is info.hand and p.articles == info.articles


def _placed(piece: Piece, cell: int) -> Piece:
    return piece.but(sq=board.cell_square(cell), level=board.cell_level(cell))


def record_turn(actions: Sequence[Step], opening: Step | None = None,
                viewer: Side | None = None) -> TurnRecord:
    """The records of one turn.

    ``actions`` are the turn's steps in the order played (a final EndTurn step is
    allowed and ignored: its phases belong to the next turn). ``opening`` is the
    EndTurn step that started this turn, whose projectile and transport phases (R4.2)
    are part of it; without it the turn has no phase results. ``viewer`` gives that
    player's censored copy (R14.3, docs/notation.md)."""
    builder = _TurnBuilder(viewer)
    if opening is not None:
        builder.add_phase(opening)
    for i, step in enumerate(actions):
        if isinstance(step[1], EndTurn):
            if i != len(actions) - 1:
                raise ValueError("R4.11: only the last step of a turn may end it")
            break
        builder.add_action(step)
    return builder.record()


def write_turn(actions: Sequence[Step], opening: Step | None = None,
               viewer: Side | None = None) -> str:
    """The notation string of one turn (see ``record_turn`` for the arguments)."""
    return format_turn(record_turn(actions, opening, viewer))


@dataclass(frozen=True, slots=True)
class TurnSteps:
    """One turn's steps: the EndTurn step that opened it (None for the first turn
    recorded), its actions in the order played, and the EndTurn step that closed it
    (None when the game ended during the turn)."""

    opening: Step | None
    actions: tuple[Step, ...]
    closing: Step | None


def split_turns(steps: Iterable[Step]) -> list[TurnSteps]:
    """Cut a game's steps (every observer call, EndTurn included) into turns. A turn
    that started but saw no action is kept only if the game ended in its opening
    phases (it is then written ``MV:-`` with those results)."""
    turns: list[TurnSteps] = []
    opening: Step | None = None
    actions: list[Step] = []
    for step in steps:
        if isinstance(step[1], EndTurn):
            turns.append(TurnSteps(opening, tuple(actions), step))
            opening, actions = step, []
        else:
            actions.append(step)
    if actions or (opening is not None and opening[2].position.result is not None):
        turns.append(TurnSteps(opening, tuple(actions), None))
    return turns


def write_game(steps: Iterable[Step], viewer: Side | None = None) -> list[str]:
    """The history of a game, one string per turn in turn order (R16.1)."""
    return [write_turn(turn.actions, turn.opening, viewer) for turn in split_turns(steps)]


@dataclass
class TurnRecorder:
    """Records a game while it is played: pass ``recorder.observe`` as the observer of
    ``play_turn`` (or call it after each ``apply``), then ask for the notation."""

    steps: list[Step] = field(default_factory=list)

    def observe(self, before: Position, intent: Intent, outcome: Outcome) -> None:
        self.steps.append((before, intent, outcome))

    def turns(self) -> list[TurnSteps]:
        return split_turns(self.steps)

    def notation(self, viewer: Side | None = None) -> list[str]:
        return write_game(self.steps, viewer)


# ---------------------------------------------------------------- replaying


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
    positions = []
    position = start
    for number, text in enumerate(turns, 1):
        position, opening = _replay_turn(position, text, opening, number)
        positions.append(position)
    return positions


def _replay_turn(position: Position, text: str, opening: Step | None,
                 number: int) -> tuple[Position, Step | None]:
    """Apply one turn's actions in the first order that is legal and writes back the
    same notation, then end the turn (R4.11) unless the game is over."""
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
    steps, closing = found
    end = closing[2].position if closing else steps[-1][2].position if steps else position
    return end, closing


class _OrderSearch:
    """Depth-first search over the orders of a turn's actions: at each point each
    remaining action in a fixed order (FI1 never after FI2), pruned as soon as an
    intent is illegal or its element does not write as recorded."""

    def __init__(self, record: TurnRecord, opening: Step | None) -> None:
        self.expected = format_turn(record)
        self.opening = opening
        self.first_failure = ""

    def failed(self, reason: str) -> None:
        self.first_failure = self.first_failure or reason

    def run(self, position: Position, pending: list[_Planned],
            done: list[Step]) -> tuple[list[Step], Step | None] | None:
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
    builder = _TurnBuilder(None)
    builder.add_action(step)
    record = builder.record()
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
    if record is None:
        return None
    p = record.piece
    return PickUp(p.cell, record.article, p.kind, p.hand)


def _drop_intent(record: DropRecord | None) -> Drop | None:
    if record is None:
        return None
    p = record.piece
    return Drop(p.cell, record.article, p.kind, p.hand)


def _exchange_intent(record: ExchangeRecord | None) -> Exchange | None:
    if record is None:
        return None
    g, r = record.giver, record.receiver
    return Exchange(g.cell, r.cell, record.give, record.take, g.kind, r.kind, g.hand, r.hand)


def _reinforce_intent(record: ReinforceRecord | None) -> Reinforce | None:
    if record is None:
        return None
    return Reinforce(record.loc.square, record.kind, record.hand)


# ---------------------------------------------------------------- notation files
#
# A plain text file that can rebuild a game (docs/notation.md, "Notation files"):
# header tags ``[Name VALUE]`` (VALUE is JSON on one line), then one turn per line.
# Lines starting with ``#`` and blank lines are ignored. Building the start position
# from the tags and turning the steps into a match is engine.replay's part; here is
# the text and the search for each turn's steps.

NOTATION_FILE_FORMAT = "wec-notation/1"
_TAG_LINE = re.compile(r"\[([A-Za-z]+) (.*)\]")


@dataclass(frozen=True, slots=True)
class NotationFile:
    """A notation file read back: its tags in file order and its turn strings."""

    tags: tuple[tuple[str, object], ...]
    turns: tuple[str, ...]

    def tag(self, name: str) -> object | None:
        """The value of tag ``name``, or None when the file has none."""
        return next((value for key, value in self.tags if key == name), None)


def format_notation_file(turns: Sequence[str], tags: Sequence[tuple[str, object]]) -> str:
    """The text of a notation file: the Format tag, ``tags``, then one turn per line."""
    import json

    lines = [f"[Format {json.dumps(NOTATION_FILE_FORMAT)}]"]
    lines += [f"[{name} {json.dumps(value, separators=(',', ':'), sort_keys=True)}]"
              for name, value in tags]
    lines += list(turns)
    return "\n".join(lines) + "\n"


def parse_notation_file(text: str) -> NotationFile:
    """Read a notation file; NotationError names the line (and, for a turn, the column
    and what was expected there, as ``parse_turn``)."""
    import json

    tags: list[tuple[str, object]] = []
    turns: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            match = _TAG_LINE.fullmatch(line)
            if match is None or turns:
                problem = "comes after the first turn" if match else "is malformed"
                raise NotationError(f"line {number}: the tag {line!r} {problem}: tags are "
                                    "[Name VALUE] lines before the first turn")
            try:
                tags.append((match.group(1), json.loads(match.group(2))))
            except json.JSONDecodeError as exc:
                raise NotationError(f"line {number}: tag {match.group(1)}: the value is not "
                                    f"JSON ({exc.msg})") from None
            continue
        try:
            parse_turn(line)
        except NotationError as exc:
            raise NotationError(f"line {number}: {exc}", exc.column) from None
        turns.append(line)
    found = NotationFile(tuple(tags), tuple(turns))
    if not tags or tags[0] != ("Format", NOTATION_FILE_FORMAT):
        raise NotationError(f"not a wec notation file: the first tag must be [Format "
                            f"\"{NOTATION_FILE_FORMAT}\"]")
    return found


def replay_steps(start: Position, turns: Sequence[str],
                 opening: Step | None = None) -> list[Step]:
    """Every step of the replayed turns, each turn's actions in the order found and its
    end of turn (see ``replay_positions``): what a match needs to play them again.
    NotationError names the first turn that cannot be replayed."""
    steps: list[Step] = []
    position = start
    for number, text in enumerate(turns, 1):
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
        actions, closing = found
        steps += actions
        if closing is not None:
            steps.append(closing)
        position = closing[2].position if closing else \
            actions[-1][2].position if actions else position
        opening = closing
    return steps


__all__ += ["NOTATION_FILE_FORMAT", "NotationFile", "format_notation_file",
            "parse_notation_file", "replay_steps"]
