"""The computer opponent (docs/computer.md): it plays one side from that side's view and
what the side has observed, never from the full state.

Above the engine and beside storage: it imports only ``wec.engine``. The public names:
``Computer`` (a player kept across a game), ``think`` (one turn from a view and a history),
``Observation`` (one step as the side saw it), ``LEVELS``/``DEFAULT_LEVEL``/``NAMES``,
``RandomPlayer`` and ``GreedyPlayer`` (the ladder's lowest rungs), ``play_game`` (a local
game between two players, each fed its own side's view).
"""

from wec.computer.arena import GameRecord, Player, play_game
from wec.computer.baselines import GreedyPlayer, RandomPlayer
from wec.computer.belief import Belief, Observation
from wec.computer.levels import DEFAULT_LEVEL, LEVELS, NAMES, WORK_PER_SECOND, settings_for
from wec.computer.player import Computer, think

__all__ = [
    "DEFAULT_LEVEL", "LEVELS", "NAMES", "WORK_PER_SECOND", "Belief", "Computer", "GameRecord",
    "GreedyPlayer", "Observation", "Player", "RandomPlayer", "play_game", "settings_for",
    "think",
]
