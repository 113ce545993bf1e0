"""Fog of war between two real Peers over real encrypted sessions (issue 21): the
standard game with O15 and O16 on, each machine holding only its half state, played by
random legal intents (on what each side knows, R4.13), turn hashes agreed, then ended
and audited; a restart replays the journal into the same half; nothing a machine writes
holds an enemy piece its side does not see."""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import random
import weakref
from pathlib import Path
from typing import Any

from test_net_peer import Recorder, config, run, set_up_game, started

from wec.engine.game import legal_intents
from wec.engine.half import merged
from wec.engine.pieces import Side
from wec.net.fog_game import FogGame, FogStep, OwnLimit
from wec.net.heap import FullCollections
from wec.net.lockstep import GameResult
from wec.net.lockstep_fog import PEER_STOPPED, FogLockstep
from wec.net.peer import Peer
from wec.net.session import SessionConfig
from wec.storage.fog_saves import decode_fog_save
from wec.storage.saves import read_save


def fog_config(tmp_path: Path, name: str, **changes: Any) -> Any:
    return config(tmp_path, name, fog=True, **changes)


async def play_random(peers: dict[Side, Peer], logs: dict[Side, Recorder], actions: int,
                      seed: int = 1) -> int:
    """Random legal intents, each side on its own half, until ``actions`` were applied
    on both sides or the game ended."""
    rng = random.Random(seed)
    played = 0
    while played < actions:
        lockstep = {side: peer.game.lockstep for side, peer in peers.items()
                    if peer.game is not None}
        if any(ls.result is not None for ls in lockstep.values()):
            break
        mover = next((s for s, ls in lockstep.items() if ls.our_turn), None)
        if mover is None:
            await asyncio.sleep(0.01)
            continue
        half = lockstep[mover].current
        applied = len(logs[mover.other].of("intent"))
        peers[mover].play(rng.choice(legal_intents(half)))
        await logs[mover.other].wait("intent", count=applied + 1, timeout=20)
        played += 1
    return played


async def to_alices_turn(alice: Peer, alice_log: Recorder, bob: Peer, bob_log: Recorder
                         ) -> tuple[FogLockstep, FogLockstep]:
    """The game set up and a few random actions played, to an action of Alice's (White)
    about to start: her lockstep and Bob's."""
    await set_up_game(alice, alice_log, bob, bob_log, board=False)
    peers = {Side.WHITE: alice, Side.BLACK: bob}
    logs = {Side.WHITE: alice_log, Side.BLACK: bob_log}
    await play_random(peers, logs, 3)
    assert alice.game is not None and bob.game is not None
    lockstep = alice.game.lockstep
    while not lockstep.our_turn:  # Bob finishes his turn
        await play_random(peers, logs, 1, seed=len(lockstep.match.actions))
    theirs = bob.game.lockstep
    assert isinstance(lockstep, FogLockstep) and isinstance(theirs, FogLockstep)
    return lockstep, theirs


async def fog_game_set_up(tmp_path: Path) -> tuple[dict[Side, Peer], dict[Side, Recorder]]:
    """Alice (White) and Bob (Black) started with fog of war and their game set up: the
    peers and their event logs by side."""
    alice, alice_log = await started(fog_config(tmp_path, "Alice"))
    bob, bob_log = await started(fog_config(tmp_path, "Bob"))
    try:
        await set_up_game(alice, alice_log, bob, bob_log, board=False)
    except BaseException:
        await alice.stop()
        await bob.stop()
        raise
    return {Side.WHITE: alice, Side.BLACK: bob}, {Side.WHITE: alice_log, Side.BLACK: bob_log}


def assert_names_the_peer_for_stopping(audit: dict[str, Any]) -> None:
    """The audit's verdict when the peer stopped in the middle of an action (every
    question of its answered, its next message never came)."""
    assert audit["clean"] is False and audit["summary"] == (
        f"audited: the peer stopped answering in action {audit['action']}: every "
        "question of its was answered, and its next message never came"), audit


def _in_a_generation(thing: object) -> bool:
    """Whether the collector still walks ``thing`` (not frozen)."""
    return any(o is thing for generation in range(3) for o in gc.get_objects(generation))


