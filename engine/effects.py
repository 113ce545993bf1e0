"""Effects on the truth: hits, destruction, stun, conversion, falls, article drops,
projectile collisions and the game-end test (R6.4, R6.7, R6.8.5, R7, R3.4, R12).

A ``Working`` copy holds the changeable parts of a position while one action or one
resolution step (projectile phase, transport step) resolves; ``finish`` settles
what follows automatically (collisions, broken homing locks) and applies R12.2.
Effects reach every piece, visible or hidden (R9.11).
"""

from __future__ import annotations

from wec.engine import board
from wec.engine.articles import ArticleTable
from wec.engine.board import GROUND, Level
from wec.engine.ending import game_end
from wec.engine.events import (
    ArticleDropped,
    Converted,
    Destroyed,
    Fell,
    GameOver,
    Hit,
    HomingBroken,
    ProjectileRemoved,
    Stunned,
    TransportEnded,
)
from wec.engine.formats import piece_order_key
from wec.engine.movement import carry_plan_caches, record_changes, what_changed
from wec.engine.outcome import EventLog, about
from wec.engine.pieces import TRAITS, ArticleKind, PieceKind, Side, may_share
from wec.engine.position import ActionCounts, Piece, Position, Projectile, normal_ready
from wec.engine.questions import PieceInfo

A = ArticleKind

# R6.4.4: the Anti ability that stops one hit of each weapon type.
DEFENCE = {A.FLAME: A.ANTI_FLAME, A.STUNNER: A.ANTI_STUNNER, A.CONVERSION: A.ANTI_CONVERSION,
           A.ROCKET_LAUNCHER: A.ANTI_ROCKET, A.SAM_LAUNCHER: A.ANTI_SAM,
           A.TORPEDO_LAUNCHER: A.ANTI_TORPEDO}
# R6.8.1: what each projectile is fired by and the kill it makes.
PROJECTILE_WEAPON = {"rocket": A.ROCKET_LAUNCHER, "sam": A.SAM_LAUNCHER,
                     "torpedo": A.TORPEDO_LAUNCHER}
_CAUSE = {A.FLAME: "flame", A.ROCKET_LAUNCHER: "rocket", A.SAM_LAUNCHER: "sam",
          A.TORPEDO_LAUNCHER: "torpedo"}


def projectile_order(proj: Projectile) -> tuple[object, ...]:
    """Canonical order of projectiles: by cell, then content (not list position)."""
    return (proj.sq * 3 + proj.level, proj.kind, proj.side.value, proj.strength, proj.dir,
            proj.target if proj.target is not None else -1)


class Pieces(dict[int, Piece]):
    """The pieces of a Working by pid, noting the piece each pid had before its first
    change (None: it entered), so that ``finish`` need not compare every piece, and
    counting the changes (``version``), so that what is derived from them knows when
    it is stale."""

    __slots__ = ("original", "version")

    def __init__(self, pieces: tuple[Piece, ...] | dict[int, Piece]) -> None:
        # a dict by pid is copied as it is (the quicker way: half states keep one)
        super().__init__(pieces if isinstance(pieces, dict) else {p.pid: p for p in pieces})
        self.original: dict[int, Piece | None] = {}
        self.version = 0

    def __setitem__(self, pid: int, piece: Piece) -> None:
        if pid not in self.original:
            self.original[pid] = self.get(pid)
        self.version += 1
        super().__setitem__(pid, piece)

    def __delitem__(self, pid: int) -> None:
        if pid not in self.original:
            self.original[pid] = self[pid]
        self.version += 1
        super().__delitem__(pid)


