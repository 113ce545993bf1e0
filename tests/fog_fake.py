"""A stand-in for net.fog_game.FogGame in lockstep tests: the two sides share one full
state in process (a test harness only; it proves the plumbing, not the protocol)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wec.engine.encoding import public_state_hash
from wec.engine.errors import IllegalIntent
from wec.engine.intents import EndTurn, Intent
from wec.engine.knowledge import project
from wec.engine.match import Match
from wec.engine.outcome import Outcome
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.net.fog_game import Applied, FogMessage, Refused, TurnHash


@dataclass
class World:
    match: Match


@dataclass(frozen=True)
class Verdict:
    clean: bool
    reason: str = ""
    history: Any = None


@dataclass
class FakeStep:
    send: tuple[dict[str, Any], ...] = ()
    events: tuple[Any, ...] = ()


@dataclass
class FakeFog:
    side: Side
    world: World
    seen: int = 0  # actions of world.match applied here
    lie: bool = False
    record_log: list[Any] = field(default_factory=list)

    @property
    def half(self) -> Position:
        return project(self.world.match.position_at(self.seen), self.side)

    @property
    def public_hash(self) -> str:
        return public_state_hash(self.half)

    peer_opened: bool = False

    @property
    def busy(self) -> bool:
        return not self.peer_opened

    @property
    def exchanged(self) -> int:
        return self.seen + self.peer_opened

    @property
    def finish_due(self) -> bool:
        return False  # each step is whole here: nothing waits for the I/O layer

    def settle(self) -> FakeStep:
        return FakeStep()

    def opening(self) -> list[FogMessage]:
        return [FogMessage("commit", b"\x01" * 32, b"")]

    def _advance(self, upto: int, by_us: bool, intent: Intent | None) -> FakeStep:
        events: list[Any] = []
        while self.seen < upto:
            before = self.world.match.position_at(self.seen)
            self.seen += 1
            after = self.world.match.position_at(self.seen)
            side = before.side_to_act
            events.append(Applied(self.seen - 1, side, intent or EndTurn(), not by_us,
                                  Outcome(project(after, self.side), ())))
            if after.turn != before.turn:
                events.append(TurnHash(after.turn, public_state_hash(after)))
        return FakeStep(events=tuple(events))

    def play(self, intent: Intent) -> FakeStep:
        try:
            actions = self.world.match.actions
            if len(actions) > self.seen and actions[self.seen].intent == intent:
                pass  # a journal replayed on the finished world
            else:
                self.world.match = self.world.match.play(intent)
        except IllegalIntent as exc:
            return FakeStep(events=(Refused(exc.rule, exc.detail),))
        step = self._advance(self.seen + 1, True, intent)
        step.send = (FogMessage("done", self.seen.to_bytes(4, "big"), b""),)
        return step

    def receive(self, message: FogMessage) -> FakeStep:
        if message.kind == "done":
            return self._advance(int.from_bytes(message.body, "big"), False, None)
        if message.kind == "commit":
            self.peer_opened = True
            return FakeStep(events=(TurnHash(self.half.turn, self.public_hash),))
        return FakeStep()

    def reveal(self) -> FogMessage:
        return FogMessage("reveal", self.side.value.encode(), b"")

    def audit(self, their_reveal: FogMessage, peer_stopped: bool = False) -> Verdict:
        if self.lie or their_reveal.body == self.side.value.encode():
            return Verdict(False, "turn 1, action 1: the reveal does not open the commitment")
        return Verdict(True, "", self.world.match.actions)

    def record(self) -> dict[str, Any]:
        return {"seen": self.seen}
