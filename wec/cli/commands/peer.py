"""``wec peer``: a LAN-play peer without a window (issue 8 item 8), for tests and demos.

    wec peer --name NAME [--host | --join NAME] [--script INTENTS.jsonl] [--state-dir DIR]
             [--address HOST:PORT] [--interface ADDR] [--auto-confirm]
             [--colour white|black|either] ...

It runs a full net.peer.Peer and prints one JSON object per line for every event
(``{"event": "pairing_code", "code": "123 456", ...}``, ``"intent"``, ``"turn_end"``,
``"turn_agreed"``, ``"result"``, ...), each with ``"at"``: the machine's monotonic clock
in seconds. Its behaviour:

- ``--join NAME`` finds NAME by discovery (or dials ``--address``) until linked, and
  invites it (``--resume-save FILE``: to resume that save); ``--host`` accepts every
  invitation and leads the setup: it proposes ``--scenario``/``--position`` and each
  ``--option KEY=JSON`` and ``--move-time`` (a time limit per move), then ends the
  setup. Both choose ``--colour`` and ``--government``; proposals are approved
  (``--reject-proposals``: rejected).
  ``--hold-setup`` makes the host wait for the ``end_setup`` command instead.
- Pairing codes are confirmed with ``--auto-confirm`` or the ``confirm`` command.
- In the game it plays ``--script`` (one engine intent per line, ours only) when it is
  our turn; when the script runs out on our turn it ends (``--stay``: it waits for
  commands), or with ``--random`` plays random legal intents chosen from ``--seed`` and
  the position (so a restart picks the same ones), or with ``--computer LEVEL`` lets the
  computer opponent play our side from what our side sees (wec.cli.computer_peer,
  docs/computer.md). ``--hold-at N`` stops playing once the game has N actions, until
  ``go``.
- It exits when the game is over (``--stay`` keeps it running), after a last
  ``{"event": "final", ...}`` line with the state hash and intent counts.

Commands on standard input, one per line: ``confirm``, ``refuse``, ``invite [SAVE]``,
``accept``, ``decline``, ``end_setup``, ``chat TEXT``, ``save [NAME]``, ``resign``,
``takeback [TURN]``, ``cancel`` (the takeback request), ``claim``, ``wait``, ``hold N``,
``go``, ``play INTENT_JSON``, ``state``, ``quit``. A refused command prints
``{"event": "error", ...}``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from pathlib import Path
from typing import Any


def register(commands: Any) -> None:
    """Add ``wec peer`` to the ``wec`` sub-commands."""
    peer = commands.add_parser(
        "peer", help="run a LAN-play peer without a window (tests, demos)",
        description="Run a LAN-play peer headless: discovery, pairing, lobby and lockstep "
        "play, printing one JSON line per event. See wec/commands/peer.py for the "
        "standard-input commands.")
    peer.add_argument("--name", required=True, help="our display name")
    role = peer.add_mutually_exclusive_group()
    role.add_argument("--host", action="store_true",
                      help="accept invitations and lead the setup")
    role.add_argument("--join", metavar="NAME", help="find NAME and invite it")
    peer.add_argument("--address", metavar="HOST:PORT", action="append", default=[],
                      help="dial this address (instead of discovery); also used to "
                      "redial after a dropped connection")
    peer.add_argument("--state-dir", metavar="DIR",
                      help="identity, pinned peers, games and saves (default: the user "
                      "data folder)")
    peer.add_argument("--listen", default="0.0.0.0", metavar="HOST",
                      help="address to listen on (default every IPv4 interface)")
    peer.add_argument("--port", type=int, default=0, help="port to listen on (default any)")
    peer.add_argument("--no-discovery", action="store_true",
                      help="do not advertise or browse (dial by --address)")
    peer.add_argument("--include-loopback", action="store_true",
                      help="also run discovery on loopback (two peers on one machine)")
    peer.add_argument("--interface", metavar="ADDR", action="append", default=[],
                      help="run discovery only on the interface with this IPv4 address "
                      "(repeatable; e.g. 127.0.0.1 for two peers on one machine)")
    peer.add_argument("--auto-confirm", action="store_true",
                      help="confirm pairing codes without asking")
    peer.add_argument("--colour", "--color", default="either",
                      choices=["white", "black", "either"])
    peer.add_argument("--government",
                      choices=["monarchy", "dictatorship", "theocracy", "democracy"])
    peer.add_argument("--scenario", metavar="NAME",
                      help="(host) propose this bundled start board")
    peer.add_argument("--position", metavar="FILE",
                      help="(host) propose this start board (wec-position/1)")
    peer.add_argument("--option", metavar="KEY=JSON", action="append", default=[],
                      help="(host) propose this option value, e.g. tank_range=8")
    peer.add_argument("--hold-setup", action="store_true",
                      help="(host) once the proposals are answered, print setup_ready and "
                      "wait for the end_setup command")
    peer.add_argument("--reject-proposals", action="store_true",
                      help="reject the other side's proposals")
    peer.add_argument("--refuse-takebacks", action="store_true",
                      help="refuse takeback requests (default: accept them)")
    peer.add_argument("--resume-save", metavar="FILE",
                      help="(join) invite to resume this save from our saves folder")
    peer.add_argument("--script", metavar="INTENTS.jsonl",
                      help="our intents, one JSON object per line, played in order")
    peer.add_argument("--random", action="store_true",
                      help="play random legal intents (after the script, if any)")
    peer.add_argument("--seed", type=int, default=0, help="seed of --random (and --computer)")
    peer.add_argument("--hidden-moves", type=float, default=0.0, metavar="SHARE",
                      help="with --random and fog of war: the share of our choices that "
                      "Move a piece the peer does not see, when one can (benchmarks: "
                      "uniform random play makes a few such Moves in a hundred actions)")
    peer.add_argument("--computer", type=int, metavar="LEVEL",
                      help="play our side with the computer opponent at LEVEL (1-3, "
                      "docs/computer.md), after the script if any; it sees only our side")
    peer.add_argument("--computer-budget", type=float, metavar="SECONDS",
                      help="with --computer: its per-move budget (default: the level's)")
    peer.add_argument("--hold-at", type=int, metavar="N",
                      help="stop playing once the game has N actions, until 'go'")
    peer.add_argument("--grace", type=float, default=120.0, metavar="SECONDS",
                      help="how long the peer may be away before a win can be claimed")
    peer.add_argument("--claim-win", action="store_true",
                      help="claim the win as soon as the grace period ends, or the peer "
                      "does not move or answer in time")
    peer.add_argument("--no-fog", action="store_true",
                      help="play open-information games only: O15 and O16 off (by default "
                           "fog of war is on and each machine holds only its half)")
    peer.add_argument("--move-time", type=int, metavar="SECONDS",
                      help="(host) propose this time limit per move (0: none)")
    peer.add_argument("--idle-limit", type=float, default=900.0, metavar="SECONDS",
                      help="how long a connected peer may take for a turn before a win "
                      "can be claimed (even without a time limit per move)")
    peer.add_argument("--pairing-timeout", type=float, default=300.0, metavar="SECONDS",
                      help="close a connection whose pairing is not done in this time")
    peer.add_argument("--request-timeout", type=float, default=120.0, metavar="SECONDS",
                      help="how long a takeback request of the peer waits for our answer "
                      "before it is declined by itself")
    peer.add_argument("--heartbeat", type=float, default=1.0, metavar="SECONDS",
                      help="heartbeat interval; the peer is considered gone after 5 of "
                      "them without news")
    peer.add_argument("--stay", action="store_true", help="keep running after the game")
    peer.add_argument("--exit-timeout", type=float, default=30.0, metavar="SECONDS",
                      help="after the game, how long to wait for the peer to receive our "
                      "last messages (reconnecting if needed)")
    peer.add_argument("--log-level", default="ERROR")
    peer.set_defaults(handler=cmd_peer)


def cmd_peer(args: argparse.Namespace) -> None:
    import logging

    logging.basicConfig(level=args.log_level, stream=sys.stderr,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    runner = HeadlessPeer(args)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(runner.main())


def parse_address(text: str) -> tuple[str, int]:
    from wec.cli import CliError

    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise CliError(f"--address {text!r}: expected HOST:PORT")
    return host, int(port)


class HeadlessPeer:
    """Drives a Peer from the command line options and standard input."""

    def __init__(self, args: argparse.Namespace) -> None:
        from wec.cli import CliError

        self.args = args
        self.addresses = [parse_address(a) for a in args.address]
        self.script = self._read_script(args.script) if args.script else []
        self.computer = self._computer_seat(args)  # issue 19: wec.cli.computer_peer
        self.wake = asyncio.Event()
        self.hold_at: int | None = args.hold_at
        self.done = False
        self.pending_command: str | None = None
        self.setup_queue: list[Any] = []  # the host's proposals still to make
        self.proposal_open = False
        self.holding_reported = False
        self.setup_ready_reported = False
        self.mismatches = 0
        self.invite_refused = False
        self.quit = False
        if args.scenario and args.position:
            raise CliError("give --scenario or --position, not both")
        from wec.net.peer import interface_address_problem

        for address in args.interface:
            problem = interface_address_problem(address)
            if problem:
                raise CliError(f"--interface: {problem}")

    # ------------------------------------------------------------ output

    def print_event(self, data: dict[str, Any]) -> None:
        data = {**data, "at": round(time.monotonic(), 6)}
        print(json.dumps(data, sort_keys=True, default=str), flush=True)

    def on_event(self, event: Any) -> None:
        from wec.net.peer import describe_event

        self.print_event(describe_event(event))
        self.react(event)
        self.wake.set()

    # ------------------------------------------------------------ setup

    def _read_script(self, path: str) -> list[Any]:
        from wec.cli import CliError
        from wec.engine import FormatError, intent_from_dict

        intents = []
        try:
            lines = Path(path).read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise CliError(f"{path}: cannot read: {exc.strerror or exc}") from None
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                intents.append(intent_from_dict(json.loads(line)))
            except (json.JSONDecodeError, FormatError) as exc:
                raise CliError(f"{path}:{number}: not an intent: {exc}") from None
        return intents

    def _host_proposals(self) -> list[Any]:

        from wec.cli import CliError
        from wec.engine.formats import position_from_dict
        from wec.engine.options import options_from_dict, options_to_dict
        from wec.net.lobby import StartBoard
        from wec.storage.scenarios import load_scenario

        proposals: list[Any] = []
        board = None
        if self.args.scenario:
            board = StartBoard(self.args.scenario, load_scenario(self.args.scenario))
        elif self.args.position:
            data = json.loads(Path(self.args.position).read_text(encoding="utf-8"))
            board = StartBoard(Path(self.args.position).stem[:64] or "board",
                               position_from_dict(data))
        if board is not None:
            proposals.append(board)
        if self.args.option:
            assert self.peer is not None
            base = board.position.options if board and board.position else \
                self.peer.lobby().options
            values = options_to_dict(base)
            for item in self.args.option:
                key, _, value = item.partition("=")
                try:
                    values[key] = json.loads(value)
                except json.JSONDecodeError:
                    values[key] = value
            try:
                options = options_from_dict(values)
            except Exception as exc:
                raise CliError(f"--option: {exc}") from None
            proposals.append(options)
        if self.args.move_time is not None:
            proposals.append(int(self.args.move_time))  # seconds per move
        return proposals

    # ------------------------------------------------------------ reacting to events

    def react(self, event: Any) -> None:
        """Automatic answers: accept invitations (host), approve proposals, answer
        takebacks, claim the win when asked to."""
        from wec.net.lobby import (
            InvitationDeclined,
            Invited,
            ProposalAnswered,
            ProposalReceived,
            RulesMismatch,
        )
        from wec.net.lobby import SetupStarted as LobbySetupStarted
        from wec.net.lockstep import GameOver, TakebackRequested
        from wec.net.peer import GameUpdate, GraceExpired, LobbyUpdate, PeerIdle

        peer = self.peer
        assert peer is not None
        try:
            if isinstance(event, LobbyUpdate):
                inner = event.event
                if isinstance(inner, Invited) and self.args.host:
                    peer.accept(event.peer)
                elif isinstance(inner, InvitationDeclined) and not inner.by_us:
                    self.invite_refused = True  # do not ask again and again
                elif isinstance(inner, LobbySetupStarted) and not inner.resume:
                    self._start_setup(event.peer)
                elif isinstance(inner, ProposalReceived):
                    if self.args.reject_proposals:
                        peer.reject(event.peer, "this peer rejects every proposal")
                    else:
                        peer.approve(event.peer)
                elif isinstance(inner, ProposalAnswered) and inner.ours:
                    self.proposal_open = False
                elif isinstance(inner, RulesMismatch):
                    self.proposal_open = False
                    self.mismatches += 1
                    if self.mismatches >= 3:  # the same rules will not match again
                        self.args.hold_setup = True
            elif isinstance(event, GameUpdate):
                happened = event.event
                if isinstance(happened, TakebackRequested) and not happened.by_us:
                    peer.answer_takeback(not self.args.refuse_takebacks)
                elif isinstance(happened, GameOver):
                    self.done = True
            elif isinstance(event, GraceExpired | PeerIdle) and self.args.claim_win:
                peer.claim_win()
        except Exception as exc:
            self.print_event({"event": "error", "text": f"{type(exc).__name__}: {exc}"})

    def _start_setup(self, peer_name: str) -> None:
        from wec.engine.pieces import Government

        peer = self.peer
        assert peer is not None
        if self.args.government:
            peer.choose_government(Government(self.args.government), peer_name)
        peer.choose_colour(self.args.colour, peer_name)
        if self.args.host:
            self.setup_queue = self._host_proposals()
            self.proposal_open = False
            self.setup_ready_reported = False

    # ------------------------------------------------------------ the driving loop

    async def main(self) -> None:
        from wec.net.peer import Peer, PeerConfig
        from wec.net.session import SessionConfig

        args = self.args
        state_dir = Path(args.state_dir) if args.state_dir else None
        from wec.net.identity import default_state_dir

        session = SessionConfig(heartbeat_interval=args.heartbeat,
                                heartbeat_timeout=5 * args.heartbeat,
                                handshake_timeout=max(3.0, 5 * args.heartbeat))
        config = PeerConfig(
            name=args.name, state_dir=state_dir or default_state_dir(), host=args.listen,
            port=args.port, discovery=not args.no_discovery,
            include_loopback=args.include_loopback,
            interfaces=tuple(args.interface) or None, auto_confirm=args.auto_confirm,
            grace_period=args.grace, session=session, idle_limit=args.idle_limit,
            request_timeout=args.request_timeout, pairing_timeout=args.pairing_timeout,
            reconnect_interval=min(0.5, args.heartbeat), addresses=tuple(self.addresses),
            fog=False if args.no_fog else None, freeze_heap=True)
        self.peer: Peer | None = Peer(config, on_event=self.on_event)
        await self.peer.start()
        reader = asyncio.get_running_loop().create_task(self._read_commands())
        try:
            await self._drive()
        finally:
            reader.cancel()
            self._print_final()
            await self.peer.stop("the headless peer ended")

    async def _drive(self) -> None:
        last_join_attempt = 0.0
        while not self.quit:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(0.2):
                    await self.wake.wait()
            self.wake.clear()
            now = time.monotonic()
            if self.args.join and now - last_join_attempt > 1.0 and self._should_join():
                last_join_attempt = now
                await self._join()
            self._advance_lobby()
            self._play()
            if self.done and not self.args.stay:
                await self._flush_and_exit()
                return

    def _should_join(self) -> bool:
        peer = self.peer
        assert peer is not None
        if peer.game is not None and not peer.game.finished:
            return False  # the peer redials its game partner by itself
        return not any(link.peer_name == self.args.join for link in peer.links.values())

    async def _join(self) -> None:
        from wec.net.errors import NetError

        peer = self.peer
        assert peer is not None
        try:
            if self.addresses:
                for host, port in self.addresses:
                    await peer.connect(host, port)
                    return
            else:
                await peer.connect_to(self.args.join, timeout=1.0)
        except (NetError, OSError, TimeoutError) as exc:
            self.print_event({"event": "join_failed", "text": str(exc)})

    def _advance_lobby(self) -> None:
        """Invite once paired (join); make the host's proposals one by one, then end the
        setup."""
        from wec.net.errors import NetError
        from wec.net.lobby import LobbyError, Phase, StartBoard

        peer = self.peer
        assert peer is not None
        if peer.game is not None and not peer.game.finished:
            return
        if self.done:
            return
        for link in list(peer.links.values()):
            if not link.paired:
                continue
            try:
                lobby = peer.lobby(link.peer_name)
                if self.args.join == link.peer_name and lobby.phase is Phase.IDLE \
                        and not self.invite_refused:
                    peer.invite(link.peer_name, resume_file=self.args.resume_save)
                elif self.args.host and lobby.phase is Phase.SETUP and not self.proposal_open:
                    if self.setup_queue and not lobby.colours_decided and isinstance(
                            self.setup_queue[0], StartBoard) and \
                            lobby.needs_colours(self.setup_queue[0]):
                        pass  # a board with hidden pieces: the other side's half is sent
                    elif self.setup_queue:
                        proposal = self.setup_queue.pop(0)
                        self.proposal_open = True
                        if isinstance(proposal, StartBoard):
                            peer.propose_start(proposal, link.peer_name)
                        elif isinstance(proposal, int):
                            peer.propose_move_time(proposal, link.peer_name)
                        else:
                            peer.propose_options(proposal, link.peer_name)
                    elif lobby.colours_decided and self.args.hold_setup:
                        if not self.setup_ready_reported:
                            self.setup_ready_reported = True
                            self.print_event({"event": "setup_ready", "peer": link.peer_name})
                    elif lobby.colours_decided:
                        peer.end_setup(link.peer_name)
            except (LobbyError, NetError, OSError) as exc:
                self.print_event({"event": "error", "text": str(exc)})
                self.proposal_open = False

    def _play(self) -> None:
        from wec.engine.errors import IllegalIntent
        from wec.net.lockstep import LockstepError

        peer = self.peer
        assert peer is not None
        game = peer.game
        if game is None or game.finished or not game.lockstep.our_turn:
            return
        lockstep = game.lockstep
        if self.hold_at is not None and lockstep.steps >= self.hold_at:
            if not self.holding_reported:
                self.holding_reported = True
                self.print_event({"event": "holding", "actions": lockstep.steps})
            return
        if lockstep.our_takeback is not None:
            return
        intent = self._next_intent(lockstep)
        if intent is None:
            return
        try:
            peer.play(intent)
        except (IllegalIntent, LockstepError) as exc:
            self.print_event({"event": "error", "text": f"scripted intent refused: {exc}"})
            self.script = []
            self.args.random = False
            if self.computer is not None:  # it plans the rest of its turn again
                self.computer.refused(intent)
        self.wake.set()

    def _computer_seat(self, args: argparse.Namespace) -> Any:
        if args.computer is None:
            return None
        from wec.cli import CliError
        from wec.cli.computer_peer import ComputerSeat
        from wec.computer import LEVELS

        if args.computer not in LEVELS:
            raise CliError(f"--computer {args.computer}: expected a level, one of "
                           f"{', '.join(map(str, sorted(LEVELS)))}")
        if args.computer_budget is not None and not args.computer_budget > 0:
            raise CliError(f"--computer-budget {args.computer_budget}: expected a positive "
                           "number of seconds")
        return ComputerSeat(args.computer, args.seed, args.computer_budget)

    def _next_intent(self, lockstep: Any) -> Any:
        # our intents in the match so far (a resumed save or a restart goes on from there)
        index = (lockstep.intents_sent if lockstep.fog else
                 sum(1 for action in lockstep.match.actions if action.side is lockstep.our_side))
        if index < len(self.script):
            return self.script[index]
        if self.computer is not None:
            return self.computer.next_intent(lockstep)
        if not self.args.random:
            if self.script and index == len(self.script):
                self.print_event({"event": "script_done", "intents": index})
                self.script.append(None)  # report once
                if not self.args.stay:
                    self.quit = True  # the script was all we had to play
            return None
        from wec.engine.game import legal_intents

        # on what our side knows (R4.13): our half state with fog of war
        legal = legal_intents(lockstep.current) if lockstep.fog else \
            lockstep.match.legal_intents()
        from wec.engine.encoding import full_state_hash

        # keyed by what we hold (with fog of war our half: the public hash has fresh
        # salts in its commitments), so that a seed replays the same game
        chooser = random.Random(f"{self.args.seed}:{full_state_hash(lockstep.current)}"
                                if lockstep.fog else f"{self.args.seed}:{lockstep.state_hash}")
        # (no draw without --hidden-moves: a seed plays the game it always played)
        if lockstep.fog and self.args.hidden_moves > 0 \
                and chooser.random() < self.args.hidden_moves:
            hidden = [intent for intent in legal if lockstep.game.hides(intent)]
            if hidden:
                return chooser.choice(hidden)
        return chooser.choice(legal)

    async def _flush_and_exit(self) -> None:
        """Before leaving, make sure the peer got our last messages (its heartbeats say
        so), reconnecting if needed, for at most ``--exit-timeout`` seconds."""
        peer = self.peer
        assert peer is not None
        deadline = time.monotonic() + self.args.exit_timeout
        while time.monotonic() < deadline and not (peer.game_delivered()
                                                   and not self._audit_due()):
            await asyncio.sleep(0.05)
        # and let two heartbeats tell the peer how much of its messages we received, so
        # that it, too, knows its last messages arrived
        await asyncio.sleep(2.2 * self.args.heartbeat)

    def _audit_due(self) -> bool:
        """A game with fog of war whose audit has not given its verdict yet (the final
        line carries it; the peer's reveal may come after ours)."""
        game = self.peer.game if self.peer is not None else None
        if game is None or not game.lockstep.fog:
            return False
        return getattr(game.lockstep, "audit", None) is None

    def _print_final(self) -> None:
        peer = self.peer
        if peer is None:
            return
        game = peer.game
        if game is None:
            self.print_event({"event": "final", "game": None})
            return
        lockstep = game.lockstep
        result = lockstep.result
        self.print_event({
            "event": "final", "game": game.game_id.hex(), "state_hash": lockstep.state_hash,
            "actions": lockstep.steps, "turn": lockstep.current.turn,
            "fog": lockstep.fog,
            "audit": None if not lockstep.fog or getattr(lockstep, "audit", None) is None
            else lockstep.audit.summary,  # type: ignore[attr-defined]
            "intents_sent": lockstep.intents_sent,
            "peer_intents_applied": lockstep.peer_intents_applied,
            # where handling a message or idle work paused: [start, ms] (wec bench net)
            "pauses": [[round(at, 6), round(ms, 3)] for at, ms in peer.loop_pauses],
            # the collector's full passes: [start, ms] (wec bench net)
            "full_collections": [[round(at, 6), round(ms, 3)]
                                 for at, ms in peer.full_collections],
            "result": None if result is None else {
                "winner": result.winner.value if result.winner else None,
                "reason": result.reason, "how": result.how}})

    # ------------------------------------------------------------ standard input

    async def _read_commands(self) -> None:
        """Standard input is read by a daemon thread (an executor thread blocked in
        readline would keep the program from exiting)."""
        import threading

        loop = asyncio.get_running_loop()
        lines: asyncio.Queue[str | None] = asyncio.Queue()

        def read() -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: we are exiting
                for line in sys.stdin:
                    loop.call_soon_threadsafe(lines.put_nowait, line)
                loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=read, name="wec-peer-stdin", daemon=True).start()
        while True:
            line = await lines.get()
            if line is None:
                return
            self.command(line.strip())
            self.wake.set()

    def command(self, line: str) -> None:
        from wec.engine import intent_from_dict

        peer = self.peer
        assert peer is not None
        verb, _, rest = line.partition(" ")
        try:
            if verb == "confirm":
                peer.confirm_pairing(None, True)
            elif verb == "refuse":
                peer.confirm_pairing(None, False)
            elif verb == "invite":
                peer.invite(None, resume_file=rest or None)
            elif verb == "accept":
                peer.accept()
            elif verb == "decline":
                peer.decline(None, rest)
            elif verb == "end_setup":
                peer.end_setup()
            elif verb == "chat":
                peer.chat(rest)
            elif verb == "save":
                peer.save(rest or None)
            elif verb == "resign":
                peer.resign()
            elif verb == "cancel":
                peer.cancel_takeback()
            elif verb == "takeback":
                peer.request_takeback(int(rest) if rest else None)
            elif verb == "claim":
                peer.claim_win()
            elif verb == "wait":
                peer.keep_waiting()
            elif verb == "hold":
                self.hold_at = int(rest)
                self.holding_reported = False
            elif verb == "go":
                self.hold_at = None
            elif verb == "play":
                peer.play(intent_from_dict(json.loads(rest)))
            elif verb == "state":
                self._print_final()
            elif verb == "quit":
                self.quit = True
            elif verb:
                raise ValueError(f"unknown command {verb!r}")
        except Exception as exc:
            self.print_event({"event": "error", "text": f"{verb}: {exc}"})