def test_a_stopped_peer_lets_go_of_its_unfinished_fog_games(tmp_path: Path) -> None:
    """A player leaves the network screen in the middle of a fog game (the client stops
    its Peer, the game stays in its journal to be resumed): both FogGames are freed.
    Two things held them for the process's life (about 1 MB each) until session 29,
    each enough alone: the last action's resolutions waiting on greenlets, whose frames
    the collector cannot see (now let go by ``FogGame.close``; a message that came later
    would make them afresh), and the host's idle work, still queued on the loop."""
    games: list[weakref.ref[FogGame]] = []

    async def scenario() -> None:
        peers, logs = await fog_game_set_up(tmp_path)
        alice, bob = peers[Side.WHITE], peers[Side.BLACK]
        try:
            # three actions: the third is Black's Move, the peer's owner side waits on
            # (an End whose next side has no transport step due asks nothing, wec-fog/20)
            await play_random(peers, logs, 3)
            for peer in peers.values():
                assert peer.game is not None and not peer.game.finished
                lockstep = peer.game.lockstep
                assert isinstance(lockstep, FogLockstep)
                games.append(weakref.ref(lockstep.game))
                # the last action's owner side waits on a greenlet
                assert lockstep.game.actions[-1].owner_run is not None
        finally:
            await alice.stop()
            await bob.stop()

    run(scenario)
    gc.collect()
    assert len(games) == 2 and [game() for game in games] == [None, None]


def test_a_peer_that_owns_its_process_freezes_its_heap_when_a_game_starts(
        tmp_path: Path) -> None:
    """``PeerConfig.freeze_heap`` (the client and ``wec peer`` set it): the game's start
    collects the garbage once and freezes what lives (the collector's full passes no
    longer walk it), and so does the idle time after each of the game's steps
    (net.heap ``settling_heap``: what the game keeps grows all game long); the
    collector's full passes are noted while the peer runs (``FullCollections``). A peer
    sharing its process (the default, as in these tests) leaves the collector alone.
    Heartbeats of 30 s here: in a test worker that collection of a large heap blocks the
    loop for up to a second or more."""
    slow = SessionConfig(heartbeat_interval=1.0, heartbeat_timeout=30.0,
                         handshake_timeout=30.0)

    async def scenario() -> None:
        gc.unfreeze()
        alice, alice_log = await started(fog_config(tmp_path, "Alice", session=slow))
        bob, bob_log = await started(fog_config(tmp_path, "Bob", session=slow,
                                                freeze_heap=True))
        try:
            await set_up_game(alice, alice_log, bob, bob_log, board=False)
            await bob_log.wait("game_started")
            assert gc.get_freeze_count() > 0  # Bob's game start froze the heap
            made_during_play = [object()]
            assert _in_a_generation(made_during_play)
            peers = {Side.WHITE: alice, Side.BLACK: bob}
            assert await play_random(peers, {Side.WHITE: alice_log, Side.BLACK: bob_log},
                                     4) == 4
            for _ in range(100):  # the idle time after Bob's last step (later under load)
                await asyncio.sleep(0.05)
                if not _in_a_generation(made_during_play):
                    break
            assert not _in_a_generation(made_during_play)  # Bob's steps froze it
            gc.collect()
            assert bob.full_collections and alice.full_collections == []
            await alice.stop()
            assert gc.get_freeze_count() > 0
            await bob.stop()  # the network stops: Bob unfreezes the heap
            assert gc.get_freeze_count() == 0
        finally:
            await alice.stop()
            await bob.stop()
            gc.unfreeze()  # the rest of the worker's tests as before
        assert not any(isinstance(c, FullCollections) for c in gc.callbacks)
    run(scenario)

    async def unfrozen() -> None:
        alice, alice_log = await started(fog_config(tmp_path / "2", "Alice", session=slow))
        bob, bob_log = await started(fog_config(tmp_path / "2", "Bob", session=slow))
        try:
            await set_up_game(alice, alice_log, bob, bob_log, board=False)
            await bob_log.wait("game_started")
            assert gc.get_freeze_count() == 0
        finally:
            await alice.stop()
            await bob.stop()
    run(unfrozen)


