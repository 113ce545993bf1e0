"""One side's pieces while an intent resolves on half states: the effects on them.

On half states (engine.half_resolution) each side is the authority on its own pieces:
a side resolving an intent computes what happens to its own pieces, and asks the other
side (engine.questions) what happens to the other side's. Both use the functions here,
on a ``SideWorking``: the pieces of one side, its locks and its hits this turn, with
the rules of engine.effects (hits and defence stacking, destruction, stun,
conversion, falls). Where a rule needs the other side's pieces (R1.6 for a piece
entering a cell, R5.2.4 for a Move, R8.8.4 for a Doze) it asks through ``enemy``.

What happens is recorded as *entries* (engine.questions): events with their subjects,
articles to drop (``Dropping``: the ground is shared, so the side merging both sides'
entries places them by R7.4, in rule order), primary pieces lost (``Loss``) and
game-end test points (``JudgePoint``). Each entry has a merge key (operation, slot,
side, sequence) so that the entries of both sides interleave in the order the rules
resolve them on the full state (engine.effects).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass
from operator import attrgetter
from typing import Any, TypeVar

from wec.engine import board
from wec.engine.article_actions import resolve_drop, resolve_exchange, resolve_pickup
from wec.engine.board import GROUND
from wec.engine.budget import spend, transited
from wec.engine.dozing import MAX_DOZED, plan_doze
from wec.engine.effects import PROJECTILE_WEAPON, Pieces, Working, projectile_order
from wec.engine.events import (
    Captured,
    Dozed,
    DozeFoiled,
    Dropped,
    Exchanged,
    Fired,
    HomingBroken,
    Moved,
    PickedUp,
    ProjectileRemoved,
    Reinforced,
    ReinforceFoiled,
)
from wec.engine.fire import RATE, TRANSPORTS, FirePlan, _start_transport, plan_fire
from wec.engine.formats import piece_order_key
from wec.engine.intents import (
    UNSEEN_SQUARE,
    Doze,
    Drop,
    Exchange,
    Fire,
    Intent,
    Move,
    PickUp,
    Reinforce,
)
from wec.engine.movement import Plan, _moved, plan_move
from wec.engine.options import Options
from wec.engine.outcome import ACTOR, FIRED, MOVED, Subject, about
from wec.engine.pieces import TRAITS, ArticleKind, PieceKind, Side, may_share
from wec.engine.position import (
    ActionCounts,
    Lock,
    Piece,
    Position,
    Projectile,
    Reveal,
    normal_ready,
)
from wec.engine.questions import (
    Dropping,
    Entry,
    FirstHit,
    JudgePoint,
    Key,
    Loss,
    PieceInfo,
    Shown,
)
from wec.engine.reinforcement import resolve_reinforce
from wec.engine.transit_schedule import Travel, questions_per_step
from wec.engine.transport import advance
from wec.engine.visibility import detects, may_hide, reaches

A = ArticleKind

# Where another side's pieces stand: the subset of the cells holding any.
Presence = Callable[[Sequence[int]], frozenset[int]]
_PID = attrgetter("pid")


class EntryLog:
    """A SideWorking's entries in order, each with its merge key: the operation and slot
    set by the step being resolved (``at``), the side's rank (Black's entries of one
    slot first: the canonical piece order) and a sequence within the operation and
    slot. (A sequence running over the whole log told the other side, in the keys of
    the entries it is shown, how many entries of hidden pieces came before: issue 21.)"""

    __slots__ = ("entries", "op", "orders", "pieces", "rank", "seqs", "slot", "subjects")

    def __init__(self, side: Side, pieces: Pieces | None = None) -> None:
        self.entries: list[Entry] = []
        self.op = 0
        self.slot = 0
        self.rank = 0 if side is Side.BLACK else 1
        self.seqs: dict[tuple[int, int], int] = {}
        # the canonical order key (engine.formats.piece_order_key) of each piece entry's
        # first piece when it was logged: the order of the pieces' blocks within one
        # slot, which the other side can tell from the pieces it sees (the private
        # detection orders the entries it shows by it: engine.detection_parts)
        self.pieces = pieces
        self.orders: dict[Key, tuple[Any, ...]] = {}

    def at(self, op: int, slot: int) -> None:
        self.op, self.slot = op, slot

    def key(self) -> Key:
        where = (self.op, self.slot)
        seq = self.seqs[where] = self.seqs.get(where, 0) + 1
        return (self.op, self.slot, self.rank, seq)

    # the EventLog interface that engine.effects, engine.fire and engine.transport use

    def emit(self, event: object, subject: Subject = None) -> None:
        key = self.key()
        if subject is not None and subject[1] and self.pieces is not None:
            piece = self.pieces.get(subject[1][0])
            if piece is not None:
                self.orders[key] = (*piece_order_key(piece), piece.pid)
        self.entries.append(Shown(key, event, subject))

    def emit_public(self, events: Sequence[object]) -> None:
        for event in events:
            self.emit(event)

    def drop(self, sq: int, side: Side, articles: tuple[ArticleKind, ...],
             ready: tuple[int, ...]) -> None:
        self.entries.append(Dropping(self.key(), sq, side, articles, ready))

    def lose(self, side: Side, kind: PieceKind, how: str) -> None:
        self.entries.append(Loss(self.key(), side, kind, how))

    def judge(self) -> None:
        self.entries.append(JudgePoint(self.key()))

    def take(self) -> list[Entry]:
        """The entries so far, leaving the log empty."""
        out, self.entries = self.entries, []
        return out


class SideWorking(Working):
    """The pieces of one side (and those converted away from it in the step being
    resolved), its locks and its hits this turn, while an intent resolves on half
    states; the rules of engine.effects act on them. ``enemy`` says which cells hold
    the other side's pieces (asked of that side)."""

    def __init__(self, side: Side, pieces: dict[int, Piece], locks: Sequence[Lock],
                 hits: Sequence[tuple[int, ArticleKind, int]], turn: int, options: Options,
                 enemy: Presence) -> None:
        # engine.effects.Working without a position: no ground (articles are dropped
        # through entries), no projectiles (the merging side keeps them)
        self.side = side
        self.turn = turn
        self.options = options
        self.pieces = Pieces(pieces)
        self.locks = list(locks)
        self.projectiles = []
        self.hits = {(pid, weapon): n for pid, weapon, n in hits} if hits else {}
        self.log = EntryLog(side, self.pieces)
        self.events = self.log  # type: ignore[assignment]  # the EventLog interface
        self.lost = []
        self.acquiring = []
        self.doomed = set()
        self.enemy = enemy
        self.asked = 0  # presence questions asked (a transit step asks a fixed number)
        self.members = set(self.pieces)  # every piece this side had in the intent so far
        self._own: tuple[int, list[Piece]] | None = None  # own(), by pieces.version
        self._reach: tuple[int, tuple[int, int]] | None = None  # reach(), by version
        self._hideable: tuple[int, list[Piece]] | None = None  # hideable(), by version
        self._base_reach: tuple[int, int] | None = None  # at version 0 (start_from)
        self._base_hideable: list[Piece] | None = None
        self._in_order = True  # the pieces dict is in identifier order

    def add(self, piece: Piece) -> None:
        """A piece joins the side (a reinforcement, R10.3; a conversion, R6.7.2)."""
        if self.pieces and piece.pid < max(self.pieces):
            self._in_order = False
        self.pieces[piece.pid] = piece
        self.members.add(piece.pid)

    def accepts(self, piece: Piece, cell: int) -> bool:
        """R1.6 and R5.1.4 for ``piece`` (of this side) entering ``cell``: the other side
        is asked whether it holds the cell whatever this side's own pieces there say
        (issue 21: the other side receives the question, so whether it comes must not
        tell that an own hidden piece blocked the way; where own pieces stand, R1.6(b)
        leaves the answer known: no enemy)."""
        self.asked += 1
        free = cell not in self.enemy((cell,))
        here = [p for p in self.at(cell) if p.pid != piece.pid]
        if any(p.side is not piece.side for p in here):
            return False
        coexists = TRAITS[piece.kind].coexists or any(TRAITS[p.kind].coexists for p in here)
        return may_share(len(here) + 1, coexists) and free

    def ask_known(self, cell: int) -> None:
        """A presence question whose answer this side knows (``cell`` holds its own
        piece, or its piece just entered it: R1.6(b), no enemy there), asked so that a
        transit step asks as many questions as any other (engine.transit_schedule)."""
        self.asked += 1
        self.enemy((cell,))

    def _drop_all(self, piece: Piece) -> None:
        if piece.articles:
            self.log.drop(piece.sq, piece.side, piece.articles,
                          piece.article_ready() if piece.ready else ())

    def _lose(self, side: Side, kind: PieceKind, how: str) -> None:
        self.log.lose(side, kind, how)

    def own(self) -> list[Piece]:
        """The side's pieces in play (those converted away left out), in identifier order
        (do not change the list)."""
        cached = self._own
        version = self.pieces.version
        if cached is not None and cached[0] == version:
            return cached[1]
        side = self.side
        own = [p for p in self.pieces.values() if p.side is side]
        if not self._in_order:
            own.sort(key=_PID)
        self._own = (version, own)
        return own

    def reach(self) -> tuple[int, int]:
        """What the side's pieces bring to detection (engine.visibility ``reaches``),
        computed anew only when a detecting piece came, went or changed."""
        cached = self._reach
        version = self.pieces.version
        if cached is not None and cached[0] == version:
            return cached[1]
        if cached is not None and self._base_reach is not None:
            pieces, options = self.pieces, self.options
            if not any(detects(old, options) or detects(pieces.get(pid), options)
                       for pid, old in pieces.original.items()):
                self._reach = (version, self._base_reach)
                return self._base_reach
        reach = reaches(self.own(), self.options)
        self._reach = (version, reach)
        return reach

    def hideable(self) -> list[Piece]:
        """The side's pieces that can be hidden from the other side at all (engine.
        visibility ``may_hide``): only they are judged. Kept up to date from those the
        side started with, as pieces change."""
        cached = self._hideable
        version = self.pieces.version
        if cached is not None and cached[0] == version:
            return cached[1]
        side, options, pieces = self.side, self.options, self.pieces
        base = self._base_hideable
        if base is None:
            found = [p for p in self.own() if may_hide(p, options)]
        else:
            changed = pieces.original
            found = [p for p in base if p.pid not in changed]
            for pid in changed:
                p = pieces.get(pid)
                if p is not None and p.side is side and may_hide(p, options):
                    found.append(p)
            if changed:
                found.sort(key=_PID)
        self._hideable = (version, found)
        return found

    def start_from(self, half: Position) -> None:
        """Take what ``half`` (this side's half state, the pieces came from) has derived
        already: the reach and the hideable pieces of its own pieces."""
        found = own_detection(half)
        self._reach = (0, found[0])
        self._hideable = (0, found[1])
        self._base_reach, self._base_hideable = found

    def hits_now(self) -> tuple[tuple[int, ArticleKind, int], ...]:
        """R6.4.2: the hits this turn of the side's pieces in play, sorted."""
        if not self.hits:
            return ()
        pieces = self.pieces
        return tuple(sorted(((pid, weapon, n) for (pid, weapon), n in self.hits.items()
                             if pid in pieces and pieces[pid].side is self.side),
                            key=lambda h: (h[0], h[1].value)))

    def away(self) -> list[Piece]:
        """The pieces a Conversion made the other side's (R6.7.2), taken out."""
        gone = [p for p in self.pieces.values() if p.side is not self.side]
        for p in gone:
            del self.pieces[p.pid]
        return sorted(gone, key=lambda p: p.pid)

    def hits_of(self, pids: Container[int]) -> tuple[tuple[int, ArticleKind, int], ...]:
        if not self.hits:
            return ()
        wanted = pids
        return tuple(sorted(((pid, weapon, n) for (pid, weapon), n in self.hits.items()
                             if pid in wanted), key=lambda h: (h[0], h[1].value)))

    def in_transit(self) -> bool:
        """Whether a piece of the side is in transit (R8.1-R8.3)."""
        return any(p.transit is not None for p in self.own())

    def first_at(self, cells: Sequence[int]) -> int | None:
        """The index of the first of ``cells`` holding pieces of this Working."""
        occupied = {p.sq * 3 + p.level for p in self.pieces.values()}
        for i, c in enumerate(cells):
            if c in occupied:
                return i
        return None

    def clear_reveals(self) -> None:
        """D-36: a reveal ends once its piece changes square or level (only a piece that
        changed may hold one that ended: the pieces came from a settled half state)."""
        pieces = self.pieces
        for pid in list(pieces.original):
            p = pieces.get(pid)
            if p is not None and p.revealed is not None and p.revealed.cell != p.sq * 3 + p.level:
                pieces[pid] = p.but(revealed=None)


