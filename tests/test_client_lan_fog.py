"""The network game screen with fog of war (issue 21): the real client, rendering
offscreen, plays the standard game against a headless Peer with O15 and O16 on. The
board shows the local side's view only (its half state: the enemy's hidden AAAs are not
there), intents go through the fog protocol, a small "verified" line is the only trace
of the commitment and answer traffic, and the game-over banner shows the audit's
verdict once both reveals are in."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_client_lan import (
    LOOPBACK,
    FakeClock,
    Headless,
    bob_event,
    click,
    click_cell,
    free_loopback_port,
    join_and_pair,
    open_peers,
    propose_tank_range_8,
    pump,
    set_up_as_white,
    start_game,
    texts_of,
)

from wec.client.app import WecApp
from wec.client.lan import write_player_name
from wec.client.settings import Settings
from wec.engine.intents import EndTurn, Move
from wec.engine.pieces import PieceKind, Side
from wec.net.fog_game import FogStep
from wec.net.game_fog import FOG_NOTICE

FOG = {**LOOPBACK, "fog": True}
SHOTS = os.environ.get("WEC_SHOTS")  # a folder to keep the screenshots in (to look at)


@pytest.fixture
def app(panda_base: Any, tmp_path: Path) -> Iterator[WecApp]:
    made = WecApp(base=panda_base, settings=Settings(), settings_file=tmp_path / "s.json")
    made.lan_state_dir = tmp_path / "Alice"
    made.lan_peer_options = dict(FOG)
    made.save_dir = tmp_path / "client-saves"
    yield made
    made.close()


@pytest.fixture
def bob(tmp_path: Path) -> Iterator[Headless]:
    peer = Headless(tmp_path, port=free_loopback_port(), fog=True)
    yield peer
    peer.stop()


def bob_plays_a_turn(app: WecApp, bob: Headless, session: Any) -> None:
    """Black (Bob) plays a Move on his half and ends the turn; then it is ours."""
    legal = bob.do(lambda peer: peer.game.lockstep.match.legal_intents())
    move = next(i for i in legal if isinstance(i, Move))
    for intent in (move, EndTurn()):
        # a side plays once its game is free: the opening's base transfers may still be
        # under way (FogGame.bases_done), as may the last action's exchange
        pump(app, bob, lambda: not bob.do(lambda peer: peer.game.lockstep.game.busy),
             "Bob's game free to play")
        bob.do(lambda peer, played=intent: peer.play(played))
        pump(app, bob, lambda: not bob.do(lambda peer: peer.game.lockstep.game.busy),
             "Bob's action resolved")
    pump(app, bob, lambda: session.our_turn, "our turn")


def test_a_fog_game_shows_our_half_verifies_quietly_and_ends_audited(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    write_player_name(tmp_path / "Alice", "Alice")
    open_peers(app, bob)
    lobby = join_and_pair(app, bob)
    assert lobby.lock.getText() == FOG_NOTICE
    if SHOTS:
        app.screenshot(Path(SHOTS) / "fog-lobby.png")
    set_up_as_white(app, bob)
    play = start_game(app, bob)
    session = play.net_session
    assert session.fog and session.current.viewer is Side.WHITE
    assert session.current.options.stealth_invisibility
    # our view only: Black's AAAs are hidden from White at the start (R9)
    assert not [p for p in play.scene.view.pieces
                if p.side is Side.BLACK and p.kind is PieceKind.AAA]
    assert [p for p in play.scene.view.pieces
            if p.side is Side.WHITE and p.kind is PieceKind.AAA]
    bob_plays_a_turn(app, bob, session)
    assert play.status["text"] == "Turn 2 - White to act (you)"
    # the mode line promises no undo and the player's own history (no takeback here)
    assert play.mode_line["text"] == ("network, fog of war (O15, O16): no takeback, "
                                      "your side's history")
    # White (the client) plays: the intent shows once the fog protocol resolved it
    ours = next(i for i in session.legal() if isinstance(i, Move))
    assert play.send(ours)
    assert not session.our_turn  # being resolved with the other machine
    pump(app, bob, lambda: len(session.match.actions) == 3, "our Move resolved")
    assert session.match.actions[-1].intent == ours
    assert play.send(EndTurn())
    pump(app, bob, lambda: session.current.side_to_act is Side.BLACK, "our turn ended")
    pump(app, bob, lambda: "verified" in play.verified["text"], "the verified line")
    assert play.verified["text"].startswith("fog of war: verified (")
    app.screenshot(tmp_path / "fog-play.png")
    if SHOTS:
        app.screenshot(Path(SHOTS) / "fog-play.png")
    # Bob resigns: both reveal, both audit; the verdict is on the game-over banner
    bob.do(lambda peer: peer.resign())
    bob_event(app, bob, "audit", where=lambda e: e["clean"])
    pump(app, bob, lambda: play.banner is not None
         and play.banner.frame.getName() == "game-over"
         and any("Audited: clean" in t for t in texts_of(play.banner.frame))
         and any("The audited game is kept for Replays as" in t
                 for t in texts_of(play.banner.frame)),
         "the audit on the game-over banner", timeout=20)
    assert play.verified["text"] == "audited: clean"
    texts = texts_of(play.banner.frame)
    assert "White wins" in texts
    assert "takeback" not in [n for n, shown in play._wanted_buttons().items() if shown]
    app.screenshot(tmp_path / "fog-over.png")
    if SHOTS:
        app.screenshot(Path(SHOTS) / "fog-over.png")
    # the replay of the audited full game opens from the banner
    play.watch_replay()
    pump(app, bob, lambda: type(app.screen).__name__ == "ReplayScreen", "the replay")
    if SHOTS:
        app.screenshot(Path(SHOTS) / "fog-replay.png")


def _our_turn_after_bobs(app: WecApp, bob: Headless, tmp_path: Path) -> Any:
    """A fog game between Alice (the client, White) and Bob, after Bob's first turn:
    the play screen, ours to act."""
    write_player_name(tmp_path / "Alice", "Alice")
    open_peers(app, bob)
    join_and_pair(app, bob)
    set_up_as_white(app, bob)
    play = start_game(app, bob)
    bob_plays_a_turn(app, bob, play.net_session)
    return play


def _stall_our_move(app: WecApp, bob: Headless, tmp_path: Path) -> Any:
    """A fog game in which Bob (a modified program) stays connected and stops answering
    in the middle of our Move, on our turn; past twice the request timeout the client
    offers the claim. The play screen."""
    clock = FakeClock()
    app.lan_peer_options = {**FOG, "clock": clock}
    play = _our_turn_after_bobs(app, bob, tmp_path)
    session = play.net_session

    def go_silent(peer: Any) -> None:
        peer.game.lockstep.game.receive = lambda message: FogStep()

    bob.do(go_silent)
    ours = next(i for i in session.legal() if isinstance(i, Move))
    assert play.send(ours)
    pump(app, bob, lambda: not session.our_turn, "our Move sent")
    click_cell(app, 5, 5)  # ours to act, but the Move is not settled: the line says so
    assert play.message == "A moment: the game's exchange with Bob is still under way"
    clock.now += 241.0  # twice the request timeout (120 s) and a second
    pump(app, bob, lambda: play.banner is not None
         and play.banner.frame.getName() == "peer-idle", "the claim offer")
    return play


def test_a_peer_that_stops_answering_mid_action_is_offered_as_a_claim(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    """Bob stops answering the fog protocol in the middle of our Move, on our turn: he
    owes no move, yet past twice the request timeout of a stalled exchange the client
    offers to claim the win, in words a player understands; claimed, the game is over
    and won."""
    play = _stall_our_move(app, bob, tmp_path)
    texts = texts_of(play.banner.frame)
    assert "Bob has not answered for 241 s" in texts, texts
    assert ("Bob's machine stopped answering the game's questions in the middle of your "
            "action. Claim the win, or keep waiting for Bob.") in texts, texts
    assert len(play.net_session.match.actions) == 2  # our Move never finished
    app.screenshot(tmp_path / "fog-stalled.png")
    if SHOTS:
        app.screenshot(Path(SHOTS) / "fog-stalled.png")
    click(app, "banner-0")  # Claim the win
    pump(app, bob, lambda: play.banner is not None
         and play.banner.frame.getName() == "game-over", "the end of the game")
    assert play.status["text"] == "Game over: White wins"
    if SHOTS:
        app.screenshot(Path(SHOTS) / "fog-stalled-over.png")


def test_a_claim_the_peer_refuses_is_told_in_a_players_words(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    """Bob's program refuses our claim (it says it owes no answer): our claim stands on
    our own clock (a silent peer cannot be made to agree); the line under the board
    names the claim and his reason in words, in the refusal colour, and the game-over
    banner says that Bob disputes it. Our reveal ends his game too (net.lockstep_fog
    ``PEER_STOPPED``), he reveals, and the audit comes at once: its verdict names him
    for the answer that never came, on the banner beside his dispute and, the latest
    news, under the board."""
    play = _stall_our_move(app, bob, tmp_path)

    def deny_owing(peer: Any) -> None:
        lockstep = peer.game.lockstep
        lockstep.__class__ = type("Denies", (type(lockstep),),
                                  {"exchange_waiting": property(lambda self: None)})

    bob.do(deny_owing)
    said: list[tuple[str, bool]] = []
    say = play.say
    play.say = lambda text, refused=False: (said.append((text, refused)),  # type: ignore
                                            say(text, refused))
    click(app, "banner-0")  # Claim the win
    line = ("Bob refused your claim of a win on time: its machine owes no answer in the "
            "game's exchange")
    pump(app, bob, lambda: (line, True) in said, "the refusal line")  # refusal colour
    assert play.status["text"] == "Game over: White wins"
    verdict = ("audited: the peer stopped answering in action 2: every question of its "
               "was answered, and its next message never came")
    pump(app, bob, lambda: play.banner is not None and play.banner.frame.getName()
         == "game-over" and "Audit: " + verdict.removeprefix("audited: ")
         in " ".join(texts_of(play.banner.frame)),
         "the audit on the game-over banner")
    texts = " ".join(texts_of(play.banner.frame))
    assert ("Bob refused the claim: its machine owes no answer in the game's exchange"
            in texts), texts  # on the banner, not only under the dimmed board
    assert "No replay of the whole game: the audit did not come out clean." in texts
    assert "once it is audited" not in texts, texts
    assert (play.note.getText(), play.refused) == (verdict, True)
    assert "Watch the replay" not in texts  # there is none to watch
    app.screenshot(tmp_path / "fog-claim-refused.png")
    if SHOTS:
        app.screenshot(Path(SHOTS) / "fog-claim-refused.png")


def test_a_peers_malformed_answer_ends_the_game_saying_what_was_wrong(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    """Bob's program (modified) leaves the question number out of its next answer: our
    client stops the game at once, and the game-over banner says why in one readable
    line (since session 40 "an answer message without its 'i' field", where it said
    "the peer's message breaks the resolution (KeyError: 'i')"), under the result and
    above the audit, which then names Bob's message too."""
    play = _our_turn_after_bobs(app, bob, tmp_path)
    session = play.net_session

    def leave_out_the_number(peer: Any) -> None:
        game = peer.game.lockstep.game
        flush = type(game)._flush

        def _flush(self: Any) -> FogStep:
            self._out[:] = [(kind, {k: v for k, v in payload.items() if k != "i"})
                            if kind == "answer" else (kind, payload)
                            for kind, payload in self._out]
            return flush(self)

        game.__class__ = type("LeavesOutI", (type(game),), {"_flush": _flush})

    bob.do(leave_out_the_number)
    ours = next(i for i in session.legal() if isinstance(i, Move))
    assert play.send(ours)
    reason = "an answer message without its 'i' field"
    # the verdict (Audited) and then its report file (AuditWritten) each redraw the
    # banner: wait for the report's line, the last
    pump(app, bob, lambda: play.banner is not None
         and play.banner.frame.getName() == "game-over"
         and "\nReport: " in " ".join(texts_of(play.banner.frame)),
         "the game-over banner with the audit and its report", timeout=20)
    texts = texts_of(play.banner.frame)
    assert texts[0] == "Nobody wins", texts  # the title, above the message
    lines = texts[1].split("\n")
    assert lines[0] == f"the game stopped: {reason}", lines
    assert lines[-2] == f"Audit: caught during the game: {reason}", lines
    assert lines[-1].startswith("Report: ") and lines[-1].endswith(".json"), lines
    assert "KeyError" not in " ".join(texts) and "breaks the resolution" not in " ".join(texts)
    app.screenshot(tmp_path / "fog-malformed.png")
    if SHOTS:
        app.screenshot(Path(SHOTS) / "fog-malformed.png")


