"""``wec``: command-line access to the WEC engine.

Errors follow one contract: exit status 2, nothing on stdout, one line on stderr
that names the broken rule or the bad field; input files are only ever read.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wec.engine import (
    FormatError,
    IllegalIntent,
    apply,
    intent_from_dict,
    intent_to_dict,
    legal_intents,
    position_to_dict,
    standard_position,
    state_hash,
)
from wec.engine.board import Level, cell_at, on_board
from wec.engine.errors import WecError
from wec.engine.event_format import event_to_dict
from wec.engine.formats import cell_to_list
from wec.engine.knowledge import project, view
from wec.engine.movement import legal_plans, select_mover
from wec.engine.pieces import Hand, PieceKind, Side
from wec.storage.positions import dump_position, read_position

# Benchmark suites: ``wec bench NAME`` imports the module and calls ``run(seconds, out)``.
BENCH_SUITES: dict[str, tuple[str, str]] = {
    "engine": ("wec.benchmarks.engine_bench",
               "movegen and random playouts against python-chess"),
    "client": ("wec.benchmarks.client_bench",
               "frame times of the 3D board against an empty scene"),
    "replay": ("wec.benchmarks.replay_bench",
               "opening and seeking a generated 1,000-turn game"),
    "net": ("wec.benchmarks.net_bench",
            "intent latency, handshake and discovery between two real peers"),
    "computer": ("wec.benchmarks.computer_bench",
                 "the computer opponent's strength ladder, time per turn, memory, frame rate"),
    "crypto": ("wec.benchmarks.psi_bench",
               "commitments, private set intersection and evidence chains (issue 21)"),
}


# The modules of wec.cli.commands (tests/test_cli.py checks that none is left out).
COMMAND_MODULES = ("computer", "editor", "peer", "replay")


class CliError(Exception):
    """A refusal to report on one stderr line with exit status 2."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 0
    try:
        args.handler(args)
    except (CliError, WecError) as exc:
        print(f"wec {args.command}: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    return 0


def version_text() -> str:
    """``wec 0.2.0 (rules version 1)``: the release, and the rules version that decides
    which machines may play each other (wec.engine.version)."""
    from wec import __version__
    from wec.engine.version import RULES_VERSION

    return f"wec {__version__} (rules version {RULES_VERSION})"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wec", description="Weaponized Chess: rules engine tools (positions, moves, "
        "intents, benchmarks). Positions are wec-position/1 JSON (docs/formats.md); FILE may "
        "be - for standard input.")
    parser.add_argument("--version", action="version", version=version_text(),
                        help="print the game's version and its rules version, then exit")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    position = commands.add_parser(
        "position", help="print a start position as JSON",
        description="Print a start position in wec-position/1 JSON: the standard setup, or a "
        "bundled scenario by name (docs/scenarios.md).")
    position.add_argument("name", choices=["standard", "scenario"],
                          help="standard: the standard setup of R15; scenario: the scenario "
                          "NAME")
    position.add_argument("scenario", nargs="?", metavar="NAME",
                          help="with scenario: which one (see --list)")
    position.add_argument("--list", action="store_true",
                          help="with scenario: print every scenario's name, one per line")
    position.set_defaults(handler=cmd_position)

    moves = commands.add_parser(
        "moves", help="list the legal Move destinations of one piece",
        description="Print the sorted JSON list [[row, col, level], ...] of the legal Move "
        "destinations of the side-to-act piece at --at (a Chopper on Ground lists both levels).")
    moves.add_argument("file", metavar="FILE", help="position file (- for standard input)")
    moves.add_argument("--at", required=True, metavar="ROW,COL[,LEVEL]",
                       help="the piece's square and level (default ground), e.g. 1,4,ground")
    moves.add_argument("--kind", metavar="KIND", help="which piece, when two own pieces share "
                       "the level (e.g. chopper)")
    moves.add_argument("--hand", choices=["right", "left"],
                       help="which one, when two own Choppers share the level")
    moves.set_defaults(handler=cmd_moves)

    act = commands.add_parser(
        "act", help="apply intents and print the resulting position",
        description="Apply the intents in order and print the resulting position JSON. An "
        "illegal intent or a malformed file exits with status 2 and one line on stderr; the "
        "input file is never modified. With --peer, FILE and OTHER_HALF are the two sides' "
        "half states (wec half): each intent is resolved on both as the two machines of a "
        "network game resolve it, each asking the other about the pieces it cannot see, and "
        "both resulting half states are printed.")
    act.add_argument("file", metavar="FILE", help="position file (- for standard input), "
                     "or with --peer one side's half state")
    act.add_argument("--peer", metavar="OTHER_HALF",
                     help="the other side's half state: resolve on the two half states and "
                     'print {"black": HALF, "white": HALF} (docs/formats.md)')
    act.add_argument("--events", action="store_true",
                     help='print {"position": ..., "events": [...]}: the resolved effects of '
                     "the intents, in order")
    act.add_argument("intents", metavar="INTENT_JSON", nargs="+",
                     help='e.g. \'{"act": "move", "from": [2,5,"ground"], "to": [3,4,"ground"]}\' '
                     'or \'{"act": "end"}\'')
    act.set_defaults(handler=cmd_act)

    legal = commands.add_parser(
        "legal", help="list every legal intent of the side to act",
        description="Print, as a JSON list, every intent the side to act may send now.")
    legal.add_argument("file", metavar="FILE", help="position file (- for standard input)")
    legal.set_defaults(handler=cmd_legal)

    halving = commands.add_parser(
        "half", help="print one side's half state",
        description="Print the half state of one side of a full state: what that side's "
        "machine holds in a network game (its own pieces, the enemy pieces it sees, "
        "everything public, its locks and last-seen markers), with the identifiers the two "
        "half states of one game share (docs/formats.md). wec act --peer resolves intents "
        "on two of them.")
    halving.add_argument("file", metavar="FILE", help="position file (- for standard input)")
    halving.add_argument("--side", required=True, choices=["black", "white"])
    halving.set_defaults(handler=cmd_half)

    viewing = commands.add_parser(
        "view", help="print what one side sees",
        description="Print the partial state one side knows (R9, R4.13): its own pieces, the "
        "enemy pieces it sees, everything public, and its last-seen markers; nothing about "
        "the enemy pieces hidden from it.")
    viewing.add_argument("file", metavar="FILE", help="position file (- for standard input)")
    viewing.add_argument("--side", required=True, choices=["black", "white"])
    viewing.set_defaults(handler=cmd_view)

    hashing = commands.add_parser(
        "hash", help="print the state's sync hash",
        description="Print the SHA-256 of the canonical state encoding (the per-turn sync hash).")
    hashing.add_argument("file", metavar="FILE", help="position file (- for standard input)")
    hashing.set_defaults(handler=cmd_hash)

    playing = commands.add_parser(
        "play", help="open the 3D game",
        description="Open the 3D game window on the main menu, or straight into a game from a "
        "position FILE (hotseat on this machine).")
    playing.add_argument("file", metavar="FILE", nargs="?", help="position file to play from")
    playing.add_argument("--offscreen-check", metavar="PNG", default=None,
                         help="start the game without a window (offscreen OpenGL), draw its "
                         "first screen (the main menu, or FILE's board) to PNG and exit: "
                         "checks that an installation or app bundle can run the game")
    playing.set_defaults(handler=cmd_play)

    shooting = commands.add_parser(
        "shot", help="render one side's view of a position to a PNG",
        description="Render what one side sees of a position (R9: never a hidden enemy piece) "
        "with the 3D client's board, camera and lighting, offscreen, to a PNG.")
    shooting.add_argument("file", metavar="FILE", help="position file (- for standard input)")
    shooting.add_argument("--side", required=True, choices=["black", "white"])
    shooting.add_argument("--out", required=True, metavar="PNG")
    shooting.add_argument("--size", default="1280x720", metavar="WIDTHxHEIGHT")
    shooting.add_argument("--detail", choices=["simple", "detailed"], default="detailed")
    shooting.set_defaults(handler=cmd_shot)

    bench = commands.add_parser(
        "bench", help="run a benchmark against a yardstick",
        description="Run a benchmark and print its figures beside a yardstick measured in the "
        "same run (needs the bench extra: pip install -e .[bench]).")
    bench.add_argument("suite", choices=sorted(BENCH_SUITES),
                       help="; ".join(f"{name}: {what}" for name, (_, what)
                                      in sorted(BENCH_SUITES.items())))
    bench.add_argument("--seconds", type=float, default=3.0,
                       help="time spent on each measurement (default 3)")
    bench.set_defaults(handler=cmd_bench)

    save_info = commands.add_parser(
        "save-info", help="summarise a saved game",
        description="Check a saved game (wec-save, docs/formats.md) by replaying it, and print "
        "a JSON summary: the sides and their governments, the turn, the side to act, the mode, "
        "the result and how many actions were played. A damaged, foreign or newer file exits "
        "with status 2 and one line on stderr; the file is never modified.")
    save_info.add_argument("file", metavar="FILE", help="saved game file")
    save_info.set_defaults(handler=cmd_save_info)
    for register in command_registrations():
        register(commands)
    return parser


def command_registrations() -> list[Any]:
    """The ``register(commands)`` function of every module of ``wec.cli.commands``
    (COMMAND_MODULES, in name order): each adds its own sub-commands. Named, not
    discovered: an app bundle's frozen package has no folder to list."""
    import importlib

    return [importlib.import_module(f"wec.cli.commands.{name}").register
            for name in COMMAND_MODULES]


# ---------------------------------------------------------------- helpers

def cmd_play(args: argparse.Namespace) -> None:
    try:
        from wec.client.app import run
    except ImportError as exc:
        raise CliError(f"the 3D client needs Panda3D ({exc}); run ./scripts/play to set it "
                       "up") from None
    if args.file is not None and not os.path.exists(args.file):
        raise CliError(f"{args.file}: no such file")
    check = Path(args.offscreen_check) if args.offscreen_check else None
    if check is not None and check.suffix.lower() != ".png":
        raise CliError(f"--offscreen-check: {check}: expected a .png file name")
    code = run(Path(args.file) if args.file else None, offscreen_check=check)
    if code:
        raise SystemExit(code)


def parse_at(text: str) -> int:
    parts = [p.strip() for p in text.split(",")]
    try:
        row, col = int(parts[0]), int(parts[1])
        level = Level.parse(parts[2]) if len(parts) == 3 else Level.GROUND
    except (ValueError, IndexError):
        raise CliError(f"--at: expected ROW,COL[,LEVEL] such as 1,4,ground (got {text!r})") \
            from None
    if len(parts) > 3 or not on_board(row, col):
        raise CliError(f"--at: expected ROW,COL[,LEVEL] with ROW and COL 1..10 (got {text!r})")
    return cell_at(row, col, level)


# ---------------------------------------------------------------- commands

def cmd_position(args: argparse.Namespace) -> None:
    if args.name == "standard":
        if args.scenario is not None or args.list:
            raise CliError("standard takes no NAME and no --list (did you mean: wec position "
                           "scenario NAME?)")
        print(dump_position(standard_position()))
        return
    from wec.storage.scenarios import load_scenario, scenario_names

    if args.list:
        if args.scenario is not None:
            raise CliError("scenario: give NAME or --list, not both")
        print("\n".join(scenario_names()))
        return
    if args.scenario is None:
        raise CliError(f"scenario: give its NAME (known: {', '.join(scenario_names())})")
    print(dump_position(load_scenario(args.scenario)))


def cmd_moves(args: argparse.Namespace) -> None:
    from wec.engine.intents import Move

    position = read_position(args.file)
    at = parse_at(args.at)
    kind = None
    if args.kind:
        try:
            kind = PieceKind(args.kind)
        except ValueError:
            raise CliError(f"--kind: unknown kind {args.kind!r} (known: "
                           f"{', '.join(k.value for k in PieceKind)})") from None
    hand = Hand(args.hand) if args.hand else None
    piece = select_mover(position, Move(at, at, kind, None, hand))
    destinations = sorted({plan.route.dest for plan in legal_plans(position, piece)})
    print(json.dumps([cell_to_list(c) for c in destinations]))


def cmd_act(args: argparse.Namespace) -> None:
    if args.peer is not None:
        _act_on_halves(args)
        return
    position = read_position(args.file)
    events: list[dict[str, Any]] = []
    for n, text in enumerate(args.intents, start=1):
        try:
            intent = intent_from_dict(json.loads(text))
        except json.JSONDecodeError as exc:
            raise CliError(f"intent {n}: not valid JSON: {exc.msg}") from None
        except FormatError as exc:
            raise CliError(f"intent {n}: {exc}") from None
        try:
            outcome = apply(position, intent)
        except IllegalIntent as exc:
            raise CliError(f"intent {n}: {exc}") from None
        position = outcome.position
        events.extend(event_to_dict(e) for e in outcome.events)
    if args.events:
        print(json.dumps({"position": position_to_dict(position), "events": events}))
    else:
        print(dump_position(position))


def cmd_legal(args: argparse.Namespace) -> None:
    position = read_position(args.file)
    intents: list[Any] = [intent_to_dict(i) for i in legal_intents(position)]
    print(json.dumps(intents))


def _intent(n: int, text: str) -> Any:
    try:
        return intent_from_dict(json.loads(text))
    except json.JSONDecodeError as exc:
        raise CliError(f"intent {n}: not valid JSON: {exc.msg}") from None
    except FormatError as exc:
        raise CliError(f"intent {n}: {exc}") from None


def _act_on_halves(args: argparse.Namespace) -> None:
    """``wec act HALF --peer OTHER_HALF``: each intent resolved on both half states, each
    side asking the other side's half referee (engine.half_resolution)."""
    from wec.engine.half import check_pair
    from wec.engine.half_referee import HalfReferee

    black, white = check_pair(read_position(args.file), read_position(args.peer))
    halves = {Side.BLACK: black, Side.WHITE: white}
    events: dict[Side, list[dict[str, Any]]] = {Side.BLACK: [], Side.WHITE: []}
    for n, text in enumerate(args.intents, start=1):
        intent = _intent(n, text)
        actor = halves[Side.BLACK].side_to_act
        try:
            outcomes = {side: apply(halves[side], intent, HalfReferee(halves[side.other]))
                        for side in (actor, actor.other)}
        except IllegalIntent as exc:
            raise CliError(f"intent {n}: {exc}") from None
        for side, outcome in outcomes.items():
            halves[side] = outcome.position
            events[side].extend(event_to_dict(e) for e in outcome.events)
    out: dict[str, Any] = {}
    for side in Side:
        half = position_to_dict(halves[side], handles=True)
        out[side.value] = ({"position": half, "events": events[side]} if args.events
                           else half)
    print(json.dumps(out))


def cmd_half(args: argparse.Namespace) -> None:
    position = read_position(args.file)
    if position.viewer is not None:
        raise CliError(f"{args.file}: already {position.viewer.value}'s half state; give the "
                       "full state")
    print(dump_position(project(position, Side(args.side)), handles=True))


def cmd_view(args: argparse.Namespace) -> None:
    position = read_position(args.file)
    if position.viewer is not None:
        raise CliError(f"{args.file}: already a view of {position.viewer.value}; give the "
                       "full state")
    print(dump_position(view(position, Side(args.side))))


def cmd_hash(args: argparse.Namespace) -> None:
    print(state_hash(read_position(args.file)))


def cmd_shot(args: argparse.Namespace) -> None:
    try:
        from wec.client.shot import main_shot
    except ImportError as exc:
        raise CliError(f"the 3D client needs Panda3D ({exc}); run ./scripts/play to set it "
                       "up") from None
    code = main_shot(args.file, args.side, args.out, args.size, args.detail)
    if code:
        raise SystemExit(code)


def cmd_bench(args: argparse.Namespace) -> None:
    import importlib

    module_name, _ = BENCH_SUITES[args.suite]
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise CliError(f"bench {args.suite}: {exc.name} is missing; run ./scripts/test once "
                       "to set up every extra (or .venv/bin/pip install -e "
                       "'.[client,net,bench]')") from None
    module.run(seconds=args.seconds, out=sys.stdout)


def cmd_save_info(args: argparse.Namespace) -> None:
    from wec.engine.errors import SaveError
    from wec.engine.options import options_to_dict
    from wec.engine.savegame import save_summary
    from wec.storage.fog_saves import decode_fog_save, fog_save_summary, is_fog_save
    from wec.storage.saves import read_save, read_save_bytes

    data = read_save_bytes(args.file)
    if is_fog_save(data):  # one side's half of a LAN game with fog of war (issue 21)
        try:
            fog = decode_fog_save(data)
        except SaveError as exc:
            raise SaveError(f"{args.file}: {exc}") from None
        print(json.dumps(fog_save_summary(fog), indent=2))
        return
    match = read_save(args.file)
    summary = save_summary(match)
    options = match.current.options
    # issue 21: the game's options (R13 names as in docs/formats.md), so a player sees
    # before loading whether fog of war (O15, O16) was on
    summary["fog_of_war"] = options.stealth_invisibility or options.submersion_invisibility
    summary["options"] = options_to_dict(options)
    print(json.dumps(summary, indent=2))
