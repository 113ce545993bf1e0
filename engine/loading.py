"""Reading a position: the one place every position from a file is settled.

A position file may be written by hand: ``hidden`` flags need not be set, or may be
wrong, and a start position need not state its locks (docs/formats.md). Nothing may
read such a position before the rules have settled it (engine.visibility ``settle``):
every piece's visibility derived (R9.7), the locks R9.4(c) ends released (all of them
with O17 off), R9.4(d)'s locks acquired for a start position that states none, and no
last-seen marker for a piece never seen (R9.10). Every command, the client and the LAN
lobby read positions through ``load_position``. A half state (with "viewer") is what one
side holds; it cannot be settled alone and is taken as written (engine.half checks two
of them against each other).
"""

from __future__ import annotations

from typing import Any

from wec.engine.formats import position_from_dict
from wec.engine.position import Position
from wec.engine.visibility import settle


def load_position(data: Any) -> Position:
    """The position of ``wec-position/1`` data, settled (FormatError if malformed)."""
    position = position_from_dict(data)
    if position.viewer is not None:
        return position
    return settle(position, locks_stated="locks" in data)
