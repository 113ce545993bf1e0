"""The two simplest players, the bottom rungs of the strength ladder (wec bench computer).

Both decide from their side's view alone, like the computer, and play on a world with no
unseen piece in it (they keep no belief):

* ``RandomPlayer``: a random legal action at a time, as the engine's playouts choose them
  (uniform over the action kinds that have a legal intent, then over their intents; the
  Move half the time before it is made; the turn ends once the Move is made);
* ``GreedyPlayer``: greedy one-turn material: the action that leaves the most material
  (engine.evaluation.material) after it, Fires and article actions only when they gain,
  the Move always (the best for material, ties drawn at random), then the End.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from wec.computer.belief import Belief
from wec.computer.evaluation import material
from wec.computer.search import threatening
from wec.computer.worlds import sample_world
from wec.engine.errors import IllegalIntent
from wec.engine.events import Event
from wec.engine.game import apply, legal_intents
from wec.engine.intents import Doze, EndTurn, Exchange, Intent, Move, PickUp, Reinforce
from wec.engine.pieces import Side
from wec.engine.playout import category
from wec.engine.position import Position


class _ViewPlayer:
    """What both share: the side, a seed, refused intents, and nothing else."""

    def __init__(self, side: Side, seed: int = 0) -> None:
        self.side = side
        self.seed = seed
        self.refused: list[Intent] = []
        self.refused_turn = -1

    def observe(self, view: Position, events: Sequence[Event] = ()) -> None:
        if view.viewer is not self.side:
            raise ValueError("a player sees only its own side's view")

    def refuse(self, intent: Intent) -> None:
        self.refused.append(intent)

    def _rng(self, view: Position) -> random.Random:
        return random.Random(f"wec-baseline:{self.seed}:{view.turn}:{len(view.actions.actors)}:"
                             f"{view.actions.move}:{len(self.refused)}")

    def _legal(self, view: Position) -> list[Intent]:
        if view.viewer is not self.side or view.side_to_act is not self.side:
            raise ValueError(f"it is not {self.side.title}'s turn in this view")
        if self.refused_turn != view.turn:
            self.refused, self.refused_turn = [], view.turn
        return [i for i in legal_intents(view) if i not in self.refused]


class RandomPlayer(_ViewPlayer):
    """Uniform random play (see the module docstring)."""

    def next_intent(self, view: Position) -> Intent:
        legal = self._legal(view)
        rng = self._rng(view)
        if view.actions.move or len(view.actions.actors) >= 3:
            ends = [i for i in legal if isinstance(i, EndTurn)]
            if ends:
                return ends[0]
        moves = [i for i in legal if isinstance(i, Move | Doze)]
        if moves and rng.random() < 0.5:
            return rng.choice(moves)
        kinds: dict[str, list[Intent]] = {}
        for intent in legal:
            if not isinstance(intent, EndTurn):
                kinds.setdefault(category(intent), []).append(intent)
        if not kinds:
            return EndTurn()
        names = sorted(kinds)
        return rng.choice(kinds[rng.choice(names)])


class GreedyPlayer(_ViewPlayer):
    """Greedy one-turn material (see the module docstring). Only the actions that can
    change material are tried on the world: captures and Fires that may hit
    (``search.threatening``), Pick-ups, Exchanges and Reinforces; every other Move leaves
    the material as it is."""

    def next_intent(self, view: Position) -> Intent:
        legal = self._legal(view)
        rng = self._rng(view)
        world = sample_world(view, Belief(self.side), rng)
        base = material(world, self.side)
        done = bool(view.actions.move)
        moves = [i for i in legal if isinstance(i, Move | Doze)]
        tried = threatening(world, legal) + [i for i in legal
                                             if isinstance(i, PickUp | Exchange | Reinforce)]
        best: list[Intent] = []
        best_gain = 0.0
        best_moves: list[Intent] = list(moves)
        best_move_gain = 0.0
        for intent in tried:
            try:
                after = apply(world, intent).position
            except IllegalIntent:
                continue
            gain = material(after, self.side) - base if after.result is None else (
                1e6 if after.result.winner is self.side else -1e6)
            if isinstance(intent, Move | Doze):
                if gain > best_move_gain + 1e-9:
                    best_moves, best_move_gain = [intent], gain
                elif abs(gain - best_move_gain) <= 1e-9 and intent not in best_moves:
                    best_moves.append(intent)
            elif len(view.actions.actors) < 6:
                if gain > best_gain + 1e-9:
                    best, best_gain = [intent], gain
                elif best and abs(gain - best_gain) <= 1e-9:
                    best.append(intent)
        if best and (done or best_gain >= best_move_gain):
            return rng.choice(best)
        if best_moves and not done:
            return rng.choice(best_moves)
        return EndTurn()
