"""What one side knows: the projection of the full state to a partial state.

A partial state holds the side's own pieces, the enemy pieces it sees, and
everything public (ground articles, options, turn, result). Enemy pieces it does
not see are absent; nothing about them remains, not even identifiers or counts
(engine.formats writes no identifiers). Enemy reinforcement types stay secret
(R10.5). "Sees" is what engine.visibility computed: the piece is not hidden. The
side's last-seen markers (R9.10) stay, without identifiers.
"""

from __future__ import annotations

from engine.pieces import Side
from engine.position import Marker, Position, Reinforcement


def project(position: Position, side: Side) -> Position:
    """The partial state ``side`` knows of the full state ``position``."""
    if position.viewer is not None:
        if position.viewer is side:
            return position
        raise ValueError("a partial state cannot be projected to the other side")
    # Whether the enemy sees one's own piece is not shown (it would tell where hidden
    # enemy detectors stand, R9.6, R9.3(b)): own pieces appear with ``hidden`` off.
    pieces = tuple((p.but(hidden=False) if p.hidden else p) if p.side is side else p
                   for p in position.pieces if p.side is side or not p.hidden)
    present = {p.pid for p in pieces}
    own = {p.pid for p in pieces if p.side is side}
    # the side's own locks on pieces it sees (the enemy's locks are the enemy's business)
    locks = tuple(lk for lk in position.locks if lk.holder in own and lk.target in present)
    reinforcements = tuple(r if r.side is side else Reinforcement(r.side, None, r.sq)
                           for r in position.reinforcements)
    starts = position.turn_start_squares if side is position.side_to_act else ()
    # R9.10: the side's own last-seen markers, with no identifier of the unseen piece
    markers = tuple(Marker(m.viewer, -1, m.kind, m.cell) for m in position.last_seen
                    if m.viewer is side)
    hits = tuple(h for h in position.hits if h[0] in present)
    return position.evolve(pieces=pieces, locks=locks, reinforcements=reinforcements,
                           turn_start_squares=starts, viewer=side, last_seen=markers,
                           hits=hits)


def view(state: Position, side: Side) -> Position:
    """What ``side`` knows of the full ``state``: visibility recomputed by the rules
    (R9; a state read from a file may carry stale ``hidden`` flags), then projected."""
    from engine.visibility import refresh

    return project(refresh(state, state), side)
