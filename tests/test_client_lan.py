"""Play on local network in the real client (issue 8 item 7), end to end on loopback.

One player is the real client rendering offscreen (fixture ``panda_base``), driven by the
virtual mouse and keyboard; the other is a headless ``net.peer.Peer`` on its own network
thread (``BackgroundPeer``) driven by the test. Both listen on 127.0.0.1 only. Most tests
keep discovery off and the client joins by address (HOST:PORT typed in); one runs
discovery on the loopback interface only (``PeerConfig.interfaces``), so the client finds
the other player in its list and nothing leaves the machine either way. Every state
folder is in ``tmp_path``.
"""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from wec.client.app import WecApp
from wec.client.lan import (
    LanModel,
    LobbyScreen,
    NameScreen,
    PairingScreen,
    PeersScreen,
    option_changes,
    parse_address,
    read_player_name,
    short_fingerprint,
    write_player_name,
)
from wec.client.network_play import NetworkPlayScreen
from wec.client.settings import Settings
from wec.engine import board
from wec.engine.board import GROUND, Level
from wec.engine.intents import EndTurn, Intent, Move
from wec.engine.match import Match
from wec.engine.options import Options
from wec.engine.pieces import PieceKind, Side
from wec.net.background import BackgroundPeer
from wec.net.identity import Identity, load_or_create_identity
from wec.net.lobby import STAGE1_REASON, stage1_options
from wec.net.pairing import PeerStore
from wec.net.peer import PeerConfig, PeerEvent, describe_event, event_kind
from wec.net.session import SessionConfig

FAST = SessionConfig(heartbeat_interval=0.2, heartbeat_timeout=1.0, handshake_timeout=3.0)
# freeze_heap off: the peers share the test worker's process, whose large heap one full
# collection at a game's start would walk for longer than FAST's heartbeat timeout
LOOPBACK = {"host": "127.0.0.1", "discovery": False, "session": FAST,
            "reconnect_interval": 0.1, "dial_delay": 0.3, "fog": False, "freeze_heap": False}


# ---------------------------------------------------------------- the other player


class Headless:
    """The other player: a real Peer on its own network thread, every event kept."""

    def __init__(self, folder: Path, name: str = "Bob", port: int = 0,
                 **changes: Any) -> None:
        self.config = PeerConfig(name=name, state_dir=folder / name, port=port,
                                 **{**LOOPBACK, **changes})
        self.network = BackgroundPeer(self.config)
        self.network.start(timeout=10)
        self.port = self.network.port
        self.fingerprint = self.network.fingerprint
        self.events: list[PeerEvent] = []

    def collect(self) -> None:
        self.events += self.network.poll_events()

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [describe_event(e) for e in self.events if event_kind(e) == kind]

    def do(self, command: Callable[[Any], Any]) -> Any:
        """Run a command on Bob's network thread and wait for it (the test waits, not
        a client frame)."""
        return self.network.submit(command).result(timeout=5)

    def stop(self) -> None:
        self.network.stop(timeout=10)


class FakeClock:
    """The peer's clock, moved on by the test (``now``) instead of waiting."""

    now = 1000.0

    def __call__(self) -> float:
        return self.now


def free_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# ---------------------------------------------------------------- driving the client


@pytest.fixture
def app(panda_base: Any, tmp_path: Path) -> Iterator[WecApp]:
    made = WecApp(base=panda_base, settings=Settings(), settings_file=tmp_path / "s.json")
    made.lan_state_dir = tmp_path / "Alice"
    made.lan_peer_options = dict(LOOPBACK)
    made.save_dir = tmp_path / "client-saves"
    yield made
    made.close()


@pytest.fixture
def bob(tmp_path: Path) -> Iterator[Headless]:
    peer = Headless(tmp_path, port=free_loopback_port())
    yield peer
    peer.stop()


def pump(app: WecApp, bob: Headless, until: Callable[[], Any], what: str,
         timeout: float = 10.0) -> Any:
    """Render frames (the client's network task runs in them) until ``until()``."""
    assert app.pointer is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        app.pointer.step(1)
        bob.collect()
        found = until()
        if found:
            return found
        time.sleep(0.005)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


