"""Transport articles in motion (R8.2-R8.5): paths, transit steps, the transport phase.

A piece in transit travels one step per own turn at its transport level (Ground for
a Bike, Air for a Jump Pack, Sub for a Scuba Suit) toward its destination, along a
path recomputed from its current square at every step (R8.4.1). Steps never capture:
a cell that cannot take the piece ends the transport (R8.4.2).
"""

from __future__ import annotations

from wec.engine import board
from wec.engine.board import GROUND
from wec.engine.budget import transited
from wec.engine.effects import Working
from wec.engine.events import TransportEnded, TransportStepped
from wec.engine.outcome import EventLog, about
from wec.engine.position import Piece, Position
from wec.engine.visibility import may_travel


def next_step(frm: int, dest: int, path: str) -> tuple[int, int]:
    """The direction of the next step from ``frm`` toward ``dest`` (R8.5, D-31).

    It depends only on the displacement, so it is read from a table built once by
    ``step_toward`` (tests/test_incremental.py compares the two for every pair)."""
    steps = _STEPS.get(path, _STEPS["starboard"])
    return steps[(_ROW[dest] - _ROW[frm] + _SPAN) * _WIDTH + _COL[dest] - _COL[frm] + _SPAN]


def step_toward(dr: int, dc: int, path: str) -> tuple[int, int]:
    """The direction of the next step along ``path`` for a displacement (dr, dc).

    Beeline steps by ``(sign dr, sign dc)``: all diagonal steps first. Port and
    starboard take, of the two extreme minimal king paths (diagonal steps first or
    last), the one to the left or right of the straight line to the destination, as
    seen travelling toward it (White's right is increasing column, R1.3).
    """
    beeline = ((dr > 0) - (dr < 0), (dc > 0) - (dc < 0))
    if path == "beeline" or dr == 0 or dc == 0 or abs(dr) == abs(dc):
        return beeline
    # the diagonal-first path turns at this offset; its side of the line is the sign
    # of the cross product (col, row) x (corner): positive = left
    m = min(abs(dr), abs(dc))
    cross = dc * beeline[0] * m - dr * beeline[1] * m
    diagonal_first_is_left = cross > 0
    if (path == "port") == diagonal_first_is_left:
        return beeline
    return (beeline[0], 0) if abs(dr) > abs(dc) else (0, beeline[1])


# next_step's table: per path, the step of every displacement (dr, dc), |dr|, |dc| < SIZE
_SPAN = board.SIZE - 1
_WIDTH = 2 * _SPAN + 1
_STEPS = {path: tuple(step_toward(dr, dc, path) for dr in range(-_SPAN, _SPAN + 1)
                      for dc in range(-_SPAN, _SPAN + 1))
          for path in ("beeline", "port", "starboard")}
_ROW = [board.row_of(sq) for sq in range(board.SQUARES)]
_COL = [board.col_of(sq) for sq in range(board.SQUARES)]
# per displacement: the beeline, then port and starboard where their first step differs
_DISTINCT = tuple(("beeline", *(path for path in ("port", "starboard")
                                if _STEPS[path][i] != _STEPS["beeline"][i]))
                  for i in range(_WIDTH * _WIDTH))


def distinct_paths(frm: int, dest: int) -> tuple[str, ...]:
    """The paths from ``frm`` to ``dest`` that differ (R8.5): the beeline, and port or
    starboard where the first step differs from it (one of them is always the beeline)."""
    return _DISTINCT[(_ROW[dest] - _ROW[frm] + _SPAN) * _WIDTH + _COL[dest] - _COL[frm] + _SPAN]


def path_squares(frm: int, dest: int, path: str) -> tuple[int, ...]:
    """Every square a transport passes after ``frm``, ending at ``dest`` (for display)."""
    squares = []
    at = frm
    while at != dest:
        nxt = board.offset(at, next_step(at, dest, path))
        assert nxt is not None  # a minimal king path between two squares stays on the board
        squares.append(nxt)
        at = nxt
    return tuple(squares)


def advance(w: Working, piece: Piece) -> bool:
    """One transit step of ``piece`` (R8.4); True if it moved.

    A blocked step ends the transport: a Bike rider stays, a Jump Pack or Scuba
    piece lands or surfaces where it is or is destroyed (R8.4.2). A step into the
    destination ends it there, landing a flyer or diver in the same step (R8.3.2).
    """
    transit = piece.transit
    assert transit is not None
    if piece.sq == transit.dest:  # dozed onto its destination: it has arrived
        _arrive(w, piece.but(transit=None))
        return False
    nxt = board.offset(piece.sq, next_step(piece.sq, transit.dest, transit.path))
    assert nxt is not None
    cell = nxt * 3 + piece.level
    stepped = piece.but(sq=nxt, moved=True)
    if not w.accepts(stepped, cell):
        stopped = piece.but(transit=None)
        w.pieces[piece.pid] = stopped
        w.events.emit(TransportEnded(piece.side, piece.kind, piece.cell, "blocked"),
                      about(piece.pid))
        if piece.level is not GROUND:
            w.fall(stopped)
        return False
    w.pieces[piece.pid] = stepped
    w.events.emit(TransportStepped(piece.side, piece.kind, piece.cell, cell), about(piece.pid))
    if nxt == transit.dest:
        _arrive(w, stepped.but(transit=None))
    return True


def _arrive(w: Working, arrived: Piece) -> None:
    """R8.2.1, R8.3.2: the transport ends at the destination, a flyer or diver landing."""
    w.pieces[arrived.pid] = arrived
    w.events.emit(TransportEnded(arrived.side, arrived.kind, arrived.cell, "arrived"),
                  about(arrived.pid))
    if arrived.level is not GROUND:
        w.fall(arrived)


def transport_phase(position: Position) -> tuple[Position, EventLog]:
    """R4.2(3): every piece of the side to act in transit advances one step, each step
    settled and judged (R12.2) before the next; pieces that advanced may not make
    this turn's Move (R4.5)."""
    side = position.side_to_act
    if position.viewer is None and not may_travel(position, side):
        return position, EventLog()
    travellers = [p.pid for p in position.pieces if p.transit is not None and p.side is side]
    events = EventLog()
    for pid in travellers:
        w = Working(position)
        piece = w.pieces.get(pid)
        if piece is None or piece.transit is None or piece.side is not side:
            continue  # destroyed, stopped or converted by an earlier step
        moved = advance(w, piece)
        actions = position.actions
        if moved:
            actions = transited(actions, pid)
        position = w.finish(actions=actions)
        events.merge(w.events)
        if position.result is not None:
            break
    return position, events
