"""Visibility (R9): who sees which piece, recomputed after every action and step.

Each piece's ``hidden`` flag says whether its enemy sees it. It follows from the
state alone: stealth (R9.2), locks (R9.4), range detection of stealth (O18) and of
submersion (R9.6), fire and capture reveals (R9.8) and dominance (R9.7). ``refresh``
recomputes it on the full state, and with it the state that visibility carries:
locks released when their target stops being a stealthy enemy (R9.4(c)), locks
acquired by Anti-Stealth instances that changed hands (R9.4(a,b)), reveals that ended
when their piece left its cell (D-36) and last-seen markers (R9.10).

``refresh`` runs after every action and turn-start step, so it is kept cheap: only a
piece that can hide at all (a stealthy piece, R9.2, or one at Sub level with O16 on,
R9.6) is judged against the enemy's locks and detectors; every other piece is seen.
Detector reach is a bit mask of squares per detecting side (``_reach``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from wec.engine import board
from wec.engine.board import Level
from wec.engine.formats import piece_order_key
from wec.engine.movement import with_pieces_in_place
from wec.engine.options import Options
from wec.engine.pieces import TRAITS, ArticleKind, PieceKind, Side
from wec.engine.position import Lock, Marker, Piece, Position

A = ArticleKind
SUB = Level.SUB


def _inherent(article: ArticleKind) -> frozenset[PieceKind]:
    """The kinds that hold ``article`` as an inherent ability (R2.1)."""
    return frozenset(kind for kind, traits in TRAITS.items() if article in traits.inherent)


_STEALTH_KINDS = _inherent(A.STEALTH)
_ANTI_STEALTH_KINDS = _inherent(A.ANTI_STEALTH)
_TORPEDO_KINDS = _inherent(A.TORPEDO_LAUNCHER)

# _RANGE[k][sq]: bit mask of the squares within distance k of sq (R1.9)
_RANGE: list[list[int]] = [
    [sum(1 << other for other in range(board.SQUARES) if board.distance(sq, other) <= k)
     for sq in range(board.SQUARES)] for k in range(board.SIZE + 1)]


def _reach(squares: list[int], distance: int) -> int:
    """Bit mask of the squares within ``distance`` of any of ``squares``."""
    if distance < 0 or not squares:
        return 0
    table = _RANGE[min(distance, board.SIZE)]
    mask = 0
    for sq in squares:
        mask |= table[sq]
    return mask


def _has_stealth(piece: Piece) -> bool:
    """A Stealth ability, inherent or carried (R2.1)."""
    return piece.kind in _STEALTH_KINDS or A.STEALTH in piece.articles


# Ability flags of a piece (inherent abilities and carried articles, R2.1).
_STEALTHY_ABILITY, _DETECTS_STEALTH, _DETECTS_SUBS, _PRIMARY = 1, 2, 4, 8
_FLAGS: dict[tuple[PieceKind, tuple[ArticleKind, ...]], int] = {}


def _flags(piece: Piece) -> int:
    """The piece's ability flags: a Stealth, an Anti-Stealth, a Torpedo Launcher ability,
    a primary government piece (memo by kind and articles)."""
    key = (piece.kind, piece.articles)
    found = _FLAGS.get(key)
    if found is None:
        abilities = TRAITS[piece.kind].inherent + piece.articles
        found = ((A.STEALTH in abilities) * _STEALTHY_ABILITY
                 | (A.ANTI_STEALTH in abilities) * _DETECTS_STEALTH
                 | (A.TORPEDO_LAUNCHER in abilities) * _DETECTS_SUBS
                 | TRAITS[piece.kind].primary * _PRIMARY)
        if len(_FLAGS) > 4096:
            _FLAGS.clear()
        _FLAGS[key] = found
    return found


def _stealthy(flags: int, options: Options) -> bool:
    """R9.2 (``Piece.is_stealthy``) from the ability flags."""
    return bool(options.stealth_invisibility and flags & _STEALTHY_ABILITY
                and (options.king_may_be_stealthy or not flags & _PRIMARY))


def _hidden(piece: Piece, stealthy: bool, options: Options, locked: set[int],
            stealth_reach: int, sub_reach: int) -> bool:
    """R9.7: whether the viewer, with its ``locked`` targets and the squares its
    detectors reach (bit masks), does not see the enemy ``piece``."""
    reveal = _revealed(piece)
    if piece.level is SUB and options.submersion_invisibility:
        # R9.6: submerged and no Torpedo Launcher of the viewer in range (O20), unless
        # fire-revealed
        if reveal != "fire" and not sub_reach >> piece.sq & 1:
            return True
        if options.dominance == "submersion" or not stealthy:
            return False
    # R9.3: a stealthy piece is seen when locked on, within stealth detection range
    # (O18, O19) or revealed
    return stealthy and not (piece.pid in locked or reveal is not None
                             or stealth_reach >> piece.sq & 1)


class _Sight:
    """What one viewer brings to seeing enemy pieces: its locks and its detectors, the
    latter as bit masks of the squares they reach."""

    __slots__ = ("locked", "options", "stealth_reach", "sub_reach")

    def __init__(self, position: Position, viewer: Side) -> None:
        options = position.options
        self.options = options
        self.locked = _locked_by(position.locks, position.pieces, options, viewer)
        stealth_detectors: list[int] = []
        sub_detectors: list[int] = []
        for p in position.pieces:
            if p.side is viewer:
                flags = _flags(p)
                if flags & _DETECTS_STEALTH:
                    stealth_detectors.append(p.sq)
                if flags & _DETECTS_SUBS:
                    sub_detectors.append(p.sq)
        self.stealth_reach = (_reach(stealth_detectors, options.stealth_detector_range)
                              if options.stealth_range_detection else 0)
        self.sub_reach = (_reach(sub_detectors, options.submersion_detector_range)
                          if options.submersion_invisibility else 0)

    def sees(self, piece: Piece) -> bool:
        """R9.7: whether the viewer sees the enemy ``piece``."""
        return not _hidden(piece, _stealthy(_flags(piece), self.options), self.options,
                           self.locked, self.stealth_reach, self.sub_reach)


def _locked_by(locks: tuple[Lock, ...], pieces: tuple[Piece, ...], options: Options,
               viewer: Side) -> set[int]:
    """The pids ``viewer``'s Anti-Stealth instances are locked on (R9.4; O17)."""
    if not options.stealth_lock_on or not locks:
        return set()
    holders = {lk.holder for lk in locks}
    mine = {p.pid for p in pieces if p.pid in holders and p.side is viewer}
    return {lk.target for lk in locks if lk.holder in mine}


