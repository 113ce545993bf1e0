"""The projectile phase (R4.2(2), R6.8.4, R6.11.2): every projectile steps at once.

Directional projectiles step along their direction; homing ones step toward their
target's current square. Those leaving the board are removed, then collisions are
resolved (engine.effects).
"""

from __future__ import annotations

from wec.engine import board
from wec.engine.effects import Working
from wec.engine.events import ProjectileRemoved, ProjectileStepped
from wec.engine.outcome import EventLog
from wec.engine.pieces import Side
from wec.engine.position import Position, Projectile


def projectile_phase(position: Position) -> tuple[Position, EventLog]:
    """All projectiles of both sides advance one square simultaneously (R6.8.4)."""
    if not position.projectiles:
        return position, EventLog()
    quiet = _quiet_step(position)
    if quiet is not None:
        return quiet
    return _step(position)


def _step(position: Position) -> tuple[Position, EventLog]:
    """The projectile phase on a Working copy: steps, homing, collisions (engine.effects)."""
    w = Working(position)
    moved = []
    for proj in w.projectiles:
        d = proj.dir
        if proj.target is not None:
            target = w.pieces.get(proj.target)
            if target is not None and target.sq != proj.sq:
                d = board.sign_step(proj.sq, target.sq)  # R6.11.2
        nxt = board.offset(proj.sq, d)
        if nxt is None:
            w.events.emit(ProjectileRemoved(proj.kind, proj.side, proj.sq, "left_board"))
            continue
        moved.append(Projectile(proj.kind, proj.side, nxt, proj.strength, d, proj.target))
        w.events.emit(ProjectileStepped(proj.kind, proj.side, proj.sq, nxt, d))
    w.projectiles = moved
    return w.finish(), w.events


def _quiet_step(position: Position) -> tuple[Position, EventLog] | None:
    """The projectile phase when every projectile is directional and none steps onto a
    piece: the projectiles step or leave the board and nothing else happens (no
    collision, no homing, R6.8.4, R6.8.5) — what ``Working.finish`` would leave, without
    copying every piece. None when a step may hit or home."""
    if any(proj.target is not None for proj in position.projectiles):
        return None
    black, white = position.known_occupancy(Side.BLACK), position.known_occupancy(Side.WHITE)
    events = EventLog()
    moved = []
    for proj in position.projectiles:
        nxt = board.offset(proj.sq, proj.dir)
        if nxt is None:
            events.emit(ProjectileRemoved(proj.kind, proj.side, proj.sq, "left_board"))
            continue
        cell = nxt * 3 + proj.level
        if black[cell] or white[cell]:  # every piece is in its own side's map
            return None
        moved.append(Projectile(proj.kind, proj.side, nxt, proj.strength, proj.dir, None))
        events.emit(ProjectileStepped(proj.kind, proj.side, proj.sq, nxt, proj.dir))
    ready = position.ground_ready
    if ready and not any(map(any, ready)):
        ready = ()  # as ArticleTable.packed leaves it
    hits = position.hits
    if hits:  # as Working.finish leaves them: by piece in play and weapon
        counts = {(pid, weapon): n for pid, weapon, n in hits}
        present = {p.pid for p in position.pieces}
        hits = tuple(sorted(((pid, weapon, n) for (pid, weapon), n in counts.items()
                             if pid in present), key=lambda h: (h[0], h[1].value)))
    return position.evolve(projectiles=tuple(moved), ground_ready=ready, hits=hits), events
