"""``wec think``: the turn the computer opponent would play (issue 19, docs/computer.md).

    wec think FILE [--level N] [--seed S] [--budget SECONDS]

FILE is a position (wec-position/1, ``-`` for standard input): the full state, of which
only the side to act's view is used (``knowledge.view``: visibility settled, then
projected), or that side's partial state itself. It prints, as one JSON list, the
intents of the whole turn the computer would play from that view, ending with the End;
each item is an intent ``wec act`` accepts (``wec act FILE`` with the items as its
INTENT_JSON arguments plays the turn). The computer knows only the view (no history of
the game): its belief about unseen enemy pieces comes from the view's last-seen markers
and, on turns 1 and 2 of a standard start, from the public setup (R15.3).
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def register(commands: Any) -> None:
    """Add ``wec think`` to the ``wec`` sub-commands."""
    from wec.computer import DEFAULT_LEVEL, LEVELS, NAMES

    levels = ", ".join(f"{n} {NAMES[n]}" for n in sorted(LEVELS))
    think = commands.add_parser(
        "think", help="print the turn the computer opponent would play",
        description="Print, as a JSON list of intents that wec act accepts, the whole turn "
        "the computer opponent would play from the side to act's view of FILE (only that "
        "view is used: never the enemy pieces it cannot see). Deterministic for a seed.")
    think.add_argument("file", metavar="FILE", help="position file (- for standard input)")
    think.add_argument("--level", type=int, default=DEFAULT_LEVEL, metavar="N",
                       help=f"how well it plays ({levels}; default {DEFAULT_LEVEL})")
    think.add_argument("--seed", type=int, default=0, metavar="S",
                       help="its random seed (default 0): the same seed, the same turn")
    think.add_argument("--budget", type=float, metavar="SECONDS",
                       help="per-move budget in reference seconds, turned into a fixed "
                       "amount of work (default: the level's own)")
    think.set_defaults(handler=cmd_think)


def cmd_think(args: argparse.Namespace) -> None:
    from wec.cli import CliError
    from wec.computer import LEVELS, Observation, think
    from wec.engine.formats import intent_to_dict
    from wec.engine.knowledge import view
    from wec.storage.positions import read_position

    if args.level not in LEVELS:
        raise CliError(f"--level {args.level}: expected one of "
                       f"{', '.join(map(str, sorted(LEVELS)))}")
    if args.budget is not None and not args.budget > 0:
        raise CliError(f"--budget {args.budget}: expected a positive number of seconds")
    position = read_position(args.file)
    if position.result is not None:
        raise CliError(f"{args.file}: the game is over ({position.result.winner.title} won)")
    side = position.side_to_act
    if position.viewer is None:
        seen = view(position, side)
    elif position.viewer is side:
        seen = position
    else:
        raise CliError(f"{args.file}: a view of {position.viewer.value}, but "
                       f"{side.value} is to act")
    intents = think(seen, [Observation(seen)], level=args.level, seed=args.seed,
                    budget=args.budget)
    print(json.dumps([intent_to_dict(i) for i in intents]))
