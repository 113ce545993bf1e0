"""Fog of war in the LAN game (issue 21): what the lobby, the lockstep, the Peer and the
saves share about games played on half states.

A game with O15 or O16 on (:func:`fog_on`) is played with fog of war: each machine holds
only its own half state (engine.knowledge), resolves every intent with the fog protocol
(net.fog_game.FogGame, sans-IO: questions and answers as messages, signed per-turn
commitments, private set intersection for hidden movers, the end-of-game reveal and
audit), compares the public hash every turn, and saves only its half state and its
signed record of the exchange. This module is the seam: whether this wec can play such
games (:func:`fog_available`), what a lobby shows about them, and, once the protocol is
installed, the glue the rest of net uses.
"""

from __future__ import annotations

import importlib.util

from wec.engine.options import Options

FOG_NOTICE = ("Fog of war (O15 stealth invisibility, O16 submersion invisibility) is on "
              "by default: each machine holds only its own side's view, every answer about "
              "hidden pieces is checked against a signed commitment, and the whole game is "
              "audited when it ends.")


def fog_on(options: Options) -> bool:
    """True when some piece can be hidden from its enemy (O15 or O16 on)."""
    return bool(options.stealth_invisibility or options.submersion_invisibility)


def fog_available() -> bool:
    """True when the fog protocol (net.fog_game) is installed, so that LAN games may keep
    O15 and O16 on; without it the lobby keeps them off (stage 1)."""
    try:
        return importlib.util.find_spec("wec.net.fog_game") is not None
    except (ImportError, ValueError):
        return False


__all__ = ["FOG_NOTICE", "fog_available", "fog_on"]