def test_proposing_o21_off_with_fog_of_war_keeps_the_options_screen_and_says_why(
        app: WecApp, bob: Headless, tmp_path: Path) -> None:
    """In a fog-of-war lobby, Alice turns O21 reveal on fire off and proposes: the
    options screen stays, with the reason under it (a hidden piece's Fire would tell
    the other machine where it is); nothing goes to Bob and the rules stay as agreed.
    Turning O21 back on and changing another option is proposed as usual."""
    from wec.net.game_fog import FOG_REVEAL_REASON

    write_player_name(tmp_path / "Alice", "Alice")
    open_peers(app, bob)
    join_and_pair(app, bob)
    set_up_as_white(app, bob)
    click(app, "lobby-propose")
    options_screen = app.screen
    assert options_screen.frame.getName() == "new-game"
    options_screen.set_option("reveal_on_fire", False)
    click(app, "start")
    assert app.screen is options_screen
    assert options_screen.error.getText() == FOG_REVEAL_REASON
    app.screenshot(tmp_path / "fog-o21-refused.png")
    if SHOTS:
        app.screenshot(Path(SHOTS) / "fog-o21-refused.png")
    assert "You propose" not in " ".join(app.lan.model.lobby_log)
    options_screen.set_option("reveal_on_fire", True)
    assert propose_tank_range_8(app, bob, options_screen)["reveal_on_fire"]
