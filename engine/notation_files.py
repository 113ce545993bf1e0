"""Notation files (docs/notation.md, "Notation files"): a plain text file that can
rebuild a game. Header tags ``[Name VALUE]`` (VALUE is JSON on one line) come first,
the Format tag leading, then one turn per line; lines starting with ``#`` and blank
lines are ignored.

Only the text lives here: each turn line is checked with engine.notation_parser as the
file is read. Building the start position from the tags and replaying the turns into a
match is engine.replay's part (with engine.notation_replay.replay_steps).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wec.engine.notation_parser import parse_turn
from wec.engine.notation_records import NotationError

__all__ = ["NOTATION_FILE_FORMAT", "NotationFile", "format_notation_file",
           "parse_notation_file"]

NOTATION_FILE_FORMAT = "wec-notation/1"
_TAG_LINE = re.compile(r"\[([A-Za-z]+) (.*)\]")


@dataclass(frozen=True, slots=True)
class NotationFile:
    """A notation file read back: its tags in file order and its turn strings."""

    tags: tuple[tuple[str, object], ...]
    turns: tuple[str, ...]

    def tag(self, name: str) -> object | None:
        """The value of tag ``name``, or None when the file has none."""
        return next((value for key, value in self.tags if key == name), None)


def format_notation_file(turns: Sequence[str], tags: Sequence[tuple[str, object]]) -> str:
    """The text of a notation file: the Format tag, ``tags``, then one turn per line."""
    import json

    lines = [f"[Format {json.dumps(NOTATION_FILE_FORMAT)}]"]
    lines += [f"[{name} {json.dumps(value, separators=(',', ':'), sort_keys=True)}]"
              for name, value in tags]
    lines += list(turns)
    return "\n".join(lines) + "\n"


def parse_notation_file(text: str) -> NotationFile:
    """Read a notation file; NotationError names the line (and, for a turn, the column
    and what was expected there, as ``parse_turn``)."""
    tags: list[tuple[str, object]] = []
    turns: list[str] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            tags.append(_read_tag(line, number, after_turns=bool(turns)))
        else:
            turns.append(_read_turn(line, number))
    found = NotationFile(tuple(tags), tuple(turns))
    if not tags or tags[0] != ("Format", NOTATION_FILE_FORMAT):
        raise NotationError(f"not a wec notation file: the first tag must be [Format "
                            f"\"{NOTATION_FILE_FORMAT}\"]")
    return found


def _read_tag(line: str, number: int, after_turns: bool) -> tuple[str, object]:
    """The name and JSON value of tag line ``number``; tags come before the turns."""
    import json

    match = _TAG_LINE.fullmatch(line)
    if match is None or after_turns:
        problem = "comes after the first turn" if match else "is malformed"
        raise NotationError(f"line {number}: the tag {line!r} {problem}: tags are "
                            "[Name VALUE] lines before the first turn")
    try:
        return (match.group(1), json.loads(match.group(2)))
    except json.JSONDecodeError as exc:
        raise NotationError(f"line {number}: tag {match.group(1)}: the value is not "
                            f"JSON ({exc.msg})") from None


def _read_turn(line: str, number: int) -> str:
    """Turn line ``number``, checked with ``parse_turn`` (the error names the line)."""
    try:
        parse_turn(line)
    except NotationError as exc:
        raise NotationError(f"line {number}: {exc}", exc.column) from None
    return line
