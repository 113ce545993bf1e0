"""The projectile phase (R4.2(2), R6.8.4, R6.11.2): every projectile steps at once.

Directional projectiles step along their direction; homing ones step toward their
target's current square. Those leaving the board are removed, then collisions are
resolved (engine.effects).
"""

from __future__ import annotations

from engine import board
from engine.censor import EventLog
from engine.effects import Working
from engine.events import ProjectileRemoved, ProjectileStepped
from engine.position import Position, Projectile


def projectile_phase(position: Position) -> tuple[Position, EventLog]:
    """All projectiles of both sides advance one square simultaneously (R6.8.4)."""
    if not position.projectiles:
        return position, EventLog()
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