def _revealed(piece: Piece) -> str | None:
    """The piece's reveal kind while it stays where the reveal was granted (D-36)."""
    reveal = piece.revealed
    return reveal.kind if reveal is not None and reveal.cell == piece.cell else None


def reaches(pieces: Iterable[Piece], options: Options) -> tuple[int, int]:
    """What one side's ``pieces`` bring to detection: the bit masks of the squares its
    Anti-Stealth holders reach (R9.3(b), O18 on, within O19) and its Torpedo Launcher
    holders reach (R9.6, O16 on, within O20)."""
    stealth: list[int] = []
    sub: list[int] = []
    for p in pieces:
        flags = _flags(p)
        if flags & _DETECTS_STEALTH:
            stealth.append(p.sq)
        if flags & _DETECTS_SUBS:
            sub.append(p.sq)
    return (_reach(stealth, options.stealth_detector_range)
            if options.stealth_range_detection else 0,
            _reach(sub, options.submersion_detector_range)
            if options.submersion_invisibility else 0)


def detects(piece: Piece | None, options: Options) -> bool:
    """Whether ``piece`` (None: none) adds to its side's ``reaches`` (an Anti-Stealth with
    O18 on, a Torpedo Launcher with O16 on)."""
    if piece is None:
        return False
    flags = _flags(piece)
    return bool((flags & _DETECTS_STEALTH and options.stealth_range_detection)
                or (flags & _DETECTS_SUBS and options.submersion_invisibility))


def may_hide(piece: Piece, options: Options) -> bool:
    """Whether ``piece`` can be hidden from its enemy at all: stealthy (R9.2), or at Sub
    level with O16 on (R9.6). Every other piece is seen."""
    if piece.level is SUB and options.submersion_invisibility:
        return True
    flags = _flags(piece)
    return bool(flags & _STEALTHY_ABILITY) and _stealthy(flags, options)


