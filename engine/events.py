"""Events: the resolved effects of an intent, in order (what a client animates)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.pieces import ArticleKind, Hand, PieceKind, Side
from engine.referee import PieceInfo


@dataclass(frozen=True, slots=True)
class Moved:
    """A piece (and its passenger) moved; ``reported`` is the destination asked for (R16)."""

    side: Side
    kind: PieceKind
    hand: Hand | None
    frm: int
    to: int
    reported: int
    passenger: PieceKind | None = None


@dataclass(frozen=True, slots=True)
class Captured:
    """Pieces taken by a Move (R5.1.3, R5.2.4) at ``cell``."""

    cell: int
    pieces: tuple[PieceInfo, ...]


@dataclass(frozen=True, slots=True)
class ArticleDropped:
    """An article placed on Ground by R7.4 (here: from a destroyed piece, R3.4)."""

    article: ArticleKind
    sq: int


@dataclass(frozen=True, slots=True)
class TurnEnded:
    """The turn ended; ``turn`` is the new turn number."""

    turn: int


@dataclass(frozen=True, slots=True)
class GameOver:
    """R12: the game ended."""

    winner: Side
    reason: str


@dataclass(frozen=True, slots=True)
class PickedUp:
    """R4.7: a piece picked up an unowned article in its square."""

    side: Side
    kind: PieceKind
    cell: int
    article: ArticleKind


@dataclass(frozen=True, slots=True)
class Dropped:
    """R4.8: a piece dropped a carried article onto Ground of its square."""

    side: Side
    kind: PieceKind
    cell: int
    article: ArticleKind


@dataclass(frozen=True, slots=True)
class Exchanged:
    """R4.9: ``give`` went from the piece at ``frm`` to the one at ``to`` (and ``take`` back)."""

    side: Side
    kind: PieceKind
    frm: int
    to_kind: PieceKind
    to: int
    give: ArticleKind
    take: ArticleKind | None


@dataclass(frozen=True, slots=True)
class Reinforced:
    """R10.3: a reinforcement entered on Ground of its activation square ``sq``."""

    side: Side
    kind: PieceKind
    hand: Hand | None
    sq: int


@dataclass(frozen=True, slots=True)
class ReinforceFoiled:
    """R4.13, D-12: a hidden enemy piece stood on the square; nothing entered."""

    side: Side
    sq: int


Event = (Moved | Captured | ArticleDropped | PickedUp | Dropped | Exchanged | Reinforced
         | ReinforceFoiled | TurnEnded | GameOver)
