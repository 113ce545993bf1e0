"""A hotseat session: the match being played on this machine, and what each side sees.

The client's only door into the rules: the side to act's view and legal intents
(R4.13), playing an intent on the full state (R4), undo in non-competitive games
(R14.2), and each side's censored events (R14.3). Both players share the machine,
so the session keeps the full state; the screen shows one side's view at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

from wec.engine.errors import MatchError
from wec.engine.events import Event
from wec.engine.intents import Intent
from wec.engine.match import Action, Match, OptionChange
from wec.engine.pieces import Side
from wec.engine.position import Position, Result


@dataclass(frozen=True, slots=True)
class Played:
    """One action of the history as the screen lists it, with what each side saw."""

    side: Side
    turn: int
    intent: Intent
    seen: tuple[tuple[Event, ...], tuple[Event, ...]]

    def events_for(self, side: Side) -> tuple[Event, ...]:
        return self.seen[0] if side is Side.BLACK else self.seen[1]


class HotseatSession:
    """The match and its history, for the play screen."""

    def __init__(self, match: Match) -> None:
        self.match = match
        self.resigned: Result | None = None

    @property
    def ending(self) -> Result | None:
        """How the game ended: the rules' result (R12) or a resignation; None while on."""
        return self.match.current.result or self.resigned

    def resign(self, side: Side) -> None:
        """``side`` gives up: the other side wins (a hotseat decision, not a rule)."""
        if self.ending is None:
            self.resigned = Result(side.other, f"{side.title} resigned")

    @classmethod
    def new(cls, start: Position) -> HotseatSession:
        return cls(Match.begin(start))

    @property
    def current(self) -> Position:
        return self.match.current

    def view(self, side: Side) -> Position:
        return self.match.view(side)

    def legal(self) -> list[Intent]:
        """The side to act's legal intents, computed on its view (R4.13)."""
        return self.match.legal_intents()

    def play(self, intent: Intent) -> Action:
        """Play one intent; IllegalIntent (naming the rule) leaves the match unchanged."""
        self.match = self.match.play(intent)
        return self.match.history[-1]

    @property
    def can_undo(self) -> bool:
        """R14.2: undo in a non-competitive game with something to undo."""
        return (self.match.undo_allowed and bool(self.match.history)
                and self.resigned is None)

    def undo(self) -> Intent | OptionChange:
        """Step back one action (R14.2); what was undone."""
        if self.resigned is not None:
            raise MatchError("R14.2", "the game is over: a resigned game is not taken back")
        undone = self.match.history[-1].intent
        self.match = self.match.undo()
        return undone

    def go_competitive(self) -> None:
        """R14.3: one-way; MatchError if already competitive."""
        self.match = self.match.go_competitive()

    def played(self) -> list[Played]:
        return [Played(step.side, step.turn, step.intent, step.seen)
                for step in self.match.history if not isinstance(step.intent, OptionChange)]