def seen_whatever(piece: Piece, options: Options) -> bool:
    """Whether the enemy sees ``piece`` whatever its detectors reach and whatever it has
    locked (R9.7 with no lock and no reach): the piece cannot hide (``may_hide``) or a
    reveal shows it (R9.8). Its owner knows this without knowing where the enemy's
    detectors stand, so it is what the LAN's public forms go by (net.fog_codec
    ``public_form``): the enemy's locks and reach are the enemy's business (issue 21)."""
    return seen_by(piece, options, set(), 0, 0)


def hiding_squares(pieces: Iterable[Piece], side: Side, options: Options) -> list[int]:
    """The squares of ``side``'s pieces that can be hidden at all (``may_hide``), in
    order: the only squares where detecting them reads the other side's detector reach
    (R9.3(b), R9.6; R9.4(b) too, whose candidates are stealthy). The LAN's private
    detection asks the reach there and nowhere else, so that a side's machine learns
    nothing of the enemy's detectors around its pieces that are seen anyway."""
    return sorted({p.sq for p in pieces if p.side is side and may_hide(p, options)})


def seen_by(piece: Piece, options: Options, locked: set[int], stealth_reach: int,
            sub_reach: int) -> bool:
    """R9.7: whether a viewer with these locked targets (R9.4, ignored with O17 off) and
    detector reaches (``reaches``) sees the enemy ``piece``."""
    return not _hidden(piece, _stealthy(_flags(piece), options), options,
                       locked if options.stealth_lock_on else set(), stealth_reach, sub_reach)


def _tie_rank(p: Piece) -> tuple[Any, ...]:
    """R9.4(b)'s tie-break among lock candidates at one distance: lowest row, then
    lowest column, then level, then canonical order (docs/architecture.md)."""
    return (board.row_of(p.sq), board.col_of(p.sq), p.level, piece_order_key(p))


def lock_order(holder_sq: int, piece: Piece) -> tuple[Any, ...]:
    """R9.4(b)'s order of lock candidates for a holder at ``holder_sq``: nearest first,
    ties by ``_tie_rank`` (a strict order: no two pieces share a key)."""
    return (board.distance(holder_sq, piece.sq), *_tie_rank(piece))


def lock_target(holder_sq: int, candidates: Iterable[Piece]) -> Piece | None:
    """R9.4(b): of the enemy stealthy pieces hidden from the holder's side and not locked
    by another of its instances, the nearest to the holder, ties by ``_tie_rank``."""
    return min(candidates, key=lambda p: lock_order(holder_sq, p), default=None)


def acquisitions(holders: Iterable[int], candidates: Callable[[set[int]], Iterable[Piece]],
                 locked: set[int], lock_on: bool) -> list[int | None]:
    """R9.4(b): the target of each acquiring instance, its holder at each square of
    ``holders`` in order: the nearest of ``candidates(locked)`` (the enemy stealthy
    pieces hidden from the holder's side and not locked), each target locked before the
    next instance chooses (None: no candidate, or O17 off). The half referee's lock
    tables and a detection's answer (engine.detection_parts) both acquire so."""
    acquired: list[int | None] = []
    for holder_sq in holders:
        target = lock_target(holder_sq, candidates(locked)) if lock_on else None
        acquired.append(None if target is None else target.pid)
        if target is not None:
            locked.add(target.pid)
    return acquired


def settle(position: Position, locks_stated: bool = True) -> Position:
    """A full state read from a file or built by hand, settled before anything reads it:
    every piece's ``hidden`` flag derived (R9.7; a flag written in the file is never
    trusted), locks released that R9.4(c) ends (all of them with O17 off), no last-seen
    marker for a piece never seen (R9.10) and, for a start position (turn 1, nothing
    done yet) that states no locks, every Anti-Stealth instance acquiring per R9.4(b)
    before turn 1, holders in row-then-column order, Black's first (R9.4(d))."""
    if position.viewer is not None:
        raise ValueError("settle takes a full state; a half state is settled by its side")
    if (not locks_stated and position.turn == 1 and position.actions.is_fresh()
            and position.options.stealth_lock_on):
        holders = sorted((p for p in position.pieces if ArticleKind.ANTI_STEALTH in p.abilities()),
                         key=lambda p: (p.side is not Side.BLACK, board.row_of(p.sq),
                                        board.col_of(p.sq), p.level, piece_order_key(p), p.pid))
        acquiring = tuple((p.pid, i) for p in holders
                          for i in range(p.abilities().count(ArticleKind.ANTI_STEALTH)))
        if acquiring:
            position = position.evolve(acquiring=acquiring)
    return refresh(position, position)


