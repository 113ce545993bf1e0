"""The questions one side asks about the other side's pieces, and their answers.

Low-level value types and protocols (no rules here): a side resolves every intent on
its own half state (engine.half_resolution) and, wherever a rule needs the truth about
pieces it cannot see, asks the *owner* of those pieces, in rule order, through a
``Conversation`` opened for that intent on the owner's ``Referee``
(engine.half_referee answers from the owner's half state alone). The closed set of
questions and what each reveals is documented in docs/architecture.md ("Design note:
half states and questions"); in short:

1. ``first_hit``: the first of an ordered list of cells holding the owner's pieces,
   and those pieces (R5.2.4: a Move stops there and takes them; Captured is public).
2. ``presence``: which of some cells hold the owner's pieces (R1.6 for a piece
   entering: transit steps, rises, landings, reinforcements).
3. ``detect``: detection by the asker's detectors and locks (R9.3-R9.7), the R9.4
   lock-on choices and releases, the fate of the pieces its R9.10 markers stand for;
   with it, the owner's part of the step's events as the asker may see them.
4. owner-answered effects on the owner's pieces: ``weapon`` (R6.5, R6.6, R6.7,
   R6.12), ``collide`` and ``collision_effects`` (R6.8.5), ``homing`` (R6.11),
   ``doze`` (R8.8.4-5), ``transport_phase`` (R8.4) and ``act`` (the acting piece's
   part of its owner's intent, as the other side needs it).

Each answer reveals what the rule's outcome reveals to the asker and nothing more;
what the owner's pieces went through that the asker may see arrives as *entries*
(``Shown``, ``Dropping``, ``Loss``, ``JudgePoint``) with the end-of-step detection
answer, each with a merge key so that both sides' entries interleave in rule order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side
from wec.engine.position import ActionCounts, Lock, Piece, Projectile
from wec.engine.values import fast_init

# ---------------------------------------------------------------- pieces in answers


@fast_init
@dataclass(frozen=True, slots=True)
class PieceInfo:
    """What an answer reveals of one unseen piece: no identity, only what rules use."""

    side: Side
    kind: PieceKind
    hand: Hand | None
    articles: tuple[ArticleKind, ...]
    ready: tuple[int, ...] = ()  # the articles' ready turns (R3.5); () = all ready

    @classmethod
    def of(cls, piece: Piece) -> PieceInfo:
        ready = piece.article_ready() if piece.ready else ()
        return cls(piece.side, piece.kind, piece.hand, piece.articles,
                   ready if any(ready) else ())

    def sort_key(self) -> tuple[str, str, str, tuple[str, ...]]:
        """Canonical order among the pieces of one cell (both sides must agree on it)."""
        return (self.side.value, self.kind.value, self.hand.value if self.hand else "",
                tuple(a.value for a in self.articles))


@fast_init
@dataclass(frozen=True, slots=True)
class FirstHit:
    """Answer to ``first_hit``: ``cells[index]`` holds these pieces of the owner."""

    index: int
    cell: int
    pieces: tuple[PieceInfo, ...]


# ---------------------------------------------------------------- report entries

# The merge key of an entry: (operation, slot, side rank, sequence). The asker numbers
# the operations of a step; a step function numbers its slots (cells, in rule order);
# Black's entries of a slot come before White's (the canonical piece order); the
# sequence keeps each side's own order.
Key = tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Shown:
    """An event the asker may see: public, or about pieces it saw at the start of the
    step and sees (or that left play) at its end (engine.censor's rules)."""

    key: Key
    event: object  # an engine.events Event
    subject: tuple[str, tuple[int, ...]] | None


@dataclass(frozen=True, slots=True)
class Dropping:
    """R3.4, R7.3: a piece's articles leave it, to be placed by R7.4 around ``sq`` in
    ``side``'s orientation (the asker places them: the ground is shared)."""

    key: Key
    sq: int
    side: Side
    articles: tuple[ArticleKind, ...]
    ready: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Loss:
    """R12.1: a primary government piece of ``side`` was lost, and how."""

    key: Key
    side: Side
    kind: PieceKind
    how: str


@dataclass(frozen=True, slots=True)
class JudgePoint:
    """R12.2: the game-end test runs here (after each transit step of a phase)."""

    key: Key


Entry = Shown | Dropping | Loss | JudgePoint


# ---------------------------------------------------------------- detection


@dataclass(frozen=True, slots=True)
class Sight:
    """The ``detect`` question: what the asker brings to seeing the owner's pieces.

    ``locks``: its locks (holder, its instance, target); ``acquiring``: its Anti-Stealth
    instances acquiring a lock, in order, as (holder pid, instance, holder's square)
    (R9.4(a, b)); ``stealth_reach`` and ``sub_reach``: bit masks of the squares its
    detectors reach (O18, O16); ``seen``: the owner's pieces it saw at the start of the
    step; ``asked``: the pieces its markers and locks stand for (R9.10, R9.4(c))."""

    locks: tuple[Lock, ...]
    acquiring: tuple[tuple[int, int, int], ...]
    stealth_reach: int
    sub_reach: int
    seen: tuple[int, ...]
    asked: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Detection:
    """The answer to ``detect``.

    ``seen``: every piece of the owner the asker sees now, in identifier order, with
    their hits this turn (R6.4.2) and, when the owner acts, which of them acted this
    turn (``acted``); ``released``: the locks (by index) whose target ended them
    (R9.4(c): destroyed, converted or no longer stealthy); ``acquired``: per acquiring
    instance, its target or None (R9.4(b)); ``in_play``: of ``Sight.asked`` and
    ``Sight.seen``, the pieces still the owner's and in play; ``entries``: the owner's
    part of the step (engine.questions entries); ``projectiles``: the projectiles after
    the owner's transport phase, when it ran one."""

    seen: tuple[Piece, ...]
    hits: tuple[tuple[int, ArticleKind, int], ...]
    acted: ActionCounts | None
    released: tuple[int, ...]
    acquired: tuple[int | None, ...]
    in_play: tuple[int, ...]
    entries: tuple[Entry, ...]
    projectiles: tuple[Projectile, ...] | None = None


# ---------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class WeaponStep:
    """A weapon's effect on the owner's pieces (R6.4): ``kind`` is ``area`` (Flame,
    R6.5.1; restricted rocket, R6.12.2: every piece in ``cells``), ``stun`` (R6.6.1:
    the first of ``cells`` holding any piece, the asker's own first being ``limit``) or
    ``convert`` (R6.7.1: the pieces of the side opposing ``firer`` in ``cells[0]``)."""

    kind: str
    weapon: ArticleKind
    strength: int
    cells: tuple[int, ...]
    firer: Side
    limit: int = 0


@dataclass(frozen=True, slots=True)
class WeaponAnswer:
    """``blocked``: for a stun whose asker has pieces in range, whether the owner's
    pieces stopped it before them; ``joined``: the owner's pieces a Conversion made the
    asker's (R6.7.2: with everything they have)."""

    blocked: bool | None = None
    joined: tuple[Piece, ...] = ()
    hits: tuple[tuple[int, ArticleKind, int], ...] = ()  # the joined pieces' (R6.4.2)


@dataclass(frozen=True, slots=True)
class HomingQuery:
    """A homing projectile (R6.11) whose target is the owner's piece ``target``:
    ``mode`` ``step`` asks where it steps from ``sq`` (R6.11.2), ``lock`` whether its
    lock holds at ``level`` (R6.11.3)."""

    mode: str
    target: int
    sq: int
    level: int
    owner: Side  # the projectile's side


@dataclass(frozen=True, slots=True)
class HomingAnswer:
    """``broken``: the lock broke (R6.11.3); ``dir``: the step toward the target's
    square (None: it stays on its course, the target sharing the projectile's square
    or out of play)."""

    broken: bool = False
    dir: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class DozeQuestion:
    """R8.8.4-5: the Doze of ``dozer_side``'s Dozer at ``sq`` with ``squares`` along
    ``dir``; ``asker_ground``: the asker's own Ground pieces at the squares the shift
    reads, per square as (count, whether one of them can coexist), so the owner can
    judge the shift on the truth."""

    sq: int
    squares: tuple[int, ...]
    dir: tuple[int, int]
    dozer_side: Side
    asker_ground: tuple[tuple[int, int, bool], ...]


@dataclass(frozen=True, slots=True)
class ActAnswer:
    """The acting piece's part of its owner's intent, as the other side needs it:
    ``stop`` and ``taken``: where a Move took the asker's pieces (Captured is public;
    None when it took none); ``strength``: a Fire's strength (R6.2, when the asker's
    pieces or a projectile show it); ``target``: a homing Fire's target (the asker's
    piece); ``ready``: the ready turn of a dropped article (R3.5, shown on the ground);
    ``taker``: the mover's kind when it took a primary government piece (R12.1: the
    game-end reason names it); ``shown``: a projectile Fire's firer (its identifier)
    when the asker sees it whatever its detectors (engine.visibility ``seen_whatever``):
    if the projectile hits nothing, the asker takes the firer's part of the Fire from
    the intent, and neither side asks ``detect`` (engine.half_resolution
    ``_Resolution._quiet_fire``)."""

    stop: int | None = None
    taken: tuple[PieceInfo, ...] = ()
    taker: PieceKind | None = None
    strength: int | None = None
    target: int | None = None
    ready: int | None = None
    shown: int | None = None


# ---------------------------------------------------------------- the protocols


class Asker(Protocol):
    """The side asking (``side``), and what the owner may ask back while it answers (its
    own rules need the asker's pieces there): the same questions, about the asker's
    pieces."""

    @property
    def side(self) -> Side: ...

    def presence(self, cells: Sequence[int]) -> frozenset[int]: ...

    def first_hit(self, cells: Sequence[int]) -> FirstHit | None: ...

    def ground(self, squares: Sequence[int]) -> tuple[tuple[int, int, bool], ...]: ...


class Conversation(Protocol):
    """The owner's side of one intent's resolution by the other side: the closed set of
    questions, asked in rule order (``op`` numbers the asker's operations of a step).
    A conversation may also offer ``expect(name, *args)``: the resolution's hint that
    question ``name(*args)`` is sure to follow the next one (net.fog_game sends both at
    once); it is optional and changes no answer."""

    def first_hit(self, op: int, cells: Sequence[int]) -> FirstHit | None: ...

    def presence(self, cells: Sequence[int]) -> frozenset[int]: ...

    def detect(self, sight: Sight) -> Detection: ...

    def weapon(self, op: int, step: WeaponStep) -> WeaponAnswer: ...

    def collide(self, op: int, projectiles: Sequence[Projectile]) -> frozenset[int]: ...

    def collision_effects(self, op: int, slot: int, cell: int) -> None: ...

    def homing(self, queries: Sequence[HomingQuery]) -> tuple[HomingAnswer, ...]: ...

    def doze(self, question: DozeQuestion) -> bool: ...

    def transport_phase(self, op: int, projectiles: Sequence[Projectile]) -> None: ...

    def act(self, need: str) -> ActAnswer: ...

    def new_turn(self, turn: int) -> None: ...

    def receive(self, pieces: Sequence[Piece],
                hits: Sequence[tuple[int, ArticleKind, int]] = ()) -> None: ...


class Referee(Protocol):
    """Answers for the pieces of the side the asker does not see: a Conversation per
    intent the asker resolves."""

    def converse(self, intent: object, asker: Asker) -> Conversation: ...
