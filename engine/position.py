"""The game state: immutable pieces, articles and counters (R1-R4, R10, R12).

A Position is either the *full state* (``viewer is None``) or one side's *partial
state* (``viewer`` set): then it holds that side's pieces, only the enemy pieces the
side sees, and everything public. The rules run on either; what a partial state
lacks they ask a Referee (engine.referee).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from wec.engine import board
from wec.engine.board import CELLS, Level
from wec.engine.options import Options
from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side, traits
from wec.engine.routes import MovementRules
from wec.engine.values import fast_init, fast_replace


@fast_init
@dataclass(frozen=True, slots=True)
class Reveal:
    """R9.8, D-36: a fire reveal (negates stealth and submersion hiding) or a capture
    reveal (negates stealth hiding), lasting while the piece stays at ``cell``."""

    kind: str  # "fire" | "capture"
    cell: int


@fast_init
@dataclass(frozen=True, slots=True)
class Marker:
    """R9.10: where ``viewer`` last saw the enemy piece ``pid`` (a display aid, no rules
    effect). A partial state keeps its markers with ``pid`` -1: never an identifier."""

    viewer: Side
    pid: int
    kind: PieceKind
    cell: int


@fast_init
@dataclass(frozen=True, slots=True)
class Piece:
    """One piece on the board.

    ``pid`` identifies the piece for the life of a game (locks refer to it); it is
    not part of the rules and not part of the canonical encoding. ``hidden`` means
    hidden from the enemy (R9); until the visibility rules compute it, it is set by
    the setup (R15.3) or by hand. ``moved`` records that the piece has left its
    starting square (R5.3.1). ``articles`` are in acquisition order (R7.4). The piece
    is stunned while the turn number is below ``stunned_until`` (R7.1). ``ready`` holds,
    per ability instance (inherent abilities first, then articles), the first turn it
    may fire again (R6.3, R3.5); empty when every instance is ready. ``transit`` is set
    while a transport article carries the piece (R8). ``revealed`` is a fire or capture
    reveal (R9.8), valid while the piece stays at the cell where it was granted.
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
    stunned_until: int = 0
    ready: tuple[int, ...] = ()
    transit: Transit | None = None
    revealed: Reveal | None = None

    @property
    def cell(self) -> int:
        return self.sq * 3 + self.level

    @property
    def row(self) -> int:
        return board.row_of(self.sq)

    @property
    def col(self) -> int:
        return board.col_of(self.sq)

    def stunned(self, turn: int) -> bool:
        """R7.1: stunned while the current turn is below ``stunned_until``."""
        return turn < self.stunned_until

    def abilities(self) -> tuple[ArticleKind, ...]:
        """Inherent abilities followed by carried articles (R2.1, R6.4)."""
        return traits(self.kind).inherent + self.articles

    def is_stealthy(self, options: Options) -> bool:
        """R9.2: O15 on, a Stealth ability, and not a primary government piece unless
        O26 allows it."""
        return (options.stealth_invisibility and ArticleKind.STEALTH in self.abilities()
                and (options.king_may_be_stealthy or not traits(self.kind).primary))

    def ready_at(self, instance: int) -> int:
        """The first turn ability instance ``instance`` may fire (0: ready now, R6.3)."""
        return self.ready[instance] if self.ready else 0

    def article_ready(self) -> tuple[int, ...]:
        """``ready`` of the carried articles only (their state travels with them, R3.5)."""
        if not self.ready:
            return (0,) * len(self.articles)
        return self.ready[len(traits(self.kind).inherent):]

    def is_native_here(self) -> bool:
        """R2.4: at a native level, counting the transport level while in transit."""
        return self.level in traits(self.kind).native or (
            self.transit is not None and self.level == self.transit.level)

    def but(self, **changes: Any) -> Piece:
        """A copy with some fields changed (replaced below by ``fast_replace``)."""
        copy: Piece = _piece_but(self, **changes)  # pragma: no cover
        return copy  # pragma: no cover

    def describe(self) -> str:
        hand = f" {self.hand.value}-handed" if self.hand else ""
        return (f"{self.side.value}{hand} {self.kind.value} at "
                f"{board.describe_cell(self.cell)}")


