"""A match: the game as data (R14), for the hotseat client, saved games and replays.

A ``Match`` is immutable. It holds the start position, the ordered actions applied
since (each with its intent, side, turn, resulting full position, events and state
hash) and, through option O32, the mode. Every operation returns a new Match:

* ``play(intent)`` resolves an intent with ``engine.game.apply`` on the full state;
  ``IllegalIntent`` propagates unchanged.
* ``undo(steps)`` / ``undo_to(index)`` step back to any earlier state, one action at a
  time (R14.2). Every action keeps its position, so an undo only shortens the tuple
  of actions: nothing is replayed, the cost is at most linear in the history.
* ``go_competitive()`` switches to competitive mode, one-way (R14.3): from then on no
  Undo, no option change, no editor; each player's history is censored until the
  game ends.
* ``with_options(options)`` changes the options (R14.2, non-competitive only).

The mode is option O32 (``Options.competitive``) of the current position, so a saved
position carries it. A match starts in the mode of its start position: a new game is
non-competitive (R14.1, O32 off at creation); a competitive game loaded from a file
stays competitive.

What an option change means (R14.2 allows one at any time; the rules do not say how
it acts on a game under way; decided here):

* At the start (no action yet) the start position itself takes the new options: the
  game is then played as if it had been created with them.
* Later, the change is a step of the history (``OptionChange``), undone like an
  action; earlier positions keep the options they were played with.
* Either way the options act from the next action on; nothing already resolved is
  recomputed: cooldowns already set (O28), stuns running (O12), projectiles in flight
  and pieces in transit keep going. Visibility is recomputed at once (R9.5), since
  O15-O23 decide who is hidden.
* Options that shape the setup (O5 governments, O29-O31 quantities) act only when a
  standard start is built (``engine.setup.standard_position``); on an existing
  position they are recorded but change no piece or article.
* The new options must be valid (``options_from_dict``) and the position must stay
  valid under them (``validate_position``: e.g. O26 off while a primary government
  piece carries Stealth is refused, R9.9); a ``FormatError`` names the problem.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from wec.engine import game, knowledge
from wec.engine.censor import events_for
from wec.engine.encoding import full_state_hash as state_hash
from wec.engine.errors import MatchError
from wec.engine.events import Event
from wec.engine.formats import validate_position
from wec.engine.intents import Intent
from wec.engine.notation import Step, write_game
from wec.engine.options import Options, options_from_dict, options_to_dict
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.engine.visibility import refresh


class Mode(Enum):
    """R14: the two modes of a game."""

    NON_COMPETITIVE = "non_competitive"
    COMPETITIVE = "competitive"


@dataclass(frozen=True, slots=True)
class OptionChange:
    """R14.2: the options were changed between two actions (a step of the match, not an
    engine intent: it is never sent to ``engine.game.apply``)."""

    options: Options

    def describe(self) -> str:
        return "change the options"


@dataclass(frozen=True, slots=True)
class Action:
    """One step of the history: what was done, by which side in which turn, and the full
    position it led to with the events it caused and that position's state hash."""

    intent: Intent | OptionChange
    side: Side
    turn: int
    position: Position
    events: tuple[Event, ...]
    state_hash: str
    seen: tuple[tuple[Event, ...], tuple[Event, ...]] = ((), ())  # Black's, White's

    def events_for(self, side: Side) -> tuple[Event, ...]:
        """The events ``side`` may see (R14.3, engine.censor), recorded when played."""
        return self.seen[0] if side is Side.BLACK else self.seen[1]