def refresh(before: Position, after: Position) -> Position:
    """``after`` with visibility recomputed on the full state (R9.5: after every action
    and step); ``before`` is the state the action or step started from (for R9.10).
    ``refresh(state, state)`` settles a state read from a file or built by hand: its
    pieces get their R9 visibility and no new last-seen marker.

    The steps, in order: reveals that ended (D-36), locks released (R9.4(c)), locks
    acquired (R9.4(a, b)), every piece's ``hidden`` (R9.7), markers (R9.10). Without
    acquiring instances (nearly always) the first, second and fourth run together
    (``_settle``), and incrementally when ``before`` was settled by an earlier refresh."""
    if after.viewer is not None:
        raise ValueError("visibility is computed on the full state")
    position = after
    acquired = False
    if position.acquiring:
        position = _acquire_locks(_release_locks(_clear_reveals(position)))
        acquired = True
    base: _Seen | None = None if acquired else _seen_of(before)
    settled = _settle(before, position, acquired)
    if settled is None:  # nothing that visibility depends on changed (_Seen.inert)
        return position
    position, newly_hidden, seen = settled
    if before is after:  # a state read or built as is: nothing was seen before it
        newly_hidden = set()
    if newly_hidden or (position.last_seen and not _markers_stand(base, position, seen)):
        position = _update_markers(before, position, newly_hidden, seen.tracked)
    seen.settled = (position.locks, position.last_seen)
    return position


def _clear_reveals(position: Position) -> Position:
    """D-36: a reveal ends once its piece changes square or level."""
    stale = {p.pid: p.but(revealed=None) for p in position.pieces
             if p.revealed is not None and p.revealed.cell != p.cell}
    return with_pieces_in_place(position, stale) if stale else position


def _release_locks(position: Position) -> Position:
    """R9.4(c): a lock ends when its holder or target left play, they are no longer
    enemies (conversion) or the target stopped being stealthy."""
    if not position.locks:
        return position
    involved = {lk.holder for lk in position.locks} | {lk.target for lk in position.locks}
    kept = _kept_locks(position, {p.pid: p for p in position.pieces if p.pid in involved})
    if len(kept) == len(position.locks):
        return position
    return position.evolve(locks=kept)


def _kept_locks(position: Position, by_pid: dict[int, Piece]) -> tuple[Lock, ...]:
    """The locks R9.4(c) keeps; ``by_pid`` holds at least every holder and target in play.
    With O17 (lock-on) off there is no lock at all (R9.3(a))."""
    if not position.options.stealth_lock_on:
        return ()
    kept = []
    for lock in position.locks:
        holder, target = by_pid.get(lock.holder), by_pid.get(lock.target)
        if (holder is not None and target is not None and holder.side is not target.side
                and target.is_stealthy(position.options)
                and lock.instance < holder.abilities().count(A.ANTI_STEALTH)):
            kept.append(lock)
    return position.locks if len(kept) == len(position.locks) else tuple(kept)


def _acquire_locks(position: Position) -> Position:
    """R9.4(a, b): each acquiring instance locks onto the nearest enemy stealthy piece
    hidden from its owner (range detection applied first) and not locked by another of
    the owner's instances; ties by lowest row, then lowest column, then level. None:
    the instance stays idle."""
    by_pid = {p.pid: p for p in position.pieces}
    locks = [lk for lk in position.locks
             if (lk.holder, lk.instance) not in set(position.acquiring)]
    for holder_pid, instance in position.acquiring:
        holder = by_pid.get(holder_pid)
        if holder is None or not position.options.stealth_lock_on:
            continue
        current = position.evolve(locks=tuple(locks), acquiring=())
        sight = _Sight(current, holder.side)
        candidates = [p for p in current.pieces
                      if p.side is not holder.side and p.is_stealthy(current.options)
                      and p.pid not in sight.locked and not sight.sees(p)]
        if candidates:
            target = lock_target(holder.sq, candidates)
            assert target is not None
            locks.append(Lock(holder.pid, instance, target.pid))
    return position.evolve(locks=tuple(locks), acquiring=())


