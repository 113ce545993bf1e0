"""The one way wec writes a file that must survive a crash: saves, boards, settings,
preferences, pins, identity keys, reports.

``write_atomically`` puts the bytes in a new temporary file beside the target, forces
them to disk, then moves the file into place in one step and forces the folder entry to
disk too: after a crash a reader finds the old file or the new one, never a mix, and a
failure before the move leaves the old file untouched and no temporary file behind.
With ``replace=False`` an existing file is never touched (``FileExistsError``), which is
what keys and saves named by the game need: two writers can never overwrite each other.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

DEFAULT_MODE = 0o666  # the umask decides, as for any new file
PRIVATE_MODE = 0o600  # keys, pins: the owner only


def write_atomically(path: str | os.PathLike[str], data: bytes, *,
                     mode: int = DEFAULT_MODE, replace: bool = True,
                     make_folder: bool = False) -> Path:
    """Write ``data`` to ``path`` atomically and durably; the path written.

    ``path`` through a symbolic link writes the file the link names. ``mode`` is the new
    file's permission (before the umask, except that ``PRIVATE_MODE`` is forced exactly).
    ``replace=False`` refuses to touch an existing file with ``FileExistsError``.
    ``make_folder`` creates missing parent folders. Any ``OSError`` propagates after the
    temporary file is removed."""
    target = Path(os.path.realpath(path))
    if make_folder:
        target.parent.mkdir(parents=True, exist_ok=True)
    temporary = _synced_temporary(target, data, mode)
    try:
        if replace:
            os.replace(temporary, target)
        else:
            _link_new(temporary, target)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
    sync_folder(target.parent)
    return target


def _synced_temporary(target: Path, data: bytes, mode: int) -> Path:
    """A new temporary file beside ``target`` holding ``data``, forced to disk; removed
    again on a failure."""
    temporary = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    handle = os.open(temporary, flags, mode)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        if mode == PRIVATE_MODE:
            os.chmod(temporary, PRIVATE_MODE)  # whatever the umask says
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    return temporary


def _link_new(temporary: Path, target: Path) -> None:
    """Give ``temporary`` the name ``target`` only if no file has that name (a hard link
    cannot replace; where hard links are missing, an exclusive create then a copy)."""
    try:
        os.link(temporary, target)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links
        handle = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.close(handle)
        os.replace(temporary, target)


def sync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (POSIX); where folders cannot be opened
    (Windows) the rename is already durable once it returns."""
    if os.name != "posix":
        return
    with contextlib.suppress(OSError):
        handle = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def unused_path(folder: Path, stem: str, suffix: str) -> Path:
    """``folder/stem + suffix``, or ``stem-2``, ``stem-3``, ... : the first name no file
    has yet (for files the game names itself and must never overwrite)."""
    candidate = folder / f"{stem}{suffix}"
    number = 2
    while candidate.exists():
        candidate = folder / f"{stem}-{number}{suffix}"
        number += 1
    return candidate
