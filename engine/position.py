"""The game state: immutable pieces, articles and counters (R1-R4, R10, R12).

A Position is either the *full state* (``viewer is None``) or one side's *partial
state* (``viewer`` set): then it holds that side's pieces, only the enemy pieces the
side sees, and everything public. The rules run on either; what a partial state
lacks they ask a Referee (engine.referee).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from engine import board
from engine.board import CELLS, Level
from engine.options import Options
from engine.pieces import ArticleKind, Hand, PieceKind, Side, traits


@dataclass(frozen=True, slots=True)
class Piece:
    """One piece on the board.

    ``pid`` identifies the piece for the life of a game (locks refer to it); it is
    not part of the rules and not part of the canonical encoding. ``hidden`` means
    hidden from the enemy (R9); until the visibility rules compute it, it is set by
    the setup (R15.3) or by hand. ``moved`` records that the piece has left its
    starting square (R5.3.1). ``articles`` are in acquisition order (R7.4).
    """

    pid: int
    side: Side
    kind: PieceKind
    sq: int
    level: Level
    hand: Hand | None = None
    articles: tuple[ArticleKind, ...] = ()
    moved: bool = False
    hidden: bool = False

    @property
    def cell(self) -> int:
        return self.sq * 3 + self.level

    @property
    def row(self) -> int:
        return board.row_of(self.sq)

    @property
    def col(self) -> int:
        return board.col_of(self.sq)

    def abilities(self) -> tuple[ArticleKind, ...]:
        """Inherent abilities followed by carried articles (R2.1, R6.4)."""
        return traits(self.kind).inherent + self.articles

    def describe(self) -> str:
        hand = f" {self.hand.value}-handed" if self.hand else ""
        return (f"{self.side.value}{hand} {self.kind.value} at "
                f"{board.describe_cell(self.cell)}")


@dataclass(frozen=True, slots=True)
class Lock:
    """Anti-Stealth instance ``instance`` of ``holder`` locked on ``target`` (R9.4)."""

    holder: int
    instance: int
    target: int


@dataclass(frozen=True, slots=True)
class Reinforcement:
    """A piece waiting off-board for its activation square (R10.1); kind None = unknown."""

    side: Side
    kind: PieceKind | None
    sq: int
    hand: Hand | None = None


@dataclass(frozen=True, slots=True)
class ActionCounts:
    """What the acting side has done this turn, against the budget of R4.3."""

    move: int = 0
    fire: int = 0
    pickup: int = 0
    drop: int = 0
    exchange: int = 0
    reinforce: int = 0

    def is_fresh(self) -> bool:
        return self == FRESH_TURN


FRESH_TURN = ActionCounts()

# R4.3: the per-turn limit of each action.
ACTION_LIMITS = {"move": 1, "fire": 2, "pickup": 1, "drop": 1, "exchange": 1, "reinforce": 1}


@dataclass(frozen=True, slots=True)
class Result:
    """The end of the game (R12)."""

    winner: Side
    reason: str


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable game state; every rule returns a new one."""

    turn: int
    pieces: tuple[Piece, ...]
    ground_articles: tuple[tuple[ArticleKind, ...], ...]  # per square, in placement order
    options: Options = field(default_factory=Options)
    reinforcements: tuple[Reinforcement, ...] = ()
    locks: tuple[Lock, ...] = ()
    actions: ActionCounts = FRESH_TURN
    result: Result | None = None
    viewer: Side | None = None
    next_pid: int = 0
    _cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False, hash=False)

    @property
    def side_to_act(self) -> Side:
        """R4.1: Black plays odd turns, White even turns."""
        return Side.BLACK if self.turn % 2 == 1 else Side.WHITE

    def evolve(self, **changes: Any) -> Position:
        """A copy with some fields changed (and a fresh cache)."""
        changes.setdefault("_cache", {})
        return replace(self, **changes)

    def piece_by_pid(self, pid: int) -> Piece | None:
        for p in self.pieces:
            if p.pid == pid:
                return p
        return None

    def known_occupancy(self, viewer: Side) -> list[tuple[Piece, ...]]:
        """Per cell, the pieces ``viewer`` knows are there (own + enemy not hidden).

        Hidden enemy pieces are treated as absent for the viewer's legality (R4.13).
        """
        key = ("occ", viewer)
        occ = self._cache.get(key)
        if occ is None:
            occ = [()] * CELLS
            for p in self.pieces:
                if p.side is viewer or not p.hidden:
                    c = p.sq * 3 + p.level
                    occ[c] = occ[c] + (p,)
            self._cache[key] = occ
        return occ

    def pieces_at(self, c: int) -> tuple[Piece, ...]:
        """Every piece this state holds at cell ``c`` (the truth in a full state)."""
        return tuple(p for p in self.pieces if p.sq * 3 + p.level == c)


def empty_ground() -> tuple[tuple[ArticleKind, ...], ...]:
    return ((),) * board.SQUARES
