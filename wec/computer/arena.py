"""A local game between two players, each told only what its side may see.

The arena holds the full state: it is the referee of a local game (as hotseat play and
the engine's FullStateReferee are), not a player. It hands each player its side's view
(``knowledge.project``) and the events its side saw (``censor.events_for``) after every
action, asks the side to act for its next intent, and resolves it on the full state. A
refused intent is told to the player, which plans again; a player that cannot find a
legal intent in ``MAX_REFUSALS`` tries plays the first legal Move (or ends its turn).

Used by the strength ladder (wec bench computer), the tests and anything else that pits
players against each other without a network.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from wec.computer.belief import Observation
from wec.computer.evaluation import material
from wec.engine.censor import events_for
from wec.engine.errors import IllegalIntent
from wec.engine.events import Event
from wec.engine.game import Outcome, apply, legal_intents
from wec.engine.intents import Doze, EndTurn, Intent, Move
from wec.engine.knowledge import project
from wec.engine.match import Match
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.engine.visibility import settle

MAX_REFUSALS = 8
MAX_ACTIONS = 12  # per turn; R4.3 allows at most 7


class Player(Protocol):
    side: Side

    def observe(self, view: Position, events: Sequence[Event] = ()) -> None: ...

    def next_intent(self, view: Position) -> Intent: ...

    def refuse(self, intent: Intent) -> None: ...


@dataclass(slots=True)
class GameRecord:
    """How a game went: the winner (None: a draw by adjudication), why, how many turns,
    and each side's thinking time per turn (seconds)."""

    winner: Side | None
    reason: str
    turns: int
    adjudicated: bool
    seconds: dict[Side, list[float]] = field(default_factory=dict)
    final: Position | None = None


def side_view(truth: Position, side: Side) -> Position:
    """What ``side`` is told of the full state ``truth``: its partial (half) state. The
    one way a local driver (this arena, the client, ``wec think``) hands a player its
    view."""
    return project(truth, side)


def match_observations(match: Match, side: Side, start: int = 0) -> Iterator[Observation]:
    """What ``side`` was told of a match (engine.match, the full state held locally: the
    hotseat client's session, a LAN game's lockstep) from its ``start``-th step on: its
    view of the start (step 0), then its view after each action with the events it saw
    of it (``Action.events_for``)."""
    if start == 0:
        yield Observation(side_view(settle(match.start), side))
    for action in match.history[max(0, start - 1):]:
        yield Observation(side_view(action.position, side), action.events_for(side))


def adjudicate(position: Position, margin: float) -> Side | None:
    """At the turn cap: the side ahead by at least ``margin`` in material, else nobody."""
    balance = material(position, Side.BLACK)
    if balance >= margin:
        return Side.BLACK
    if balance <= -margin:
        return Side.WHITE
    return None


def _forced(view: Position) -> Intent:
    legal = legal_intents(view)
    if not view.actions.move:
        moves = [i for i in legal if isinstance(i, Move | Doze)]
        if moves:
            return moves[0]
    return EndTurn()


def play_game(start: Position, black: Player, white: Player, max_turns: int = 200,
              margin: float = 3.0,
              on_action: Callable[[Position, Intent, Outcome], None] | None = None
              ) -> GameRecord:
    """Play from the full state ``start`` until the game ends or ``max_turns`` turns have
    been played (then adjudicated by material, ``adjudicate``)."""
    if start.viewer is not None:
        raise ValueError("the arena holds the full state")
    truth = settle(start)
    players = {Side.BLACK: black, Side.WHITE: white}
    seconds: dict[Side, list[float]] = {Side.BLACK: [], Side.WHITE: []}
    for side, player in players.items():
        player.observe(side_view(truth, side), ())
    first_turn = truth.turn
    while truth.result is None and truth.turn < first_turn + max_turns:
        side = truth.side_to_act
        player = players[side]
        spent = 0.0
        actions = refusals = 0
        while truth.result is None and truth.side_to_act is side:
            view = side_view(truth, side)
            began = time.perf_counter()
            if refusals >= MAX_REFUSALS or actions >= MAX_ACTIONS:
                intent = _forced(view)
            else:
                intent = player.next_intent(view)
            spent += time.perf_counter() - began
            try:
                outcome = apply(truth, intent)
            except IllegalIntent:
                refusals += 1
                player.refuse(intent)
                if refusals > MAX_REFUSALS + 2:
                    raise
                continue
            actions += 1
            if on_action is not None:
                on_action(truth, intent, outcome)
            truth = outcome.position
            for s, p in players.items():
                p.observe(side_view(truth, s), events_for(s, outcome))
        seconds[side].append(spent)
    if truth.result is not None:
        return GameRecord(truth.result.winner, truth.result.reason, truth.turn - first_turn,
                          False, seconds, truth)
    winner = adjudicate(truth, margin)
    return GameRecord(winner, "adjudicated on material at the turn cap",
                      truth.turn - first_turn, True, seconds, truth)
