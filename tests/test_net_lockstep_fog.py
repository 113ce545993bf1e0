"""The lockstep of a game with fog of war (issue 21, net.lockstep_fog): the fog
protocol's messages travel inside FogWire lockstep messages (counted, journalled,
resent), turn hashes compare the public hash, takebacks are refused, saves hold our half
only, and however the game ends both sides exchange reveals and report the audit.

The FogGame here is a stand-in (tests/fog_fake.py) sharing one full state in process:
these tests prove the plumbing; the protocol has its own tests."""

from __future__ import annotations

import random
from typing import Any

import pytest
from fog_fake import FakeFog, World

from wec.engine.intents import EndTurn
from wec.engine.match import Match
from wec.engine.options import Options
from wec.engine.pieces import Side
from wec.engine.setup import standard_position
from wec.net.lockstep import Desynced, GameOver, GameResult, LockstepError, TurnAgreed
from wec.net.lockstep_fog import PEER_STOPPED, Audited, FogApplied, FogLockstep, FogSaveNow
from wec.net.messages import (
    FogPart,
    FogReveal,
    FogWire,
    IntentMessage,
    Message,
    Rejection,
    decode_message,
    encode_message,
)

GAME = bytes(range(32))


class FogTable:
    def __init__(self, start: Match | None = None, record: bool = False) -> None:
        self.world = World(start or Match.begin(standard_position(Options())))
        self.journal: dict[Side, list[tuple[str, Any]]] = {Side.BLACK: [], Side.WHITE: []}
        self.fogs = {side: FakeFog(side, self.world) for side in (Side.BLACK, Side.WHITE)}
        self.sides = {
            side: FogLockstep(GAME, self.fogs[side], side,
                              record=(lambda kind, item, s=side: self.journal[s].append(
                                  (kind, item))) if record else None)
            for side in (Side.BLACK, Side.WHITE)}
        self.queues: dict[Side, list[Message]] = {Side.BLACK: [], Side.WHITE: []}
        self.events: dict[Side, list[Any]] = {Side.BLACK: [], Side.WHITE: []}
        self.received: dict[Side, list[Message]] = {Side.BLACK: [], Side.WHITE: []}
        for side, lockstep in self.sides.items():
            self.local(side, lockstep.open())
        self.flush()

    @property
    def black(self) -> FogLockstep:
        return self.sides[Side.BLACK]

    @property
    def white(self) -> FogLockstep:
        return self.sides[Side.WHITE]

    def local(self, side: Side, step: Any) -> Any:
        for message in step.send:
            self.queues[side.other].append(decode_message(encode_message(message)))
        self.events[side] += step.events
        return step

    def flush(self) -> None:
        while self.queues[Side.BLACK] or self.queues[Side.WHITE]:
            for side in (Side.BLACK, Side.WHITE):
                while self.queues[side]:
                    message = self.queues[side].pop(0)
                    self.received[side].append(message)
                    self.local(side, self.sides[side].receive(message))

    def play_random(self, seed: int = 5, limit: int = 400) -> int:
        rng = random.Random(seed)
        played = 0
        while self.black.result is None and played < limit:
            mover = self.black if self.black.our_turn else self.white
            legal = self.world.match.legal_intents()
            self.local(mover.our_side, mover.play(rng.choice(legal)))
            self.flush()
            played += 1
        return played

    def take(self, side: Side, kind: type) -> list[Any]:
        return [e for e in self.events[side] if isinstance(e, kind)]


def test_a_game_is_played_to_its_end_and_audited_clean_on_both_sides() -> None:
    table = FogTable()
    table.play_random(limit=3000)
    assert table.black.result is not None and table.black.result == table.white.result
    for side in (Side.BLACK, Side.WHITE):
        assert not table.take(side, Desynced)
        agreed = table.take(side, TurnAgreed)
        assert agreed, "every turn's public hash is compared"
        [audit] = table.take(side, Audited)
        assert audit.clean and audit.summary == "audited: clean"
        assert audit.history is not None
        assert len(table.take(side, GameOver)) == 1
        # only fog traffic, hashes and the reveal: never an intent message
        kinds = {type(m) for m in table.received[side]}
        assert IntentMessage not in kinds and FogWire in kinds and FogReveal in kinds
    assert table.black.steps == table.white.steps == len(table.world.match.actions)


def test_a_resignation_is_followed_by_both_reveals_and_the_audit() -> None:
    table = FogTable()
    table.local(Side.BLACK, table.black.resign())
    table.flush()
    for side in (Side.BLACK, Side.WHITE):
        [audit] = table.take(side, Audited)
        assert audit.clean
    assert table.white.result is not None and table.white.result.winner is Side.WHITE


def test_a_lie_found_by_the_audit_is_reported() -> None:
    table = FogTable()
    table.fogs[Side.WHITE].lie = True
    table.local(Side.WHITE, table.white.resign())
    table.flush()
    [audit] = table.take(Side.WHITE, Audited)
    assert not audit.clean and "turn 1" in audit.summary