def test_a_fog_game_is_played_over_real_sessions_and_ended_with_both_reveals(
        tmp_path: Path) -> None:
    async def scenario() -> None:
        alice, alice_log = await started(fog_config(tmp_path, "Alice"))
        bob, bob_log = await started(fog_config(tmp_path, "Bob"))
        try:
            await set_up_game(alice, alice_log, bob, bob_log, board=False)
            started_event = bob_log.of("game_started")[0]
            assert started_event["options"]["stealth_invisibility"] is True
            assert started_event["options"]["submersion_invisibility"] is True
            peers = {Side.WHITE: alice, Side.BLACK: bob}
            logs = {Side.WHITE: alice_log, Side.BLACK: bob_log}
            for peer in peers.values():
                assert peer.game is not None and isinstance(peer.game.lockstep, FogLockstep)
            await play_random(peers, logs, 24)
            # the halves fit together (test only: no machine ever holds both)
            white_half = alice.game.lockstep.current  # type: ignore[union-attr]
            black_half = bob.game.lockstep.current  # type: ignore[union-attr]
            assert white_half.viewer is Side.WHITE and black_half.viewer is Side.BLACK
            merged(black_half, white_half)
            alice.save("alice-save")  # both save at the next turn's start
            await play_random(peers, logs, 12, seed=4)
            await bob_log.wait("saved")
            await alice_log.wait("saved")
            bob.resign()
            for log in (alice_log, bob_log):
                await log.wait("result")
                audit = await log.wait("audit", timeout=30)
                assert (audit["clean"], audit["summary"]) == (True, "audited: clean"), audit
            for log in (alice_log, bob_log):
                kinds = log.kinds()
                assert "turn_agreed" in kinds and "desync" not in kinds
                assert "error" not in kinds, log.of("error")
                assert not [e for e in log.of("refused")], log.of("refused")
            # the host settled the finishes that waited for the transport question
            # (net.fog_game FogGame._finish_waits), journalled: as many as the game took
            # (since wec-fog/20 an End asks it only when a transport step is due)
            settles = 0
            # what each machine wrote holds only its own half
            for name, side in (("Alice", Side.WHITE), ("Bob", Side.BLACK)):
                folder = tmp_path / name
                [journal] = (folder / "games").glob("*.jsonl")
                settles += sum(json.loads(line).get("k") == "settle"
                               for line in journal.read_text().splitlines()[1:])
                header = json.loads(journal.read_text().splitlines()[0])
                assert "start" not in header and "fog" in header
                [save] = [p for p in (folder / "saves").glob("*.wecsave")
                          if "audited" not in p.name]
                fog = decode_fog_save(save.read_bytes())
                assert fog.side is side and fog.half.viewer is side
                assert base64.b64decode(header["fog"]["seed"])
                # after the audit, the whole game is kept for Replays
                [audited] = (folder / "saves").glob("*-audited.wecsave")
                replayed = read_save(audited)
                game = (alice if name == "Alice" else bob).game
                assert game is not None
                assert len(replayed.actions) == game.lockstep.steps
                assert replayed.current.turn == game.lockstep.current.turn
            assert settles == sum(item == ["settle"] for peer in (alice, bob)
                                  for item in peer.game.lockstep.game._inputs)  # type: ignore[union-attr]
        finally:
            await alice.stop()
            await bob.stop()
    run(scenario)


def test_a_restarted_peer_replays_its_fog_journal_and_plays_on(tmp_path: Path) -> None:
    async def scenario() -> None:
        peers, logs = await fog_game_set_up(tmp_path)
        alice, bob = peers[Side.WHITE], peers[Side.BLACK]
        alice_log, bob_log = logs[Side.WHITE], logs[Side.BLACK]
        try:
            await play_random(peers, logs, 10)
            assert bob.game is not None
            before = bob.game.lockstep
            half, digest, log = before.current, before.state_hash, list(before.log)
            port = bob.port
            await bob.stop()
            bob, bob_log = await started(fog_config(tmp_path, "Bob", port=port))
            assert bob.game is not None
            again = bob.game.lockstep
            assert isinstance(again, FogLockstep)
            assert again.current == half and again.state_hash == digest and again.log == log
            await bob_log.wait("resumed", timeout=20)
            peers[Side.BLACK], logs[Side.BLACK] = bob, bob_log
            await play_random(peers, logs, 10, seed=2)
            assert "desync" not in alice_log.kinds() + bob_log.kinds()
            assert not alice_log.of("error") and not bob_log.of("error")
        finally:
            await alice.stop()
            await bob.stop()
    run(scenario)