@dataclass(frozen=True, slots=True)
class Match:
    """A game as data: the start position and the actions applied since (see the module
    docstring). Build one with ``Match.begin``."""

    start: Position
    start_hash: str
    actions: tuple[Action, ...] = ()

    @classmethod
    def begin(cls, start: Position) -> Match:
        """A match from the full position ``start`` (R14.1: a new game's options have O32
        off, so it starts non-competitive)."""
        if start.viewer is not None:
            raise ValueError("a match is played on the full state, not on "
                             f"{start.viewer.title}'s view")
        return cls(start, state_hash(start))

    # ------------------------------------------------------------ reading

    @property
    def current(self) -> Position:
        """The full position now."""
        return self.actions[-1].position if self.actions else self.start

    @property
    def current_hash(self) -> str:
        return self.actions[-1].state_hash if self.actions else self.start_hash

    @property
    def history(self) -> tuple[Action, ...]:
        """The actions so far, in the order applied."""
        return self.actions

    @property
    def mode(self) -> Mode:
        """R14: option O32 of the current position."""
        return Mode.COMPETITIVE if self.current.options.competitive else Mode.NON_COMPETITIVE

    @property
    def competitive(self) -> bool:
        return self.current.options.competitive

    @property
    def editing_allowed(self) -> bool:
        """R14.4: the board editor exists in non-competitive mode only."""
        return not self.competitive

    @property
    def undo_allowed(self) -> bool:
        """R14.2, R14.3: Undo in non-competitive mode, when there is an action to undo."""
        return not self.competitive and bool(self.actions)

    def position_at(self, index: int) -> Position:
        """The full position after ``index`` actions (0: the start)."""
        self._check_index(index)
        return self.actions[index - 1].position if index else self.start

    def hash_at(self, index: int) -> str:
        """The state hash after ``index`` actions (0: the start)."""
        self._check_index(index)
        return self.actions[index - 1].state_hash if index else self.start_hash

    def view(self, side: Side) -> Position:
        """What ``side`` knows of the current position (R9, engine.knowledge)."""
        return knowledge.view(self.current, side)

    def legal_intents(self, side_view: bool = True) -> list[Intent]:
        """The side to act's legal intents. R4.13: computed on what it knows (its view);
        ``side_view=False`` lists them on the full state instead."""
        current = self.current
        if side_view:
            return game.legal_intents(knowledge.view(current, current.side_to_act))
        return game.legal_intents(current)

    def turn_notation(self, viewer: Side | None = None) -> list[str]:
        """The R16 history, one string per turn: the full one, or ``viewer``'s censored
        copy (R14.3). Option changes write nothing (R16 has no code for them)."""
        return write_game(self._steps(), viewer)

    def notation_for(self, side: Side) -> list[str]:
        """The history ``side`` may read: everything in non-competitive mode (R14.2,
        D-43), its censored copy in competitive mode until the game ends (R14.3)."""
        censored = self.competitive and self.current.result is None
        return self.turn_notation(side if censored else None)

    # ------------------------------------------------------------ changing

    def play(self, intent: Intent) -> Match:
        """The match after the side to act's ``intent``, resolved on the full state by
        ``engine.game.apply`` (IllegalIntent names the broken rule)."""
        current = self.current
        outcome = game.apply(current, intent)
        seen = (events_for(Side.BLACK, outcome), events_for(Side.WHITE, outcome))
        return self._with(intent, outcome.position, outcome.events, seen)

    def undo(self, steps: int = 1) -> Match:
        """R14.2: the match ``steps`` actions back."""
        if steps < 1:
            raise ValueError(f"undo takes 1 or more steps (got {steps})")
        return self.undo_to(len(self.actions) - steps)

    def undo_to(self, index: int) -> Match:
        """R14.2: the match as it was after ``index`` actions (0: the start)."""
        if self.competitive:
            raise MatchError("R14.3", "no Undo in competitive mode")
        if index < 0:
            raise MatchError("R14.2", f"cannot undo past the start of the match (turn "
                                      f"{self.start.turn}): {len(self.actions)} action(s) "
                                      "can be undone")
        self._check_index(index)
        return replace(self, actions=self.actions[:index])

    def go_competitive(self) -> Match:
        """R14.3: switch to competitive mode, one-way (at the start the start position
        takes O32; later the switch is a step of the history)."""
        if self.competitive:
            raise MatchError("R14.3", "the match is already competitive; the switch to "
                                      "competitive is one-way")
        return self._change_options(replace(self.current.options, competitive=True))

    def with_options(self, options: Options) -> Match:
        """R14.2: the match with ``options`` from now on (see the module docstring);
        refused in competitive mode (R14.3)."""
        if self.competitive:
            raise MatchError("R14.3", "no option changes in competitive mode")
        if options.competitive:
            raise MatchError("R14.3", "option O32 competitive is switched with "
                                      "go_competitive (one-way), not as an option change")
        options = options_from_dict(options_to_dict(options))
        if options == self.current.options:
            return self  # nothing changes, nothing to undo
        return self._change_options(options)

    def require_editor(self) -> None:
        """R14.4: refuse the board editor in competitive mode (R14.3)."""
        if self.competitive:
            raise MatchError("R14.3", "no board editor in competitive mode")

    # ------------------------------------------------------------ internals

    def _change_options(self, options: Options) -> Match:
        current = self.current
        changed = current.evolve(options=options)
        changed = refresh(changed, changed) if not self.actions else refresh(current, changed)
        validate_position(changed)
        if not self.actions:
            return Match.begin(changed)
        return self._with(OptionChange(options), changed, ())

    def _with(self, intent: Intent | OptionChange, after: Position,
              events: tuple[Event, ...],
              seen: tuple[tuple[Event, ...], tuple[Event, ...]] = ((), ())) -> Match:
        current = self.current
        action = Action(intent, current.side_to_act, current.turn, after, events,
                        state_hash(after), seen)
        return replace(self, actions=(*self.actions, action))

    def _steps(self) -> list[Step]:
        steps: list[Step] = []
        before = self.start
        for action in self.actions:
            if not isinstance(action.intent, OptionChange):
                steps.append((before, action.intent,
                              game.Outcome(action.position, action.events)))
            before = action.position
        return steps

    def _check_index(self, index: int) -> None:
        if not 0 <= index <= len(self.actions):
            raise MatchError("R14.2", f"no state after {index} action(s): the match has "
                                      f"{len(self.actions)}")
