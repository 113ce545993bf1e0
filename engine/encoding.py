"""Canonical state encoding and the two hashes (OpenRA-style: one hash per turn).

The encoding is msgpack of the position-format data with every map's keys sorted,
wrapped with a format tag and version, so equal states give equal bytes whatever
order pieces were created in and whatever PYTHONHASHSEED is.

* ``full_state_hash``: the whole of a state (a full state, or one side's half state):
  saves, replays and hotseat checks.
* ``public_state_hash``: only what both sides of a network game hold alike (turn,
  options, ground articles, projectiles, the waiting reinforcements' squares, the action
  counts, the result, how many pieces have entered play): the two machines compare it
  every turn without revealing anything (their private parts are checked by commitments,
  docs/architecture.md).
"""

from __future__ import annotations

import functools
import hashlib
from typing import Any

import msgpack  # type: ignore[import-untyped]

from wec.engine.formats import ground_list, ground_to_list, position_to_dict
from wec.engine.options import Options, options_to_dict
from wec.engine.position import ACTION_LIMITS, Position

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


def full_state_hash(position: Position) -> str:
    """SHA-256 of the canonical encoding of the whole state, hex (saves, replays)."""
    return hashlib.sha256(encode_state(position)).hexdigest()


state_hash = full_state_hash  # the name saves, replays and the LAN lockstep have used


PUBLIC_FORMAT = "wec-public-state"


def public_state(position: Position) -> dict[str, Any]:
    """What both sides hold alike of a state (full or either half): nothing about a
    piece, the R4.3 action counts but not which pieces acted, the squares of the
    waiting reinforcements but not their types (R10.5)."""
    return _public_state(position, ground_to_list(position))


def _public_state(position: Position, articles: Any, options: Any = None) -> dict[str, Any]:
    counts = {name: getattr(position.actions, name) for name in ACTION_LIMITS
              if getattr(position.actions, name)}
    waiting = sorted((r.side.value, r.sq) for r in position.reinforcements)
    projectiles = [[pr.kind, pr.side.value, pr.sq, pr.strength, list(pr.dir),
                    -1 if pr.target is None else pr.target] for pr in position.projectiles]
    result = position.result
    return {"turn": position.turn,
            "options": options_to_dict(position.options) if options is None else options,
            "articles": articles, "projectiles": projectiles,
            "reinforcements": [list(w) for w in waiting], "actions": counts,
            "result": None if result is None else {"winner": result.winner.value,
                                                   "reason": result.reason},
            "entered": position.next_pid}


def public_state_hash(position: Position) -> str:
    """SHA-256 of the canonical encoding of ``public_state``, hex: equal on both halves
    of one game and on its full state, compared across the wire every turn."""
    articles = _canonical_articles(position.ground_articles, position.ground_ready)
    options = _canonical_options(position.options)
    state = _public_state(position, articles, options)
    # _canonical(state), the options already canonical (kept per game's options)
    body = {key: value if key == "options" else _canonical(value)
            for key, value in sorted(state.items())}
    packed = msgpack.packb([PUBLIC_FORMAT, STATE_VERSION, body], use_bin_type=True)
    return hashlib.sha256(packed).hexdigest()


@functools.lru_cache(maxsize=8)
def _canonical_options(options: Options) -> dict[str, Any]:
    """The options' part of ``public_state``, canonical, kept by value (a game's options
    never change; a third of each hash's time went to writing them out again). Never
    changed by a caller."""
    canonical: dict[str, Any] = _canonical(options_to_dict(options))
    return canonical


@functools.lru_cache(maxsize=32)
def _canonical_articles(ground_articles: tuple[tuple[Any, ...], ...],
                        ground_ready: tuple[tuple[int, ...], ...]) -> tuple[Any, ...]:
    """The ground articles' part of ``public_state``, canonical, kept by value: most
    actions leave the ground as it was, and the network game hashes the public state
    several times per action (about half of each hash's time went to this part).
    A tuple (msgpack writes it as the list it stands for), never changed by a caller."""
    return tuple(_canonical(ground_list(ground_articles, ground_ready)))
