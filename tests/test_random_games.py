"""Random full games with every action kind (issue 3 property tests).

Invariants checked after every intent: articles are conserved (R3.4: no rule removes
one), every square-level keeps R1.6 except the conversion anomaly (R6.7.4), no
projectile rests on a piece (R6.8.5), the position survives its file format, and
every intent ``legal_intents`` lists is accepted by ``apply``.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter

import msgpack  # type: ignore[import-untyped]
import pytest

from wec.engine import encode_state, position_from_dict, position_to_dict, standard_position
from wec.engine.encoding import (
    PUBLIC_FORMAT,
    STATE_VERSION,
    _canonical,
    public_state,
    public_state_hash,
)
from wec.engine.errors import IllegalIntent
from wec.engine.formats import validate_position
from wec.engine.game import apply, legal_intents
from wec.engine.intents import EndTurn
from wec.engine.playout import category, play_turn
from wec.engine.position import Position

STANDARD_ARTICLES = 68  # R15.2


def total_articles(p: Position) -> int:
    return sum(len(g) for g in p.ground_articles) + sum(len(x.articles) for x in p.pieces)


def check_invariants(p: Position) -> None:
    assert total_articles(p) == STANDARD_ARTICLES
    validate_position(p)  # R1.6 (anomaly only between independent pieces), R2.5, R2.6
    occupied = {x.cell for x in p.pieces}
    assert not [pr for pr in p.projectiles if pr.cell in occupied]
    assert {pid for pid, _, _ in p.hits} <= {x.pid for x in p.pieces}
    again = position_from_dict(position_to_dict(p))
    assert encode_state(again) == encode_state(p)
    # the public hash the LAN peers compare is the canonical encoding of public_state
    # (its options part kept per game: the same bytes)
    packed = msgpack.packb([PUBLIC_FORMAT, STATE_VERSION, _canonical(public_state(p))],
                           use_bin_type=True)
    assert public_state_hash(p) == hashlib.sha256(packed).hexdigest()


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_random_games_with_every_action_keep_the_invariants(seed):
    rng = random.Random(seed)
    p = standard_position()
    seen: Counter[str] = Counter()
    games = 0

    def observe(before: Position, intent: object, outcome: object) -> None:
        seen[category(intent)] += 1  # type: ignore[arg-type]
        check_invariants(outcome.position)  # type: ignore[attr-defined]

    for _ in range(250):
        p = play_turn(p, rng, observe)
        if p.result is not None:
            games += 1
            p = standard_position()
    assert {"move", "fire", "pickup", "drop", "exchange", "endturn"} <= set(seen)
    assert seen["fire"] >= 30  # the games really shot


def test_every_listed_intent_is_accepted():
    """The legal list and the legality filter agree: each listed intent applies, along
    random games, for every action kind (a refusal here is a listing bug)."""
    rng = random.Random(7)
    p = standard_position()
    kinds: Counter[str] = Counter()
    for turn in range(60):
        if turn % 3 == 0:
            for intent in legal_intents(p):
                try:
                    apply(p, intent)
                except IllegalIntent as exc:  # pragma: no cover - the failure message
                    pytest.fail(f"turn {p.turn}: listed {intent} was refused: {exc}")
                kinds[category(intent)] += 1
        p = play_turn(p, rng)
        if p.result is not None:
            p = standard_position()
    assert {"move", "fire", "pickup", "drop", "exchange"} <= set(kinds)


def test_a_full_game_reaches_its_end():
    """Issue 3's done-when: random play with every action ends in a result (R12)."""
    rng = random.Random(2026)
    p = standard_position()
    for _ in range(2000):
        p = play_turn(p, rng)
        if p.result is not None:
            break
    assert p.result is not None
    assert p.result.reason.startswith("R12.1: ")
    with pytest.raises(IllegalIntent) as info:
        apply(p, EndTurn())
    assert info.value.rule == "R12"