def test_a_fog_save_is_resumed_over_the_network(tmp_path: Path) -> None:
    """Each machine saves its own half (on the saver's turn, the last action settled);
    later both resume the save: each restores its FogGame from its own record, the
    rules hash compares the public hash and the actions, and the game plays on."""
    async def scenario() -> None:
        alice, alice_log = await started(fog_config(tmp_path, "Alice"))
        bob, bob_log = await started(fog_config(tmp_path, "Bob"))
        await set_up_game(alice, alice_log, bob, bob_log, board=False)
        peers = {Side.WHITE: alice, Side.BLACK: bob}
        logs = {Side.WHITE: alice_log, Side.BLACK: bob_log}
        await play_random(peers, logs, 8)
        saver, saver_log, other_log = alice, alice_log, bob_log
        saver.save("evening")
        await play_random(peers, logs, 12, seed=5)  # the save waits for a turn's start
        saved = await saver_log.wait("saved", timeout=20)  # at the next turn's start
        await other_log.wait("saved", timeout=20)
        assert saved["file_name"] == "evening.wecsave"
        steps = saver.game.lockstep.steps  # type: ignore[union-attr]
        bob.resign()
        await alice_log.wait("audit", timeout=30)
        await alice.stop()
        await bob.stop()
        alice, alice_log = await started(fog_config(tmp_path, "Alice"))
        bob, bob_log = await started(fog_config(tmp_path, "Bob"))
        try:
            await alice.connect("127.0.0.1", bob.port)
            await alice_log.wait("paired")
            [save_name] = [p.name for p in (tmp_path / "Alice" / "saves").glob("*.wecsave")
                           if "audited" not in p.name]
            alice.invite(resume_file=save_name)
            await bob_log.wait("invited")
            bob.accept()
            resumed = await bob_log.wait("game_started", timeout=20)
            assert resumed["resumed_save"] is True and resumed["our_side"] == "black"
            await alice_log.wait("game_started")
            saved_steps = decode_fog_save(
                (tmp_path / "Alice" / "saves" / save_name).read_bytes()).steps
            for peer in (alice, bob):
                assert peer.game is not None and isinstance(peer.game.lockstep, FogLockstep)
                assert peer.game.lockstep.current.viewer is peer.game.lockstep.our_side
                assert peer.game.lockstep.steps == saved_steps > 0
            assert alice.game.lockstep.state_hash == bob.game.lockstep.state_hash  # type: ignore[union-attr]
            peers = {Side.WHITE: alice, Side.BLACK: bob}
            logs = {Side.WHITE: alice_log, Side.BLACK: bob_log}
            await play_random(peers, logs, 6, seed=3)
            for log in (alice_log, bob_log):
                assert "desync" not in log.kinds() and not log.of("error"), log.of("error")
                assert not log.of("refused"), log.of("refused")
            assert steps > 0
        finally:
            await alice.stop()
            await bob.stop()
    run(scenario)