def _seen_of(position: Position) -> _Seen | None:
    """The record ``refresh`` left in a settled full state (``Derived.seen``)."""
    seen = position.derived.seen
    return seen if isinstance(seen, _Seen) else None


class _Seen:
    """What ``refresh`` found in a settled full state, kept in the state's cache (valid
    while its pieces and options are those, as every cache entry) so that the next
    refresh from it looks only at the pieces that changed.

    ``tracked``: the pieces holding or bearing a lock or bearing a marker (and those
    newly hidden, which may), by pid; ``judged``: the pieces that may hide (stealthy,
    or at Sub level with O16 on), with whether they are stealthy; ``sub_detectors`` and
    ``stealth_detectors``: side and square of the Torpedo Launcher holders (O16) and
    Anti-Stealth holders (O18); ``revealed``: the pieces with a reveal; per viewer, the
    detection masks (absent: to compute) and the locked targets, computed from
    ``locks``, that its enemy's judged pieces were judged with."""

    __slots__ = (
        "_owned",
        "judged",
        "locked",
        "locks",
        "revealed",
        "settled",
        "stealth_detectors",
        "stealth_reach",
        "sub_detectors",
        "sub_reach",
        "tracked",
        "travelling",
    )

    _CONTAINERS = ("tracked", "judged", "sub_detectors", "stealth_detectors", "revealed",
                   "sub_reach", "stealth_reach", "travelling")

    def __init__(self) -> None:
        self.tracked: dict[int, Piece] = {}
        self.judged: dict[int, tuple[Piece, bool]] = {}
        self.sub_detectors: dict[int, tuple[Side, int]] = {}
        self.stealth_detectors: dict[int, tuple[Side, int]] = {}
        self.revealed: dict[int, Piece] = {}
        self.sub_reach: dict[Side, int] = {}
        self.stealth_reach: dict[Side, int] = {}
        self.travelling: dict[int, Side] = {}  # the pieces in transit (R8), not for R9
        self.locks: tuple[Lock, ...] | None = None
        self.locked: dict[Side, set[int]] = {}
        # the locks and markers of the state it settled (a state with the same pieces
        # but other locks or markers, made by hand, is settled anew)
        self.settled: tuple[tuple[Lock, ...], tuple[Marker, ...]] | None = None
        self._owned = set(self._CONTAINERS)  # containers not shared with another _Seen

    def fork(self) -> _Seen:
        """A copy sharing every container with this one until it writes to it
        (``_w``): a refresh usually changes one or two of them, or none."""
        new = object.__new__(_Seen)
        new.tracked = self.tracked
        new.judged = self.judged
        new.sub_detectors = self.sub_detectors
        new.stealth_detectors = self.stealth_detectors
        new.revealed = self.revealed
        new.sub_reach = self.sub_reach
        new.stealth_reach = self.stealth_reach
        new.travelling = self.travelling
        new.locks = self.locks
        new.locked = self.locked
        new.settled = None  # set by refresh once the state is settled
        new._owned = set()
        return new

    def _w(self, name: str) -> Any:
        """The container ``name``, copied first if it is still shared."""
        container = getattr(self, name)
        if name not in self._owned:
            container = container.copy()
            setattr(self, name, container)
            self._owned.add(name)
        return container

    def leave(self, old: Piece, moved_detectors: set[Side]) -> None:
        """``old`` is no longer in the state as it was."""
        pid = old.pid
        if pid in self.judged:
            del self._w("judged")[pid]
        if pid in self.revealed:
            del self._w("revealed")[pid]
        if pid in self.travelling:
            del self._w("travelling")[pid]
        if pid in self.sub_detectors:
            moved_detectors.add(self._w("sub_detectors").pop(pid)[0])
        if pid in self.stealth_detectors:
            moved_detectors.add(self._w("stealth_detectors").pop(pid)[0])

    def forget(self, pid: int) -> None:
        """The piece ``pid`` left play: it holds and bears nothing any more."""
        if pid in self.tracked:
            del self._w("tracked")[pid]

    def track(self, p: Piece) -> None:
        """``p`` holds or bears a lock or a marker, or may (newly hidden)."""
        self._w("tracked")[p.pid] = p

    def enter(self, p: Piece, options: Options, moved_detectors: set[Side]) -> bool:
        """``p`` is in the state; whether it may hide (then it is judged)."""
        pid = p.pid
        if pid in self.tracked:
            self._w("tracked")[pid] = p
        if p.revealed is not None:
            self._w("revealed")[pid] = p
        if p.transit is not None:
            self._w("travelling")[pid] = p.side
        flags = _FLAGS.get((p.kind, p.articles))
        if flags is None:
            flags = _flags(p)
        if flags & _DETECTS_SUBS and options.submersion_invisibility:
            self._w("sub_detectors")[pid] = (p.side, p.sq)
            moved_detectors.add(p.side)
        if flags & _DETECTS_STEALTH and options.stealth_range_detection:
            self._w("stealth_detectors")[pid] = (p.side, p.sq)
            moved_detectors.add(p.side)
        stealthy = bool(flags & _STEALTHY_ABILITY and _stealthy(flags, options))
        if stealthy or (p.level is SUB and options.submersion_invisibility):
            self._w("judged")[pid] = (p, stealthy)
            return True
        return False

    def replace(self, old: Piece, new: Piece, options: Options,
                moved_detectors: set[Side]) -> bool:
        """``old`` became ``new`` (the same pid); whether ``new`` may hide. A side's
        detectors count as moved only if one of them came, went or changed square."""
        pid = old.pid
        before = (self.sub_detectors.get(pid), self.stealth_detectors.get(pid))
        moved: set[Side] = set()
        self.leave(old, moved)
        judged = self.enter(new, options, moved)
        if before != (self.sub_detectors.get(pid), self.stealth_detectors.get(pid)):
            moved_detectors |= moved
        return judged

    def settle_piece(self, p: Piece) -> None:
        """``p`` replaces the piece of its pid after the refresh changed its flags."""
        pid = p.pid
        if pid in self.tracked:
            self._w("tracked")[pid] = p
        entry = self.judged.get(pid)
        if entry is not None:
            self._w("judged")[pid] = (p, entry[1])
        if p.revealed is None:
            if pid in self.revealed:
                del self._w("revealed")[pid]
        else:
            self._w("revealed")[pid] = p

    def forget_reach(self, side: Side) -> None:
        """``side``'s detectors moved: its masks are computed anew when next needed."""
        if side in self.sub_reach:
            del self._w("sub_reach")[side]
        if side in self.stealth_reach:
            del self._w("stealth_reach")[side]

    def set_reach(self, side: Side, sub_reach: int, stealth_reach: int) -> None:
        self._w("sub_reach")[side] = sub_reach
        self._w("stealth_reach")[side] = stealth_reach

    def inert(self, old: Piece, new: Piece, options: Options) -> bool:
        """Whether ``old`` becoming ``new`` changes nothing visibility depends on: the
        piece neither may hide nor detects, before or after, holds or bears no lock or
        marker, and has no reveal."""
        pid = new.pid
        if (pid in self.judged or pid in self.tracked or pid in self.sub_detectors
                or pid in self.stealth_detectors or old.revealed is not None
                or new.revealed is not None or new.hidden or old.transit is not None
                or new.transit is not None):
            return False
        flags = _FLAGS.get((new.kind, new.articles))
        if flags is None:
            flags = _flags(new)
        if ((flags & _DETECTS_SUBS and options.submersion_invisibility)
                or (flags & _DETECTS_STEALTH and options.stealth_range_detection)):
            return False
        return not ((flags & _STEALTHY_ABILITY and _stealthy(flags, options))
                    or (new.level is SUB and options.submersion_invisibility))


