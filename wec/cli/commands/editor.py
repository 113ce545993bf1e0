"""``wec editor``: the board editor's checks from the command line (R14.4).

``wec editor check FILE`` reads a wec-position/1 file and says whether it is a valid
start board: ``ok: a valid start board``, or every problem on its own line of standard
output, each naming the constraint of R14.4, the rule under it and the square, then one
summary line on standard error and exit status 2. A file the position format itself
refuses (docs/formats.md) gets the usual one-line refusal. The file is only read.
"""

from __future__ import annotations

import argparse
from typing import Any

from wec.engine.editor import check_start

OK = "ok: a valid start board"


def register(commands: Any) -> None:
    """Add ``wec editor`` and its actions to the ``wec`` sub-commands."""
    editor = commands.add_parser(
        "editor", help="check a board built in the editor",
        description="The board editor (R14.4) from the command line.")
    actions = editor.add_subparsers(dest="editor_action", metavar="{check}", required=True)
    check = actions.add_parser(
        "check", help="check that a position is a valid start board",
        description="Check a wec-position/1 file against every constraint of R14.4 (a)-(f). "
        f"Prints '{OK}', or every problem on its own line (constraint, rule and square) and "
        "exits with status 2.")
    check.add_argument("file", metavar="FILE", help="position file (- for standard input)")
    check.set_defaults(handler=cmd_check)


def cmd_check(args: argparse.Namespace) -> None:
    from wec.cli import CliError
    from wec.storage.positions import read_position

    problems = check_start(read_position(args.file))
    if not problems:
        print(OK)
        return
    for problem in problems:
        print(problem)
    count = len(problems)
    raise CliError(f"{args.file}: not a valid start board ({count} problem"
                   f"{'' if count == 1 else 's'}, listed above)")
