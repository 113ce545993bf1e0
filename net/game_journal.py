"""The journal of a game played over the network: ``<state dir>/games/<game id>.jsonl``.

A header line (who the peer is, our side, the start position), then one line per input
of the Lockstep, written and flushed *before* the input takes effect (net.lockstep's
``record``), so a killed process restarted with the same state dir replays it into the
same game. Notes (the peer's addresses, the end of the game) ride along for the Peer and
are not replayed.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import json
import os
from pathlib import Path
from typing import Any

from wec.net.messages import Message, decode_message, encode_message

JOURNAL_FORMAT = "wec-peer-game/1"


class Journal:
    """The append-only record of one game: a header line, then one line per input of the
    Lockstep (written and flushed before the input takes effect)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: Any = None  # opened at the first record (kept open from then on)

    @classmethod
    def create(cls, path: Path, header: dict[str, Any]) -> Journal:
        """Write a new journal holding only ``header`` (synced to disk: a game that
        starts must survive a crash right after)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8") as out:
            out.write(json.dumps({"format": JOURNAL_FORMAT, **header}, sort_keys=True) + "\n")
            out.flush()
            os.fsync(out.fileno())
        return cls(path)

    def record(self, kind: str, item: Any) -> None:
        """Append one input of the Lockstep (a message, or a plain value); flushed at
        once, because the input takes effect right after."""
        if isinstance(item, Message):
            # the line json.dumps(..., sort_keys=True) writes, without its scan of the
            # base64 text (which needs no escaping), made and written as bytes (no text
            # layer to encode it again): 0.1 ms a 64 KiB message, on the path of every
            # message received
            line = (b'{"k": ' + json.dumps(kind).encode("utf-8") + b', "m": "'
                    + binascii.b2a_base64(encode_message(item), newline=False) + b'"}\n')
        else:
            line = (json.dumps({"k": kind, "v": item}, sort_keys=True) + "\n").encode("utf-8")
        if self._file is None:
            self._file = open(self.path, "ab")  # noqa: SIM115
        self._file.write(line)
        self._file.flush()

    def note(self, **fields: Any) -> None:
        """A line the Lockstep does not replay (e.g. the peer's address)."""
        self.record("note", fields)

    def close(self) -> None:
        """Close the file (a later record opens it again)."""
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None

    @staticmethod
    def read(path: Path) -> tuple[dict[str, Any], list[tuple[str, Any]], list[dict[str, Any]]]:
        """(header, lockstep records, notes) of a journal file; a torn last line (a crash
        while writing) is ignored; anything else malformed raises ValueError."""
        lines = path.read_text(encoding="utf-8").splitlines()
        if not lines:
            raise ValueError(f"{path}: empty journal")
        header = json.loads(lines[0])
        if not isinstance(header, dict) or header.get("format") != JOURNAL_FORMAT:
            raise ValueError(f"{path}: not a {JOURNAL_FORMAT} journal")
        records: list[tuple[str, Any]] = []
        notes: list[dict[str, Any]] = []
        for number, text in enumerate(lines[1:], start=2):
            try:
                line = json.loads(text)
            except json.JSONDecodeError:
                if number == len(lines):
                    break  # the process died while writing this line
                raise ValueError(f"{path}:{number}: unreadable line") from None
            kind = line.get("k")
            if kind == "note":
                notes.append(line.get("v", {}))
            elif "m" in line:
                records.append((kind, decode_message(base64.b64decode(line["m"]))))
            else:
                records.append((kind, line.get("v")))
        return header, records, notes


def journal_says_finished(path: Path) -> bool:
    """True when the journal notes its game's end (read without replaying it)."""
    try:
        with open(path, encoding="utf-8") as lines:
            return any('"finished": true' in line for line in lines)
    except OSError:
        return False


__all__ = ["JOURNAL_FORMAT", "Journal", "journal_says_finished"]
