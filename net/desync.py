"""Desync reports: what differs when the two machines' states stop matching (issue 8 item
5; issue 21 item 8).

The lockstep layer compares a hash at every turn end. When they differ, the game stops
and each side sends the other its **public** state for that turn (a
:class:`~net.messages.DesyncDetail`: engine.encoding.public_state, no piece, so nothing
hidden leaves the machine even in a fog-of-war game; the end-of-game audit settles the
rest). A :class:`DesyncReport` holds both hashes, the turn, both public states and the
differing fields, found by :func:`diff_positions`; :func:`write_report` writes it as JSON
into a folder (the peer's ``desync`` folder).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wec.storage.files import write_atomically

MAX_DIFFERENCES = 200


def diff_positions(ours: Any, theirs: Any, path: str = "public",
                   limit: int = MAX_DIFFERENCES) -> list[str]:
    """The differing fields of two position encodings, one line each, e.g.
    ``public.articles[0].at: ours [2, 3], theirs [2, 4]`` (at most ``limit`` lines)."""
    found: list[str] = []
    _diff(ours, theirs, path, found, limit)
    return found


def _diff(ours: Any, theirs: Any, path: str, found: list[str], limit: int) -> None:
    if len(found) >= limit:
        return
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs), key=str):
            where = f"{path}.{key}"
            if key not in theirs:
                found.append(f"{where}: ours {_short(ours[key])}, theirs missing")
            elif key not in ours:
                found.append(f"{where}: ours missing, theirs {_short(theirs[key])}")
            else:
                _diff(ours[key], theirs[key], where, found, limit)
            if len(found) >= limit:
                return
        return
    if isinstance(ours, list) and isinstance(theirs, list):
        for index in range(max(len(ours), len(theirs))):
            where = f"{path}[{index}]"
            if index >= len(theirs):
                found.append(f"{where}: ours {_short(ours[index])}, theirs missing")
            elif index >= len(ours):
                found.append(f"{where}: ours missing, theirs {_short(theirs[index])}")
            else:
                _diff(ours[index], theirs[index], where, found, limit)
            if len(found) >= limit:
                return
        return
    if ours != theirs or type(ours) is not type(theirs):
        found.append(f"{path}: ours {_short(ours)}, theirs {_short(theirs)}")


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=repr)
    return text if len(text) <= 120 else text[:117] + "..."


@dataclass
class DesyncReport:
    """A turn hash mismatch: both hashes, the turn, both public states (never a piece:
    engine.encoding.public_state) and what differs. ``their_public`` stays None until the
    peer's arrives (or when it could not be read: ``note`` says why)."""

    game_id: str
    turn: int
    our_side: str
    our_hash: str
    their_hash: str
    our_public: dict[str, Any]
    their_public: dict[str, Any] | None = None
    differences: list[str] = field(default_factory=list)
    note: str = ""

    @property
    def complete(self) -> bool:
        return self.their_public is not None or bool(self.note)

    def add_theirs(self, their_hash: str, public: dict[str, Any] | None,
                   note: str = "") -> None:
        """Add the peer's public state (None when it could not be read; ``note`` says
        why)."""
        self.their_hash = their_hash
        self.their_public = public
        self.note = note
        self.differences = ([] if public is None
                            else diff_positions(self.our_public, public))

    def to_dict(self) -> dict[str, Any]:
        return {"format": "wec-desync/2", "game": self.game_id, "turn": self.turn,
                "our_side": self.our_side, "our_hash": self.our_hash,
                "their_hash": self.their_hash, "differences": self.differences,
                "note": self.note, "our_public": self.our_public,
                "their_public": self.their_public}

    def file_name(self) -> str:
        return f"desync-{self.game_id[:16]}-turn{self.turn}.json"


def write_report(folder: Path, report: DesyncReport) -> Path:
    """Write ``report`` as JSON into ``folder`` (created if needed); returns the path."""
    path = folder / report.file_name()
    text = json.dumps(report.to_dict(), indent=1, sort_keys=True) + "\n"
    return write_atomically(path, text.encode("utf-8"), make_folder=True)
