"""The version of the game's rules, as the engine implements them.

:data:`RULES_VERSION` names the rules outcome of this engine: bump it whenever any rule
outcome changes (a move that becomes legal or illegal, a different combat result, a
changed option default or meaning, a new piece behaviour), so that two machines whose
engines would resolve the same intent differently refuse to play each other instead of
desynchronising mid-game. LAN play puts it in the lobby's rules hash (net.lobby) and
names both versions when they differ. Changes that leave every outcome the same (speed,
display, file handling) do not bump it: players with different releases but the same
rules may then play together.
"""

from __future__ import annotations

RULES_VERSION: int = 1

__all__ = ["RULES_VERSION"]