def split_half(half: Position) -> tuple[dict[int, Piece], dict[int, Piece],
                                        tuple[tuple[int, ArticleKind, int], ...],
                                        tuple[tuple[int, ArticleKind, int], ...]]:
    """A half state's own pieces and the enemy pieces it sees (each by pid, in identifier
    order), and their hits this turn (remembered by the half state; do not change them)."""
    side = half.viewer
    assert side is not None
    found = half.derived.split.get(side)
    if found is None:
        own = {p.pid: p for p in half.pieces if p.side is side}
        seen = {p.pid: p for p in half.pieces if p.side is not side}
        hits = half.hits
        own_hits = tuple(h for h in hits if h[0] not in seen) if seen else hits
        seen_hits = tuple(h for h in hits if h[0] in seen) if hits else ()
        found = half.derived.split[side] = (own, seen, own_hits, seen_hits)
    return found


def own_detection(half: Position) -> tuple[tuple[int, int], list[Piece]]:
    """What a half state's own pieces bring to detection (engine.visibility ``reaches``)
    and those of them that can be hidden at all (``may_hide``), remembered by the half
    state (do not change the list)."""
    side = half.viewer
    assert side is not None
    found = half.derived.detection.get(side)
    if found is None:
        own, options = list(split_half(half)[0].values()), half.options
        found = half.derived.mine("detection")[side] = (
            reaches(own, options), [p for p in own if may_hide(p, options)])
    return found


