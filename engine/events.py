"""Events: the resolved effects of an intent, in order (what a client animates)."""

from __future__ import annotations

from dataclasses import dataclass

from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side
from wec.engine.questions import PieceInfo
from wec.engine.values import fast_init


@fast_init
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


@fast_init
@dataclass(frozen=True, slots=True)
class Captured:
    """Pieces taken by a Move (R5.1.3, R5.2.4) at ``cell``."""

    cell: int
    pieces: tuple[PieceInfo, ...]


@fast_init
@dataclass(frozen=True, slots=True)
class ArticleDropped:
    """An article placed on Ground by R7.4 (here: from a destroyed piece, R3.4)."""

    article: ArticleKind
    sq: int


@fast_init
@dataclass(frozen=True, slots=True)
class TurnEnded:
    """The turn ended; ``turn`` is the new turn number."""

    turn: int


@fast_init
@dataclass(frozen=True, slots=True)
class GameOver:
    """R12: the game ended."""

    winner: Side
    reason: str


@fast_init
@dataclass(frozen=True, slots=True)
class PickedUp:
    """R4.7: a piece picked up an unowned article in its square."""

    side: Side
    kind: PieceKind
    cell: int
    article: ArticleKind


@fast_init
@dataclass(frozen=True, slots=True)
class Dropped:
    """R4.8: a piece dropped a carried article onto Ground of its square."""

    side: Side
    kind: PieceKind
    cell: int
    article: ArticleKind


@fast_init
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


@fast_init
@dataclass(frozen=True, slots=True)
class Reinforced:
    """R10.3: a reinforcement entered on Ground of its activation square ``sq``."""

    side: Side
    kind: PieceKind
    hand: Hand | None
    sq: int


@fast_init
@dataclass(frozen=True, slots=True)
class ReinforceFoiled:
    """R4.13, D-12: a hidden enemy piece stood on the square; nothing entered."""

    side: Side
    sq: int


@fast_init
@dataclass(frozen=True, slots=True)
class Fired:
    """R6, R8.1: a Fire of ``weapon`` with strength ``strength`` (R6.2) and its aim:
    a direction, a target cell (homing, restricted rocket) or a destination square
    and path (transport)."""

    side: Side
    kind: PieceKind
    cell: int
    weapon: ArticleKind
    strength: int
    dir: tuple[int, int] | None = None
    target: int | None = None
    dest: int | None = None
    path: str | None = None


@fast_init
@dataclass(frozen=True, slots=True)
class Hit:
    """R6.4: ``hits`` hits of ``weapon`` reached a piece; ``total`` this turn against
    ``defences`` matching Anti abilities (the effect happens when total > defences)."""

    cell: int
    side: Side
    kind: PieceKind
    weapon: ArticleKind
    hits: int
    total: int
    defences: int


@fast_init
@dataclass(frozen=True, slots=True)
class Destroyed:
    """A piece destroyed by ``cause``: flame, rocket, sam, torpedo, conversion_kill or
    crash (a failed landing, R7.3, R8.4.2)."""

    cell: int
    piece: PieceInfo
    cause: str


@fast_init
@dataclass(frozen=True, slots=True)
class Stunned:
    """R7.1: stunned while the turn number is below ``until``."""

    cell: int
    side: Side
    kind: PieceKind
    until: int


@fast_init
@dataclass(frozen=True, slots=True)
class Converted:
    """R6.7.2: the piece at ``cell`` changed owner to ``side``."""

    cell: int
    side: Side
    kind: PieceKind


@fast_init
@dataclass(frozen=True, slots=True)
class Fell:
    """R7.3, R8.4.2: a piece left Air or Sub for Ground of its square."""

    side: Side
    kind: PieceKind
    frm: int
    to: int


@fast_init
@dataclass(frozen=True, slots=True)
class ProjectileLaunched:
    """R6.8.2: a projectile appeared at ``sq`` (its level is its kind's)."""

    projectile: str
    side: Side
    sq: int
    strength: int
    dir: tuple[int, int]
    target: int | None = None  # the homing target's cell


@fast_init
@dataclass(frozen=True, slots=True)
class ProjectileStepped:
    """R6.8.4: a projectile moved one square."""

    projectile: str
    side: Side
    frm: int
    to: int
    dir: tuple[int, int]


@fast_init
@dataclass(frozen=True, slots=True)
class ProjectileRemoved:
    """A projectile hit pieces at ``sq`` (``why`` = hit) or left the board (left_board)."""

    projectile: str
    side: Side
    sq: int
    why: str


@fast_init
@dataclass(frozen=True, slots=True)
class HomingBroken:
    """R6.11.3: a homing projectile lost its target and flies on along ``dir``."""

    projectile: str
    side: Side
    sq: int
    dir: tuple[int, int]


@fast_init
@dataclass(frozen=True, slots=True)
class TransportStepped:
    """R8.4: a piece in transit moved one step (from cell to cell)."""

    side: Side
    kind: PieceKind
    frm: int
    to: int


@fast_init
@dataclass(frozen=True, slots=True)
class TransportEnded:
    """R8: a transport ended at ``cell``: arrived, blocked, stunned or foiled (D-12)."""

    side: Side
    kind: PieceKind
    cell: int
    why: str


@fast_init
@dataclass(frozen=True, slots=True)
class Dozed:
    """R8.8: the Dozer's group moved one square along ``dir``: (side, kind, from, to) each."""

    side: Side
    dir: tuple[int, int]
    moved: tuple[tuple[Side, PieceKind, int, int], ...]


@fast_init
@dataclass(frozen=True, slots=True)
class DozeFoiled:
    """R8.8.5, D-33: hidden enemy pieces blocked the Doze; nothing moved, the Move is spent."""

    side: Side
    sq: int


Event = (Moved | Captured | ArticleDropped | PickedUp | Dropped | Exchanged | Reinforced
         | ReinforceFoiled | TurnEnded | GameOver | Fired | Hit | Destroyed | Stunned
         | Converted | Fell | ProjectileLaunched | ProjectileStepped | ProjectileRemoved
         | HomingBroken | TransportStepped | TransportEnded | Dozed | DozeFoiled)