def may_travel(position: Position, side: Side) -> bool:
    """Whether a piece of ``side`` may be in transit (R8) in the full state ``position``:
    False only when a refresh settled it and found none (its ``_Seen`` is cached)."""
    seen: _Seen | None = _seen_of(position)
    return seen is None or side in seen.travelling.values()


def hideable(position: Position) -> Iterable[Piece]:
    """Pieces of the full state ``position`` among which are all its hidden ones: when a
    refresh settled it (its ``_Seen`` is cached), the pieces that may hide, else all."""
    seen: _Seen | None = _seen_of(position)
    if seen is None:
        return position.pieces
    return [entry[0] for entry in seen.judged.values()]


def _changes(before: Position, after: Position) -> tuple[list[tuple[Piece, Piece]],
                                                         list[Piece], list[Piece]]:
    """How ``after``'s pieces differ from ``before``'s: pairs (old, new) of pieces
    replaced under their pid, pieces gone, pieces new."""
    old_pieces, new_pieces = before.pieces, after.pieces
    if old_pieces is new_pieces:
        return [], [], []
    recorded = after.derived.changes
    if recorded is not None and recorded[0] is old_pieces:
        return recorded[1], recorded[2], recorded[3]
    if len(old_pieces) == len(new_pieces):
        pairs = [(a, b) for a, b in zip(old_pieces, new_pieces, strict=True) if a is not b]
        if all(a.pid == b.pid for a, b in pairs):
            return pairs, [], []
    by_pid = {p.pid: p for p in old_pieces}
    pairs, added = [], []
    for p in new_pieces:
        old = by_pid.pop(p.pid, None)
        if old is None:
            added.append(p)
        elif old is not p:
            pairs.append((old, p))
    return pairs, list(by_pid.values()), added


