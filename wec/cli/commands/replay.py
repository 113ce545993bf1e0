"""``wec history`` and ``wec replay``: a game's history and its replay (issue 7).

``wec history FILE [--side black|white] [--out NOTATION]`` checks a saved game from its
start (every state hash, snapshot and notation line, engine.replay) and prints its R16
notation, one turn per line: the full history, or with ``--side`` that side's censored
copy (R14.3). An unfinished competitive game has no full history yet, so it needs
``--side``. ``--out`` writes a notation file instead (docs/notation.md, "Notation
files"), which ``wec replay --notation`` rebuilds.

``wec replay FILE [--notation] [--verify]`` opens the 3D replay viewer on a saved game,
or on a notation file with ``--notation``. ``--verify`` checks the file instead, with no
window: a save is recomputed from its start and every recorded hash compared; a
notation file is rebuilt turn by turn. It prints ``ok: ...`` or refuses with the first
bad step and its turn (exit status 2, one line on standard error). Files are only read.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from wec.engine.pieces import Side
from wec.engine.replay import Replay, match_from_notation, notation_file_text

VERIFY_SLICE = 512  # steps per call of Replay.verify (the loop runs to the end anyway)
MAX_NOTATION_BYTES = 16 * 1024 * 1024


def register(commands: Any) -> None:
    """Add ``wec history`` and ``wec replay`` to the ``wec`` sub-commands."""
    history = commands.add_parser(
        "history", help="print a saved game's notation (R16), one turn per line",
        description="Check a saved game from its start and print its history in R16 "
        "notation, one turn per line. --side prints that side's censored copy (R14.3); an "
        "unfinished competitive game has only censored copies until it ends. --out writes "
        "a notation file (docs/notation.md) that wec replay --notation rebuilds.")
    history.add_argument("file", metavar="FILE", help="saved game file")
    history.add_argument("--side", choices=["black", "white"],
                         help="the censored copy this side may read (R14.3)")
    history.add_argument("--out", metavar="NOTATION",
                         help="write a notation file here instead of printing the turns")
    history.set_defaults(handler=cmd_history)

    replay = commands.add_parser(
        "replay", help="watch a saved game again in 3D, or check it",
        description="Open the 3D replay viewer on a saved game (or, with --notation, on a "
        "notation file). --verify checks the file without a window: every turn recomputed "
        "from the start and every recorded state hash compared; prints 'ok: N steps, T "
        "turns, hashes match' or the first bad step and its turn (exit status 2).")
    replay.add_argument("file", metavar="FILE", help="saved game file (or notation file)")
    replay.add_argument("--notation", action="store_true",
                        help="FILE is a notation file (wec history --out)")
    replay.add_argument("--verify", action="store_true",
                        help="check the file headless instead of opening the viewer")
    replay.set_defaults(handler=cmd_replay)


# ---------------------------------------------------------------- history

def cmd_history(args: argparse.Namespace) -> None:
    from wec.cli import CliError

    side = Side(args.side) if args.side else None
    replay = _verified_replay(args.file)
    if side is None and not replay.replayable:
        raise CliError(f"{args.file}: R14.3: this competitive game is not over, so its full "
                       "history is not revealed yet; give --side black or --side white for "
                       "that side's censored copy")
    if args.out is None:
        for line in replay.turn_notation(side):
            print(line)
        return
    text = notation_file_text(replay, side)
    try:
        Path(args.out).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise CliError(f"{args.out}: cannot write: {exc.strerror or exc}") from None
    print(f"wrote {args.out}: {replay.turns} turn(s) in R16 notation"
          + (f", {side.title}'s censored copy" if side else ""))


def _verified_replay(path: str) -> Replay:
    """The replay of the save at ``path``, checked from the start to the end (what it
    prints must be the game's); errors name the path."""
    replay = _opened(path, allow_unfinished_competitive=True)
    verification = replay.verify(0)
    while not verification.done:
        verification = replay.verify(VERIFY_SLICE)
    if verification.error is not None:
        raise _named(verification.error, path)
    return replay


def _opened(path: str, allow_unfinished_competitive: bool = False) -> Replay:
    """``Replay.open`` of the save at ``path``; a refusal names the path."""
    from wec.engine.errors import SaveError
    from wec.storage.saves import read_save_bytes

    data = read_save_bytes(path)
    try:
        return Replay.open(data, allow_unfinished_competitive=allow_unfinished_competitive)
    except SaveError as exc:
        raise _named(exc, path) from None


def _named(error: Exception, path: str) -> Exception:
    """``error`` with its message prefixed by the path, its type and fields kept."""
    error.args = (f"{path}: {error}",)
    return error


# ---------------------------------------------------------------- replay

def cmd_replay(args: argparse.Namespace) -> None:
    from wec.cli import CliError

    if not Path(args.file).exists():
        raise CliError(f"{args.file}: no such file")
    if args.verify:
        print(_verify_notation(args.file) if args.notation else _verify_save(args.file))
        return
    if not args.notation:
        _opened(args.file)  # a damaged file or R14.3 is refused before a window opens
    try:
        from wec.client.app import run_replay
    except ImportError as exc:
        raise CliError(f"the 3D replay viewer needs Panda3D and the client ({exc}); run "
                       "./scripts/play to set it up, or use --verify") from None
    code = run_replay(Path(args.file), args.notation)
    if code:
        raise SystemExit(code)


def _verify_save(path: str) -> str:
    replay = _verified_replay(path)
    return f"ok: {replay.length} steps, {replay.turns} turns, hashes match"


def _verify_notation(path: str) -> str:
    from wec.cli import CliError
    from wec.engine.notation import NotationError

    text = _read_notation(path)
    try:
        match = match_from_notation(text)
    except NotationError as exc:
        raise CliError(f"{path}: {exc}") from None
    turns = len({action.turn for action in match.actions})
    return (f"ok: {len(match.actions)} steps, {turns} turns, every turn rebuilt by the "
            "rules and written back as recorded")


def _read_notation(path: str) -> str:
    from wec.cli import CliError

    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_NOTATION_BYTES + 1)
    except OSError as exc:
        raise CliError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_NOTATION_BYTES:
        raise CliError(f"{path}: not a notation file (over {MAX_NOTATION_BYTES} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CliError(f"{path}: not a notation file (not UTF-8 text)") from None
