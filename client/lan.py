"""Play on local network (issue 8 item 7): the client's LAN screens over net.peer.

:class:`LanPlay` runs one :class:`~net.background.BackgroundPeer` (the asyncio Peer on
its own thread) while the LAN screens are open. A Panda task polls its events once a
frame (``poll_events`` never waits) and checks command futures with ``done()``: the
network never holds up a frame. The screens:

- **Your name** (first time; kept in ``player.json`` in the LAN state folder, the user
  data folder by default) with this installation's identity fingerprint.
- **Peers list**: the games seen on the network, the peers connected and the peers
  paired before, each with its short fingerprint and paired or new; Invite, or Join by
  address (HOST:PORT) where the network has no multicast. A changed key is a loud red
  warning with both fingerprints.
- **Pairing prompt**: the 6-digit code both screens show; "The codes match" or "They
  differ".
- **Lobby**: invite or accept; colour wish and the coin flip; option changes proposed by
  one side and approved or rejected by the other, with what changes; government and view
  settings without approval; Ready ends the setup; O15 and O16 stay off with the lobby's
  reason (stage 1 plays open-information games only).
- **Game**: :class:`~client.network_play.NetworkPlayScreen`, the hotseat play screen over a
  :class:`~client.network_session.NetworkSession`: our intents go to the Peer, the
  opponent's arrive and are animated; a connection status line, claim the win or keep
  waiting after the grace period, the desync message with its report, resign, takeback
  by request, chat, save (each machine writes its own file).

Leaving the LAN screens stops the Peer; a game under way stays in its journal and is
resumed when the player opens Play on local network again.
"""

from __future__ import annotations

import concurrent.futures
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from direct.gui.DirectGui import DirectEntry
from direct.gui.OnscreenText import OnscreenText
from direct.task.Task import Task
from panda3d.core import TextNode

from wec.client.hud import ACCENT, REFUSAL, TEXT, Alignment, Colour, ListPanel, button
from wec.client.menus import Screen, option_title
from wec.client.narration import message_words
from wec.client.network_play import WAIT_COLOUR, NetworkPlayScreen
from wec.client.network_session import NetworkSession, take_snapshot
from wec.engine.options import Options, option_specs, options_to_dict
from wec.engine.pieces import Government, Side
from wec.net import lobby as lobby_events
from wec.net import lockstep as game_events
from wec.net.game_fog import FOG_NOTICE, fog_problem
from wec.net.lobby import STAGE1_REASON, stage1_options, stage1_problem

PLAYER_FILE = "player.json"
VIEW_SETTINGS = (("last_seen_markers", "Last-seen markers"),
                 ("reinforcement_squares", "Reinforcement squares"))


# ---------------------------------------------------------------- small helpers


def default_lan_folder() -> Path:
    """Where LAN play keeps its identity, pins, games, saves and the player's name."""
    from wec.net.identity import default_state_dir

    return default_state_dir()