_piece_but = fast_replace(Piece)
Piece.but = _piece_but  # type: ignore[method-assign]


def normal_ready(ready: tuple[int, ...], turn: int = 0) -> tuple[int, ...]:
    """``ready`` with instances ready by ``turn`` set to 0, and () when all are ready."""
    if not any(r > turn for r in ready):
        return ()
    return tuple(r if r > turn else 0 for r in ready)


PATH_MODES = ("beeline", "port", "starboard")  # R8.5


@fast_init
@dataclass(frozen=True, slots=True)
class Transit:
    """A piece travelling under a transport article (R8): where to, along which path."""

    article: ArticleKind
    dest: int  # square
    path: str = "beeline"

    @property
    def level(self) -> Level:
        """The transport level: Air for a Jump Pack, Sub for a Scuba Suit, else Ground."""
        if self.article is ArticleKind.JUMP_PACK:
            return Level.AIR
        if self.article is ArticleKind.SCUBA_SUIT:
            return Level.SUB
        return Level.GROUND


PROJECTILE_KINDS = ("rocket", "sam", "torpedo")


@fast_init
@dataclass(frozen=True, slots=True)
class Projectile:
    """A Rocket, SAM or Torpedo in flight (R6.8).

    ``dir`` is the direction of travel: the launch direction, then the last step
    (a homing projectile falls back on it when its lock breaks, R6.11.3).
    ``target`` is the pid of the homing target, None when directional.
    """

    kind: str
    side: Side
    sq: int
    strength: int
    dir: tuple[int, int]
    target: int | None = None

    @property
    def level(self) -> Level:
        return _PROJECTILE_LEVEL[self.kind]

    @property
    def cell(self) -> int:
        return self.sq * 3 + self.level


_PROJECTILE_LEVEL = {"rocket": Level.GROUND, "sam": Level.AIR, "torpedo": Level.SUB}


@fast_init
@dataclass(frozen=True, slots=True)
class Lock:
    """Anti-Stealth instance ``instance`` of ``holder`` locked on ``target`` (R9.4)."""

    holder: int
    instance: int
    target: int


@fast_init
@dataclass(frozen=True, slots=True)
class Reinforcement:
    """A piece waiting off-board for its activation square (R10.1); kind None = unknown."""

    side: Side
    kind: PieceKind | None
    sq: int
    hand: Hand | None = None


@fast_init
@dataclass(frozen=True, slots=True)
class ActionCounts:
    """What the acting side has done this turn, against the budget of R4.3."""

    move: int = 0
    fire: int = 0
    pickup: int = 0
    drop: int = 0
    exchange: int = 0
    reinforce: int = 0
    actors: tuple[int, ...] = ()  # pids of the pieces that acted (R4.12b)
    firers: tuple[int, ...] = ()  # pids that fired this turn (R4.5: one Fire per piece)
    mover: int | None = None  # pid of the piece that made the Move (R4.5)
    transited: tuple[int, ...] = ()  # pids set in transport or advanced in transit (R4.5)

    def is_fresh(self) -> bool:
        return self == FRESH_TURN


FRESH_TURN = ActionCounts()

# R4.3: the per-turn limit of each action.
ACTION_LIMITS = {"move": 1, "fire": 2, "pickup": 1, "drop": 1, "exchange": 1, "reinforce": 1}


