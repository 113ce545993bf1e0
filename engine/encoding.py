"""Canonical state encoding and sync hash (OpenRA-style: one hash per turn).

The encoding is msgpack of the position-format data with every map's keys sorted,
wrapped with a format tag and version, so equal states give equal bytes whatever
order pieces were created in and whatever PYTHONHASHSEED is.
"""

from __future__ import annotations

import hashlib
from typing import Any

import msgpack  # type: ignore[import-untyped]

from wec.engine.formats import position_to_dict
from wec.engine.position import Position

STATE_FORMAT = "wec-state"
STATE_VERSION = 1


def _canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _canonical(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_canonical(v) for v in value]
    return value


def encode_state(position: Position) -> bytes:
    """The canonical bytes of a (full or partial) state."""
    body = _canonical(position_to_dict(position))
    packed: bytes = msgpack.packb([STATE_FORMAT, STATE_VERSION, body], use_bin_type=True)
    return packed


def state_hash(position: Position) -> str:
    """SHA-256 of the canonical encoding, hex; compared by peers every turn."""
    return hashlib.sha256(encode_state(position)).hexdigest()
