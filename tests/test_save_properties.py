"""Properties of saved games (engine/savegame.py), checked with hypothesis.

- Round trip: a random game (random start board or bundled scenario, random options,
  a few random turns of every action kind) saved and loaded is the same match: the same
  state hash after every step, the same bytes when saved again.
- Damage: random byte flips and truncations of real saves are always refused with a
  SaveError, never another exception, never a loaded match; so is a body altered and
  sealed again with a correct checksum (the replay catches it).

tests/test_savegame.py checks every single-byte flip and every truncation of one small
save and the exact messages; these tests vary the games and the damage.
"""

from __future__ import annotations

import hashlib
import random

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from wec_strategies import positions

from wec.engine.errors import SaveError
from wec.engine.game import Outcome
from wec.engine.intents import Intent
from wec.engine.match import Match
from wec.engine.playout import play_turn
from wec.engine.position import Position
from wec.engine.savegame import decode_save, encode_save
from wec.storage.scenarios import load_scenario, scenario_names

REFUSALS = ("empty file", "not a wec saved game", "truncated: ", "corrupted: ",
            "made by a newer wec")


def random_turns(match: Match, seed: int, turns: int) -> Match:
    """``match`` after up to ``turns`` random whole turns, every intent played by it."""
    played = [match]

    def record(before: Position, intent: Intent, outcome: Outcome) -> None:
        played.append(played[-1].play(intent))

    current, rng = match.current, random.Random(seed)
    for _ in range(turns):
        if current.result is not None:
            break
        current = play_turn(current, rng, record)
    return played[-1]


def assert_same_match(loaded: Match, saved: Match) -> None:
    assert loaded.start_hash == saved.start_hash
    assert len(loaded.actions) == len(saved.actions)
    for index in range(len(saved.actions) + 1):
        assert loaded.hash_at(index) == saved.hash_at(index), index
    assert loaded.mode is saved.mode
    assert encode_save(loaded) == encode_save(saved)


def refused(data: bytes) -> str:
    """The refusal of ``data``: only ever a SaveError (anything else fails the test)."""
    with pytest.raises(SaveError) as refusal:
        decode_save(data)
    return str(refusal.value)


@pytest.fixture(scope="module")
def real_saves() -> list[bytes]:
    """Saves of real games: the standard start and two scenarios, a few turns each."""
    games = [random_turns(Match.begin(load_scenario(name)), seed, 4)
             for seed, name in enumerate(("standard", "air_war", "king_hunt"))]
    return [encode_save(game) for game in games]


# ---------------------------------------------------------------- round trips

@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(start=positions(max_pieces=16), seed=st.integers(0, 2**32 - 1),
       turns=st.integers(1, 5))
def test_random_boards_and_games_round_trip(start, seed, turns):
    """Random start boards (any pieces, articles, projectiles, options, governments):
    the save keeps the engine's order of everything whose order decides the game,
    projectiles included (two reaching one cell in the same step resolve in that
    order, engine/effects.py ``collide``)."""
    game = random_turns(Match.begin(start), seed, turns)
    assert_same_match(decode_save(encode_save(game)), game)


@settings(max_examples=12, deadline=None)
@given(name=st.sampled_from(scenario_names()), seed=st.integers(0, 2**32 - 1),
       turns=st.integers(1, 6))
def test_scenario_games_round_trip(name, seed, turns):
    game = random_turns(Match.begin(load_scenario(name)), seed, turns)
    assert_same_match(decode_save(encode_save(game)), game)


# ---------------------------------------------------------------- damage

@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, 2), data=st.data())
def test_random_byte_flips_are_refused(real_saves, which, data):
    save = real_saves[which]
    damaged = bytearray(save)
    flips = data.draw(st.lists(st.tuples(st.integers(0, len(save) - 1), st.integers(1, 255)),
                               min_size=1, max_size=4))
    for index, mask in flips:
        damaged[index] ^= mask
    if bytes(damaged) == save:  # two flips of one byte that cancel out
        return
    assert refused(bytes(damaged)).startswith(REFUSALS)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, 2), data=st.data())
def test_truncations_are_refused(real_saves, which, data):
    save = real_saves[which]
    length = data.draw(st.integers(0, len(save) - 1))
    message = refused(save[:length])
    if length == 0:
        assert message == "empty file: not a wec saved game"
    else:
        assert message == "truncated: the file ends before the saved game does"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.integers(0, 2), data=st.data())
def test_altered_bodies_sealed_again_are_refused(real_saves, which, data):
    """Someone edits the body and recomputes the checksum: the envelope is sound, so the
    content checks and the replay (every state hash) must catch the change."""
    envelope = msgpack.unpackb(real_saves[which], raw=False)
    body = bytearray(envelope[2])
    index = data.draw(st.integers(0, len(body) - 1))
    body[index] ^= data.draw(st.integers(1, 255))
    sealed = msgpack.packb(["wec-save", 1, bytes(body), hashlib.sha256(body).digest()],
                           use_bin_type=True)
    refused(sealed)
