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

import base64
import importlib.util
import secrets
from typing import TYPE_CHECKING, Any

from wec.engine.options import Options
from wec.engine.pieces import Side
from wec.engine.position import Position

if TYPE_CHECKING:
    from wec.net.fog_game import FogGame
    from wec.net.identity import Identity

FOG_NOTICE = ("Fog of war (O15 stealth invisibility, O16 submersion invisibility) is on "
              "by default: each machine holds only its own side's view, every answer about "
              "hidden pieces is checked against a signed commitment, and the whole game is "
              "audited when it ends. O21 reveal on fire stays on with it.")
FOG_REVEAL_REASON = ("O21 reveal on fire stays on in network games with fog of war: with it "
                     "off, a hidden piece's Fire would tell the other machine the piece's "
                     "square, kind and aim, which the rules keep hidden. Play O21 off on one "
                     "machine, or over the network with O15 and O16 off.")


def fog_on(options: Options) -> bool:
    """True when some piece can be hidden from its enemy (O15 or O16 on)."""
    return bool(options.stealth_invisibility or options.submersion_invisibility)


def fog_problem(options: Options) -> str | None:
    """Why a network game with fog of war cannot be played under ``options``, or None.
    With O21 off a hidden piece may fire and stay hidden (R9.8), and the fog protocol
    sends a Fire whole (net.fog_codec ``public_form``): its firer's cell, kind and hand,
    its direction or destination. That would tell the other machine what the rules hide,
    so such games are refused rather than played with a leak (docs/network.md)."""
    if fog_on(options) and not options.reveal_on_fire:
        return FOG_REVEAL_REASON
    return None


def fog_board_problem(position: Position) -> str | None:
    """Why a start board (or a half state received) cannot be played with fog of war
    over the LAN, or None: the private detection (net.private_sight) sends each piece's
    identifier by a transfer of seven bits, so the board numbers its pieces, the
    reinforcements still to enter included, below 127 (the standard game uses about 70;
    an editor's board can hold more); and no side starts with more pieces that can hide
    than a detection's run holds (:func:`hiding_problem`)."""
    from wec.engine.knowledge import project
    from wec.net.private_sight import NO_PID
    highest = max([p.pid for p in position.pieces]
                  + [position.next_pid - 1 + len(position.reinforcements)], default=0)
    if highest >= NO_PID:
        return (f"with fog of war over the network a board numbers its pieces, the "
                f"reinforcements to come included, below {NO_PID} (this one reaches "
                f"{highest}: it holds too many pieces)")
    # a half state received (a board with pieces hidden from the start): its side only
    for side in (position.viewer,) if position.viewer is not None else tuple(Side):
        problem = hiding_problem(project(position, side))
        if problem:
            return problem
    return None


def hiding_problem(half: Position) -> str | None:
    """Why ``half``'s side cannot start a network game with fog of war, or None: each
    private detection asks about the pieces of its side that can hide from the other
    (engine.half_referee ``start_slots``) in a run of fixed size (net.private_sight
    ``SLOTS``), so a side starting with more would stop the game at its first detection.
    Checked in the lobby (``fog_board_problem``) on the proposer's board and on a half
    received; a side that reaches more during the game (articles picked up, passengers)
    stops it then, with the reason (net.fog_game ``OwnLimit``)."""
    from wec.engine.half_referee import start_slots
    from wec.net.private_sight import SLOTS
    assert half.viewer is not None
    count = len(start_slots(half))
    if count > SLOTS:
        return (f"with fog of war over the network a side starts with at most {SLOTS} "
                f"pieces that can hide from the other (here {half.viewer.title} has "
                f"{count}): take some off, or play it with O15 and O16 off")
    return None


def fog_protocol() -> str:
    """The fog protocol's version (net.fog_game ``FORMAT``): both peers put it in the
    rules they agree in the lobby, so that two wecs speaking different versions refuse
    the game at its setup instead of faulting at its first message."""
    from wec.net.fog_game import FORMAT
    return FORMAT


def fog_available() -> bool:
    """True when the fog protocol (net.fog_game) is installed, so that LAN games may keep
    O15 and O16 on; without it the lobby keeps them off (stage 1)."""
    try:
        return importlib.util.find_spec("wec.net.fog_game") is not None
    except (ImportError, ValueError):
        return False


def fog_id(game_id: bytes) -> bytes:
    """The fog protocol's game id (16 bytes: net.commitment, net.evidence)."""
    return game_id[:16]


def new_fog_game(game_id: bytes, side: Side, half: Position, identity: Identity,
                 peer_key: bytes) -> tuple[FogGame, dict[str, Any]]:
    """A new FogGame on our half state of the start, with a fresh secret game seed, and
    what the journal's header keeps to make it again (our own secrets, on our own
    machine: the seed and our half state)."""
    from wec.net import fog_codec
    from wec.net.fog_game import FogGame

    seed = secrets.token_bytes(32)
    game = FogGame(game_id=fog_id(game_id), side=side, half=half, identity=identity,
                   peer_key=peer_key, seed=seed)
    half_bytes = fog_codec.pack(fog_codec.position_to_wire(half))
    return game, {"seed": _b64(seed), "half": _b64(half_bytes)}


def restored_fog_game(record: bytes, identity: Identity) -> tuple[FogGame, dict[str, Any]]:
    """The FogGame a save's record describes (a resumed game), and its header entry."""
    from wec.net.fog_game import FogGame

    return FogGame.restore(record, identity), {"record": _b64(record)}


def fog_game_from_header(entry: dict[str, Any], game_id: bytes, side: Side,
                         identity: Identity, peer_key: bytes) -> tuple[FogGame, bool]:
    """The FogGame a journal's header describes, before its records are replayed, and
    whether it was opened here (a new game: its opening is replayed first)."""
    from wec.net import fog_codec
    from wec.net.fog_game import FogGame

    if "record" in entry:
        return FogGame.restore(base64.b64decode(entry["record"]), identity), False
    half = fog_codec.position_from_wire(fog_codec.unpack(base64.b64decode(entry["half"])))
    game = FogGame(game_id=fog_id(game_id), side=side, half=half, identity=identity,
                   peer_key=peer_key, seed=base64.b64decode(entry["seed"]))
    return game, True


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


__all__ = ["FOG_NOTICE", "fog_available", "fog_game_from_header", "fog_id", "fog_on",
           "new_fog_game", "restored_fog_game"]