def test_an_inconsistency_found_by_the_audit_is_reported_and_written(
        tmp_path: Path, monkeypatch: Any) -> None:
    """The audit's verdict names an inconsistency (as the audit of a lying peer does,
    tests/test_net_audit*.py): both machines report it (event, final verdict) and write
    the report with the turn, the action and the proof."""
    from wec.net.audit import AuditVerdict
    from wec.net.fog_game import FogGame

    def lying(self: FogGame, their_reveal: Any, peer_stopped: bool = False) -> AuditVerdict:
        return AuditVerdict(False, "turn 2, action 3: the first-hit answer is false",
                            turn=2, action=3, culprit="white", proof=(5, 9))

    monkeypatch.setattr(FogGame, "audit", lying)

    async def scenario() -> None:
        alice, alice_log = await started(fog_config(tmp_path, "Alice"))
        bob, bob_log = await started(fog_config(tmp_path, "Bob"))
        try:
            await set_up_game(alice, alice_log, bob, bob_log, board=False)
            await play_random({Side.WHITE: alice, Side.BLACK: bob},
                              {Side.WHITE: alice_log, Side.BLACK: bob_log}, 4)
            alice.resign()
            for name, log in (("Alice", alice_log), ("Bob", bob_log)):
                audit = await log.wait("audit", timeout=30)
                assert audit["clean"] is False
                assert audit["summary"] == ("audited: turn 2, action 3: the first-hit "
                                            "answer is false")
                written = await log.wait("audit_report_written", timeout=10)
                report = json.loads(Path(written["path"]).read_text())
                assert written["path"].startswith(str(tmp_path / name / "audit"))
                assert (report["turn"], report["action"]) == (2, 3)
                assert report["verdict"]["proof"] == [5, 9]
                assert report["verdict"]["culprit"] == "white"
        finally:
            await alice.stop()
            await bob.stop()
    run(scenario)


def test_a_peer_that_does_not_reveal_is_named_by_the_audit(tmp_path: Path) -> None:
    """After the game Bob (a modified program) keeps his reveal: once the request
    timeout has passed while he is connected, Alice's audit names him, in her event and
    her report; the game stays over."""
    async def scenario() -> None:
        alice, alice_log = await started(fog_config(tmp_path, "Alice",
                                                    request_timeout=1.0))
        bob, bob_log = await started(fog_config(tmp_path, "Bob"))
        try:
            await set_up_game(alice, alice_log, bob, bob_log, board=False)
            await play_random({Side.WHITE: alice, Side.BLACK: bob},
                              {Side.WHITE: alice_log, Side.BLACK: bob_log}, 4)
            assert bob.game is not None
            bob.game.lockstep._maybe_reveal = lambda step: step  # type: ignore[method-assign]
            alice.resign()
            audit = await alice_log.wait("audit", timeout=20)
            assert audit["clean"] is False and "did not reveal" in audit["summary"]
            written = await alice_log.wait("audit_report_written", timeout=10)
            report = json.loads(Path(written["path"]).read_text())
            assert report["verdict"]["culprit"] == "black"
            assert not bob_log.of("audit")  # Bob never got to audit: he did not reveal
        finally:
            await alice.stop()
            await bob.stop()
    run(scenario)


def test_a_fault_on_one_machine_ends_the_game_on_both_and_both_audit(
        tmp_path: Path) -> None:
    """Bob's program meets a fault of its own in the middle of Alice's action (here the
    runtime limit of a private detection, the message it stops with): his game stops
    and he reveals. Alice learns it from his reveal (it comes only once his game is
    over): her game ends too, with the reason, she reveals, and both audit. Before, she
    waited for his answer for ever, and his audit named her for his own limit."""
    async def scenario() -> None:
        alice, alice_log = await started(fog_config(tmp_path, "Alice"))
        bob, bob_log = await started(fog_config(tmp_path, "Bob"))
        try:
            lockstep, faulting = await to_alices_turn(alice, alice_log, bob, bob_log)

            def limit_met(message: Any) -> None:
                raise OwnLimit("our detection cannot be evaluated privately (a limit of "
                               "net.private_sight, docs/network.md): more than 8 entries")
            faulting.game._handle = limit_met  # type: ignore[method-assign]
            applied = len(alice_log.of("intent"))
            alice.play(random.Random(2).choice(legal_intents(lockstep.current)))
            ours = await bob_log.wait("result", timeout=10)
            assert ours["result"]["how"] == "fault" and ours["result"]["winner"] is None
            assert ours["result"]["reason"].startswith(
                "the game stopped: our detection cannot be evaluated privately")
            theirs = await alice_log.wait("result", timeout=10)
            assert theirs["result"] == {"how": "fault", "winner": None,
                                        "reason": PEER_STOPPED}
            assert len(alice_log.of("intent")) == applied  # the action never finished
            # Bob's record shows no lie of Alice's: his own limit is not hers
            audit = await bob_log.wait("audit", timeout=20)
            assert (audit["clean"], audit["summary"]) == (True, "audited: clean"), audit
            # Alice cannot tell a limit from a refusal to go on: Bob stopped, she says so
            assert_names_the_peer_for_stopping(await alice_log.wait("audit", timeout=20))
        finally:
            await alice.stop()
            await bob.stop()
    run(scenario)


