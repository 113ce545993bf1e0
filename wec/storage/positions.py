"""Position files (``wec-position/1`` JSON, docs/formats.md): read one from a path or
standard input, and write one in the diff-friendly layout the bundled scenarios use.

Every command, the client and the lobby read positions through ``read_position``, so a
file is refused the same way everywhere: one ``PositionFileError`` naming the path and
what is wrong with it, and every full state read is settled by the rules before
anything reads it (engine.loading: ``hidden`` flags derived, R9.4(d) locks acquired
where a start position states none). ``dump_position`` can write a half state with its
identifiers (what ``wec half`` prints and ``wec act --peer`` reads).
"""

from __future__ import annotations

import json
import sys

from wec.engine.errors import FormatError, WecError
from wec.engine.formats import position_to_dict
from wec.engine.loading import load_position
from wec.engine.position import Position


class PositionFileError(WecError):
    """A position file that cannot be read or is not a valid position (names the path)."""


def read_position(path: str) -> Position:
    """The position in the file at ``path`` (``-``: standard input)."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
    except OSError as exc:
        raise PositionFileError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise PositionFileError(f"{path}: not a text file (expected wec-position/1 JSON)") \
            from None
    return parse_position(text, path)


def parse_position(text: str, name: str) -> Position:
    """The position in ``text`` (read from ``name``, which error messages give), settled."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PositionFileError(f"{name}: not valid JSON: line {exc.lineno} column "
                                f"{exc.colno}: {exc.msg}") from None
    try:
        return load_position(data)
    except FormatError as exc:
        raise PositionFileError(f"{name}: {exc}") from None


def dump_position(position: Position, handles: bool = False) -> str:
    """Position JSON with one piece, article or list item per line (diff-friendly);
    ``handles``: a half state with its identifiers (``wec half``, docs/formats.md)."""
    data = position_to_dict(position, handles=handles)
    lines = ["{"]
    keys = list(data)
    for n, key in enumerate(keys):
        value = data[key]
        comma = "," if n < len(keys) - 1 else ""
        if isinstance(value, list) and value:
            lines.append(f"  {json.dumps(key)}: [")
            for i, item in enumerate(value):
                lines.append(f"    {json.dumps(item)}{',' if i < len(value) - 1 else ''}")
            lines.append(f"  ]{comma}")
        else:
            lines.append(f"  {json.dumps(key)}: {json.dumps(value)}{comma}")
    lines.append("}")
    return "\n".join(lines)
