"""Half states as files: checking that two of them can be the two sides of one game.

A half state (engine.knowledge) is what one machine of a network game holds; ``wec
half`` writes one, ``wec act --peer`` resolves intents on two of them as the two
machines would (engine.half_resolution, engine.half_referee). Two half states given
by hand may not fit together: ``check_pair`` refuses, naming the first problem, two
halves of one side, pieces both claim, different public parts (turn, options, ground,
projectiles, waiting reinforcements, action counts, result), or a half holding an
enemy piece its side does not see (R9), or lacking one it sees. To judge the last, it
puts the two halves' own pieces together and lets the rules settle who sees what
(engine.visibility): a check of the input only, never a step of the resolution.
"""

from __future__ import annotations

from wec.engine import board
from wec.engine.encoding import public_state
from wec.engine.errors import FormatError
from wec.engine.formats import validate_position
from wec.engine.knowledge import project
from wec.engine.pieces import Side, describe_kind
from wec.engine.position import Piece, Position
from wec.engine.visibility import refresh


def check_pair(first: Position, second: Position) -> tuple[Position, Position]:
    """The two half states in side order (Black's, White's), or FormatError naming what
    makes them not the two halves of one game."""
    for half in (first, second):
        if half.viewer is None:
            raise FormatError("a half state names its side (\"viewer\"); this is the full "
                              "state (wec half FILE --side SIDE writes a half state)")
    if first.viewer is second.viewer:
        assert first.viewer is not None
        raise FormatError(f"both files are {first.viewer.value}'s half state; give the "
                          "other side's with --peer")
    black, white = (first, second) if first.viewer is Side.BLACK else (second, first)
    mine, theirs = public_state(black), public_state(white)
    for key in mine:
        if mine[key] != theirs[key]:
            raise FormatError(f"the two half states differ in their public part: {key} "
                              f"(black's {_short(mine[key])}, white's {_short(theirs[key])})")
    own = {side: {p.pid: p for p in half.pieces if p.side is side}
           for side, half in ((Side.BLACK, black), (Side.WHITE, white))}
    both = own[Side.BLACK].keys() & own[Side.WHITE].keys()
    if both:
        raise FormatError(f"both half states hold the piece with id {min(both)} as their own")
    for side, half in ((Side.BLACK, black), (Side.WHITE, white)):
        for p in half.pieces:
            if p.side is not side and own[p.side].get(p.pid) != p:
                raise FormatError(f"{side.value}'s half state holds {_describe(p)} (id "
                                  f"{p.pid}), which {p.side.value}'s half state does not "
                                  "hold as its own")
    together = merged(black, white)
    for side, half in ((Side.BLACK, black), (Side.WHITE, white)):
        shown = {p.pid for p in project(together, side).pieces if p.side is not side}
        held = {p.pid: p for p in half.pieces if p.side is not side}
        for pid in sorted(held.keys() - shown):
            raise FormatError(f"{side.value}'s half state holds {_describe(held[pid])}, which "
                              f"{side.title} does not see (R9)")
        for pid in sorted(shown - held.keys()):
            raise FormatError(f"{side.value}'s half state lacks {_describe(own[side.other][pid])}"
                              f", which {side.title} sees (R9)")
    return black, white


def merged(black: Position, white: Position) -> Position:
    """The full state whose halves ``black`` and ``white`` are (each side's own pieces,
    locks, markers, hits and waiting reinforcements; the public part), with visibility
    settled by the rules (R9). For checking input only."""
    pieces = tuple(sorted((*(p for p in black.pieces if p.side is Side.BLACK),
                           *(p for p in white.pieces if p.side is Side.WHITE)),
                          key=lambda p: p.pid))
    acting = black if black.side_to_act is Side.BLACK else white
    present = {p.pid for p in pieces}
    full = black.evolve(
        viewer=None, pieces=pieces, locks=(*black.locks, *white.locks),
        last_seen=tuple(m for m in (*black.last_seen, *white.last_seen) if m.pid in present),
        hits=tuple(sorted((*(h for h in black.hits if _own(h[0], black)),
                           *(h for h in white.hits if _own(h[0], white))),
                          key=lambda h: (h[0], h[1].value))),
        reinforcements=(*(r for r in black.reinforcements if r.side is Side.BLACK),
                        *(r for r in white.reinforcements if r.side is Side.WHITE)),
        actions=acting.actions, turn_start_squares=acting.turn_start_squares)
    try:
        validate_position(full)
    except FormatError as exc:
        raise FormatError(f"the two half states do not fit together: {exc}") from None
    return refresh(full, full)


def _own(pid: int, half: Position) -> bool:
    return any(p.pid == pid and p.side is half.viewer for p in half.pieces)


def _describe(p: Piece) -> str:
    return f"the {p.side.value} {describe_kind(p.kind)} at {board.describe_cell(p.cell)}"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