def read_player_name(folder: Path) -> str | None:
    """The name this player chose before, or None (first time, or an unreadable file)."""
    try:
        data = json.loads((folder / PLAYER_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else None


def write_player_name(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / PLAYER_FILE).write_text(json.dumps({"name": name}) + "\n", encoding="utf-8")


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` as typed; ValueError says what is wrong."""
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"type an address as HOST:PORT, e.g. 192.168.1.20:41000 "
                         f"(got {text.strip()!r})")
    return host, int(port)


def short_fingerprint(fingerprint: str) -> str:
    """The first two groups of a fingerprint, as the peers list shows it."""
    return "-".join(fingerprint.split("-")[:2])


def _value(value: Any) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def option_changes(before: Options, after: Options) -> list[str]:
    """``O6 Tank range: 7 -> 8``: each option that differs (governments aside: each side
    picks its own, R11.1)."""
    old, new = options_to_dict(before), options_to_dict(after)
    lines: list[str] = []
    for name, oid, kind, _ in option_specs():
        if kind == "government" or old[name] == new[name]:
            continue
        if kind == "rates":
            lines += [f"{oid} Rate of fire ({weapon}): {old[name][weapon]} -> {rate}"
                      for weapon, rate in new[name].items() if old[name][weapon] != rate]
        else:
            lines.append(f"{option_title(name, oid)}: {_value(old[name])} -> "
                         f"{_value(new[name])}")
    return lines


def rules_summary(options: Options, start_title: str, fog: bool = False) -> list[str]:
    """The agreed rules as the lobby lists them: what differs from the standard game
    (with fog of war, the R13 defaults; in stage 1, O15 and O16 off)."""
    changed = option_changes(Options() if fog else stage1_options(Options()), options)
    board = "the standard setup (R15)" if start_title == "standard" else start_title
    return [f"Start: {board}"] + (changed or ["Options: the standard game"])


MOVE_TIMES = (0, 60, 120, 300, 600)  # the time limits per move the lobby offers, seconds


def time_limit(move_time: int) -> str:
    """A time limit per move in words: ``60 s`` or ``no limit``."""
    return f"{move_time} s" if move_time else "no limit"


def time_line(move_time: int) -> str:
    """The time limit per move as the lobby shows it (issue 20 hole 3)."""
    return f"Time per move: {time_limit(move_time)}"


def _reason(problem: BaseException) -> str:
    return str(getattr(problem, "reason", None) or problem)


# ---------------------------------------------------------------- what the screens show


@dataclass(frozen=True)
class LobbySnapshot:
    """The lobby with one peer as the network thread holds it (see lobby_snapshot)."""

    peer: str
    phase: str
    our_colour: str | None
    peer_colour: str | None
    our_side: Side | None
    options: Options
    start_title: str
    our_government: Government
    peer_government: Government
    saves: tuple[str, ...]
    move_time: int = 0  # the agreed time limit per move, seconds (0: none)
    fog: bool = False  # this lobby plays fog-of-war games (issue 21)


def lobby_snapshot(peer: Any, name: str) -> LobbySnapshot | None:
    """Read the lobby with ``name`` on the network thread; None when not paired."""
    from wec.net.lobby import LobbyError

    try:
        lobby = peer.lobby(name)
    except LobbyError:
        return None
    link = next((link for link in peer.links.values() if link.peer_name == name), None)
    saves = tuple(path.name for path, _ in peer.saved_games(link.peer_key)) if link else ()
    return LobbySnapshot(name, lobby.phase.value, lobby.our_colour, lobby.peer_colour,
                         lobby.our_side, lobby.options, lobby.start.title,
                         lobby.our_government, lobby.peer_government, saves[-4:],
                         lobby.move_time, lobby.fog)


@dataclass
class KnownPeer:
    """One line of the peers list."""

    name: str
    fingerprint: str
    paired: bool
    key_changed: bool
    connected: bool
    seen: Any = None  # net.discovery.PeerInfo when discovery lists it

    @property
    def where(self) -> str:
        if self.connected:
            return "connected"
        return "on the network" if self.seen is not None else "not seen now"

    def line(self) -> str:
        status = "KEY CHANGED" if self.key_changed else "paired" if self.paired else "new"
        return f"{self.name}   {short_fingerprint(self.fingerprint)}   {status}   {self.where}"


@dataclass
class LanModel:
    """What the LAN screens show, kept up to date from the Peer's events (no Panda3D)."""

    name: str = ""
    fingerprint: str = ""
    port: int | None = None
    seen: dict[str, Any] = field(default_factory=dict)  # service name -> PeerInfo
    connected: dict[str, str] = field(default_factory=dict)  # name -> fingerprint
    paired: set[str] = field(default_factory=set)
    pinned: dict[str, str] = field(default_factory=dict)  # name -> fingerprint
    pairing: Any = None  # the PairingCode being compared
    pairing_answered: bool = False
    warning: str = ""  # loud: a changed key, a refused pairing
    notice: str = ""
    lobby_peer: str | None = None
    lobby: LobbySnapshot | None = None
    lobby_log: list[str] = field(default_factory=list)
    invitation: Any = None  # the peer's Invited
    peer_proposal: tuple[int, list[str], str] | None = None  # number, changes, title
    our_proposal: list[str] | None = None
    lock_reason: str = STAGE1_REASON
    game_peer: str = ""  # the opponent of the game under way
    chat: list[str] = field(default_factory=list)
    desync_path: str = ""

    def peers(self) -> list[KnownPeer]:
        """Everyone worth listing, by name: seen, connected or paired before."""
        known: dict[tuple[str, str], KnownPeer] = {}

        def entry(name: str, fingerprint: str) -> KnownPeer:
            key = (name, fingerprint)
            if key not in known:
                pinned = self.pinned.get(name)
                known[key] = KnownPeer(name, fingerprint, pinned == fingerprint,
                                       pinned is not None and pinned != fingerprint,
                                       False)
            return known[key]

        for info in self.seen.values():
            entry(info.name, info.fingerprint).seen = info
        for name, fingerprint in self.connected.items():
            entry(name, fingerprint).connected = True
        for name, fingerprint in self.pinned.items():
            entry(name, fingerprint)
        return sorted(known.values(), key=lambda p: (not p.connected, p.seen is None, p.name))

    def apply_peer(self, event: Any) -> bool:
        """Who we are and who is around (Started, PeerSeen, PeerGone, Connected); False
        for any other event."""
        from wec.net import peer as peer_events

        if isinstance(event, peer_events.Started):
            self.name, self.fingerprint, self.port = event.name, event.fingerprint, event.port
        elif isinstance(event, peer_events.PeerSeen):
            self.seen[event.peer.service_name] = event.peer
        elif isinstance(event, peer_events.PeerGone):
            self.seen.pop(event.peer.service_name, None)
        elif isinstance(event, peer_events.Connected):
            self.connected[event.peer] = event.fingerprint
        else:
            return False
        return True

    def log(self, line: str) -> None:
        self.lobby_log.append(line)
        del self.lobby_log[:-60]

    def apply_lobby(self, peer: str, event: Any) -> None:
        """One lobby event (net.lobby) as a line of the lobby's log and its state."""
        other = peer
        if isinstance(event, lobby_events.Notice):
            if event.text == STAGE1_REASON:
                self.lock_reason = event.text
            elif event.text == FOG_NOTICE:
                self.lock_reason = ""  # fog of war is on: nothing is locked
            else:
                self.log(event.text)
        elif isinstance(event, lobby_events.Invited):
            self.invitation = event
            what = "to resume a saved game" if event.resume_game else "to a new game"
            self.log(f"{other} invites you {what}")
        elif isinstance(event, lobby_events.InvitationDeclined):
            self.invitation = None
            who = "You declined" if event.by_us else f"{other} declined"
            self.log(f"{who} the invitation" + (f": {event.reason}" if event.reason else ""))
        elif isinstance(event, lobby_events.SetupStarted):
            self.invitation = None
            self.peer_proposal = self.our_proposal = None
            self.log("Resuming the saved game: the machines compare it" if event.resume
                     else "Setup: choose colours, rules and governments, then Ready")
        elif isinstance(event, lobby_events.ChatLine):
            self.log(f"{'You' if event.by_us else other}: {event.text}")
        elif isinstance(event, lobby_events.ColourChosen):
            self.log(f"{'You' if event.by_us else other} asked for {event.colour}")
        elif isinstance(event, lobby_events.CoinFlipStarted):
            self.log(f"Both asked for {event.contested}: a fair coin flip decides "
                     "(each side commits to a secret bit, then reveals it)")
        elif isinstance(event, lobby_events.ColoursDecided):
            how = "the coin flip gave you" if event.by_coin else "you play"
            self.log(f"Colours decided: {how} {event.our_side.title}, {other} plays "
                     f"{event.our_side.other.title}")
        else:
            self._apply_rules_event(other, event)

    def _apply_rules_event(self, other: str, event: Any) -> None:
        if isinstance(event, lobby_events.ProposalReceived):
            base = self.lobby.options if self.lobby is not None else stage1_options(Options())
            changes = option_changes(base, event.options)
            before = self.lobby.move_time if self.lobby is not None else 0
            if event.move_time != before:
                changes.append(f"{time_line(before)} -> {time_limit(event.move_time)}")
            changes = changes or ["no option changes"]
            if event.title:
                changes = [f"Start board: {event.title}", *changes]
            self.peer_proposal = (event.proposal, changes, event.title)
            self.log(f"{other} proposes: " + "; ".join(changes))
        elif isinstance(event, lobby_events.ProposalAnswered):
            verdict = "approved" if event.approved else "rejected"
            why = f" ({event.reason})" if event.reason else ""
            if event.ours:
                self.our_proposal = None
                self.log(f"{other} {verdict} your proposal{why}")
            else:
                self.peer_proposal = None
                self.log(f"You {verdict} {other}'s proposal{why}")
        elif isinstance(event, lobby_events.RulesChanged):
            self.log("The rules now: " + "; ".join([*rules_summary(
                event.options, event.start_title, not self.lock_reason),
                time_line(event.move_time)]))
        elif isinstance(event, lobby_events.GovernmentChosen):
            who = "You choose" if event.by_us else f"{other} chooses"
            self.log(f"{who} the government {event.government.value} (R11.1)")
        elif isinstance(event, lobby_events.ViewSettingChanged):
            self.log(f"View setting on this machine (R14.5): {event.name} "
                     f"{_value(event.value)}")
        elif isinstance(event, lobby_events.SetupEnded):
            who = "You" if event.by_us else other
            self.log(f"{who} ended the setup: the two machines compare the rules")
        elif isinstance(event, lobby_events.RulesAgreed):
            self.log("Both machines hold the same rules: the game starts")
        elif isinstance(event, lobby_events.RulesMismatch):
            self.log(f"The rules differ: {event.reason}")
        elif isinstance(event, lobby_events.Refused):
            self.log(f"Refused {other}'s {message_words(event.tag)}: {event.reason}")
        elif isinstance(event, lobby_events.PeerRefused):
            self.log(f"{other} refused your {message_words(event.tag)}: {event.reason}")


_STOPPING: list[threading.Thread] = []  # networks still saying goodbye to their peers


def _start_in_thread(network: Any) -> concurrent.futures.Future[Any]:
    """``network.start()`` on a short-lived thread (starting waits for the network
    thread, which a frame must not do), after any earlier network has fully stopped (its
    game journal must be closed before this one reads it)."""
    future: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def run() -> None:
        for earlier in list(_STOPPING):
            earlier.join(timeout=30)
        try:
            network.start()
        except BaseException as problem:
            future.set_exception(problem)
        else:
            future.set_result(network)

    threading.Thread(target=run, name="wec-network-start", daemon=True).start()
    return future


def _stop_in_thread(network: Any, starting: concurrent.futures.Future[Any] | None
                    ) -> threading.Thread:
    """Stop ``network`` (once it has started) without holding up a frame."""

    def run() -> None:
        try:
            if starting is not None:
                try:
                    starting.result(timeout=30)
                except BaseException:
                    return  # it never started: nothing to stop
            network.stop(timeout=10)
        finally:
            _STOPPING.remove(threading.current_thread())

    thread = threading.Thread(target=run, name="wec-network-stop", daemon=True)
    _STOPPING.append(thread)
    thread.start()
    return thread


# ---------------------------------------------------------------- the controller


class LanPlay:
    """The LAN screens and the network beside them (see the module docstring).

    ``state_dir`` (default: the user data folder) holds the identity, pins, games,
    saves and the player's name; ``peer_options`` are extra PeerConfig fields (tests:
    ``host="127.0.0.1"``, ``discovery=False``, short timings)."""

    TASK = "lan-network"

    def __init__(self, app: Any, state_dir: Path | None = None,
                 peer_options: dict[str, Any] | None = None) -> None:
        self.app = app
        self.base = app.base
        self.state_dir = state_dir or default_lan_folder()
        self.peer_options = dict(peer_options or {})
        self.model = LanModel()
        self.network: Any = None
        self.session: NetworkSession | None = None
        self._starting: concurrent.futures.Future[Any] | None = None
        self._commands: list[tuple[str, concurrent.futures.Future[Any]]] = []
        self._lobby_request: concurrent.futures.Future[Any] | None = None
        self._lobby_again = False
        self._game_request: concurrent.futures.Future[Any] | None = None
        self._invite_when_paired: str | None = None

    # ------------------------------------------------------------ opening and leaving

    def open(self) -> Any:
        """The first LAN screen: the name (first time), else the peers list."""
        name = read_player_name(self.state_dir)
        if self.network is not None:
            return self.show_game() if self.session is not None else self.show_peers()
        if name is None:
            return self.show_name()
        return self.start(name)

    def show_name(self, error: str = "") -> Any:
        return self.app._replace(NameScreen(self, error))

    def identity_fingerprint(self) -> str:
        from wec.net.identity import load_or_create_identity

        return load_or_create_identity(self.state_dir).fingerprint

    def start(self, name: str) -> Any:
        """Start the network as ``name``; the peers list says "starting" meanwhile."""
        from wec.net.background import BackgroundPeer
        from wec.net.peer import PeerConfig

        self.model.name = name
        try:
            # the client's process is the peer's own: its heap is frozen at a game's
            # start (PeerConfig.freeze_heap)
            config = PeerConfig(name=name, state_dir=self.state_dir,
                                **{"freeze_heap": True, **self.peer_options})
            self.network = BackgroundPeer(config)
        except (OSError, ValueError, TypeError) as problem:
            return self.show_name(f"The network cannot start: {problem}")
        self._starting = _start_in_thread(self.network)
        self.base.taskMgr.add(self._tick, self.TASK)
        self.model.notice = "Starting the network..."
        return self.show_peers()

    def rename(self, name: str) -> Any:
        """A new name takes effect when the network starts again."""
        write_player_name(self.state_dir, name)
        self.stop()
        return self.start(name)

    def stop(self, wait: bool = False) -> None:
        """Stop the network (goodbye to every peer) on a helper thread, so no frame
        waits (``wait``: until it has stopped, as tests and quitting need); a game stays
        in its journal."""
        self.base.taskMgr.remove(self.TASK)
        network, self.network = self.network, None
        starting, self._starting = self._starting, None
        self.session = None
        self.model = LanModel(name=self.model.name)
        self._commands, self._lobby_request, self._game_request = [], None, None
        self._lobby_again, self._invite_when_paired = False, None
        if network is not None:
            thread = _stop_in_thread(network, starting)
            if wait:
                thread.join(timeout=40)

    def leave(self, notice: str = "") -> Any:
        """Back to the main menu; the network stops."""
        self.stop()
        self.app.lan = None
        return self.app.main_menu(notice)

    # ------------------------------------------------------------ commands

    def command(self, what: str, run: Callable[[Any], Any]) -> None:
        """Run ``run(peer)`` on the network thread; a refusal shows as ``what``: reason."""
        if self.network is None or self._starting is not None:
            self.say(f"{what}: the network is not started yet")
            return
        self._commands.append((what, self.network.submit(run)))

    def connect(self, host: str, port: int, fingerprint: str | None = None) -> None:
        what = f"cannot reach {host}:{port}"
        if self.network is None or self._starting is not None:
            self.say(f"{what}: the network is not started yet")
            return
        self._commands.append((what, self.network.call(
            lambda peer: peer.connect(host, port, fingerprint))))
        self.say(f"Connecting to {host}:{port}...")

    def invite_peer(self, peer: KnownPeer) -> None:
        """Invite from the peers list: open the lobby of a connected peer, or connect to
        a peer seen on the network and invite it once paired."""
        if peer.connected and peer.name in self.model.paired:
            self.show_lobby(peer.name)
            return
        if peer.seen is None:
            self.say(f"{peer.name} is not on the network now")
            return
        self._invite_when_paired = peer.name
        self.connect(peer.seen.addresses[0], peer.seen.port, peer.fingerprint)

    def say(self, text: str, loud: bool = False) -> None:
        if loud:
            self.model.warning = text
        else:
            self.model.notice = text
        screen = self.app.screen
        if isinstance(screen, NetworkPlayScreen):
            screen.say(text, refused=loud)
        elif hasattr(screen, "refresh"):
            screen.refresh()

    # ------------------------------------------------------------ screens

    def show_peers(self) -> Any:
        self._read_pins()
        return self.app._replace(PeersScreen(self))

    def show_lobby(self, peer: str) -> Any:
        if self.model.lobby_peer != peer:
            self.model.lobby_peer = peer
            self.model.lobby = None
            self.model.lobby_log = []
            self.model.peer_proposal = self.model.our_proposal = None
            self.model.invitation = None
        self._ask_lobby()
        return self.app._replace(LobbyScreen(self))

    def show_pairing(self) -> Any:
        return self.app._replace(PairingScreen(self))

    def show_game(self, notice: str = "") -> Any:
        assert self.session is not None
        self.base.setBackgroundColor(0.09, 0.11, 0.15, 1)
        screen = self.app._replace(NetworkPlayScreen(self.app, self.session, self))
        if notice:
            screen.say(notice, refused=True)
        return screen

    def show_proposal(self) -> Any:
        """The options screen, to propose a rule change to the peer (R13; O15 and O16
        stay off in stage 1)."""
        from wec.client.menus import NewGameScreen

        lobby = self.model.lobby
        if lobby is None:
            return None
        screen = NewGameScreen(self.base, self._propose, lambda: self.show_lobby(lobby.peer),
                               initial=lobby.options, title=f"Propose options to {lobby.peer}",
                               start_label="Propose")
        screen.notice.setText(
            "Governments are chosen in the lobby (R11.1). Fog of war: each machine holds "
            "only its side's view." if lobby.fog else
            "Governments are chosen in the lobby (R11.1). O15 and O16 stay off: every "
            "piece is visible in LAN play for now.")
        return self.app._replace(screen)

    def _propose(self, options: Options) -> None:
        lobby = self.model.lobby
        screen = self.app.screen
        if lobby is None:
            return
        problem = fog_problem(options) if lobby.fog else stage1_problem(options)
        changes = option_changes(lobby.options, options)
        if problem or not changes:
            screen.error.setText(problem or "Nothing changed: change an option first")
            return
        self.model.our_proposal = changes
        self.model.log("You propose: " + "; ".join(changes))
        self.command("proposal", lambda peer: peer.propose_options(options, lobby.peer))
        self.show_lobby(lobby.peer)

    # ------------------------------------------------------------ every frame

    def _tick(self, task: Task) -> int:
        if self._starting is not None:
            if not self._starting.done():
                return task.cont
            self._started()
        if self.network is None:
            return task.DS_done  # the same 0 as task.done, which is also AsyncFuture.done()
        for event in self.network.poll_events():
            self.handle(event)
        self._check_commands()
        self._check_lobby()
        self._check_game()
        screen = self.app.screen
        if self.session is not None:
            update = self.session.poll()
            if isinstance(screen, NetworkPlayScreen):
                if not update.empty:
                    screen.follow(update)
                screen.tick()
        return task.cont

    def _started(self) -> None:
        starting, self._starting = self._starting, None
        assert starting is not None
        problem = starting.exception()
        if problem is not None:
            self.network = None
            self.base.taskMgr.remove(self.TASK)
            self.show_name(f"The network could not start: {problem}")
            return
        self.model.fingerprint = self.network.fingerprint
        self.model.port = self.network.port
        self.model.notice = ""
        screen = self.app.screen
        if hasattr(screen, "refresh"):
            screen.refresh()

    def _check_commands(self) -> None:
        for what, future in [c for c in self._commands if c[1].done()]:
            self._commands.remove((what, future))
            problem = future.exception()
            if problem is None:
                continue
            from wec.net.errors import PeerKeyChanged

            if isinstance(problem, PeerKeyChanged):
                continue  # the ConnectionRefused event carries the loud warning
            self._invite_when_paired = None
            self.say(f"{what}: {_reason(problem)}")

    def _ask_lobby(self) -> None:
        if self.network is None or self.model.lobby_peer is None or self._starting:
            return
        if self._lobby_request is not None:
            self._lobby_again = True
            return
        name = self.model.lobby_peer
        self._lobby_request = self.network.submit(lambda peer: lobby_snapshot(peer, name))

    def _check_lobby(self) -> None:
        request = self._lobby_request
        if request is None or not request.done():
            return
        self._lobby_request = None
        if request.exception() is None:
            snapshot = request.result()
            if snapshot is not None and snapshot.peer == self.model.lobby_peer:
                self.model.lobby = snapshot
                if isinstance(self.app.screen, LobbyScreen):
                    self.app.screen.refresh()
        if self._lobby_again:
            self._lobby_again = False
            self._ask_lobby()

    def _ask_game(self) -> None:
        if self.network is not None and self._game_request is None:
            self._game_request = self.network.submit(take_snapshot)

    def _check_game(self) -> None:
        request = self._game_request
        if request is None or not request.done():
            return
        self._game_request = None
        snapshot = request.result() if request.exception() is None else None
        if snapshot is None:
            return
        if self.session is None or self.session.snapshot.game_id != snapshot.game_id:
            self.session = NetworkSession(self.network, snapshot)
            self.session.refresh()  # events handled while the snapshot was on its way
            self.show_game()

    # ------------------------------------------------------------ events

    def handle(self, event: Any) -> None:
        """One PeerEvent: the model first, then the screen that shows it."""
        from wec.net import peer as peer_events

        if self.model.apply_peer(event):
            if isinstance(self.app.screen, PeersScreen):
                self.app.screen.refresh()
        elif isinstance(event, peer_events.ConnectionRefused):
            self.say(event.reason, loud=event.key_changed)
        elif isinstance(event, peer_events.PairingCode):
            self._pairing(event)
        elif isinstance(event, peer_events.Paired):
            self._paired(event)
        elif isinstance(event, peer_events.PairingFailed):
            self._pairing_failed(event)
        elif isinstance(event, peer_events.Disconnected):
            self._disconnected(event)
        elif isinstance(event, peer_events.LobbyUpdate):
            self._lobby_update(event)
        elif isinstance(event, peer_events.GameStarted | peer_events.GameRestored):
            self.model.game_peer, self.model.chat, self.model.desync_path = event.peer, [], ""
            self._ask_game()
        else:
            self._game_event(event)

    def _pairing(self, event: Any) -> None:
        self.model.pairing = event
        self.model.pairing_answered = False
        if self.session is None or self.session.result is not None:
            self.show_pairing()

    def _paired(self, event: Any) -> None:
        model = self.model
        model.paired.add(event.peer)
        model.pairing = None
        model.notice = ""
        if event.known_as:  # the same key, a new name (issue 20 hole 11)
            model.notice = f"{event.peer} was paired before as {event.known_as}"
        self._read_pins()
        if event.newly:
            model.warning = ""
        if self._game_request is not None:
            return  # a game (restored from its journal) is about to be shown
        if self.session is not None and self.session.peer_name == event.peer \
                and self.session.result is None:
            self.session.refresh()
            return
        if self._invite_when_paired == event.peer:
            self._invite_when_paired = None
            self.command("invitation", lambda peer: peer.invite(event.peer))
        if not isinstance(self.app.screen, NetworkPlayScreen) and (
                model.lobby_peer in (None, event.peer)
                or not isinstance(self.app.screen, LobbyScreen)):
            self.show_lobby(event.peer)

    def _pairing_failed(self, event: Any) -> None:
        self.model.pairing = None
        self.model.warning = (f"Not paired with {event.peer}: {event.reason}. If the codes "
                              "differed, someone may sit between you: do not play over "
                              "this network.")
        if not isinstance(self.app.screen, NetworkPlayScreen):
            self.show_peers()

    def _disconnected(self, event: Any) -> None:
        model = self.model
        model.connected.pop(event.peer, None)
        model.paired.discard(event.peer)
        if self.session is not None and self.session.peer_name == event.peer:
            self.session.refresh()
            if self.session.result is None:
                self.say(f"{event.peer} disconnected ({event.reason}); reconnecting...")
                return
        model.notice = f"{event.peer} disconnected: {event.reason}"
        screen = self.app.screen
        if isinstance(screen, LobbyScreen | PairingScreen) and (
                model.lobby_peer == event.peer or model.pairing is not None):
            model.pairing = None
            self.show_peers()
        elif isinstance(screen, PeersScreen):
            screen.refresh()

    def _lobby_update(self, event: Any) -> None:
        model = self.model
        if model.lobby_peer not in (None, event.peer) and isinstance(
                event.event, lobby_events.Notice):
            return  # another peer's opening notice: its lobby is not on screen
        if model.lobby_peer != event.peer:
            if isinstance(self.app.screen, NetworkPlayScreen):
                return
            self.show_lobby(event.peer)
        model.apply_lobby(event.peer, event.event)
        self._ask_lobby()
        screen = self.app.screen
        if isinstance(screen, LobbyScreen):
            screen.refresh()
        elif isinstance(screen, PeersScreen) and isinstance(event.event,
                                                              lobby_events.Invited):
            self.show_lobby(event.peer)

    def _game_event(self, event: Any) -> None:
        from wec.net import peer as peer_events

        session = self.session
        if session is not None:
            session.refresh()
        if isinstance(event, peer_events.GameUpdate):
            inner = event.event
            if isinstance(inner, game_events.ChatLine):
                who = "You" if inner.by_us else self.model.game_peer
                self.model.chat.append(f"{who}: {inner.text}")
                del self.model.chat[:-100]
            event = inner
        elif isinstance(event, peer_events.DesyncWritten):
            self.model.desync_path = event.path
        screen = self.app.screen
        if isinstance(screen, NetworkPlayScreen):
            screen.on_event(event)
        elif isinstance(event, peer_events.ErrorEvent):
            self.say(event.text)

    def _read_pins(self) -> None:
        from wec.net.errors import PinStoreError
        from wec.net.pairing import PeerStore

        try:
            self.model.pinned = {p.name: p.fingerprint for p in PeerStore(
                self.state_dir).peers()}
        except PinStoreError as problem:
            self.model.warning = str(problem)

    def leave_game(self) -> Any:
        """From a finished game: back to the lobby with the same peer, or the list."""
        session, self.session = self.session, None
        peer = session.peer_name if session is not None else None
        if peer is not None and peer in self.model.paired:
            self.model.log(f"The game with {peer} is over: invite {peer} again, or wait")
            return self.show_lobby(peer)
        return self.show_peers()


# ---------------------------------------------------------------- screens


def _text(parent: Any, text: str, pos: tuple[float, float], scale: float = 0.045,
          fg: Colour = TEXT, wrap: float | None = None,
          align: Alignment = TextNode.ALeft) -> OnscreenText:
    return OnscreenText(parent=parent, text=text, pos=pos, scale=scale, fg=fg,
                        align=align, wordwrap=wrap, mayChange=True)


def _entry(parent: Any, pos: tuple[float, float], name: str, width: float = 16,
           initial: str = "", command: Callable[[str], None] | None = None) -> DirectEntry:
    made = DirectEntry(parent=parent, pos=(pos[0], 0, pos[1]), scale=0.05, width=width,
                       initialText=initial, numLines=1, focus=0, command=command,
                       frameColor=(0.1, 0.1, 0.12, 0.95), text_fg=(1, 1, 1, 1))
    made.setName(name)
    return made


class NameScreen(Screen):
    """Your name (first time, or to change it) and this installation's fingerprint."""

    def __init__(self, lan: LanPlay, error: str = "") -> None:
        super().__init__(lan.base, "lan-name")
        self.lan = lan
        _text(self.frame, "Play on local network", (0, 0.7), 0.08, ACCENT,
              align=TextNode.ACenter)
        _text(self.frame, "Your name, as the other players will see it:", (-0.8, 0.42))
        self.entry = _entry(self.frame, (-0.8, 0.3), "lan-name-entry",
                            initial=read_player_name(lan.state_dir) or "",
                            command=lambda text: self.done())
        try:
            key = lan.identity_fingerprint()
            fingerprint = f"Your identity key: {key}"
        except Exception as problem:  # an unsafe key file says how to fix it
            key, fingerprint = "", f"Your identity key cannot be used: {problem}"
        self.fingerprint = _text(self.frame, fingerprint, (-0.8, 0.12), 0.045, TEXT, 36)
        self.key = key
        _text(self.frame, "Other players compare it when you pair for the first time.",
              (-0.8, 0.04), 0.038)
        self.error = _text(self.frame, error, (-0.8, -0.1), 0.042, REFUSAL, 36)
        button(self.frame, "Continue", self.done, (0.3, -0.5), width=8,
               name="lan-name-continue")
        button(self.frame, "Back", lambda: lan.leave(), (-0.3, -0.5), width=8, name="back")

    def done(self) -> None:
        from wec.net.identity import display_name_problem

        name = self.entry.get().strip()
        problem = display_name_problem(name)
        if problem:
            self.error.setText(problem)
            return
        try:
            write_player_name(self.lan.state_dir, name)
        except OSError as failure:
            self.error.setText(f"the name was not kept: {failure}")
            return
        if self.lan.network is not None:
            self.lan.rename(name)
        else:
            self.lan.start(name)

    def destroy(self) -> None:
        self.entry.destroy()
        super().destroy()


class PeersScreen(Screen):
    """The peers list, join by address, and the loud warnings."""

    def __init__(self, lan: LanPlay) -> None:
        super().__init__(lan.base, "lan-peers")
        self.lan = lan
        _text(self.frame, "Play on local network", (0, 0.82), 0.08, ACCENT,
              align=TextNode.ACenter)
        self.me = _text(self.frame, "", (-1.22, 0.7), 0.042)
        self.warning = _text(self.frame, "", (-1.22, 0.6), 0.048, REFUSAL, 50)
        self.notice = _text(self.frame, "", (-1.22, -0.44), 0.042, WAIT_COLOUR, 56)
        _text(self.frame, "Players on this network", (-1.22, 0.3), 0.05, ACCENT)
        self.rows: list[Any] = []
        self.lines: list[str] = []
        _text(self.frame, "Join by address (for networks without multicast): HOST:PORT",
              (-1.22, -0.58), 0.042)
        self.address = _entry(self.frame, (-1.22, -0.7), "lan-address", width=18,
                              command=lambda text: self.join())
        button(self.frame, "Join", self.join, (-0.1, -0.68), width=6, name="lan-join")
        button(self.frame, "Change name", lambda: lan.show_name(), (0.6, -0.88), width=8,
               name="lan-rename")
        button(self.frame, "Back", lambda: lan.leave(), (-0.6, -0.88), width=8, name="back")
        self.refresh()

    def refresh(self) -> None:
        model = self.lan.model
        port = f", port {model.port}" if model.port else ""
        key = model.fingerprint or "..."
        self.me.setText(f"You: {model.name}   key {key}{port}")
        self.warning.setText(model.warning)
        self.notice.setText(model.notice)
        for widget in self.rows:
            widget.destroy()
        self.rows = []
        peers = self.lan.model.peers()[:8]
        self.lines = [peer.line() for peer in peers]
        if not peers:
            self.rows.append(_text(self.frame, "Nobody yet: the other player opens Play on "
                                   "local network on the same Wi-Fi.", (-1.15, 0.2), 0.042))
        for index, peer in enumerate(peers):
            y = 0.2 - index * 0.09
            colour = REFUSAL if peer.key_changed else TEXT
            self.rows.append(_text(self.frame, peer.line(), (-1.15, y), 0.045, colour))
            action = "Open" if peer.connected and peer.name in model.paired else "Invite"
            if peer.connected or peer.seen is not None:
                self.rows.append(button(self.frame, action, self.lan.invite_peer,
                                        (1.0, y + 0.01), width=6, args=[peer],
                                        name=f"peer-{index}"))

    def join(self) -> None:
        try:
            host, port = parse_address(self.address.get())
        except ValueError as problem:
            self.lan.say(str(problem))
            return
        self.lan.connect(host, port)

    def destroy(self) -> None:
        self.address.destroy()
        super().destroy()


class PairingScreen(Screen):
    """First meeting: both screens show the same code; the player compares."""

    def __init__(self, lan: LanPlay) -> None:
        super().__init__(lan.base, "lan-pairing")
        self.lan = lan
        code = lan.model.pairing
        self.peer = code.peer
        _text(self.frame, f"Pair with {code.peer}", (0, 0.7), 0.08, ACCENT,
              align=TextNode.ACenter)
        _text(self.frame, f"You meet {code.peer} for the first time. Check that "
              f"{code.peer}'s screen shows exactly this code:", (0, 0.52), 0.048,
              wrap=40, align=TextNode.ACenter)
        self.code = _text(self.frame, code.code, (0, 0.22), 0.2, ACCENT,
                          align=TextNode.ACenter)
        self.keys = _text(self.frame, f"Your key: {lan.model.fingerprint}\n"
                          f"{code.peer}'s key: {code.fingerprint}", (0, 0.06), 0.045,
                          align=TextNode.ACenter)
        self.status = _text(self.frame, "", (0, -0.16), 0.045, WAIT_COLOUR,
                            align=TextNode.ACenter)
        self.buttons = [button(self.frame, "The codes match", self.answer, (-0.35, -0.4),
                               width=9, args=[True], name="pair-match"),
                        button(self.frame, "They differ", self.answer, (0.35, -0.4),
                               width=9, args=[False], name="pair-differ")]
        _text(self.frame, "Different codes mean someone may be listening in between: "
              "then do not pair.", (0, -0.6), 0.04, wrap=50, align=TextNode.ACenter)

    def answer(self, same: bool) -> None:
        if self.lan.model.pairing_answered:
            return
        self.lan.model.pairing_answered = True
        peer = self.peer
        self.lan.command("pairing", lambda net: net.confirm_pairing(peer, same))
        if same:
            self.status.setText(f"Waiting for {peer} to compare the code...")
            for made in self.buttons:
                made.hide()

    def refresh(self) -> None:
        return None


LEFT = -1.24  # the lobby's left column starts here: inside a 4:3 window (x within 1.33)


class LobbyScreen(Screen):
    """The negotiation with one paired peer (net.lobby), as the manual describes it:
    the controls on the left follow the lobby's phase, its log and the O15/O16 lock on
    the right."""

    def __init__(self, lan: LanPlay) -> None:
        super().__init__(lan.base, "lan-lobby")
        self.lan = lan
        self.peer = lan.model.lobby_peer or ""
        self.title = _text(self.frame, f"Game with {self.peer}", (0, 0.86), 0.075, ACCENT,
                           align=TextNode.ACenter)
        self.phase = _text(self.frame, "", (0, 0.77), 0.045, WAIT_COLOUR,
                           align=TextNode.ACenter)
        self.log = ListPanel(self.frame, "Lobby", (0.14, 0.7), (1.12, 1.02), lines=22)
        self.log.frame.setName("lobby-log")
        self.lock = _text(self.frame, "", (0.17, -0.42), 0.034, (0.75, 0.75, 0.8, 1), 31)
        self.notice = _text(self.frame, "", (LEFT, -0.7), 0.04, REFUSAL, 33)
        _text(self.frame, f"Say to {self.peer} (Enter):", (0.17, -0.62), 0.036)
        self.chat = _entry(self.frame, (0.17, -0.72), "lobby-chat-entry", width=21,
                           command=self.chat_entered)
        self.widgets: list[Any] = []
        self.texts: dict[str, str] = {}
        button(self.frame, "Back", self.back, (LEFT + 0.15, -0.92), width=6, name="back")
        self.refresh()

    def back(self) -> None:
        """To the peers list; the lobby (and its log) stays as it is."""
        self.lan.show_peers()

    def chat_entered(self, text: str) -> None:
        """Send a chat line to the peer (Enter in the lobby's chat entry); the line shows
        in the lobby's log once the Peer took it (a refusal says why)."""
        self.chat.enterText("")
        text = text.strip()
        if text:
            peer = self.peer
            self.lan.command("chat", lambda net: net.chat(text, peer))

    def _put(self, key: str, text: str, pos: tuple[float, float], scale: float = 0.04,
             fg: Colour = TEXT, wrap: float | None = 34) -> None:
        self.texts[key] = text
        self.widgets.append(_text(self.frame, text, pos, scale, fg, wrap))

    def _button(self, text: str, command: Callable[..., Any], pos: tuple[float, float],
                name: str, width: float = 6.0, args: list[Any] | None = None) -> Any:
        made = button(self.frame, text, command, pos, width=width, args=args or [],
                      name=name)
        self.widgets.append(made)
        return made

    def refresh(self) -> None:
        """Rebuild the controls for the lobby's phase (they change with it)."""
        model = self.lan.model
        for widget in self.widgets:
            widget.destroy()
        self.widgets, self.texts = [], {}
        lobby = model.lobby
        self.log.set_lines(model.lobby_log)
        self.lock.setText(f"O15 and O16 are locked off: {model.lock_reason}"
                          if model.lock_reason else FOG_NOTICE)
        self.notice.setText(model.notice)
        if lobby is None:
            self.phase.setText(f"Talking to {self.peer}...")
            return
        self.phase.setText(self._phase_line(lobby))
        self._invitation(lobby)
        if lobby.phase in ("setup", "hashing"):
            self._colours(lobby, 0.44)
        self._governments(lobby, 0.2)
        self._view_settings(0.0)
        self._rules(lobby, -0.2)

    def _phase_line(self, lobby: LobbySnapshot) -> str:
        return {"idle": f"Invite {self.peer} to a game, or wait for an invitation",
                "inviting": f"You invited {self.peer}: waiting for the answer",
                "invited": f"{self.peer} invites you to a game",
                "setup": "Set up the game: colours, rules, governments; then Ready",
                "hashing": "Setup ended: the two machines compare the rules...",
                "started": "The game starts"}.get(lobby.phase, lobby.phase)

    def _invitation(self, lobby: LobbySnapshot) -> None:
        lan, peer = self.lan, self.peer
        if lobby.phase == "idle":
            self._button(f"Invite {peer}", lambda: lan.command(
                "invitation", lambda net: net.invite(peer)), (LEFT + 0.2, 0.62),
                "lobby-invite", width=8)
            for index, save in enumerate(lobby.saves[-3:]):
                made = self._button(f"Resume {save}", lambda name: lan.command(
                    "invitation", lambda net: net.invite(peer, resume_file=name)),
                    (LEFT + 0.62, 0.53 - 0.08 * index), f"lobby-resume-{index}", width=27,
                    args=[save])
                made["text_scale"] = 0.8
        elif lobby.phase == "invited":
            invitation = lan.model.invitation
            what = ("to resume a saved game" if invitation is not None
                    and invitation.resume_game else "to a new game")
            self._put("invitation", f"{peer} invites you {what}", (LEFT, 0.67), 0.045,
                      WAIT_COLOUR)
            self._button("Accept", lambda: lan.command(
                "accept", lambda net: net.accept(peer)), (LEFT + 0.15, 0.57), "lobby-accept")
            self._button("Decline", lambda: lan.command(
                "decline", lambda net: net.decline(peer, "not now")), (LEFT + 0.48, 0.57),
                "lobby-decline")
        elif lobby.phase == "setup":
            self._button("Ready: end the setup", lambda: lan.command(
                "ready", lambda net: net.end_setup(peer)), (-0.4, -0.92), "lobby-ready",
                width=10)

    def _colours(self, lobby: LobbySnapshot, y: float) -> None:
        lan, peer = self.lan, self.peer
        self._put("colours-title", "Colour", (LEFT, y + 0.1), 0.045, ACCENT)
        if lobby.our_colour is None and lobby.phase == "setup":
            for index, colour in enumerate(("white", "black", "either")):
                self._button(colour.title(), lambda wish: lan.command(
                    "colour", lambda net: net.choose_colour(wish, peer)),
                    (LEFT + 0.15 + 0.31 * index, y), f"lobby-colour-{colour}",
                    args=[colour])
            wishes = "You have not chosen yet"
        else:
            wishes = f"You asked for {lobby.our_colour}"
        theirs = lobby.peer_colour or "nothing yet"
        decided = (f"You play {lobby.our_side.title}" if lobby.our_side is not None
                   else "A coin flip decides when both ask for the same")
        self._put("colours", f"{wishes}; {peer} asked for {theirs}. {decided}.",
                  (LEFT, y - 0.09), 0.036, wrap=37)

    def _governments(self, lobby: LobbySnapshot, y: float) -> None:
        lan, peer = self.lan, self.peer
        if lobby.phase not in ("idle", "inviting", "invited", "setup"):
            return
        self._put("government", f"Your government (R11.1, no approval); {peer}: "
                  f"{lobby.peer_government.value}", (LEFT, y + 0.09), 0.04, ACCENT, 40)
        for index, government in enumerate(Government):
            made = self._button(government.value.title(), lambda g: lan.command(
                "government", lambda net: net.choose_government(g, peer)),
                (LEFT + 0.16 + 0.33 * index, y), f"lobby-gov-{government.value}",
                width=7, args=[government])
            if government is lobby.our_government:
                made["text_fg"] = ACCENT

    def _view_settings(self, y: float) -> None:
        settings = self.lan.app.settings
        self._put("view-title", "View, on this machine only (R14.5)", (LEFT, y + 0.09),
                  0.04, ACCENT)
        for index, (name, text) in enumerate(VIEW_SETTINGS):
            shown = "on" if getattr(settings, name) else "off"
            self._button(f"{text}: {shown}", self.toggle_view,
                         (LEFT + 0.26 + 0.62 * index, y), f"lobby-view-{name}", width=13,
                         args=[name])

    def toggle_view(self, name: str) -> None:
        settings = self.lan.app.settings
        value = not getattr(settings, name)
        setattr(settings, name, value)
        peer = self.peer
        self.lan.command("view setting", lambda net: net.set_view_setting(name, value, peer))
        self.refresh()

    def _rules(self, lobby: LobbySnapshot, y: float) -> None:
        model, lan, peer = self.lan.model, self.lan, self.peer
        self._put("rules-title", "Rules (both players agree)", (LEFT, y), 0.045, ACCENT)
        rules = rules_summary(lobby.options, lobby.start_title, lobby.fog)
        self._put("rules", "\n".join([*rules[:3], time_line(lobby.move_time)]),
                  (LEFT, y - 0.07), 0.036)
        if lobby.phase != "setup":
            return
        if model.peer_proposal is not None:
            _, changes, _ = model.peer_proposal
            self._put("proposal", f"{peer} proposes: " + "; ".join(changes),
                      (LEFT, y - 0.28), 0.04, WAIT_COLOUR)
            self._button("Approve", lambda: lan.command(
                "approve", lambda net: net.approve(peer)), (LEFT + 0.15, y - 0.42),
                "lobby-approve")
            self._button("Reject", lambda: lan.command(
                "reject", lambda net: net.reject(peer, "rejected")), (LEFT + 0.48, y - 0.42),
                "lobby-reject")
        elif model.our_proposal is not None:
            self._put("proposal", f"Your proposal waits for {peer}: "
                      + "; ".join(model.our_proposal), (LEFT, y - 0.28), 0.04, WAIT_COLOUR)
        else:
            self._button("Propose options...", lambda: lan.show_proposal(),
                         (LEFT + 0.2, y - 0.3), "lobby-propose", width=9)
            later = MOVE_TIMES[(MOVE_TIMES.index(lobby.move_time) + 1) % len(MOVE_TIMES)
                               if lobby.move_time in MOVE_TIMES else 0]
            self._button(f"Propose {time_limit(later)} per move", lambda: lan.command(
                "time limit", lambda net: net.propose_move_time(later, peer)),
                (LEFT + 0.75, y - 0.3), "lobby-move-time", width=11)

    def destroy(self) -> None:
        for widget in self.widgets:
            widget.destroy()
        self.chat.destroy()
        self.log.destroy()
        super().destroy()


# ---------------------------------------------------------------- the game