def bob_event(app: WecApp, bob: Headless, kind: str, count: int = 1,
              where: Callable[[dict[str, Any]], bool] = lambda e: True) -> dict[str, Any]:
    def found() -> dict[str, Any] | None:
        matching = [e for e in bob.of(kind) if where(e)]
        return matching[count - 1] if len(matching) >= count else None
    return pump(app, bob, found, f"Bob's event {kind} #{count}")


def widget_px(base: Any, name: str) -> tuple[int, int]:
    """Pixel centre of the named 2D widget."""
    from panda3d.core import Point3

    node = base.aspect2d.find(f"**/{name}")
    assert not node.isEmpty(), f"no widget {name} on screen"
    left, right, bottom, top = node.node().getFrame()
    centre = base.render2d.getRelativePoint(node, Point3((left + right) / 2, 0,
                                                          (bottom + top) / 2))
    width, height = base.win.getXSize(), base.win.getYSize()
    return int((centre.x + 1) / 2 * width), int((1 - centre.z) / 2 * height)


def cell_px(base: Any, row: int, col: int, level: Level = GROUND) -> tuple[int, int]:
    from panda3d.core import Point2, Point3

    from wec.client.layout import cell_xyz

    x, y, z = cell_xyz(board.cell(board.square(row, col), level))
    seen = base.cam.getRelativePoint(base.render, Point3(x, y, z + 0.05))
    flat = Point2()
    assert base.camLens.project(seen, flat), f"({row},{col}) is off screen"
    width, height = base.win.getXSize(), base.win.getYSize()
    return int((flat.x + 1) / 2 * width), int((1 - flat.y) / 2 * height)


def click(app: WecApp, name: str) -> None:
    assert app.pointer is not None
    app.pointer.click(*widget_px(app.base, name))


def click_cell(app: WecApp, row: int, col: int) -> None:
    assert app.pointer is not None
    app.pointer.click(*cell_px(app.base, row, col))


def lobby_phase(app: WecApp, phase: str) -> bool:
    screen = app.screen
    return (isinstance(screen, LobbyScreen) and screen.lan.model.lobby is not None
            and screen.lan.model.lobby.phase == phase)


def open_peers(app: WecApp, bob: Headless) -> PeersScreen:
    """Main menu -> Play on local network, with the name already chosen."""
    click(app, "menu-lan")
    return pump(app, bob, lambda: isinstance(app.screen, PeersScreen) and app.screen.lan.model.port
                and app.screen, "the peers list with the network started")


def join_and_pair(app: WecApp, bob: Headless) -> LobbyScreen:
    """Join Bob by address, compare the codes, confirm on both sides."""
    peers = app.screen
    assert isinstance(peers, PeersScreen)
    peers.address.enterText(f"127.0.0.1:{bob.port}")
    click(app, "lan-join")
    prompt = pump(app, bob, lambda: isinstance(app.screen, PairingScreen) and app.screen,
                  "the pairing prompt")
    theirs = bob_event(app, bob, "pairing_code")
    assert prompt.code.getText() == theirs["code"]  # both machines computed the same code
    assert re.fullmatch(r"\d{3} \d{3}", theirs["code"])
    assert bob.fingerprint in prompt.keys.getText()
    click(app, "pair-match")
    bob.do(lambda peer: peer.confirm_pairing("Alice", True))
    return pump(app, bob, lambda: lobby_phase(app, "idle") and app.screen,
                "the lobby after pairing")


def propose_tank_range_8(app: WecApp, bob: Headless, options_screen: Any) -> dict[str, Any]:
    """On the lobby's options screen, O6 Tank range 8 proposed: the lobby shows the
    proposal waiting, and Bob receives it; its options."""
    assert options_screen.frame.getName() == "new-game"
    options_screen.set_option("tank_range", 8)
    click(app, "start")
    lobby = app.screen
    assert isinstance(lobby, LobbyScreen)
    assert lobby.texts["proposal"] == "Your proposal waits for Bob: O6 Tank range: 7 -> 8"
    proposal = bob_event(app, bob, "proposal")
    assert proposal["options"]["tank_range"] == 8
    return proposal["options"]


