"""Sampled worlds (determinizations): full states that agree with everything a side knows.

A world is the side's partial state with its ghosts (engine.belief) placed on cells where
they could stand unseen, the enemy's waiting reinforcements given a kind (R10.5 keeps it
secret: the mirror of one's own on the rotated square, as in the standard start, R15.4),
and visibility settled by the rules (``visibility.settle``). A placement the rules would
show (a ghost within reach of one's detectors, a non-stealthy ghost above Sub) is drawn
again, and a ghost that cannot hide anywhere near is left out. Only the side's own view
and belief go in: the world is the computer's guess, never the truth.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from wec.computer.belief import Belief, Ghost, may_hide_at
from wec.engine.board import SIZE, SQUARES, Level
from wec.engine.pieces import Hand, Side, traits
from wec.engine.position import Piece, Position, Reinforcement
from wec.engine.visibility import settle

_TRIES = 12


class Random(Protocol):
    def random(self) -> float: ...

    def randrange(self, start: int, stop: int = ..., step: int = ...) -> int: ...


def _ring(sq: int, d: int) -> list[int]:
    """The on-board squares at Chebyshev distance exactly ``d`` from ``sq``, in order."""
    if d == 0:
        return [sq]
    row, col = divmod(sq, SIZE)
    out = []
    for r in range(row - d, row + d + 1):
        for c in range(col - d, col + d + 1):
            if max(abs(r - row), abs(c - col)) == d and 0 <= r < SIZE and 0 <= c < SIZE:
                out.append(r * SIZE + c)
    return out


_RINGS = [[_ring(sq, d) for d in range(SIZE)] for sq in range(SQUARES)]


def _levels(ghost: Ghost, stealth: bool) -> list[Level]:
    """The levels where the ghost could stand unseen, its last one first."""
    levels = [lv for lv in (ghost.level, Level.SUB, Level.GROUND, Level.AIR)
              if may_hide_at(ghost.kind, ghost.articles, lv, stealth)]
    return list(dict.fromkeys(levels))


def _draw(ghost: Ghost, radius: int, taken: list[int], free: Sequence[bool], stealth: bool,
          rng: Random) -> int | None:
    """A cell for ``ghost``: nearer its last place more often (distance drawn as
    ``radius * u**2``), on a level it can hide at, on a cell no known piece holds."""
    levels = _levels(ghost, stealth)
    if not levels:
        return None
    for _ in range(_TRIES):
        d = int((radius + 1) * rng.random() ** 2)
        ring = _RINGS[ghost.sq][min(d, SIZE - 1)]
        if not ring:
            continue
        sq = ring[rng.randrange(len(ring))]
        level = levels[0] if len(levels) == 1 or rng.random() < 0.7 else \
            levels[rng.randrange(len(levels))]
        cell = sq * 3 + level
        if free[cell] and cell not in taken:
            return cell
    return None


def mirrored_reinforcements(view: Position) -> tuple[Reinforcement, ...]:
    """The view's waiting reinforcements with the enemy's given the kind of one's own on
    the 180-degree rotated square (R15.4); an enemy one without such a twin is left out."""
    side = view.viewer
    own = {r.sq: r for r in view.reinforcements if r.side is side}
    out = []
    for r in view.reinforcements:
        if r.kind is not None:
            out.append(r)
            continue
        twin = own.get(SQUARES - 1 - r.sq)
        if twin is not None and twin.kind is not None:
            out.append(Reinforcement(r.side, twin.kind, r.sq, twin.hand))
    return tuple(out)


def sample_world(view: Position, belief: Belief, rng: Random) -> Position:
    """One full state consistent with ``view`` and ``belief`` (see the module docstring)."""
    side = view.viewer
    if side is None:
        raise ValueError("a world is sampled from a side's partial state, not the full state")
    turn = view.turn
    stealth = view.options.stealth_invisibility
    free = [True] * (SQUARES * 3)
    for p in view.pieces:
        free[p.sq * 3 + p.level] = False
    enemy = side.other
    placed: list[tuple[Ghost, int]] = []
    cells: list[int] = []
    for ghost, radius in belief.ghosts_at(turn):
        cell = _draw(ghost, radius, cells, free, stealth, rng)
        if cell is not None:
            placed.append((ghost, cell))
            cells.append(cell)
    pid = max([view.next_pid, *(p.pid + 1 for p in view.pieces),
               *(m.pid + 1 for m in view.last_seen), *(lk.target + 1 for lk in view.locks)])
    base_pieces = view.pieces
    reinforcements = mirrored_reinforcements(view)
    world = _build(view, base_pieces, placed, pid, enemy, reinforcements)
    # the rules decide who is seen: a ghost they would show is drawn again, then left out
    for _ in range(3):
        shown = _shown_ghosts(world, pid, len(placed))
        if not shown:
            return world
        for i in shown:
            ghost, _cell = placed[i]
            cells = [c for j, (_g, c) in enumerate(placed) if j != i]
            cell = _draw(ghost, min(9, ghost.radius(turn) + 1), cells, free, stealth, rng)
            placed[i] = (ghost, cell if cell is not None else -1)
        placed = [(g, c) for g, c in placed if c >= 0]
        world = _build(view, base_pieces, placed, pid, enemy, reinforcements)
    shown = _shown_ghosts(world, pid, len(placed))
    kept = [placed[i] for i in range(len(placed)) if i not in shown]
    return _build(view, base_pieces, kept, pid, enemy, reinforcements)


def _shown_ghosts(world: Position, pid: int, count: int) -> list[int]:
    """The indexes of the placed ghosts (pids ``pid``...) the rules show."""
    return sorted(p.pid - pid for p in world.pieces
                  if pid <= p.pid < pid + count and not p.hidden)


def _build(view: Position, base: tuple[Piece, ...], placed: list[tuple[Ghost, int]], pid: int,
           enemy: Side, reinforcements: tuple[Reinforcement, ...]) -> Position:
    """The full state: the view's pieces and the placed ghosts (pids ``pid``... in order;
    a ghost keeps the identifier the side's marker knows it by in ``Piece.pid``'s stead
    only through the locks, which follow it), the side's locks on pieces in this world."""
    ghosts = []
    known = {g.pid: pid + i for i, (g, _cell) in enumerate(placed) if g.pid >= 0}
    for i, (ghost, cell) in enumerate(placed):
        hand = ghost.hand
        if traits(ghost.kind).handed and hand is None:
            hand = Hand.RIGHT
        ghosts.append(Piece(pid + i, enemy, ghost.kind, cell // 3, Level(cell % 3), hand,
                            ghost.articles, True, True))
    pieces = (*base, *ghosts)
    present = {p.pid for p in pieces}
    locks = tuple(lk if lk.target in present else replace(lk, target=known[lk.target])
                  for lk in view.locks
                  if lk.holder in present and (lk.target in present or lk.target in known))
    state = view.evolve(pieces=pieces, viewer=None, last_seen=(), locks=locks,
                        reinforcements=reinforcements, next_pid=pid + len(ghosts),
                        acquiring=())
    return settle(state)