def black_turn(table: FogTable) -> None:
    """Black's first turn: a Move, then the end of the turn."""
    move = next(i for i in table.world.match.legal_intents() if not isinstance(i, EndTurn))
    for intent in (move, EndTurn()):
        table.local(Side.BLACK, table.black.play(intent))
        table.flush()


def test_takebacks_are_refused_and_intent_messages_too() -> None:
    table = FogTable()
    black_turn(table)
    with pytest.raises(LockstepError, match="no takeback in a game with fog of war"):
        table.black.request_takeback()
    step = table.white.receive(IntentMessage(2, 0, EndTurn()))
    assert isinstance(step.send[0], Rejection)
    assert "inside the fog protocol" in step.send[0].reason


def test_a_save_holds_our_half_only_and_both_save_at_the_next_turns_start() -> None:
    table = FogTable()
    black_turn(table)
    step = table.local(Side.WHITE, table.white.save())
    table.flush()
    assert not [e for e in step.events if isinstance(e, FogSaveNow)]  # not yet
    assert not table.take(Side.BLACK, FogSaveNow)
    move = next(i for i in table.world.match.legal_intents() if not isinstance(i, EndTurn))
    for intent in (move, EndTurn()):  # White's turn ends: turn 3 starts, both save
        table.local(Side.WHITE, table.white.play(intent))
        table.flush()
    [ours] = table.take(Side.WHITE, FogSaveNow)
    [theirs] = table.take(Side.BLACK, FogSaveNow)
    assert (ours.asked_by_us, theirs.asked_by_us) == (True, False)
    assert ours.save["half"].viewer is Side.WHITE and theirs.save["half"].viewer is Side.BLACK
    assert ours.save["steps"] == theirs.save["steps"] == 4
    assert ours.save["public_hash"] == theirs.save["public_hash"]
    assert ours.save["half"].turn == 3


def test_a_journal_replays_into_the_same_game() -> None:
    table = FogTable(record=True)
    rng = random.Random(3)
    for _ in range(30):
        mover = table.black if table.black.our_turn else table.white
        table.local(mover.our_side, mover.play(rng.choice(table.world.match.legal_intents())))
        table.flush()
    final = table.world.match
    for side in (Side.BLACK, Side.WHITE):
        lockstep = table.sides[side]
        fresh = FakeFog(side, World(final))
        assert fresh.busy
        again = FogLockstep.restore_fog(GAME, fresh, side, table.journal[side], opened=True)
        assert again.log == lockstep.log
        assert again.peer_processed == lockstep.peer_processed
        assert again.steps == lockstep.steps and again.state_hash == lockstep.state_hash
        assert [type(e) for e in table.take(side, FogApplied)]


def test_a_peers_reveal_while_the_game_goes_on_ends_it_here_and_a_restart_agrees() -> None:
    """Black's program stops the game (a fault it met) and reveals: White's game ends on
    that reveal (it comes only once Black's game is over) with ``PEER_STOPPED``, White
    reveals, both audit; White restarted from its journal ends the same way, with the
    same record."""
    table = FogTable(record=True)
    black_turn(table)
    table.local(Side.BLACK, table.black._end(GameResult(None, "the game stopped: a fault",
                                                        "fault")))
    table.flush()
    assert table.white.result == GameResult(None, PEER_STOPPED, "fault")
    for side in (Side.BLACK, Side.WHITE):
        [_] = table.take(side, Audited)
        assert [type(m) for m in table.received[side]].count(FogReveal) == 1
    fresh = FakeFog(Side.WHITE, World(table.world.match))
    again = FogLockstep.restore_fog(GAME, fresh, Side.WHITE, table.journal[Side.WHITE],
                                    opened=True)
    assert again.result == table.white.result and again.log == table.white.log
    assert again.audit is not None and again.audit.clean == table.white.audit.clean


def test_a_fog_message_after_the_audits_verdict_is_refused_without_a_look() -> None:
    """Once the audit gave its verdict the game and its record are final: a fog protocol
    message (or a part of one) is refused with the reason, and the game sees nothing of
    it (FogGame.receive takes nothing after the verdict either)."""
    table = FogTable()
    table.local(Side.BLACK, table.black.resign())
    table.flush()
    [_] = table.take(Side.WHITE, Audited)
    fog = table.fogs[Side.WHITE]
    taken: list[Any] = []
    fog.receive = taken.append  # type: ignore[method-assign, assignment]
    for message in (FogWire(b"\x01" * 40), FogPart(b"\x02" * 40)):
        step = table.white.receive(message)
        assert isinstance(step.send[0], Rejection)
        assert step.send[0].reason == ("a fog protocol message after the audit's verdict: "
                                       "the game is over")
    assert taken == []
