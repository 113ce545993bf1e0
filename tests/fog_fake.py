"""A stand-in for net.fog_game.FogGame in lockstep tests: the two sides share one full
state in process (a test harness only; it proves the plumbing, not the protocol)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wec.engine.encoding import public_state_hash
from wec.engine.errors import IllegalIntent
from wec.engine.intents import Intent
from wec.engine.knowledge import project
from wec.engine.match import Match
from wec.engine.pieces import Side
from wec.engine.position import Position


@dataclass
class World:
    match: Match


@dataclass(frozen=True)
class Applied:
    by_us: bool
    turn: int
    intent: Intent | None


@dataclass(frozen=True)
class TurnEnded:
    turn: int
    public_hash: str


@dataclass(frozen=True)
class Refused:
    reason: str


@dataclass(frozen=True)
class Verdict:
    clean: bool
    summary: str
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

    busy = False

    def opening(self) -> list[dict[str, Any]]:
        return [{"kind": "commit", "side": self.side.value, "root": b"\x01" * 32}]

    def _advance(self, upto: int, by_us: bool, intent: Intent | None) -> FakeStep:
        events: list[Any] = []
        while self.seen < upto:
            before = self.world.match.position_at(self.seen)
            self.seen += 1
            after = self.world.match.position_at(self.seen)
            events.append(Applied(by_us, before.turn, intent))
            if after.turn != before.turn or after.result is not None:
                events.append(TurnEnded(before.turn, public_state_hash(after)))
        return FakeStep(events=tuple(events))

    def play(self, intent: Intent) -> FakeStep:
        try:
            actions = self.world.match.actions
            if len(actions) > self.seen and actions[self.seen].intent == intent:
                pass  # a journal replayed on the finished world
            else:
                self.world.match = self.world.match.play(intent)
        except IllegalIntent as exc:
            return FakeStep(events=(Refused(str(exc)),))
        step = self._advance(self.seen + 1, True, intent)
        step.send = ({"kind": "act", "n": self.seen, "pad": b"\x00" * 8},)
        return step

    def receive(self, message: dict[str, Any]) -> FakeStep:
        if message["kind"] == "act":
            return self._advance(int(message["n"]), False, None)
        return FakeStep()

    def reveal(self) -> dict[str, Any]:
        return {"kind": "reveal", "side": self.side.value, "seed": b"\x02" * 32}

    def audit(self, their_reveal: dict[str, Any]) -> Verdict:
        if self.lie or their_reveal.get("side") == self.side.value:
            return Verdict(False, "turn 1, action 1: the reveal does not open the commitment")
        return Verdict(True, "audited: clean", self.world.match.undo_to(self.seen))

    def record(self) -> dict[str, Any]:
        return {"seen": self.seen}
