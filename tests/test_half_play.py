"""Two half states play whole games (issue 17): two machines' worth of state, each side
holding only its half (engine.knowledge), choosing its intents on what it knows (R4.13)
and resolving every intent, its own and the other side's, with the other side's half
referee (engine.half_referee). Beside them the full state plays the same intents; after
every action each half state equals the full result's projection, with the same events
(R14.3), holds nothing of the enemy pieces it does not see, and both halves share one
public state (the per-turn hash compared across the wire). Games run to their end with
fog of war on (O15, O16, O17), with range detection (O18) and Stealth dominance (O23).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from halves import half_key, unseen_in

from wec.engine.censor import events_for
from wec.engine.encoding import public_state_hash
from wec.engine.game import apply
from wec.engine.half_referee import HalfReferee
from wec.engine.intents import EndTurn, Intent
from wec.engine.knowledge import project
from wec.engine.movement import Plan, move_of
from wec.engine.options import Options
from wec.engine.pieces import Side
from wec.engine.playout import MAX_EXTRA_ACTIONS, random_choice
from wec.engine.position import Position
from wec.engine.setup import standard_position


def _turn(full: Position, halves: dict[Side, Position], rng: random.Random,
          kinds: Counter[str], rounds: Counter[str]) -> tuple[Position, dict[Side, Position]]:
    """One turn: the side to act picks its actions from its own half state (the way
    engine.playout does), both halves resolve each, the full state beside them."""
    actor = full.side_to_act
    for step in range(MAX_EXTRA_ACTIONS + 2):
        if full.result is not None:
            break
        choice = (random_choice(halves[actor], rng, moves_only=step == MAX_EXTRA_ACTIONS)
                  if step <= MAX_EXTRA_ACTIONS else None)
        intent: Intent
        if choice is None or (full.actions.move and rng.random() < 0.3):
            intent = EndTurn()
        else:
            intent = move_of(halves[actor], choice) if isinstance(choice, Plan) else choice
        outcome = apply(full, intent)
        resolved = {side: apply(halves[side], intent, HalfReferee(halves[side.other]))
                    for side in (actor, actor.other)}
        for side, mine in resolved.items():
            assert half_key(mine.position) == half_key(project(outcome.position, side)), (
                side, intent, full.turn)
            assert mine.events == events_for(side, outcome), (side, intent, full.turn)
            assert unseen_in(mine.position, outcome.position) == [], (side, intent)
            rounds[type(intent).__name__] += sum(1 for q in mine.questions
                                                 if not q[0].startswith("asked back"))
        assert (public_state_hash(resolved[Side.BLACK].position)
                == public_state_hash(resolved[Side.WHITE].position)
                == public_state_hash(outcome.position))
        kinds[type(intent).__name__] += 1
        full = outcome.position
        halves = {side: resolved[side].position for side in Side}
        if isinstance(intent, EndTurn):
            break
    return full, halves


@pytest.mark.parametrize("variant", ["fog of war (O15, O16, O17)", "O18 range detection",
                                     "O23 Stealth dominance"])
def test_two_half_states_play_random_games_to_the_end(variant):
    options = Options()
    if "O18" in variant:
        options = replace(options, stealth_range_detection=True)
    if "O23" in variant:
        options = replace(options, dominance="stealth")
    rng = random.Random(len(variant))
    kinds: Counter[str] = Counter()
    rounds: Counter[str] = Counter()
    results = []
    full = standard_position(options)
    halves = {side: project(full, side) for side in Side}
    turns = 0
    while turns < 200 or (not results and turns < 2000):  # play on until a game has ended
        turns += 1
        full, halves = _turn(full, halves, rng, kinds, rounds)
        if full.result is not None:
            results.append(full.result)
            assert halves[Side.BLACK].result == halves[Side.WHITE].result == full.result
            full = standard_position(options)
            halves = {side: project(full, side) for side in Side}
    print(f"{variant}: {sum(kinds.values())} actions, {len(results)} games ended; "
          f"questions per action: " + ", ".join(f"{k} {rounds[k] / n:.2f}"
                                                 for k, n in sorted(kinds.items())))
    assert results, "no game ended"
    assert {"Move", "Fire", "PickUp", "Drop", "Exchange", "EndTurn"} <= set(kinds)
