"""Saved-game files: atomic writes and careful reads around ``engine.savegame``.

``write_save`` never leaves a broken save: the bytes go to a temporary file in the
same folder, are flushed to disk, and only then replace the old file in one rename
(``os.replace``); if anything fails before the rename, the old save is untouched and
the temporary file is removed. ``read_save`` opens the file read-only and never
changes it; every refusal is a ``SaveError`` that names the path.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from engine.errors import SaveError
from engine.match import Match
from engine.savegame import decode_save, encode_save

# No real save comes near this (a step takes about 150 bytes, a version 2 snapshot
# every 8 steps about 3 KB); a bigger file is some other file picked by mistake, and
# is refused without reading it into memory.
MAX_SAVE_BYTES = 64 * 1024 * 1024


def write_save(path: str | os.PathLike[str], match: Match) -> None:
    """Save ``match`` to ``path`` atomically (a crash leaves the old file or the new one,
    never a mix); a failure raises ``SaveError`` naming the path."""
    data = encode_save(match)
    target = Path(os.path.realpath(path))  # through a link: replace the file it names
    try:
        temporary = _write_synced(target, data)
    except OSError as exc:
        raise SaveError(f"{path}: cannot write: {exc.strerror or exc}") from None
    try:
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise SaveError(f"{path}: cannot write: {exc.strerror or exc}") from None
        raise
    _sync_folder(target.parent)


def _write_synced(target: Path, data: bytes) -> Path:
    """A new temporary file beside ``target`` holding ``data``, forced to disk; on a
    failure it is removed again."""
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    handle = os.open(temporary, flags, 0o666)  # the umask decides, as for any new file
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return temporary


def _sync_folder(folder: Path) -> None:
    """Make the rename itself durable (POSIX); where folders cannot be opened (Windows)
    the rename is already durable once it returns."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


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