class Working:
    """A mutable copy of one position's pieces, articles, locks, projectiles and hits."""

    def __init__(self, position: Position) -> None:
        self.start = position
        self.turn = position.turn
        self.options = position.options
        self.pieces = Pieces(position.pieces)
        self.articles = ArticleTable(position.ground_articles, position.ground_ready)
        self.locks = list(position.locks)
        self.projectiles = list(position.projectiles)
        self.hits = {(pid, weapon): n for pid, weapon, n in position.hits}
        self.events = EventLog()  # each event with the pieces it concerns (engine.censor)
        self.lost: list[tuple[Side, PieceKind, str]] = []  # primary pieces lost, and how
        self.acquiring = list(position.acquiring)  # R9.4(a), settled by visibility.refresh
        # R6.8.5: pieces whose hits this collision round destroy them; none of them falls
        # when its carrier goes first (it is destroyed where it was hit)
        self.doomed: set[int] = set()

    # ------------------------------------------------------------ looking

    def at(self, cell: int) -> list[Piece]:
        """The pieces at ``cell`` in canonical order (both sides agree on it)."""
        return sorted((p for p in self.pieces.values() if p.sq * 3 + p.level == cell),
                      key=piece_order_key)

    def accepts(self, piece: Piece, cell: int) -> bool:
        """R1.6 and R5.1.4: could ``piece`` stand at ``cell`` now (no enemy, capacity,
        coexistence)? Enemy pieces count whether visible or not."""
        here = [p for p in self.at(cell) if p.pid != piece.pid]
        if any(p.side is not piece.side for p in here):
            return False
        return may_share(len(here) + 1, TRAITS[piece.kind].coexists
                         or any(TRAITS[p.kind].coexists for p in here))

    # ------------------------------------------------------------ hits

    def hit(self, piece: Piece, weapon: ArticleKind, n: int) -> None:
        """R6.4: ``n`` hits; the effect happens once this turn's count exceeds the
        piece's matching Anti abilities at that moment."""
        if self.receive(piece, weapon, n):
            self.take_effect(piece, weapon)

    def receive(self, piece: Piece, weapon: ArticleKind, n: int) -> bool:
        """R6.4: count ``n`` hits of ``weapon`` on ``piece`` this turn, without their
        effect yet; True when the count now exceeds its matching Anti abilities."""
        key = (piece.pid, weapon)
        total = self.hits.get(key, 0) + n
        self.hits[key] = total
        defences = piece.abilities().count(DEFENCE[weapon])
        self.events.emit(Hit(piece.cell, piece.side, piece.kind, weapon, n, total, defences),
                         about(piece.pid))
        return total > defences

    def take_effect(self, piece: Piece, weapon: ArticleKind) -> None:
        """R6.4: the effect of hits that overcame the piece's defences."""
        if weapon is A.STUNNER:
            self.stun(piece)
        elif weapon is A.CONVERSION:
            self.convert(piece)
        else:
            self.destroy(piece, _CAUSE[weapon])

    # ------------------------------------------------------------ effects

    def destroy(self, piece: Piece, cause: str) -> None:
        """The piece leaves play; its articles drop by R7.4 (R3.4); a passenger it
        carried at a level not native to that passenger falls (R7.3, see docs)."""
        del self.pieces[piece.pid]
        self.events.emit(Destroyed(piece.cell, PieceInfo.of(piece), cause), about(piece.pid))
        self._drop_all(piece)
        self._forget(piece.pid)
        if TRAITS[piece.kind].primary:
            self._lose(piece.side, piece.kind,
                       f"destroyed ({cause}) at {board.describe_cell(piece.cell)}")
        for other in self.at(piece.cell):
            if not other.is_native_here() and other.pid not in self.doomed:
                self.fall(other)

    def stun(self, piece: Piece) -> None:
        """R7.1, R7.3: stunned until T + 2S; every carried article drops (R7.4); a Jump
        Pack or Scuba flyer falls to Ground, a Bike rider stops."""
        until = self.turn + 2 * self.options.stun_duration
        self.events.emit(Stunned(piece.cell, piece.side, piece.kind, until), about(piece.pid))
        self._drop_all(piece)
        inherent = len(TRAITS[piece.kind].inherent)
        anti = TRAITS[piece.kind].inherent.count(A.ANTI_STEALTH)
        self.locks = [lk for lk in self.locks if lk.holder != piece.pid or lk.instance < anti]
        stunned = piece.but(stunned_until=until, articles=(),
                            ready=normal_ready(piece.ready[:inherent]), transit=None)
        self.pieces[piece.pid] = stunned
        if piece.transit is not None:
            self.events.emit(TransportEnded(piece.side, piece.kind, piece.cell, "stunned"),
                             about(piece.pid))
            if piece.level is not GROUND:
                self.fall(stunned)

    def convert(self, piece: Piece) -> None:
        """R6.7.2: the piece changes owner with everything it has; locks by or on it end.
        R6.7.3: a converted primary piece loses the game; R6.7.5: conversion kills."""
        converted = piece.but(side=piece.side.other)
        self.pieces[piece.pid] = converted
        self.events.emit(Converted(piece.cell, converted.side, piece.kind), about(piece.pid))
        self.locks = [lk for lk in self.locks if piece.pid not in (lk.holder, lk.target)]
        # R9.4(a): its Anti-Stealth instances acquire anew for their new owner
        self.acquiring += [(piece.pid, i)
                           for i in range(piece.abilities().count(A.ANTI_STEALTH))]
        if TRAITS[piece.kind].primary:
            self._lose(piece.side, piece.kind, f"converted at {board.describe_cell(piece.cell)}")
        if piece.level is not GROUND:
            here = self.at(piece.cell)
            if len({p.side for p in here}) == 2:
                for p in here:
                    if not p.is_native_here():
                        self.destroy(p, "conversion_kill")

    def fall(self, piece: Piece) -> None:
        """R7.3, R8.4.2: leave Air or Sub for Ground of the same square; a piece that
        cannot stand there (an enemy there, or R1.6) is destroyed."""
        ground = piece.sq * 3 + GROUND
        landed = piece.but(level=Level.GROUND, transit=None)
        if not self.accepts(landed, ground):
            self.destroy(piece, "crash")
            return
        self.pieces[piece.pid] = landed
        self.events.emit(Fell(piece.side, piece.kind, piece.cell, ground), about(piece.pid))

    def _drop_all(self, piece: Piece) -> None:
        if not piece.articles:
            return
        placed = self.articles.place_dropped(piece.sq, piece.side, piece.articles,
                                             piece.article_ready() if piece.ready else ())
        self.events.emit_public([ArticleDropped(article, sq) for article, sq in placed])

    def _lose(self, side: Side, kind: PieceKind, how: str) -> None:
        """R12.1: a primary government piece was lost (judged by ``finish``, R12.2)."""
        self.lost.append((side, kind, how))

    def _forget(self, pid: int) -> None:
        """R9.4(c): locks held by or aimed at a piece that left play end."""
        self.locks = [lk for lk in self.locks if pid not in (lk.holder, lk.target)]

    # ------------------------------------------------------------ projectiles

    def break_locks(self) -> None:
        """R6.11.3: a homing projectile whose target left its level, left play or joined
        its owner's side flies on along its last direction."""
        for i, proj in enumerate(self.projectiles):
            if proj.target is None:
                continue
            target = self.pieces.get(proj.target)
            if target is None and self.start.viewer is not None:
                continue  # unseen by this side: only the Referee could tell (issue 4)
            if target is None or target.level != proj.level or target.side is proj.side:
                self.projectiles[i] = Projectile(proj.kind, proj.side, proj.sq, proj.strength,
                                                 proj.dir)
                self.events.emit(HomingBroken(proj.kind, proj.side, proj.sq, proj.dir))

    def collide(self) -> bool:
        """R6.8.5: every projectile sharing its cell with pieces hits them all and is
        removed. The collisions are those of the moment (after the action or step):
        every projectile at such a cell delivers its hits to every piece there, the
        hits of several projectiles adding up (R6.4); only then do the hits take effect,
        so that no piece escapes (a passenger whose carrier is destroyed, R8.7) and no
        projectile flies on because another one emptied its cell first. Cells go in
        board order and the projectiles of one cell in canonical order, so the outcome
        does not depend on the order of the projectile list. True if any hit."""
        cells = {proj.sq * 3 + proj.level for proj in self.projectiles}
        occupied = {c for p in self.pieces.values() if (c := p.sq * 3 + p.level) in cells}
        if not occupied:
            return False
        arriving = sorted((proj for proj in self.projectiles
                           if proj.sq * 3 + proj.level in occupied), key=projectile_order)
        self.projectiles = [proj for proj in self.projectiles
                            if proj.sq * 3 + proj.level not in occupied]
        overcome: dict[int, tuple[Piece, ArticleKind]] = {}  # in board, then piece order
        for cell in sorted(occupied):
            here = self.at(cell)
            for proj in (proj for proj in arriving if proj.sq * 3 + proj.level == cell):
                self.events.emit(ProjectileRemoved(proj.kind, proj.side, proj.sq, "hit"))
                weapon = PROJECTILE_WEAPON[proj.kind]
                for piece in here:
                    if self.receive(piece, weapon, proj.strength):
                        overcome[piece.pid] = (piece, weapon)
        self.doomed = set(overcome)
        for piece, weapon in overcome.values():
            if piece.pid in self.pieces:
                self.take_effect(self.pieces[piece.pid], weapon)
        self.doomed = set()
        return True

    def settle(self) -> None:
        """What follows every action and step by itself: lock breaks and collisions,
        until nothing changes (a fall may bring a piece onto a Rocket)."""
        while True:
            self.break_locks()
            if not self.projectiles or not self.collide():
                return

    # ------------------------------------------------------------ result

    def _changed_cells(self, stale: dict[Side, int], replaced: list[tuple[Piece, Piece]],
                       gone: list[Piece], added: list[Piece]) -> int:
        """Bit mask of the cells where a piece appeared, changed or disappeared; in
        ``stale`` per side those whose change its per-piece caches see (what_changed);
        in ``replaced``, ``gone`` and ``added`` the pieces that changed, left, entered."""
        changed = 0
        pieces = self.pieces
        for pid, old in pieces.original.items():
            p = pieces.get(pid)
            if p is old:
                continue
            changed |= what_changed(old, p, stale)
            if old is None:
                assert p is not None
                added.append(p)
            elif p is None:
                gone.append(old)
            else:
                replaced.append((old, p))
        return changed

    def finish(self, actions: ActionCounts | None = None, **changes: object) -> Position:
        """Settle, build the next position and apply the game-end test (R12.2)."""
        self.settle()
        ground, ground_ready = self.articles.packed()
        hits = tuple(sorted(((pid, weapon, n) for (pid, weapon), n in self.hits.items()
                             if pid in self.pieces), key=lambda h: (h[0], h[1].value)))
        stale = {Side.BLACK: 0, Side.WHITE: 0}
        replaced: list[tuple[Piece, Piece]] = []
        gone: list[Piece] = []
        added: list[Piece] = []
        changed = self._changed_cells(stale, replaced, gone, added)
        locks = tuple(self.locks)
        if locks == self.start.locks:
            locks = self.start.locks  # the same tuple: visibility sees nothing changed there
        fields = dict(ground_articles=ground, ground_ready=ground_ready, locks=locks,
                      projectiles=tuple(self.projectiles), hits=hits,
                      actions=actions if actions is not None else self.start.actions,
                      acquiring=tuple(self.acquiring), **changes)
        if replaced or gone or added:
            after = self.start.evolve(pieces=tuple(self.pieces.values()), **fields)
            # pieces changed in place keep their order (a dict keeps a replaced key's place)
            carry_plan_caches(self.start, after, changed, stale,
                              replaced if not gone and not added else None)
            record_changes(self.start, after, replaced, gone, added)
        else:  # no piece changed (a projectile step that hit nothing): the cache stays
            after = self.start.evolve(**fields)
        result = game_end(after.side_to_act, self.lost) if after.result is None else None
        if result is not None:
            after = after.evolve(result=result)
            self.events.emit(GameOver(result.winner, result.reason))
        return after