# ---------------------------------------------------------------- weapons (R6)

def flame_cells(frm: int, d: tuple[int, int], reach: int) -> tuple[int, ...]:
    """R6.5.1, R6.6.1: the cells along ``d`` from the firer's cell ``frm``, at its level,
    squares 1..``reach`` that lie on the board."""
    level = frm % 3
    cells = []
    for k in range(1, reach + 1):
        sq = board.offset(frm // 3, d, k)
        if sq is None:
            break
        cells.append(sq * 3 + level)
    return tuple(cells)


def area_hits(w: SideWorking, op: int, weapon: ArticleKind, n: int,
              cells: Sequence[int]) -> None:
    """R6.5.1 (Flame), R6.12.2 (restricted rocket): every piece of ``w`` in ``cells``
    receives ``n`` hits, cell by cell (R6.4)."""
    for slot, cell in enumerate(cells):
        w.log.at(op, slot)
        for p in w.at(cell):
            current = w.pieces.get(p.pid)
            if current is not None:
                w.hit(current, weapon, n)


def stun_first(w: SideWorking, op: int, n: int, cells: Sequence[int], limit: int) -> int | None:
    """R6.6.1: the Stunner hits the first of ``cells`` holding any piece. ``w``'s first
    occupied cell, if it is not after ``limit`` (the other side's first), receives ``n``
    Stunner hits; its index either way (None: none in range)."""
    first = w.first_at(cells)
    if first is not None and first <= limit:
        w.log.at(op, first)
        for p in w.at(cells[first]):
            current = w.pieces.get(p.pid)
            if current is not None:
                w.hit(current, A.STUNNER, n)
    return first


def convert_at(w: SideWorking, op: int, n: int, cell: int, firer: Side) -> list[Piece]:
    """R6.7.1: the pieces of ``w`` opposing ``firer`` at ``cell`` receive ``n`` Conversion
    hits; those converted (R6.7.2) leave ``w`` and are returned (pid order)."""
    w.log.at(op, 0)
    for p in w.at(cell):
        current = w.pieces.get(p.pid)
        if current is not None and current.side is not firer:
            w.hit(current, A.CONVERSION, n)
    return w.away()


# ---------------------------------------------------------------- projectiles (R6.8, R6.11)

def collision_slot(cell: int, rank: int, hits: bool) -> int:
    """The slot of a projectile arriving at ``cell`` (its rank among the cell's
    projectiles, canonical order): its removal, then its hits (R6.8.5)."""
    return (cell * 64 + rank * 2) + (1 if hits else 0)


def arrivals(projectiles: Sequence[Projectile], cells: frozenset[int] | set[int]
             ) -> list[Projectile]:
    """The projectiles at ``cells``, in canonical order (engine.effects)."""
    return sorted((p for p in projectiles if p.sq * 3 + p.level in cells),
                  key=projectile_order)


def collision_hits(w: SideWorking, op: int, projectiles: Sequence[Projectile]
                   ) -> tuple[frozenset[int], dict[int, tuple[Piece, ArticleKind]]]:
    """R6.8.5, first half: every projectile at a cell holding pieces of ``w`` delivers
    its hits to all of them (hits of several projectiles adding up, R6.4). The cells
    ``w`` occupies among the projectiles' cells, and the pieces whose hits overcame
    their defences (taking effect in ``collision_effects``), in order."""
    cells = {p.sq * 3 + p.level for p in projectiles}
    occupied = frozenset(c for c in {p.sq * 3 + p.level for p in w.pieces.values()}
                         if c in cells)
    overcome: dict[int, tuple[Piece, ArticleKind]] = {}
    if not occupied:
        return occupied, overcome
    arriving = arrivals(projectiles, occupied)
    for cell in sorted(occupied):
        here = w.at(cell)
        rank = 0
        for proj in arriving:
            if proj.sq * 3 + proj.level != cell:
                continue
            w.log.at(op, collision_slot(cell, rank, True))
            rank += 1
            weapon = PROJECTILE_WEAPON[proj.kind]
            for piece in here:
                if w.receive(piece, weapon, proj.strength):
                    overcome[piece.pid] = (piece, weapon)
    return occupied, overcome


def collision_effects(w: SideWorking, op: int, slot: int, cell: int,
                      overcome: dict[int, tuple[Piece, ArticleKind]]) -> None:
    """R6.8.5, second half, at one cell: the hits that overcame take effect, in the
    order they overcame; none of the doomed pieces (``w.doomed``) falls when its
    carrier goes first."""
    w.log.at(op, slot)
    for piece, weapon in overcome.values():
        if piece.sq * 3 + piece.level == cell and piece.pid in w.pieces:
            w.take_effect(w.pieces[piece.pid], weapon)


def homing_step(target: Piece | None, sq: int) -> tuple[int, int] | None:
    """R6.11.2: the step toward the target's square (None: out of play, or in the
    projectile's square: the projectile keeps its course)."""
    if target is None or target.sq == sq:
        return None
    return board.sign_step(sq, target.sq)


def homing_broken(target: Piece | None, level: int, owner: Side) -> bool:
    """R6.11.3: the lock breaks when the target left the projectile's level, left play
    or joined the projectile owner's side."""
    return target is None or target.level != level or target.side is owner


def settle_own(w: SideWorking, op: int, projectiles: list[Projectile]) -> int:
    """The settling (engine.effects ``Working.settle``) of a step that moved only this
    side's pieces (a transit step): homing locks on them break, and projectiles they
    reached hit them, until nothing changes. The other side's pieces are where they
    were, their projectiles' locks and collisions as they were. Returns the next free
    operation number."""
    while True:
        w.log.at(op, 0)
        for i, proj in enumerate(projectiles):
            if proj.target is None or proj.target not in w.members:
                continue  # a target of the other side: where it was, its lock as it was
            target = w.pieces.get(proj.target)
            if homing_broken(target, proj.level, proj.side):
                projectiles[i] = Projectile(proj.kind, proj.side, proj.sq, proj.strength,
                                            proj.dir)
                w.log.emit(HomingBroken(proj.kind, proj.side, proj.sq, proj.dir))
        occupied, overcome = collision_hits(w, op + 1, projectiles)
        if not occupied:
            return op + 1
        for cell in sorted(occupied):
            for rank, proj in enumerate(p for p in arrivals(projectiles, {cell})):
                w.log.at(op + 1, collision_slot(cell, rank, False))
                w.log.emit(ProjectileRemoved(proj.kind, proj.side, proj.sq, "hit"))
        projectiles[:] = [p for p in projectiles if p.sq * 3 + p.level not in occupied]
        w.doomed = set(overcome)
        for cell in sorted(occupied):
            collision_effects(w, op + 2, cell, cell, overcome)
        w.doomed = set()
        op += 3


def transit_phase(w: SideWorking, op: int, projectiles: list[Projectile],
                  travels: Sequence[Travel] = ()) -> tuple[int, list[int]]:
    """R4.2(3), R8.4: every piece of ``w`` (the side to act) in transit advances one
    step, each step settled and judged (R12.2) before the next (engine.transport); the
    pieces that advanced, and the next free operation number. The game ends at the
    first step that lost a primary piece (only this side's pieces move, so only it can
    lose one: the acting side loses, R12.2).

    ``travels``: the side's schedule (engine.transit_schedule). A scheduled travel whose
    piece is no longer in transit takes a phantom step (its questions, its operation
    numbers, nothing moves), and every step asks the questions its travel's kind does,
    so that the other side, which receives them, counts what the Fires showed it."""
    moved: list[int] = []
    due = {t.pid: t for t in travels if t.steps > 0}
    travellers = sorted({p.pid for p in w.own() if p.transit is not None} | set(due))
    for pid in travellers:
        piece = w.pieces.get(pid)
        real = piece is not None and piece.transit is not None and piece.side is w.side
        if not real and pid not in due:
            continue  # destroyed, stopped or converted by an earlier step
        w.log.at(op, 0)
        before = len(w.log.entries)
        asked = w.asked
        # the questions of the travel's kind (a traveller its Fire did not announce: of
        # its level)
        lands = due[pid].lands if pid in due else piece is not None and piece.level is not GROUND
        if real:
            assert piece is not None
            if advance(w, piece):
                moved.append(pid)
            piece = w.pieces.get(pid)
        _pad_questions(w, questions_per_step(lands) - (w.asked - asked), piece)
        op = settle_own(w, op + 1, projectiles)
        w.log.at(op, 0)
        w.log.judge()
        op += 1
        if any(isinstance(e, Loss) for e in w.log.entries[before:]):
            break
    return op, moved


def _pad_questions(w: SideWorking, count: int, piece: Piece | None) -> None:
    """``count`` presence questions whose answers ``w``'s side knows: about the cell of
    ``piece`` (the traveller, where it stands) or, gone, of the side's first piece."""
    if count <= 0:
        return
    own = w.own()
    if piece is None or piece.side is not w.side or piece.pid not in w.pieces:
        if not own:
            return
        piece = own[0]
    for _ in range(count):
        w.ask_known(piece.cell)


# ---------------------------------------------------------------- Doze (R8.8)

def ground_summary(w: SideWorking, squares: Sequence[int]) -> tuple[tuple[int, int, bool], ...]:
    """Per square, ``w``'s pieces at Ground there: (square, how many, whether one of them
    can coexist), for squares holding any."""
    return _summary(w.pieces.values(), squares)


def side_ground_summary(position: Position, side: Side, squares: Sequence[int]
                        ) -> tuple[tuple[int, int, bool], ...]:
    """``ground_summary`` of ``side``'s pieces in ``position`` (the end-of-game audit
    judges a Doze on the revealed truth with it)."""
    return _summary([p for p in position.pieces if p.side is side], squares)


def _summary(pieces: Iterable[Piece], squares: Sequence[int]
             ) -> tuple[tuple[int, int, bool], ...]:
    ground = [p for p in pieces if p.level is GROUND]
    out = []
    for sq in squares:
        here = [p for p in ground if p.sq == sq]
        if here:
            out.append((sq, len(here), any(TRAITS[p.kind].coexists for p in here)))
    return tuple(out)


def doze_squares(intent: Doze) -> tuple[int, ...]:
    """The squares a Doze reads (R8.8.4): the Dozer's, the selected ones and their
    destinations, sorted."""
    moving = (*_dozer_square(intent), *intent.squares)
    dests = [board.offset(sq, intent.dir) for sq in moving]
    return tuple(sorted({*moving, *(d for d in dests if d is not None)}))


def judge_doze(intent: Doze, dozer_side: Side, options: Options, mine: Side, own: Summary,
               other: Summary) -> bool:
    """``doze_foiled`` from the Ground summaries of side ``mine`` and of the other side."""
    return doze_foiled(intent, dozer_side, options,
                       {mine: {sq: (n, x) for sq, n, x in own},
                        mine.other: {sq: (n, x) for sq, n, x in other}})


def doze_foiled(intent: Doze, dozer_side: Side, options: Options,
                ground: dict[Side, dict[int, tuple[int, bool]]]) -> bool:
    """R8.8.2, R8.8.4, R8.8.5 (D-33) on the truth: whether the Doze, legal on what its side
    knows, is foiled by pieces hidden from it. ``ground[side][sq]`` is the number of
    ``side``'s pieces at Ground of ``sq`` and whether one of them can coexist, for the
    squares ``doze_squares`` lists."""
    def at(side: Side, sq: int) -> tuple[int, bool]:
        return ground[side].get(sq, (0, False))

    if doze_overfull(sum(at(side, sq)[0] for side in Side for sq in intent.squares)):
        return True
    if not options.enemy_dozing and any(sq in ground[dozer_side.other] for sq in intent.squares):
        return True
    for origin, dest, dest_moves in doze_shifts(intent):
        if dest is None:
            return True
        staying = () if dest_moves else tuple((side, *at(side, dest)) for side in Side)
        if shift_blocked(tuple((side, *at(side, origin)) for side in Side), staying):
            return True
    return False


def doze_overfull(dozed: int) -> bool:
    """R8.8.2: more than ``MAX_DOZED`` pieces (both sides') on the selected squares."""
    return dozed > MAX_DOZED


def _dozer_square(intent: Doze) -> tuple[int, ...]:
    """The Dozer's square as a Doze's form shows it: none when the side reading the form
    does not see the Dozer and its coincident (``UNSEEN_SQUARE``, R9.1); the squares
    that side reads are then the selected ones and their destinations only."""
    return () if intent.sq == UNSEEN_SQUARE else (intent.sq,)


def doze_shifts(intent: Doze) -> tuple[tuple[int, int | None, bool], ...]:
    """R8.8.3: each moving square (the Dozer's and the selected ones, in order), where
    its pieces go (None: off the board) and whether that square moves too (vacated: it
    receives only the arrivals). A shift is a translation, so each destination has one
    origin and R8.8.4 judges every destination on its own."""
    moving = {*_dozer_square(intent), *intent.squares}
    out = []
    for sq in sorted(moving):
        dest = board.offset(sq, intent.dir)
        out.append((sq, dest, dest in moving))
    return tuple(out)


def shift_blocked(arriving: Sequence[tuple[Side, int, bool]],
                  staying: Sequence[tuple[Side, int, bool]]) -> bool:
    """R8.8.4 at one destination: the pieces arriving from its origin and those staying
    there (per side: how many, whether one can coexist) break R1.6 (one side, capacity
    2, coexistence); nothing arriving, nothing to judge."""
    if not any(count for _, count, _ in arriving):
        return False
    together = [t for t in (*arriving, *staying) if t[1]]
    if len({side for side, _, _ in together}) > 1:
        return True
    return not may_share(sum(c for _, c, _ in together), any(x for _, _, x in together))


# A Doze's entries are slotted by the dozed piece's identifier, after the acting piece's
# slots of its operation (0-2): one group per piece, so that an entry's key says nothing
# of the pieces beside it (a piece's rank among its square's would tell the other side
# of a hidden piece there).
DOZED_SLOTS = 3


def shove(w: SideWorking, intent: Doze, movers: Sequence[Piece], actor: Side) -> None:
    """R8.8.3: the movers of ``w`` each move one square along the Doze's direction
    (``actor``'s). Each piece is logged as a ``Dozed`` of its own, slotted by its
    identifier: its entry reaches the other side like any entry about the piece (shown
    when that side sees it before and after, even through a lock or a detection the
    acting side does not know of), and engine.half_resolution merges the step's entries
    into the one ``Dozed`` of the full state (engine.dozing: in identifier order)."""
    for p in sorted(movers, key=attrgetter("pid")):
        dest = board.offset(p.sq, intent.dir)
        assert dest is not None
        w.log.at(0, DOZED_SLOTS + p.pid)
        w.log.emit(Dozed(actor, intent.dir, ((p.side, p.kind, p.cell, dest * 3 + GROUND),)),
                   about(p.pid))
        w.pieces[p.pid] = w.pieces[p.pid].but(sq=dest, moved=True)


def dozed_movers(w: SideWorking, intent: Doze, dozer: Piece | None = None,
                 coincident: Piece | None = None) -> list[Piece]:
    """``w``'s pieces a Doze moves: its Dozer and coincident (given for the dozing side),
    then every Ground piece of the selected squares (R8.8.1-R8.8.3), square by square,
    in identifier order."""
    movers = [p for p in (dozer, coincident) if p is not None]
    for sq in intent.squares:
        movers.extend(sorted((p for p in w.pieces.values() if p.sq == sq and p.level is GROUND),
                             key=lambda p: p.pid))
    return movers


# ---------------------------------------------------------------- the acting side's part

@dataclass(slots=True)
class Acted:
    """What the acting side's part of an intent found out (``act``)."""

    intent: Intent
    actions: ActionCounts
    plan: Plan | FirePlan | None = None
    stop: int | None = None
    taken: tuple[PieceInfo, ...] = ()
    strength: int = 0
    target: int | None = None
    ready: int | None = None
    ground: tuple[tuple[tuple[ArticleKind, ...], ...], tuple[tuple[int, ...], ...]] | None = None
    foiled: bool = False
    entered: Piece | None = None
    acquiring: tuple[tuple[int, int], ...] = ()


Summary = tuple[tuple[int, int, bool], ...]  # ground_summary's answer


def act(w: SideWorking, half: Position, intent: Intent,
        first_hit: Callable[[Sequence[int]], FirstHit | None],
        doze_judge: Callable[[Doze, Summary], bool]) -> Acted:
    """The acting side's part of ``intent`` (op 0) on its own pieces ``w``, legal on what
    it knows (``half``, the acting side's half state before the intent; IllegalIntent
    otherwise): the Move and what it took (R5), the firer and what it launched or set
    off (R6.2, R6.3, R8.1-R8.3, R9.8), the article actions (R4.7-R4.9), the
    reinforcement (R10) and the Dozer's group (R8.8). The effects on the other side's
    pieces are the other side's to resolve."""
    w.log.at(0, 0)
    if isinstance(intent, Move):
        return _act_move(w, half, intent, first_hit)
    if isinstance(intent, Fire):
        return _act_fire(w, half, intent)
    if isinstance(intent, Doze):
        return _act_doze(w, half, intent, doze_judge)
    if isinstance(intent, Reinforce):
        return _act_reinforce(w, half, intent)
    if isinstance(intent, PickUp | Drop | Exchange):
        return _act_articles(w, half, intent)
    raise TypeError(f"not an intent of a piece: {intent!r}")


T = TypeVar("T")
N = TypeVar("N")


def planned(half: Position, intent: N, check: Callable[[Position, N], T]) -> T:
    """``check(half, intent)`` (the acting side's legality and plan on its own half
    state, which nothing else decides), remembered by the half state: both the acting
    side and, answering the other side, its referee need it (and the side that does not
    act, for a firer it sees whole: engine.half_resolution ``_firer_shown``)."""
    plans = half.derived.plans
    found = plans.get(intent)
    if found is None:
        found = plans[intent] = check(half, intent)
    return found  # type: ignore[return-value]


def _act_move(w: SideWorking, half: Position, move: Move,
              first_hit: Callable[[Sequence[int]], FirstHit | None]) -> Acted:
    """R5.2.4: the mover (and its passenger, R8.7) stop at the first cell of the route
    holding the other side's pieces and take them (R5.1.3), or reach the destination;
    a stealthy mover that took is capture-revealed (R9.8)."""
    plan = planned(half, move, plan_move)
    piece, passenger, route = plan
    hit = first_hit((*route.path, route.dest))
    stop = hit.cell if hit is not None else route.dest
    taken = hit.pieces if hit is not None else ()
    side = piece.side
    subject = (piece.pid,) if passenger is None else (piece.pid, passenger.pid)
    w.log.emit(Moved(side, piece.kind, piece.hand, piece.cell, stop, route.dest,
                     passenger.kind if passenger else None), (MOVED, subject))
    stop_sq, stop_level = board.cell_square(stop), board.cell_level(stop)
    reveal = (Reveal("capture", stop) if taken and half.options.reveal_on_capture
              and piece.is_stealthy(half.options) else None)
    for p in (piece, passenger):
        if p is not None:
            w.pieces[p.pid] = _moved(w.pieces[p.pid], stop_sq, stop_level,
                                     reveal if p is piece else None)
    w.log.at(0, 1)
    if taken:
        w.log.emit(Captured(stop, taken))
        for info in taken:  # R3.4: a destroyed piece's articles drop by R7.4
            w.log.drop(stop_sq, info.side, info.articles, info.ready)
    return Acted(move, spend(half.actions, "move", piece), plan, stop=stop, taken=taken)


def _act_fire(w: SideWorking, half: Position, intent: Fire) -> Acted:
    """R6.2, R6.3, R9.8, R8.1-R8.3: the firer's instances fire (or its transport article
    sets it off); the weapon's effects are resolved by each side on its own pieces."""
    plan = planned(half, intent, plan_fire)
    piece = w.pieces[plan.piece.pid]
    actions = spend(half.actions, "fire", piece)
    if half.options.reveal_on_fire:  # R9.8: firing anything reveals the firer
        piece = piece.but(revealed=Reveal("fire", piece.cell))
        w.pieces[piece.pid] = piece
    if plan.weapon in TRANSPORTS:
        w.log.emit(Fired(piece.side, piece.kind, piece.cell, plan.weapon, 1, dest=plan.dest,
                         path=plan.path), (FIRED, (piece.pid,)))
        w.log.at(0, 1)
        if _start_transport(w, piece, plan):
            actions = transited(actions, piece.pid)
        return Acted(intent, actions, plan, strength=1)
    ready = list(piece.ready or (0,) * len(piece.abilities()))
    next_ready = half.turn + 2 * half.options.rate(RATE[plan.weapon])  # R6.3.2
    for i in plan.instances:
        ready[i] = next_ready
    w.pieces[piece.pid] = piece.but(ready=normal_ready(tuple(ready)))
    n = len(plan.instances)
    target = plan.target
    w.log.emit(Fired(piece.side, piece.kind, piece.cell, plan.weapon, n, dir=plan.dir,
                     target=target.cell if target else None), (FIRED, (piece.pid,)))
    return Acted(intent, actions, plan, strength=n,
                 target=target.pid if target is not None else None)


def _act_doze(w: SideWorking, half: Position, intent: Doze,
              judge: Callable[[Doze, Summary], bool]) -> Acted:
    """R8.8: the Doze, legal on what the side knows, judged on the truth by ``judge`` from
    this side's Ground pieces (``ground_summary``) and the other side's, and the side's
    own movers shoved."""
    dozer, coincident = planned(half, intent, plan_doze)
    actions = spend(half.actions, "move", dozer)
    foiled = judge(intent, ground_summary(w, doze_squares(intent)))
    movers = dozed_movers(w, intent, dozer, coincident)
    if foiled:  # R8.8.5, D-33: nothing moves, the Move is spent
        w.log.emit(DozeFoiled(dozer.side, intent.sq), about(dozer.pid))
    else:
        shove(w, intent, movers, dozer.side)
    return Acted(intent, actions, foiled=foiled)


def _act_reinforce(w: SideWorking, half: Position, intent: Reinforce) -> Acted:
    """R10.3, R10.6: the reinforcement enters unless the other side's pieces stand on
    its square (R4.13, D-12: foiled, the action spent)."""
    after, _ = resolve_reinforce(half, intent, lambda cell: cell in w.enemy((cell,)))
    if len(after.pieces) == len(half.pieces):
        w.log.emit(ReinforceFoiled(half.side_to_act, intent.sq), (ACTOR, ()))
        return Acted(intent, after.actions, foiled=True)
    entered = after.pieces[-1].but(hidden=False)
    w.add(entered)
    w.log.emit(Reinforced(entered.side, entered.kind, entered.hand, intent.sq),
               about(entered.pid))
    return Acted(intent, after.actions, entered=entered, acquiring=after.acquiring)


def _act_articles(w: SideWorking, half: Position, intent: PickUp | Drop | Exchange) -> Acted:
    """R4.7-R4.9: the pieces that pick up, drop or exchange, and the ground (R3.5)."""
    if isinstance(intent, PickUp):
        after, events = planned(half, intent, resolve_pickup)
    elif isinstance(intent, Drop):
        after, events = planned(half, intent, resolve_drop)
    else:
        after, events = planned(half, intent, resolve_exchange)
    changed = {p.pid: p for p in after.pieces if p.side is w.side}
    for p in half.pieces:
        if p.side is w.side and changed[p.pid] is not p:
            w.pieces[p.pid] = changed[p.pid]
    w.locks = [lk for lk in after.locks if lk.holder in w.pieces]
    actors = after.actions.actors
    for event in events:
        if isinstance(event, PickedUp | Dropped):
            w.log.emit(event, about(actors[-1]))
        elif isinstance(event, Exchanged):
            w.log.emit(event, about(*actors[-2:]))
    ready = None
    if isinstance(intent, Drop):
        sq = board.cell_square(intent.frm)
        ready = after.ground_ready[sq][-1] if after.ground_ready else 0
    return Acted(intent, after.actions, ready=ready,
                 ground=(after.ground_articles, after.ground_ready),
                 acquiring=after.acquiring)
