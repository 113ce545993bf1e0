"""Saves of one side of a LAN game with fog of war (issue 21): ``wec-fog-save``.

A machine of a fog-of-war game never holds the other side's hidden pieces, so it cannot
write a ``wec-save`` (which holds the full state). It saves its own half instead: its
side, its half state now (engine.knowledge, with the identifiers both halves share), the
public hash both machines hold alike, how many actions were played, and its signed
record of the exchange (the fog protocol's ``FogGame.record``: the game seed, the start
half state and every input, from which the game is restored). Resuming works as for a
``wec-save``: both machines hold their own file of the same game and compare what they
hold alike. After the end-of-game audit the whole game is a plain ``wec-save``.

The file is one msgpack array ``["wec-fog-save", 1, BODY, SHA256(BODY)]`` (BODY: msgpack
bytes of a map with sorted keys), written atomically like every save.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any

import msgpack  # type: ignore[import-untyped]

from wec.engine.errors import FormatError, SaveError
from wec.engine.formats import position_from_dict, position_to_dict
from wec.engine.options import Options, options_to_dict
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.storage.files import write_atomically

FOG_SAVE_NAME = "wec-fog-save"
FOG_SAVE_VERSION = 1
_KEYS = ("game", "half", "public_hash", "record", "side", "steps")


@dataclass(frozen=True)
class FogSave:
    """One side's save of a fog-of-war game (see the module docstring)."""

    side: Side
    game: str  # the game id, hex
    public_hash: str
    steps: int
    half: Position
    record: bytes

    @property
    def options(self) -> Options:
        return self.half.options

    @property
    def turn(self) -> int:
        return self.half.turn


def resume_key(save: FogSave) -> bytes:
    """What both machines' saves of one game at one point share (each file holds its own
    half, so their bytes differ): an invitation to resume names the save by it."""
    return hashlib.sha256(b"wec-fog-resume v1\0" + save.game.encode() + b"\0"
                          + save.public_hash.encode() + b"\0"
                          + str(save.steps).encode()).digest()


def save_key(data: bytes) -> bytes:
    """The key an invitation to resume names a save file by: the SHA-256 of a
    ``wec-save`` (both machines write the same bytes), the :func:`resume_key` of a
    ``wec-fog-save``."""
    if is_fog_save(data):
        return resume_key(decode_fog_save(data))
    return hashlib.sha256(data).digest()


def encode_fog_save(save: FogSave) -> bytes:
    if save.half.viewer is not save.side:
        raise ValueError("a fog save holds its own side's half state")
    body = msgpack.packb({"game": save.game, "half": position_to_dict(save.half, handles=True),
                          "public_hash": save.public_hash, "record": save.record,
                          "side": save.side.value, "steps": save.steps},
                         use_bin_type=True)
    data: bytes = msgpack.packb([FOG_SAVE_NAME, FOG_SAVE_VERSION, body,
                                 hashlib.sha256(body).digest()], use_bin_type=True)
    return data


def is_fog_save(data: bytes) -> bool:
    """True when ``data`` starts like a ``wec-fog-save`` file."""
    return data[:1] == b"\x94" and FOG_SAVE_NAME.encode() in data[:16]


def decode_fog_save(data: bytes) -> FogSave:
    """The save in ``data``; SaveError names the problem."""
    try:
        outer = msgpack.unpackb(data, raw=False)
    except Exception:
        raise SaveError("corrupted: not a readable fog-of-war save") from None
    if not isinstance(outer, list) or len(outer) != 4 or outer[0] != FOG_SAVE_NAME:
        raise SaveError("not a wec fog-of-war save")
    if outer[1] != FOG_SAVE_VERSION:
        raise SaveError(f"made by a newer wec: {FOG_SAVE_NAME} {outer[1]}, this wec reads "
                        f"{FOG_SAVE_VERSION}")
    body, checksum = outer[2], outer[3]
    if not isinstance(body, bytes) or hashlib.sha256(body).digest() != checksum:
        raise SaveError("corrupted: checksum mismatch (the file was damaged or altered)")
    try:
        content = msgpack.unpackb(body, raw=False)
        if not isinstance(content, dict) or tuple(sorted(content)) != _KEYS:
            raise FormatError("unknown or missing keys")
        side = Side(content["side"])
        half = position_from_dict(content["half"])
        if half.viewer is not side:
            raise FormatError("the half state is not the saving side's")
        if not isinstance(content["record"], bytes) or type(content["steps"]) is not int:
            raise FormatError("record and steps")
        return FogSave(side, str(content["game"]), str(content["public_hash"]),
                       content["steps"], half, content["record"])
    except (FormatError, ValueError, KeyError, TypeError) as exc:
        raise SaveError(f"invalid content: {exc}") from None


def write_new_fog_save(path: str | os.PathLike[str], save: FogSave) -> None:
    """Write ``save`` to ``path`` only if no file has that name (FileExistsError)."""
    try:
        write_atomically(path, encode_fog_save(save), replace=False)
    except FileExistsError:
        raise
    except OSError as exc:
        raise SaveError(f"{path}: cannot write: {exc.strerror or exc}") from None


def fog_save_summary(save: FogSave) -> dict[str, Any]:
    """What ``wec save-info`` prints for a fog save: as for a ``wec-save`` where the half
    state tells (sides, turn, result, options), plus whose half it is."""
    half = save.half
    result = None if half.result is None else {"winner": half.result.winner.value,
                                               "reason": half.result.reason}
    options = half.options
    return {
        "sides": {side.value: {"government": options.government(side).value}
                  for side in (Side.BLACK, Side.WHITE)},
        "turn": half.turn,
        "side_to_act": None if result else half.side_to_act.value,
        "mode": "competitive" if options.competitive else "non_competitive",
        "result": result,
        "actions": save.steps,
        "half_state_of": save.side.value,
        "fog_of_war": bool(options.stealth_invisibility or options.submersion_invisibility),
        "options": options_to_dict(options),
    }


__all__ = ["FOG_SAVE_NAME", "FogSave", "decode_fog_save", "encode_fog_save",
           "fog_save_summary", "is_fog_save", "resume_key", "save_key", "write_new_fog_save"]
