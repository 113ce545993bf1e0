"""Events as JSON data (board frame), for ``wec act --events``, clients and replays.

Each event is ``{"event": NAME, ...fields}``; cells are ``[row, col, level]``,
squares ``[row, col]``, directions ``[dr, dc]``, sides, kinds and articles by name.
"""

from __future__ import annotations

import re
from dataclasses import fields
from enum import Enum
from typing import Any

from wec.engine import board
from wec.engine.events import Event, ProjectileStepped
from wec.engine.questions import PieceInfo

# Field names holding a cell (square and level) or a square.
_CELLS = {"cell", "frm", "to", "reported", "target"}
_SQUARES = {"sq", "dest"}


def _cell(c: int) -> list[Any]:
    sq = board.cell_square(c)
    return [board.row_of(sq), board.col_of(sq), board.cell_level(c).label]


def _square(sq: int) -> list[int]:
    return [board.row_of(sq), board.col_of(sq)]


def _info(info: PieceInfo) -> dict[str, Any]:
    out: dict[str, Any] = {"side": info.side.value, "kind": info.kind.value}
    if info.hand is not None:
        out["hand"] = info.hand.value
    if info.articles:
        out["articles"] = [a.value for a in info.articles]
    return out


def _value(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, PieceInfo):
        return _info(value)
    if isinstance(value, tuple):
        return [_value(v) for v in value]
    return value


def event_name(event: Event) -> str:
    """``ProjectileStepped`` -> ``projectile_stepped``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()


def event_to_dict(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"event": event_name(event)}
    squares_only = isinstance(event, ProjectileStepped)  # a projectile's level is its kind's
    for f in fields(event):
        value = getattr(event, f.name)
        if value is None:
            continue
        if f.name in _SQUARES or (squares_only and f.name in ("frm", "to")):
            out[f.name] = _square(value)
        elif f.name in _CELLS and isinstance(value, int):
            out[f.name] = _cell(value)
        elif f.name == "moved":  # Dozed: (side, kind, from cell, to cell) per piece
            out["moved"] = [{"side": s.value, "kind": k.value, "frm": _cell(a), "to": _cell(b)}
                            for s, k, a, b in value]
        else:
            out[f.name] = _value(value)
    return out