def _settle(before: Position, position: Position,
            acquired: bool) -> tuple[Position, set[int], _Seen] | None:
    """Reveals that ended (D-36), locks released (R9.4(c)) unless ``acquired`` (they
    were, before acquiring), and each piece's ``hidden``: whether its enemy does not
    see it (R9.7); also the pieces that were seen and now are not, and the settled
    state's ``_Seen``. None when ``position`` is settled as it is, markers included
    (``_Seen.inert``).

    Only a piece that may hide is judged by the enemy's sight; every other one is seen.
    When ``before`` was settled by a refresh (its ``_Seen`` is cached), only the pieces
    that changed since are looked at, and the pieces of a side are judged again only if
    their enemy's detection masks or locks changed: any other piece keeps the ``hidden``
    it was settled with. A reveal that ended counts as none (``_revealed``), so judging
    before clearing it changes nothing."""
    options = position.options
    base: _Seen | None = None if acquired else _seen_of(before)
    if base is None:
        seen = _Seen()
        wanted = {m.pid for m in position.last_seen}
        for lock in position.locks:
            wanted.add(lock.holder)
            wanted.add(lock.target)
        for p in position.pieces:
            if p.pid in wanted:
                seen.track(p)
        pairs: list[tuple[Piece, Piece]] = []
        gone: list[Piece] = []
        added: list[Piece] = list(position.pieces)
    else:
        pairs, gone, added = _changes(before, position)
        inert = [base.inert(old, p, options) for old, p in pairs]
        if (not gone and not added and base.settled is not None
                and position.locks is base.settled[0]
                and position.last_seen is base.settled[1] and all(inert)):
            position.derived.seen = base
            return None
        # an inert change leaves the _Seen as it is (replace would change nothing)
        pairs_seen = [pair for pair, quiet in zip(pairs, inert, strict=True) if not quiet]
        seen = base.fork()
    moved_detectors: set[Side] = set()
    changed: dict[int, Piece] = {}
    to_judge: list[tuple[Piece, bool]] = []
    for old in gone:
        seen.leave(old, moved_detectors)
        seen.forget(old.pid)
    for old, p in (pairs if base is None else pairs_seen):
        if seen.replace(old, p, options, moved_detectors):
            to_judge.append(seen.judged[p.pid])
        elif p.hidden:
            changed[p.pid] = p.but(hidden=False)
    for p in added:
        if seen.enter(p, options, moved_detectors):
            to_judge.append(seen.judged[p.pid])
        elif p.hidden:
            changed[p.pid] = p.but(hidden=False)
    for side in moved_detectors:  # their masks are recomputed when next needed
        seen.forget_reach(side)
    # D-36: a reveal ends when its piece leaves its cell; before was settled, so only the
    # pieces that changed since may hold a reveal that ended
    for p in (seen.revealed.values() if base is None
              else [p for _, p in pairs if p.revealed is not None]
              + [p for p in added if p.revealed is not None]):
        reveal = p.revealed
        assert reveal is not None
        if reveal.cell != p.sq * 3 + p.level:
            changed[p.pid] = changed.get(p.pid, p).but(revealed=None)
    locks = position.locks
    # the pieces that changed or left: locks not involving them and kept before stay kept
    touched = {p.pid for _, p in pairs}
    touched.update(p.pid for p in gone)
    if not locks or acquired or (
            base is not None and base.settled is not None and locks is base.settled[0]
            and not any(lock.holder in touched or lock.target in touched for lock in locks)):
        kept = locks
    else:
        kept = _kept_locks(position, seen.tracked)
    newly_hidden: set[int] = set()
    if seen.judged:
        if kept is not seen.locks or any(lock.holder in touched for lock in kept):
            locked: dict[Side, set[int]] = {Side.BLACK: set(), Side.WHITE: set()}
            if options.stealth_lock_on:
                for lock in kept:
                    holder = seen.tracked.get(lock.holder)
                    if holder is not None:
                        locked[holder.side].add(lock.target)
        else:
            locked = seen.locked
        rejudged: list[Side] = []  # the sides whose pieces' enemy sees differently
        for viewer in (Side.BLACK, Side.WHITE):
            if viewer not in seen.sub_reach:
                seen.set_reach(viewer, _reach(
                    [sq for side, sq in seen.sub_detectors.values() if side is viewer],
                    options.submersion_detector_range), _reach(
                    [sq for side, sq in seen.stealth_detectors.values() if side is viewer],
                    options.stealth_detector_range))
            if (base is None or base.locked.get(viewer) != locked[viewer]
                    or seen.sub_reach[viewer] != base.sub_reach.get(viewer)
                    or seen.stealth_reach[viewer] != base.stealth_reach.get(viewer)):
                rejudged.append(viewer.other)
        seen.locks, seen.locked = kept, locked
        if rejudged:
            to_judge = [entry for entry in seen.judged.values() if entry[0].side in rejudged
                        ] + [entry for entry in to_judge if entry[0].side not in rejudged]
        for p, stealthy in to_judge:
            viewer = p.side.other
            hidden = _hidden(p, stealthy, options, locked[viewer], seen.stealth_reach[viewer],
                             seen.sub_reach[viewer])
            if hidden != p.hidden:
                changed[p.pid] = changed.get(p.pid, p).but(hidden=hidden)
                if hidden:
                    newly_hidden.add(p.pid)
    else:
        seen.locks = None  # judged with nothing: the next judged pieces are all new
    if len(kept) != len(locks):
        position = position.evolve(locks=kept)
    if changed:
        position = with_pieces_in_place(position, changed)
        for pid, p in changed.items():
            if pid in newly_hidden:
                seen.track(p)
            seen.settle_piece(p)
    position.derived.seen = seen
    return position, newly_hidden, seen


