"""Determinism: the same intents give the same state hash in every process (R4, OpenRA sync)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from wec.engine import apply, standard_position, state_hash
from wec.engine.game import legal_intents

ROOT = Path(__file__).resolve().parents[1]

# Plays 200 random turns (a seeded choice among the legal intents, restarting the game
# if it ends) and prints the state hash after every turn.
PLAYER = """
import random
from wec.engine import apply, standard_position, state_hash, EndTurn
from wec.engine.game import legal_intents
rng = random.Random(20261122)
position = standard_position()
for turn in range(200):
    while True:
        intents = legal_intents(position)
        intent = rng.choice(intents)
        position = apply(position, intent).position
        if position.result is not None:
            print("over", state_hash(position))
            position = standard_position()
            break
        if isinstance(intent, EndTurn):
            break
    print(state_hash(position))
"""


def _play(hash_seed: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    done = subprocess.run([sys.executable, "-c", PLAYER], cwd=ROOT, env=env, check=True,
                          capture_output=True, text=True, timeout=300)
    return done.stdout.split("\n")


def test_two_processes_with_different_hash_seeds_agree_after_every_turn():
    first, second = _play("1"), _play("4242")
    assert len([line for line in first if len(line) == 64]) == 200
    assert first == second


def test_state_hash_of_the_standard_position_is_stable():
    # A golden value: changing the canonical encoding or the setup must be deliberate.
    assert state_hash(standard_position()) == GOLDEN_START_HASH


def test_apply_never_changes_its_input():
    position = standard_position()
    before = state_hash(position)
    for intent in legal_intents(position)[:20]:
        apply(position, intent)
    assert state_hash(position) == before


GOLDEN_START_HASH = "c65bd44c0fb93234022afa2dd746edfe510ae501d2cf87e4ecabd6bc637f5705"