@fast_init
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
    # R10.3: activation squares where the side to act had a piece at Ground when the
    # turn started (computed by reinforcement.turn_start_squares at every turn start).
    turn_start_squares: tuple[int, ...] = ()
    locks: tuple[Lock, ...] = ()
    projectiles: tuple[Projectile, ...] = ()
    # R6.4.2: hits received this turn, as (pid, weapon, count), sorted
    hits: tuple[tuple[int, ArticleKind, int], ...] = ()
    # R3.5: per square, the ready turn of each ground article (parallel to
    # ground_articles); empty when every ground article is ready
    ground_ready: tuple[tuple[int, ...], ...] = ()
    actions: ActionCounts = FRESH_TURN
    result: Result | None = None
    viewer: Side | None = None
    # R9.10: last-seen markers, per viewer, in the order they appeared
    last_seen: tuple[Marker, ...] = ()
    # R9.4(a): Anti-Stealth instances (holder pid, instance) that came under a piece's
    # control in the action being resolved; visibility.refresh gives them their locks
    acquiring: tuple[tuple[int, int], ...] = ()
    next_pid: int = 0
    # what the rules derive from the pieces and options, owned by this position alone
    derived: Derived = field(default_factory=lambda: Derived(), compare=False, repr=False,
                             hash=False)

    @property
    def side_to_act(self) -> Side:
        """R4.1: Black plays odd turns, White even turns."""
        return Side.BLACK if self.turn % 2 == 1 else Side.WHITE

    def evolve(self, **changes: Any) -> Position:
        """A copy with some fields changed.

        What the rules derived from the pieces and the options (``derived``) is carried
        over when neither changes (e.g. at the end of a turn; the same tuple of pieces
        given again is no change): ``Derived.carried``.
        (Replaced below by a generated method that does the same with one keyword per
        field: ``_evolve_source``.)
        """
        copy: Position = _evolve(self, **changes)  # pragma: no cover
        return copy  # pragma: no cover

    def known_occupancy(self, viewer: Side) -> list[tuple[Piece, ...]]:
        """Per cell, the pieces ``viewer`` knows are there (own + enemy not hidden).

        Hidden enemy pieces are treated as absent for the viewer's legality (R4.13).
        Both sides' maps are built in one pass and cached.
        """
        derived = self.derived
        occ = derived.black if viewer is Side.BLACK else derived.white
        if occ is None:
            black: list[tuple[Piece, ...]] = [()] * CELLS
            white: list[tuple[Piece, ...]] = [()] * CELLS
            for p in self.pieces:
                c = p.sq * 3 + p.level
                if not p.hidden or p.side is Side.BLACK:
                    black[c] = black[c] + (p,)
                if not p.hidden or p.side is Side.WHITE:
                    white[c] = white[c] + (p,)
            derived.black, derived.white = black, white
            occ = black if viewer is Side.BLACK else white
        return occ


class PieceCache:
    """One per-piece cache of a position (engine.movement ``piece_cache``): entries by pid,
    each ``(piece, data, mask, ...)`` valid while the piece is the same object and no cell
    in its mask changed; ``stale``, the cells changed since the entries were filtered.
    Carried into a later position it is shared until either one writes (``writable``):
    a cache never changes under another position."""

    __slots__ = ("entries", "shared", "stale")

    def __init__(self, entries: dict[int, Any], stale: int = 0, shared: bool = False) -> None:
        self.entries, self.stale, self.shared = entries, stale, shared

    def writable(self) -> dict[int, Any]:
        """The entries, filtered of the stale ones and this position's own to change."""
        entries = self.entries
        if self.stale:
            entries = {pid: e for pid, e in entries.items() if not e[2] & self.stale}
            self.stale, self.shared = 0, False
        elif self.shared:
            entries = dict(entries)
            self.shared = False
        self.entries = entries
        return entries


