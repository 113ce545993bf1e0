"""Visibility (R9): who sees which piece, recomputed after every action and step.

Each piece's ``hidden`` flag says whether its enemy sees it. It follows from the
state alone: stealth (R9.2), locks (R9.4), range detection of stealth (O18) and of
submersion (R9.6), fire and capture reveals (R9.8) and dominance (R9.7). ``refresh``
recomputes it on the full state, and with it the state that visibility carries:
locks released when their target stops being a stealthy enemy (R9.4(c)), locks
acquired by Anti-Stealth instances that changed hands (R9.4(a,b)), reveals that ended
when their piece left its cell (D-36) and last-seen markers (R9.10).
"""

from __future__ import annotations

from functools import lru_cache

from engine import board
from engine.board import Level
from engine.formats import piece_order_key
from engine.movement import with_pieces_in_place
from engine.pieces import TRAITS, ArticleKind, PieceKind, Side
from engine.position import Lock, Marker, Piece, Position

A = ArticleKind


class _Sight:
    """What one viewer brings to seeing enemy pieces: its locks and its detectors."""

    def __init__(self, position: Position, viewer: Side) -> None:
        options = position.options
        own = [p for p in position.pieces if p.side is viewer]
        mine = {p.pid for p in own}
        self.options = options
        self.locked = ({lk.target for lk in position.locks if lk.holder in mine}
                       if options.stealth_lock_on else set())
        self.stealth_detectors = ([p.sq for p in own if _traits_of(p)[1]]
                                  if options.stealth_range_detection else [])
        self.sub_detectors = ([p.sq for p in own if _traits_of(p)[2]]
                              if options.submersion_invisibility else [])

    def stealth_neutralised(self, piece: Piece) -> bool:
        """R9.3: locked on, within stealth detection range (O18, O19), or revealed."""
        if piece.pid in self.locked or _revealed(piece) is not None:
            return True
        reach = self.options.stealth_detector_range
        return any(board.distance(sq, piece.sq) <= reach for sq in self.stealth_detectors)

    def submersion_hidden(self, piece: Piece) -> bool:
        """R9.6: at Sub level with O16 on, no Torpedo Launcher of the viewer within
        SubDetectRange (O20), and not fire-revealed."""
        if not self.options.submersion_invisibility or piece.level is not Level.SUB:
            return False
        if _revealed(piece) == "fire":
            return False
        reach = self.options.submersion_detector_range
        return not any(board.distance(sq, piece.sq) <= reach for sq in self.sub_detectors)

    def sees(self, piece: Piece) -> bool:
        """R9.7: whether the viewer sees the enemy ``piece``."""
        if piece.level is not Level.SUB and not _traits_of(piece)[0]:
            return True  # no Stealth ability, above Sub: nothing hides it
        stealthy = piece.is_stealthy(self.options)
        if piece.level is Level.SUB and self.options.submersion_invisibility:
            if self.submersion_hidden(piece):
                return False
            if self.options.dominance == "submersion" or not stealthy:
                return True
            return self.stealth_neutralised(piece)
        return not stealthy or self.stealth_neutralised(piece)


def _traits_of(piece: Piece) -> tuple[bool, bool, bool]:
    """Whether the piece has a Stealth, an Anti-Stealth, a Torpedo Launcher ability."""
    return _ability_flags(piece.kind, piece.articles)


@lru_cache(maxsize=4096)
def _ability_flags(kind: PieceKind, articles: tuple[ArticleKind, ...]) -> tuple[bool, bool, bool]:
    abilities = TRAITS[kind].inherent + articles
    return (A.STEALTH in abilities, A.ANTI_STEALTH in abilities,
            A.TORPEDO_LAUNCHER in abilities)


def _revealed(piece: Piece) -> str | None:
    """The piece's reveal kind while it stays where the reveal was granted (D-36)."""
    reveal = piece.revealed
    return reveal.kind if reveal is not None and reveal.cell == piece.cell else None


def refresh(before: Position, after: Position) -> Position:
    """``after`` with visibility recomputed on the full state (R9.5: after every action
    and step); ``before`` is the state the action or step started from (for R9.10).
    ``refresh(state, state)`` settles a state read from a file or built by hand: its
    pieces get their R9 visibility and no new last-seen marker."""
    if after.viewer is not None:
        raise ValueError("visibility is computed on the full state")
    position = _clear_reveals(after)
    position = _release_locks(position)
    if position.acquiring:
        position = _acquire_locks(position)
    position, newly_hidden = _set_hidden(position)
    if before is after:  # a state read or built as is: nothing was seen before it
        newly_hidden = set()
    if not newly_hidden and not position.last_seen:
        return position
    return _update_markers(before, position, newly_hidden)


def _clear_reveals(position: Position) -> Position:
    """D-36: a reveal ends once its piece changes square or level."""
    if not any(p.revealed is not None and p.revealed.cell != p.cell for p in position.pieces):
        return position
    return with_pieces_in_place(position, {p.pid: p.but(revealed=None) for p in position.pieces
                                   if p.revealed is not None and p.revealed.cell != p.cell})


def _release_locks(position: Position) -> Position:
    """R9.4(c): a lock ends when its holder or target left play, they are no longer
    enemies (conversion) or the target stopped being stealthy."""
    if not position.locks:
        return position
    by_pid = {p.pid: p for p in position.pieces}
    kept = []
    for lock in position.locks:
        holder, target = by_pid.get(lock.holder), by_pid.get(lock.target)
        if (holder is not None and target is not None and holder.side is not target.side
                and target.is_stealthy(position.options)
                and lock.instance < holder.abilities().count(A.ANTI_STEALTH)):
            kept.append(lock)
    if len(kept) == len(position.locks):
        return position
    return position.evolve(locks=tuple(kept))


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
            target = min(candidates, key=lambda p: (board.distance(holder.sq, p.sq),
                                                    board.row_of(p.sq), board.col_of(p.sq),
                                                    p.level, piece_order_key(p)))
            locks.append(Lock(holder.pid, instance, target.pid))
    return position.evolve(locks=tuple(locks), acquiring=())


def _set_hidden(position: Position) -> tuple[Position, set[int]]:
    """Each piece's ``hidden``: whether its enemy does not see it (R9.7); also the
    pieces that were seen and now are not."""
    sights = {side: _Sight(position, side) for side in (Side.BLACK, Side.WHITE)}
    changed = {p.pid: p.but(hidden=hidden) for p in position.pieces
               if (hidden := not sights[p.side.other].sees(p)) != p.hidden}
    if not changed:
        return position, set()
    return with_pieces_in_place(position, changed), {pid for pid, p in changed.items() if p.hidden}


def _update_markers(before: Position, after: Position, newly_hidden: set[int]) -> Position:
    """R9.10: a marker where an enemy piece was last seen, from the moment it becomes
    hidden until it is seen again, leaves play or changes sides."""
    now = {p.pid: p for p in after.pieces}
    kept = [m for m in after.last_seen
            if (p := now.get(m.pid)) is not None and p.side is not m.viewer and p.hidden]
    marked = {m.pid for m in kept}
    for old in before.pieces:
        if old.pid not in newly_hidden:
            continue
        p = now[old.pid]
        if not old.hidden and p.side is old.side and p.pid not in marked:
            kept.append(Marker(p.side.other, p.pid, old.kind, old.cell))
    if kept == list(after.last_seen):
        return after
    return after.evolve(last_seen=tuple(kept))
