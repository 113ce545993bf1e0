"""What one side knows: the projection of the full state to its half state.

A half state holds the side's own pieces (the whole truth about them), the enemy
pieces it sees, everything public (ground articles, projectiles, options, turn, the
action counts, result) and the side's own locks and last-seen markers (R9.4, R9.10).
Enemy pieces it does not see are absent; nothing about them remains, not even a count
(the action records name only pieces it sees). Enemy reinforcement types stay secret
(R10.5). "Sees" is what engine.visibility computed: the piece is not hidden. A lock on
an enemy piece it does not see (R9.7(b): locked but submerged) and a marker keep the
identifier of that piece: the side learnt it while it saw the piece, and needs it to
tell when the lock ends and when the piece is seen again.
"""

from __future__ import annotations

from collections.abc import Container

from wec.engine.pieces import Side
from wec.engine.position import ActionCounts, Piece, Position, Reinforcement
from wec.engine.visibility import refresh


def project(position: Position, side: Side) -> Position:
    """The partial state ``side`` knows of the full state ``position``."""
    if position.viewer is not None:
        if position.viewer is side:
            return position
        raise ValueError("a partial state cannot be projected to the other side")
    # Whether the enemy sees one's own piece is not shown (it would tell where hidden
    # enemy detectors stand, R9.6, R9.3(b)): own pieces appear with ``hidden`` off.
    pieces = [(_unflagged(p) if p.hidden else p) for p in position.pieces
              if p.side is side or not p.hidden]
    locks = position.locks
    hits = position.hits
    actions = position.actions
    present = {p.pid for p in pieces}
    if locks:
        # the side's own locks (the enemy's locks are its business)
        own = {p.pid for p in pieces if p.side is side}
        locks = tuple(lk for lk in locks if lk.holder in own)
    if hits:
        hits = tuple(h for h in hits if h[0] in present)
    if actions.actors or actions.transited or actions.mover is not None:
        actions = actions_seen(actions, present)
        if side is not position.side_to_act:
            actions = enemy_actions(actions)
    starts = position.turn_start_squares if side is position.side_to_act else ()
    # R9.10: the side's own last-seen markers
    markers = tuple(m for m in position.last_seen if m.viewer is side)
    return position.evolve(pieces=tuple(pieces), locks=locks,
                           reinforcements=_reinforcements_seen(position.reinforcements, side),
                           turn_start_squares=starts, viewer=side, last_seen=markers,
                           hits=hits, actions=actions, acquiring=())


def actions_seen(actions: ActionCounts, present: Container[int]) -> ActionCounts:
    """The action records of this turn naming only the pieces a side sees (R4.3's
    counts are public)."""
    a = actions
    if not a.actors and not a.firers and a.mover is None and not a.transited:
        return a
    return ActionCounts(a.move, a.fire, a.pickup, a.drop, a.exchange, a.reinforce,
                        tuple(pid for pid in a.actors if pid in present),
                        tuple(pid for pid in a.firers if pid in present),
                        a.mover if a.mover in present else None,
                        tuple(pid for pid in a.transited if pid in present))


def enemy_actions(actions: ActionCounts) -> ActionCounts:
    """The acting side's action records as the other side holds them: in identifier
    order (issue 21: the order in which pieces acted would tell the other side, through
    the places of the ones it sees, how many it does not see had acted between them; the
    private detection gives it each seen piece's records, not their places)."""
    a = actions
    return ActionCounts(a.move, a.fire, a.pickup, a.drop, a.exchange, a.reinforce,
                        tuple(sorted(a.actors)), tuple(sorted(a.firers)), a.mover,
                        tuple(sorted(a.transited)))


def _unflagged(p: Piece) -> Piece:
    """The own piece as its side's view shows it: without the ``hidden`` flag."""
    return Piece(p.pid, p.side, p.kind, p.sq, p.level, p.hand, p.articles, p.moved, False,
                 p.stunned_until, p.ready, p.transit, p.revealed)


# Recent projections of waiting reinforcements, by side and the identity of the tuple
# (kept with it, so that the identity stays its own): the tuple rarely changes in a game.
_SEEN_REINFORCEMENTS: dict[tuple[Side, int], tuple[tuple[Reinforcement, ...],
                                                   tuple[Reinforcement, ...]]] = {}


def _reinforcements_seen(waiting: tuple[Reinforcement, ...],
                         side: Side) -> tuple[Reinforcement, ...]:
    """R10.5: the enemy's waiting reinforcements without their types."""
    key = (side, id(waiting))
    last = _SEEN_REINFORCEMENTS.get(key)
    if last is not None and last[0] is waiting:
        return last[1]
    seen = tuple(r if r.side is side else Reinforcement(r.side, None, r.sq) for r in waiting)
    if len(_SEEN_REINFORCEMENTS) > 256:
        _SEEN_REINFORCEMENTS.clear()
    _SEEN_REINFORCEMENTS[key] = (waiting, seen)
    return seen


def view(state: Position, side: Side) -> Position:
    """What ``side`` knows of the full ``state``: visibility recomputed by the rules
    (R9; a state read from a file may carry stale ``hidden`` flags), then projected."""
    return project(refresh(state, state), side)