def set_up_as_white(app: WecApp, bob: Headless) -> None:
    """Invite Bob, Bob accepts; the client asks for White, Bob for Black."""
    click(app, "lobby-invite")
    bob_event(app, bob, "invited")
    bob.do(lambda peer: peer.accept("Alice"))
    pump(app, bob, lambda: lobby_phase(app, "setup"), "the setup")
    click(app, "lobby-colour-white")
    bob.do(lambda peer: peer.choose_colour("black", "Alice"))
    pump(app, bob, lambda: app.screen.lan.model.lobby.our_side is Side.WHITE,
         "the colours decided")


def start_game(app: WecApp, bob: Headless) -> NetworkPlayScreen:
    click(app, "lobby-ready")
    bob_event(app, bob, "game_started")
    return pump(app, bob, lambda: isinstance(app.screen, NetworkPlayScreen) and app.screen,
                "the game screen")


def texts_of(node: Any) -> list[str]:
    """The texts shown under a 2D node (a banner's title and message) as a player reads
    them, top to bottom: findAllMatches gives a banner's message before its title."""
    found = list(node.findAllMatches("**/+TextNode"))

    def top(text: Any) -> float:
        bounds = text.getTightBounds(node)
        return -bounds[1][2] if bounds else 0.0  # an empty text has no bounds

    return [text.node().getText() for text in sorted(found, key=top)]


def bob_match(bob: Headless) -> Any:
    return bob.do(lambda peer: peer.game.lockstep.match)


def bob_plays(bob: Headless, intents: list[Intent]) -> None:
    for intent in intents:
        bob.do(lambda peer, played=intent: peer.play(played))


def move_from(legal: list[Intent], frm: tuple[int, int], to: tuple[int, int]) -> Move:
    start = board.cell(board.square(*frm), GROUND)
    end = board.cell(board.square(*to), GROUND)
    return next(i for i in legal if isinstance(i, Move) and i.frm == start and i.to == end)


def shows_the_game(screen: NetworkPlayScreen, bob: Headless) -> bool:
    """The scene shows White's view of exactly the state both engines hold."""
    match = screen.session.match
    return (match.current_hash == bob_match(bob).current_hash
            and screen.scene.view == match.view(Side.WHITE))


def ready_game(app: WecApp, bob: Headless, tmp_path: Path) -> NetworkPlayScreen:
    write_player_name(tmp_path / "Alice", "Alice")
    open_peers(app, bob)
    join_and_pair(app, bob)
    set_up_as_white(app, bob)
    return start_game(app, bob)


# ---------------------------------------------------------------- the tests


