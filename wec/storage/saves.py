"""Saved-game files: atomic writes and careful reads around ``engine.savegame``.

``write_save`` never leaves a broken save (``wec.storage.files.write_atomically``): if
anything fails before the file is moved into place, the old save is untouched and the
temporary file is removed. ``read_save`` opens the file read-only and never
changes it; every refusal is a ``SaveError`` that names the path.
"""

from __future__ import annotations

import os

from wec.engine.errors import SaveError
from wec.engine.match import Match
from wec.engine.savegame import decode_save, encode_save
from wec.storage.files import write_atomically

# No real save comes near this (a step takes about 150 bytes, a version 2 snapshot
# every 8 steps about 3 KB); a bigger file is some other file picked by mistake, and
# is refused without reading it into memory.
MAX_SAVE_BYTES = 64 * 1024 * 1024


def write_save(path: str | os.PathLike[str], match: Match) -> None:
    """Save ``match`` to ``path`` atomically (a crash leaves the old file or the new one,
    never a mix); a failure raises ``SaveError`` naming the path."""
    try:
        write_atomically(path, encode_save(match))
    except OSError as exc:
        raise SaveError(f"{path}: cannot write: {exc.strerror or exc}") from None


def write_new_save(path: str | os.PathLike[str], match: Match) -> None:
    """Save ``match`` to ``path`` only if no file has that name (``FileExistsError``
    otherwise): for saves the game names itself, which must never overwrite one."""
    try:
        write_atomically(path, encode_save(match), replace=False)
    except FileExistsError:
        raise
    except OSError as exc:
        raise SaveError(f"{path}: cannot write: {exc.strerror or exc}") from None


def read_save(path: str | os.PathLike[str]) -> Match:
    """The match saved at ``path``, replayed and checked (engine.savegame); a
    ``SaveError`` names the path and the problem. The file is only read."""
    data = read_save_bytes(path)
    try:
        return decode_save(data)
    except SaveError as exc:
        raise SaveError(f"{path}: {exc}") from None


def read_save_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the save at ``path`` (for ``engine.replay.Replay.open``), refusing a
    file too big to be a save; a ``SaveError`` names the path. The file is only read."""
    try:
        with open(path, "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > MAX_SAVE_BYTES:
                raise SaveError(f"{path}: not a wec saved game ({size} bytes; a save is at "
                                f"most {MAX_SAVE_BYTES} bytes)")
            return handle.read()
    except OSError as exc:
        raise SaveError(f"{path}: cannot read: {exc.strerror or exc}") from None