def _markers_stand(base: _Seen | None, position: Position, seen: _Seen) -> bool:
    """Whether the markers of ``position``, those of the settled state ``base`` came
    from, stay as they are (R9.10): none of their pieces changed since."""
    if base is None or base.settled is None or position.last_seen is not base.settled[1]:
        return False
    tracked, before = seen.tracked, base.tracked
    return all(tracked.get(m.pid) is before.get(m.pid) for m in position.last_seen)


def _update_markers(before: Position, after: Position, newly_hidden: set[int],
                    now: dict[int, Piece]) -> Position:
    """R9.10: a marker where an enemy piece was last seen, from the moment it becomes
    hidden until it is seen again, leaves play or changes sides. ``now`` holds by pid
    the pieces in play bearing a marker and those newly hidden."""
    kept = [m for m in after.last_seen
            if (p := now.get(m.pid)) is not None and p.side is not m.viewer and p.hidden]
    marked = {m.pid for m in kept}
    if newly_hidden:
        for old in before.pieces:
            if old.pid not in newly_hidden:
                continue
            p = now[old.pid]
            if not old.hidden and p.side is old.side and p.pid not in marked:
                kept.append(Marker(p.side.other, p.pid, old.kind, old.cell))
    if kept == list(after.last_seen):
        return after
    return after.evolve(last_seen=tuple(kept))