class Derived:
    """What the rules derive from one position, computed when first needed and owned by
    that position: nothing here changes in place once another position may read it.

    Carried over by ``Position.evolve`` when the pieces and options stay (``carried``):
    the occupancy maps (``black``, ``white``: per cell, the pieces each side knows,
    R4.13), the movement rules of the options (engine.routes), the cells whose occupancy
    order a Move left as a rebuild would not (``unordered``), how the pieces differ from
    the position they came from (``changes``, engine.movement ``record_changes``), the
    per-piece caches (``piece_caches``: plans, Fires, Dozes), the settled visibility
    (``seen``, engine.visibility's own record), a turn's listings (``listings``,
    engine.playout) and each side's detection and cells (``detection``, ``own_cells``,
    engine.sides and engine.half_referee). The containers are shared with the position
    carried from or into until one writes: a writer takes ``mine(name)``, copied first if
    it is shared. Not carried, as they depend on more than the pieces: a half state's
    split into own and seen pieces (``split``) and the acting side's checked plans
    (``plans``, engine.sides)."""

    __slots__ = ("_shared", "black", "changes", "detection", "listings", "own_cells",
                 "piece_caches", "plans", "rules", "seen", "split", "unordered", "white")

    _CARRIED = frozenset({"piece_caches", "listings", "detection", "own_cells"})

    def __init__(self) -> None:
        self.black: list[tuple[Piece, ...]] | None = None
        self.white: list[tuple[Piece, ...]] | None = None
        self.rules: MovementRules | None = None
        self.unordered = 0
        self.changes: tuple[tuple[Piece, ...], list[tuple[Piece, Piece]], list[Piece],
                            list[Piece]] | None = None
        self.piece_caches: dict[tuple[str, Side], PieceCache] = {}
        self.seen: object | None = None  # engine.visibility's settled record (_Seen)
        self.listings: dict[tuple[object, int, ActionCounts], object] = {}
        self.detection: dict[Side, tuple[tuple[int, int], list[Piece]]] = {}
        self.own_cells: dict[Side, frozenset[int]] = {}
        self.split: dict[Side, tuple[Any, ...]] = {}
        self.plans: dict[object, object] = {}
        self._shared: frozenset[str] = frozenset()  # containers another position reads

    def carried(self) -> Derived:
        """For a position with the same pieces and options: everything but ``split`` and
        ``plans``, the containers shared until either position writes."""
        new = Derived.__new__(Derived)
        new.black, new.white, new.rules = self.black, self.white, self.rules
        new.unordered, new.changes, new.seen = self.unordered, self.changes, self.seen
        new.piece_caches, new.listings = self.piece_caches, self.listings
        new.detection, new.own_cells = self.detection, self.own_cells
        new.split, new.plans = {}, {}
        self._shared = new._shared = self._CARRIED
        return new

    def mine(self, name: str) -> Any:
        """The container ``name``, this position's own to change."""
        value = getattr(self, name)
        if name in self._shared:
            if name == "piece_caches":
                for cache in value.values():
                    cache.shared = True
                value = {key: PieceCache(cache.entries, cache.stale, True)
                         for key, cache in value.items()}
            else:
                value = dict(value)
            setattr(self, name, value)
            self._shared = self._shared - {name}
        return value

    def piece_cache(self, name: str, side: Side) -> PieceCache:
        """``side``'s per-piece cache ``name`` (engine.movement ``piece_cache``)."""
        caches: dict[tuple[str, Side], PieceCache] = self.mine("piece_caches")
        found = caches.get((name, side))
        if found is None:
            found = caches[(name, side)] = PieceCache({})
        return found

    def clear(self) -> None:
        """Forget everything (a benchmark's cold start)."""
        self.__init__()  # type: ignore[misc]


_FIELD_NAMES = tuple(f.name for f in fields(Position))


def _evolve_source() -> str:
    """``Position.evolve`` as code: each field a keyword defaulting to a sentinel, stored
    straight through its slot; the cache kept (copied) unless pieces or options change."""
    lines = [f"def evolve(self, *, {', '.join(f'{n}=_unchanged' for n in _FIELD_NAMES)}, "
             "**unknown):",
             "    if unknown:",
             "        raise TypeError(f'Position has no field {next(iter(unknown))!r}')",
             "    new = _new(_Position)",
             "    keep = ((pieces is _unchanged or pieces is self.pieces)",
             "            and (options is _unchanged or options is self.options))"]
    for name in _FIELD_NAMES:
        if name == "derived":
            lines += ["    if derived is _unchanged:",
                      "        derived = self.derived.carried() if keep else _Derived()"]
        else:
            lines.append(f"    if {name} is _unchanged:")
            lines.append(f"        {name} = self.{name}")
        lines.append(f"    _set_{name}(new, {name})")
    lines.append("    return new")
    return "\n".join(lines) + "\n"


def _make_evolve() -> Any:
    env: dict[str, Any] = {"_unchanged": object(), "_new": object.__new__,
                           "_Position": Position, "_Derived": Derived}
    for name in _FIELD_NAMES:
        env[f"_set_{name}"] = Position.__dict__[name].__set__
    exec(_evolve_source(), env)
    return env["evolve"]


_evolve = _make_evolve()
Position.evolve = _evolve  # type: ignore[method-assign]


def empty_ground() -> tuple[tuple[ArticleKind, ...], ...]:
    return ((),) * board.SQUARES
