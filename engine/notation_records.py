"""The records of WEC notation: the typed, frozen data of one notation line (R16.1,
R16.3), what the parser reads a line into and the writer builds from a turn, plus the
two types every notation module shares: ``Step``, one action as it was played, and
``NotationError``.

A ``TurnRecord`` holds one turn's elements in R16.1's fixed order; each element is a
record named after its grammar rule (``MoveRecord`` for ``Move``, ``PieceRef`` for
``Piece``, ...). The records carry no text: engine.notation_format writes them and
engine.notation_parser reads them, so the data and the grammar each have one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from wec.engine import board
from wec.engine.board import Level
from wec.engine.game import Outcome
from wec.engine.intents import Intent
from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side
from wec.engine.position import Piece, Position

__all__ = [
    "DozeRecord", "DozedPiece", "DropRecord", "ExchangeRecord", "FireRecord", "Loc",
    "MoveRecord", "NotationError", "PickupRecord", "PieceRef", "PieceResult",
    "ProjectileGone", "ProjectileMoved", "ReinforceRecord", "Result", "Step",
    "TransportRecord", "TurnRecord",
]

Step = tuple[Position, Intent, Outcome]
"""One action as ``play_turn``'s observer delivers it: position before, intent, outcome."""


class NotationError(ValueError):
    """Notation that is malformed (the message names the rule, the 1-based column and
    what was expected there) or that cannot be replayed (the message names the turn)."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.column = column


@dataclass(frozen=True, slots=True)
class Loc:
    """A square ``(row,col)`` in White's frame, rows and columns 1..10 (R1.2)."""

    row: int
    col: int

    @classmethod
    def of(cls, sq: int) -> Loc:
        """The Loc of board square ``sq``."""
        return cls(board.row_of(sq), board.col_of(sq))

    @property
    def square(self) -> int:
        """The board square this Loc names."""
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
        """``piece`` described as it stands now (R16.3)."""
        return cls(piece.kind, piece.level, Loc.of(piece.sq), piece.articles, piece.hand)

    @property
    def cell(self) -> int:
        """The board cell (square and level) the piece stood in."""
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