def test_name_pairing_lobby_and_play_against_a_headless_peer(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    # First time: the name screen, with this installation's key fingerprint
    click(app, "menu-lan")
    screen = app.screen
    assert isinstance(screen, NameScreen)
    key = load_or_create_identity(tmp_path / "Alice").fingerprint
    assert screen.fingerprint.getText() == f"Your identity key: {key}"
    screen.entry.enterText("Alice")
    click(app, "lan-name-continue")
    assert read_player_name(tmp_path / "Alice") == "Alice"
    pump(app, bob, lambda: isinstance(app.screen, PeersScreen) and app.screen.lan.model.port,
         "the network started")
    assert app.screen.me.getText() == (f"You: Alice   key {key}, port "
                                       f"{app.lan.network.port}")

    lobby = join_and_pair(app, bob)
    assert lobby.title.getText() == "Game with Bob"
    assert lobby.lock.getText() == f"O15 and O16 are locked off: {STAGE1_REASON}"
    # The peers list shows Bob, paired and connected, with his short fingerprint
    click(app, "back")
    peers = app.screen
    assert isinstance(peers, PeersScreen)
    short = "-".join(bob.fingerprint.split("-")[:2])
    assert peers.lines == [f"Bob   {short}   paired   connected"]
    assert PeerStore(tmp_path / "Alice").get("Bob").fingerprint == bob.fingerprint
    click(app, "peer-0")
    assert isinstance(app.screen, LobbyScreen)
    pump(app, bob, lambda: lobby_phase(app, "idle"), "the lobby again")

    set_up_as_white(app, bob)
    # Alice proposes O6 tank range 8; the screen shows what changes; Bob approves
    click(app, "lobby-propose")
    propose_tank_range_8(app, bob, app.screen)
    bob.do(lambda peer: peer.approve("Alice"))
    pump(app, bob, lambda: "Bob approved your proposal" in app.screen.lan.model.lobby_log,
         "the approval")
    pump(app, bob, lambda: "O6 Tank range: 7 -> 8" in app.screen.texts.get("rules", ""),
         "the new rules in the lobby")
    assert "propose" not in app.screen.texts

    play = start_game(app, bob)
    assert play.session.match.current.options.tank_range == 8
    assert play.status["text"] == "Turn 1 - Black to act (Bob)"
    assert play.mode_line["text"] == ("network, non-competitive: takeback by agreement, "
                                      "full history (R14.2)")
    assert play.connection["text"] == "Connected to Bob"
    assert play.banner is None  # no hand-over curtain: each machine shows its own side
    # Black (Bob) moves first; the move arrives and is shown
    legal = bob.do(lambda peer: peer.game.lockstep.match.legal_intents())
    bob_plays(bob, [move_from(legal, (9, 2), (7, 4)), EndTurn()])
    pump(app, bob, lambda: play.session.our_turn, "Bob's turn to arrive")
    pump(app, bob, lambda: shows_the_game(play, bob), "the client to show Bob's move")
    assert play.status["text"] == "Turn 2 - White to act (you)"
    assert play.history == ["1. Black Stunner Pawn (9,2) ground -> (7,4) ground"]
    # The opponent's action is told in the history's plain language, not as an intent
    assert play._plain(play.session.match.history[0]) == \
        "Black Stunner Pawn (9,2) ground -> (7,4) ground"
    moved = [p for p in play.scene.view.pieces if p.sq == board.square(7, 4)]
    assert [(p.side, p.kind) for p in moved] == [(Side.BLACK, PieceKind.STUNNER_PAWN)]

    # White (the client) moves by clicking and ends the turn with the E key
    ours = move_from(play.session.legal(), (2, 2), (4, 4))
    click_cell(app, 2, 2)
    click_cell(app, 4, 4)
    assert play.session.match.history[-1].intent == ours
    assert app.pointer is not None
    app.pointer.key("e")
    bob_event(app, bob, "turn_agreed")
    pump(app, bob, lambda: shows_the_game(play, bob), "Bob to hold the client's turn")
    assert play.status["text"] == "Turn 3 - Black to act (Bob)"
    click_cell(app, 3, 3)  # not our turn: explained, nothing sent
    assert play.note["text"] == "Black (Bob) is to act: wait for their move"

    # Chat both ways
    app.pointer.key("t")
    assert play.entry is not None and play.entry.getName() == "chat-entry"
    play.chat_entered("good luck")
    assert bob_event(app, bob, "chat")["text"] == "good luck"
    bob.do(lambda peer: peer.chat("thanks, you too"))
    pump(app, bob, lambda: "Bob: thanks, you too" in play.chat_panel.text(), "Bob's chat")
    assert play.chat_panel.text() == "You: good luck\nBob: thanks, you too"

    # Save: each machine writes its own file and names it itself (issue 20 hole 4)
    click(app, "save")
    saved = bob_event(app, bob, "saved")
    pump(app, bob, lambda: play.note["text"].startswith("Saved as"), "the client's save")
    ours_file = tmp_path / "Alice" / "saves" / play.note["text"][len("Saved as "):]
    assert ours_file.name.endswith("-lan-Bob-turn3.wecsave")
    assert ours_file.read_bytes() == (tmp_path / "Bob" / "saves" /
                                      saved["file_name"]).read_bytes()


def test_the_connection_status_while_the_peer_leaves_and_comes_back(
        app: WecApp, tmp_path: Path) -> None:
    port = free_loopback_port()
    bob = Headless(tmp_path, port=port)
    try:
        app.lan_peer_options["grace_period"] = 1.0
        play = ready_game(app, bob, tmp_path)
        bob.stop()  # Bob closes his game: the link drops, the game is kept
        pump(app, bob, lambda: play.connection["text"].startswith("Bob is away for"),
             "the away status")
        assert re.fullmatch(r"Bob is away for \d+ s: reconnecting\.\.\.",
                            play.connection["text"])
        pump(app, bob, lambda: play.banner is not None
             and play.banner.frame.getName() == "grace-expired", "the grace period to end")
        click(app, "banner-1")  # Keep waiting
        assert play.banner is None
        assert play.note["text"] == "Waiting for Bob to come back"
        bob = Headless(tmp_path, port=port)  # Bob comes back: his journal holds the game
        assert bob.port == port
        pump(app, bob, lambda: play.connection["text"] == "Connected to Bob",
             "the reconnection", timeout=15)
        bob_event(app, bob, "resumed")
        assert play.note["text"] == "Connected to Bob again: the game goes on"
        # the game goes on: Bob's move arrives
        legal = bob.do(lambda peer: peer.game.lockstep.match.legal_intents())
        bob_plays(bob, [move_from(legal, (9, 2), (7, 4))])
        pump(app, bob, lambda: len(play.session.match.actions) == 1, "Bob's move")
        pump(app, bob, lambda: shows_the_game(play, bob), "the scene to follow")
    finally:
        bob.stop()


def test_a_game_left_is_resumed_when_the_player_comes_back(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    play = ready_game(app, bob, tmp_path)
    legal = bob.do(lambda peer: peer.game.lockstep.match.legal_intents())
    bob_plays(bob, [move_from(legal, (9, 2), (7, 4)), EndTurn()])
    pump(app, bob, lambda: play.session.our_turn, "Bob's turn")
    click(app, "menu")
    assert play.banner is not None and play.banner.frame.getName() == "leave-confirm"
    click(app, "banner-0")  # Leave: the game stays in the journal
    assert app.screen.frame.getName() == "main-menu" and app.lan is None
    bob_event(app, bob, "disconnected")
    click(app, "menu-lan")
    play = pump(app, bob, lambda: isinstance(app.screen, NetworkPlayScreen) and app.screen,
                "the game restored from the journal")
    pump(app, bob, lambda: play.connection["text"] == "Connected to Bob", "the redial",
         timeout=15)
    pump(app, bob, lambda: shows_the_game(play, bob), "the restored game on screen")
    assert play.status["text"] == "Turn 2 - White to act (you)"
    assert len(play.session.match.actions) == 2


def test_the_peer_proposes_and_the_client_approves_by_clicking(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    write_player_name(tmp_path / "Alice", "Alice")
    open_peers(app, bob)
    join_and_pair(app, bob)
    set_up_as_white(app, bob)
    wanted = stage1_options(Options(stun_duration=5))
    bob.do(lambda peer: peer.propose_options(wanted, "Alice"))
    lobby = pump(app, bob, lambda: "proposal" in app.screen.texts and app.screen,
                 "Bob's proposal in the lobby")
    assert lobby.texts["proposal"] == "Bob proposes: O12 Stun duration: 3 -> 5"
    click(app, "lobby-approve")
    answered = bob_event(app, bob, "proposal_answered")
    assert answered["approved"] is True
    pump(app, bob, lambda: "O12 Stun duration: 3 -> 5" in app.screen.texts.get("rules", ""),
         "the new rules")
    # Government and view settings need no approval
    click(app, "lobby-gov-democracy")
    chosen = bob_event(app, bob, "government")
    assert chosen["government"] == "democracy" and chosen["by_us"] is False
    click(app, "lobby-view-last_seen_markers")
    assert app.settings.last_seen_markers is False
    pump(app, bob, lambda: "View setting on this machine (R14.5): last_seen_markers off"
         in app.screen.lan.model.lobby_log, "the view setting")
    play = start_game(app, bob)
    assert play.session.match.current.options.stun_duration == 5
    assert play.session.match.current.options.government_white.value == "democracy"


def test_a_changed_key_is_refused_with_a_loud_warning_and_both_fingerprints(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    impostor_key = Identity.generate().public_key
    PeerStore(tmp_path / "Alice").pin("Bob", impostor_key)
    pinned = PeerStore(tmp_path / "Alice").get("Bob").fingerprint
    write_player_name(tmp_path / "Alice", "Alice")
    peers = open_peers(app, bob)
    peers.address.enterText(f"127.0.0.1:{bob.port}")
    click(app, "lan-join")
    pump(app, bob, lambda: peers.warning.getText(), "the warning")
    warning = peers.warning.getText()
    assert "THE IDENTITY KEY OF PEER 'Bob' HAS CHANGED" in warning
    assert pinned in warning and bob.fingerprint in warning
    assert isinstance(app.screen, PeersScreen)  # no pairing, no lobby
    assert PeerStore(tmp_path / "Alice").get("Bob").public_key == impostor_key


def test_codes_that_differ_pin_nothing(app: WecApp, bob: Headless, tmp_path: Path) -> None:
    write_player_name(tmp_path / "Alice", "Alice")
    peers = open_peers(app, bob)
    peers.address.enterText(f"127.0.0.1:{bob.port}")
    click(app, "lan-join")
    pump(app, bob, lambda: isinstance(app.screen, PairingScreen), "the pairing prompt")
    click(app, "pair-differ")
    failed = bob_event(app, bob, "pairing_failed")
    assert failed["reason"] == "the other player did not confirm the pairing code"
    peers = pump(app, bob, lambda: isinstance(app.screen, PeersScreen) and app.screen,
                 "back to the peers list")
    assert peers.warning.getText().startswith(
        "Not paired with Bob: you did not confirm the pairing code.")
    assert PeerStore(tmp_path / "Alice").get("Bob") is None


def test_takeback_request_approved_and_resignation(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    play = ready_game(app, bob, tmp_path)
    start_hash = play.session.match.current_hash
    legal = bob.do(lambda peer: peer.game.lockstep.match.legal_intents())
    bob_plays(bob, [move_from(legal, (9, 2), (7, 4))])
    pump(app, bob, lambda: len(play.session.match.actions) == 1, "Bob's move")
    bob.do(lambda peer: peer.request_takeback())
    pump(app, bob, lambda: play.banner is not None
         and play.banner.frame.getName() == "takeback-request", "the takeback request")
    click(app, "banner-0")  # Approve
    pump(app, bob, lambda: play.session.match.current_hash == start_hash, "the takeback")
    pump(app, bob, lambda: shows_the_game(play, bob), "the scene after the takeback")
    assert play.note["text"] == "You accepted the takeback to turn 1"
    click(app, "resign")
    assert play.banner is not None and play.banner.frame.getName() == "resign-confirm"
    click(app, "banner-0")
    result = bob_event(app, bob, "result")["result"]
    assert result == {"winner": "black", "reason": "White resigned", "how": "resign"}
    pump(app, bob, lambda: play.banner is not None
         and play.banner.frame.getName() == "game-over", "the end of the game")
    [kept] = app.save_dir.glob("*.wecsave")
    assert {"Black wins", f"White resigned\nKept for Replays as {kept.name}"} <= set(
        texts_of(play.banner.frame))
    assert play.status["text"] == "Game over: Black wins"
    assert play.connection["text"] == "Game with Bob finished"
    click(app, "banner-2")  # Back to local network: the lobby with Bob, for a new game
    pump(app, bob, lambda: lobby_phase(app, "idle"), "the lobby after the game")


def test_a_time_limit_per_move_is_proposed_and_a_silent_peer_claimed_against(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    """Issue 20 hole 3: the lobby proposes a time limit per move (off by default); in the
    game, when Bob does not move past it, the client offers to claim the win."""
    clock = FakeClock()
    app.lan_peer_options = {**LOOPBACK, "clock": clock}
    write_player_name(tmp_path / "Alice", "Alice")
    open_peers(app, bob)
    join_and_pair(app, bob)
    set_up_as_white(app, bob)
    assert "Time per move: no limit" in app.screen.texts["rules"]
    click(app, "lobby-move-time")
    proposal = bob_event(app, bob, "proposal")
    assert proposal["move_time"] == 60
    bob.do(lambda peer: peer.approve("Alice"))
    pump(app, bob, lambda: "Time per move: 60 s" in app.screen.texts.get("rules", ""),
         "the time limit in the rules")
    play = start_game(app, bob)
    assert bob_event(app, bob, "game_started")["move_time"] == 60
    clock.now += 61.0  # Bob (Black, to act) does not move
    pump(app, bob, lambda: play.banner is not None
         and play.banner.frame.getName() == "peer-idle", "the claim offer")
    assert any(text.startswith("Bob has not finished its turn for 61 s")
               for text in texts_of(play.banner.frame))
    click(app, "banner-0")  # Claim the win
    result = bob_event(app, bob, "refused")  # Bob's own clock says otherwise
    assert result["tag"] == "time_claim"
    pump(app, bob, lambda: play.banner is not None
         and play.banner.frame.getName() == "game-over", "the end of the game")
    assert play.status["text"] == "Game over: White wins"


def test_a_desync_stops_the_game_and_names_the_report(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    play = ready_game(app, bob, tmp_path)

    def stun_the_black_queen(peer: Any) -> None:
        """Bob's copy differs (as a different engine might resolve it)."""
        position = peer.game.lockstep.match.current
        peer.game.lockstep.match = Match.begin(position.evolve(pieces=tuple(
            replace(p, stunned_until=9) if p.kind is PieceKind.QUEEN and p.side is Side.BLACK
            else p for p in position.pieces)))

    bob.do(stun_the_black_queen)
    legal = bob.do(lambda peer: peer.game.lockstep.match.legal_intents())
    bob_plays(bob, [move_from(legal, (9, 2), (7, 4)), EndTurn()])
    pump(app, bob, lambda: play.banner is not None and play.banner.frame.getName() == "desync"
         and "written to" in " ".join(texts_of(play.banner.frame)), "the desync report")
    [report] = (tmp_path / "Alice" / "desync").glob("*.json")
    assert {"Desync at turn 1: the game stopped",
            f"The two machines disagree about the game. A report was written to {report}."
            } <= set(texts_of(play.banner.frame))
    assert play.connection["text"] == "Game stopped after a desync"
    click(app, "banner-0")  # look at the board: nothing can be played any more
    click_cell(app, 2, 2)
    assert play.note["text"] == "The game stopped after a desync"


def test_the_other_player_is_found_by_loopback_discovery_and_invited_from_the_list(
        app: WecApp, tmp_path: Path) -> None:
    """Discovery on the loopback interface only: the client lists the other player (name,
    short fingerprint, "on the network"), Invite dials the advertised address, both
    compare the code, and the invitation goes out once paired."""
    only_loopback = {"discovery": True, "interfaces": ("127.0.0.1",)}
    zoe = Headless(tmp_path, name="Zoe Loopback", port=free_loopback_port(), **only_loopback)
    try:
        app.lan_peer_options = {**LOOPBACK, **only_loopback}
        write_player_name(tmp_path / "Alice", "Alice")
        open_peers(app, zoe)
        expected = f"Zoe Loopback   {short_fingerprint(zoe.fingerprint)}   new   on the network"
        peers = pump(app, zoe, lambda: isinstance(app.screen, PeersScreen)
                     and expected in app.screen.lines and app.screen,
                     "Zoe listed by discovery", timeout=10)
        # each side's discovery is its own: Zoe may see Alice a little after Alice sees Zoe
        seen = bob_event(app, zoe, "peer_seen", where=lambda e: e["peer"]["name"] == "Alice")
        assert seen["peer"]["addresses"] == ("127.0.0.1",)  # loopback, nothing else
        click(app, f"peer-{peers.lines.index(expected)}")
        prompt = pump(app, zoe, lambda: isinstance(app.screen, PairingScreen) and app.screen,
                      "the pairing prompt")
        assert prompt.code.getText() == bob_event(app, zoe, "pairing_code")["code"]
        click(app, "pair-match")
        zoe.do(lambda peer: peer.confirm_pairing("Alice", True))
        assert bob_event(app, zoe, "invited")["peer"] == "Alice"
        zoe.do(lambda peer: peer.accept("Alice"))
        pump(app, zoe, lambda: lobby_phase(app, "setup"), "the setup")
    finally:
        zoe.stop()


def test_chat_in_the_lobby_while_negotiating(app: WecApp, bob: Headless,
                                             tmp_path: Path) -> None:
    write_player_name(tmp_path / "Alice", "Alice")
    open_peers(app, bob)
    lobby = join_and_pair(app, bob)
    lobby.chat.enterText("  hello Bob, white for me?  ")
    lobby.chat_entered(lobby.chat.get())  # Enter in the chat entry
    assert lobby.chat.get() == ""
    assert bob_event(app, bob, "chat")["text"] == "hello Bob, white for me?"
    bob.do(lambda peer: peer.chat("fine, I take black", "Alice"))
    pump(app, bob, lambda: "Bob: fine, I take black" in lobby.log.text(), "Bob's line")
    assert lobby.log.text().splitlines()[-2:] == ["You: hello Bob, white for me?",
                                                  "Bob: fine, I take black"]
    lobby.chat_entered("x" * 501)  # too long: refused with the reason, nothing sent
    pump(app, bob, lambda: "a chat line has 1 to 500 printable characters" in
         app.screen.lan.model.notice, "the refusal")
    assert [e["text"] for e in bob.of("chat") if not e["by_us"]] == ["hello Bob, white for me?"]
    assert lobby_phase(app, "idle")


def test_the_peers_list_joins_discovery_connections_and_pins() -> None:
    """The list's lines from the Peer's events (discovery itself is not run here: it
    would advertise on every interface, and these tests stay on loopback)."""
    from wec.net.discovery import PeerInfo
    from wec.net.peer import Connected, PeerGone, PeerSeen

    carol = PeerInfo("Carol-ABCD1234._wec._tcp.local.", "Carol", "CCCC-DDDD-EEEE-FFFF-GGGG",
                     1, ("192.168.1.30",), 41000)
    mallory = PeerInfo("Bob-ZZZZ._wec._tcp.local.", "Bob", "ZZZZ-YYYY-XXXX-WWWW-VVVV", 1,
                       ("192.168.1.66",), 41000)
    model = LanModel(pinned={"Bob": "BBBB-AAAA-CCCC-DDDD-EEEE",
                             "Dave": "DDDD-2222-3333-4444-5555"})
    for event in (PeerSeen(carol), PeerSeen(mallory),
                  Connected("Bob", "BBBB-AAAA-CCCC-DDDD-EEEE", True)):
        assert model.apply_peer(event)
    assert [peer.line() for peer in model.peers()] == [
        "Bob   BBBB-AAAA   paired   connected",
        "Bob   ZZZZ-YYYY   KEY CHANGED   on the network",
        "Carol   CCCC-DDDD   new   on the network",
        "Dave   DDDD-2222   paired   not seen now"]
    assert model.apply_peer(PeerGone(carol))
    assert [peer.name for peer in model.peers()] == ["Bob", "Bob", "Dave"]


def test_addresses_and_option_changes_read_as_a_player_writes_them() -> None:
    assert parse_address(" 192.168.1.20:41000 ") == ("192.168.1.20", 41000)
    with pytest.raises(ValueError, match="type an address as HOST:PORT"):
        parse_address("192.168.1.20")
    with pytest.raises(ValueError, match="type an address as HOST:PORT"):
        parse_address("host:70000")
    before = stage1_options(Options())
    assert option_changes(before, stage1_options(Options(tank_range=8, sub_jet_combat=False,
                                                         reveal_on_fire=False))) == [
        "O6 Tank range: 7 -> 8", "O21 Reveal on fire: on -> off"]