def test_a_peer_that_reveals_to_stop_a_game_between_actions_is_named_by_the_audit(
        tmp_path: Path) -> None:
    """Bob's program (modified) ends the game between two actions and reveals, as a
    fault would, though nothing went wrong: a way out of a game he is losing. Alice's
    game ends on his reveal with no winner, and her audit does not come out clean: it
    names him for stopping a game that could go on."""
    async def scenario() -> None:
        alice, alice_log = await started(fog_config(tmp_path, "Alice"))
        bob, bob_log = await started(fog_config(tmp_path, "Bob"))
        try:
            lockstep, theirs = await to_alices_turn(alice, alice_log, bob, bob_log)
            while theirs.game.busy:  # Bob's side of the last action settles
                await asyncio.sleep(0.01)
            turn = lockstep.current.turn
            bob._games.command(lambda lockstep: lockstep._end(  # type: ignore[attr-defined]
                GameResult(None, "the game stopped: Bob's program says so", "fault")))
            theirs = await alice_log.wait("result", timeout=10)
            assert theirs["result"] == {"how": "fault", "winner": None,
                                        "reason": PEER_STOPPED}
            audit = await alice_log.wait("audit", timeout=20)
            assert audit["clean"] is False and audit["summary"] == (
                f"audited: the peer stopped the game in turn {turn}: its reveal came "
                "while the game went on here, and nothing in the record stopped it"), audit
            written = await alice_log.wait("audit_report_written", timeout=10)
            report = json.loads(Path(written["path"]).read_text())
            verdict = report["verdict"]
            assert verdict["verdict"] == "audited: inconsistency"
            assert verdict["culprit"] == "black" and len(verdict["messages"]) == 1
            assert verdict["messages"][0]["sender"] == "black"  # his signed reveal
        finally:
            await alice.stop()
            await bob.stop()
    run(scenario)


def test_a_peer_that_stops_answering_mid_action_is_claimed_against(tmp_path: Path) -> None:
    """Bob (a modified program) stays connected but stops answering the fog protocol in
    the middle of Alice's action, on her turn: he owes her no move, and before, the game
    stalled for ever (she could only resign). After twice the request timeout of a
    stalled exchange Alice is told (claim ``protocol``), claims the win on time, and her
    audit names him: his machine refuses her claim (its clock did not run out), but her
    reveal ends his game there too (``PEER_STOPPED``), he reveals, and the audit finds
    his last message missing."""
    async def scenario() -> None:
        alice, alice_log = await started(fog_config(tmp_path, "Alice", request_timeout=1.0))
        bob, bob_log = await started(fog_config(tmp_path, "Bob"))
        try:
            lockstep, silent = await to_alices_turn(alice, alice_log, bob, bob_log)
            assert lockstep.exchange_waiting is None
            silent.game.receive = lambda message: FogStep()  # type: ignore[method-assign]
            applied = len(alice_log.of("intent"))
            alice.play(random.Random(2).choice(legal_intents(lockstep.current)))
            idle = await alice_log.wait("peer_idle", timeout=20)
            assert (idle["peer"], idle["claim"], idle["limit"]) == ("Bob", "protocol", 2.0)
            assert idle["seconds"] >= 2.0
            assert len(alice_log.of("intent")) == applied  # the action never finished
            alice.claim_win()
            over = await alice_log.wait("result", timeout=10)
            assert over["result"]["how"] == "time" and over["result"]["winner"] == "white"
            assert over["result"]["reason"].startswith(
                "Black stopped answering the game's questions for ")
            theirs = await bob_log.wait("result", timeout=10)
            assert theirs["result"]["reason"] == PEER_STOPPED
            assert_names_the_peer_for_stopping(await alice_log.wait("audit", timeout=20))
        finally:
            await alice.stop()
            await bob.stop()
    run(scenario)
