"""No message names a piece its receiver has no business knowing (issue 21).

Read as a hostile peer would: every identifier in every message a side receives over the
fog protocol, in actions of random games with many pieces concealed, must be of a piece
that side knows of: its own (before or after the action), an enemy piece its half state
holds before or after (seen, or named by its markers, locks and projectiles). A name of
any other piece tells where or that an unseen enemy piece is. Session 23 found two such
names in detection answers this way (a shown Move's subject named its hidden passenger,
a Doze's every piece it dozed); this test reads every message, not only those.

The identifiers are read from the decoded payloads (net.fog_codec's wire form of the
engine's values): every field that holds identifiers (``pid``, a lock's target, a
projectile's target, the action records, a detection's ``in_play`` and ``acquired``, a
sight's pieces, an event's subject).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from halves import collect
from test_net_fog import Wire, new_pair

from wec.engine.knowledge import project
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.net import fog_codec as codec
from wec.net import private_sight as ps

# the fields of the engine's values that hold identifiers of pieces (a Fire's target is
# a cell, and so on: only these)
NAMING = {("Piece", "pid"), ("Marker", "pid"), ("Lock", "holder"), ("Lock", "target"),
          ("Projectile", "target"), ("HomingQuery", "target"), ("ActAnswer", "target"),
          ("ActionCounts", "actors"), ("ActionCounts", "firers"), ("ActionCounts", "mover"),
          ("ActionCounts", "transited"), ("Detection", "in_play"), ("Detection", "acquired"),
          ("Sight", "seen"), ("Sight", "asked"), ("Shown", "subject")}


def _names(data: Any, field: tuple[str, str] | None = None) -> set[int]:
    """The identifiers in a wire-form value (``field``: the value's class and field
    holding it)."""
    found: set[int] = set()
    if isinstance(data, bool):
        return found
    if isinstance(data, int):
        if field in NAMING:
            found.add(data)
        return found
    if isinstance(data, list):
        for v in data:
            found |= _names(v, field)
        return found
    if isinstance(data, dict):
        if "c" in data and "f" in data:
            cls = codec._CLASSES.get(data["c"])  # the codec's own table of values
            if cls is not None and dataclasses.is_dataclass(cls):
                names = [f.name for f in dataclasses.fields(cls)]
                for name, v in zip(names, data["f"], strict=False):
                    found |= _names(v, (cls.__name__, name))
                return found
        for k, v in data.items():
            if k in ("e", "n"):
                continue
            found |= _names(v, field)
    return found


def _known(position: Position, side: Side) -> set[int]:
    half = project(position, side)
    known = {p.pid for p in half.pieces}
    known |= {m.pid for m in half.last_seen}
    known |= {lk.target for lk in half.locks} | {lk.holder for lk in half.locks}
    known |= {pr.target for pr in half.projectiles if pr.target is not None}
    known |= {p.pid for p in position.pieces if p.side is side}
    return known


def test_no_message_names_a_piece_its_receiver_does_not_know_of() -> None:
    tally: Counter[str] = Counter()
    for before, intent, out in collect(2301, 400, conceal_share=0.5):
        if before.result is not None:
            continue
        games = new_pair(before, seed=3)
        wire = Wire(games)
        wire.run()
        wire.play(before.side_to_act, intent)
        assert not any(wire.faults().values())
        for side in Side:
            known = _known(before, side) | _known(out.position, side)
            for m in wire.received[side]:
                payload = codec.unpack(m.body)
                named = _names(payload)
                answer = payload.get("a") if isinstance(payload, dict) else None
                if m.kind == "answer" and isinstance(answer, list) and len(answer) == 3 \
                        and all(isinstance(part, bytes) for part in answer):
                    # a detection's clear part (net.private_sight); what the garbled
                    # material opens the asker sees (it is the answer, as assembled)
                    clear = ps.clear_from_wire(answer[2])
                    named |= _names(codec.to_wire((clear.pieces, clear.hits, clear.acted,
                                                   tuple(e for _, e in clear.entries),
                                                   clear.projectiles)))
                tally["messages"] += 1
                tally["names"] += len(named)
                assert named <= known, (side, m.kind, sorted(named - known), intent)
    print(f"fog names: {dict(tally)}")
    assert tally["names"] > 1000
