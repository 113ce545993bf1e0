"""Saved games: the ``wec-save`` format, version 1 (docs/formats.md, "Saved games").

A save holds what it takes to resume, undo and replay a match (engine.match, R14):
the start position (with its options, governments included), every step of the
history (each played intent, each option change) with the state hash it led to, the
mode, and a SHA-256 checksum of the whole body. The file is msgpack::

    ["wec-save", VERSION, BODY, CHECKSUM]

BODY is the msgpack bytes of the content (keys sorted, so equal matches give equal
bytes) and CHECKSUM the 32-byte SHA-256 of BODY. The first two elements keep their
meaning in every version, so a file made by a newer wec is told apart from a
damaged one.

Loading never trusts the file: it checks the envelope and the checksum, then replays
every intent from the start through ``Match.play`` (the rules check each one again)
and compares every recorded state hash, refusing at the first step that differs.

Pure: bytes in, bytes out. The file itself is read and written by ``wec.saves``.
Every refusal is a ``SaveError`` whose message says what is wrong and where.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import msgpack  # type: ignore[import-untyped]

from engine import board
from engine.errors import FormatError, IllegalIntent, MatchError, SaveError
from engine.formats import (
    INTENT_FORMAT,
    intent_from_dict,
    intent_to_dict,
    piece_order_key,
    position_from_dict,
    position_to_dict,
)
from engine.match import Match, Mode, OptionChange
from engine.options import options_from_dict, options_to_dict
from engine.pieces import Side
from engine.position import Position

SAVE_FORMAT = "wec-save"
SAVE_VERSION = 1
# The bytes every save starts with: a msgpack array header (2..15 elements, 0x92-0x9f)
# and the format name as a msgpack string of 8 characters (0xa8).
_TAG = b"\xa8" + SAVE_FORMAT.encode("ascii")
_HEADER_LENGTH = 1 + len(_TAG)
_ENVELOPE_LENGTH = 4  # version 1: [format, version, body, checksum]
_CHECKSUM_LENGTH = 32
_BODY_KEYS = ("intent_format", "mode", "start", "start_hash", "steps")
_INTENT_STEP_KEYS = ("hash", "intent")
_OPTION_STEP_KEYS = ("hash", "options")
_ALTERED = "the file was altered or made by a different engine version"


# ---------------------------------------------------------------- writing

def encode_save(match: Match) -> bytes:
    """The save file's bytes for ``match`` (deterministic: equal matches, equal bytes)."""
    steps: list[dict[str, Any]] = []
    for action in match.actions:
        if isinstance(action.intent, OptionChange):
            steps.append({"options": options_to_dict(action.intent.options),
                          "hash": action.state_hash})
        else:
            steps.append({"intent": intent_to_dict(action.intent), "hash": action.state_hash})
    content = {"intent_format": INTENT_FORMAT, "mode": match.mode.value,
               "start": _listed_in_engine_order(match.start),
               "start_hash": match.start_hash,
               "steps": steps}
    body: bytes = msgpack.packb(_sorted_keys(content), use_bin_type=True)
    packed: bytes = msgpack.packb(
        [SAVE_FORMAT, SAVE_VERSION, body, hashlib.sha256(body).digest()], use_bin_type=True)
    return packed


def _listed_in_engine_order(position: Position) -> dict[str, Any]:
    """The position data listed in the engine's own order instead of the canonical one.

    The position format sorts what it lists, but orders it does not write decide how a
    game goes on. Two pieces equal in every written field are listed in the order the
    engine holds them, so which of them an index (the turn's mover, a lock) names
    depends on that order, and so do the state hash and which one a later intent
    moves (engine.selection.twin_order_key); of two equal articles on a square the
    first placed is picked up (engine.articles). Reading keeps the listing order, so
    listing pieces, ground articles and reinforcements in the engine's order lets the
    replay reach the very positions that were saved.
    """
    data = position_to_dict(position)
    _list_pieces_in_engine_order(position, data)
    data["articles"] = _in_order(
        data["articles"], _ground_in_placement_order(position),
        lambda entry, item: (entry["kind"], tuple(entry["at"]), entry.get("ready", 0)) == item)
    data["reinforcements"] = _in_order(
        data["reinforcements"], list(position.reinforcements),
        lambda entry, r: (entry["side"], tuple(entry["at"]), entry.get("kind"), entry.get("hand"))
        == (r.side.value, _row_col(r.sq), r.kind and r.kind.value, r.hand and r.hand.value))
    return data


def _list_pieces_in_engine_order(position: Position, data: dict[str, Any]) -> None:
    """Reorder ``data["pieces"]`` as ``position.pieces``, renumbering every piece index
    of the position format (locks, hits, actions of the turn, last-seen markers).

    Reading numbers the pieces' internal identifiers in listing order; the engine keeps
    its pieces in identifier order (new pieces get the next identifier and go last), so
    the loaded start orders its pieces both ways as the saved one did."""
    pieces = position.pieces
    # written index -> engine index (position_to_dict's stable sort by piece_order_key)
    renumber = sorted(range(len(pieces)), key=lambda index: piece_order_key(pieces[index]))
    entries = list(data["pieces"])
    for written, engine_index in enumerate(renumber):
        entries[engine_index] = data["pieces"][written]
    data["pieces"] = entries
    for lock in data.get("locks", []):
        lock["holder"], lock["target"] = renumber[lock["holder"]], renumber[lock["target"]]
    for item in (*data.get("hits_this_turn", []), *data.get("last_seen", [])):
        if "piece" in item:
            item["piece"] = renumber[item["piece"]]
    done = data.get("actions_this_turn", {})
    for name in ("actors", "firers", "transited"):
        if name in done:
            done[name] = sorted(renumber[index] for index in done[name])
    if "mover" in done:
        done["mover"] = renumber[done["mover"]]


def _ground_in_placement_order(position: Position) -> list[tuple[str, tuple[int, int], int]]:
    """Every unowned article as (kind, square, ready turn), square by square, each
    square's articles in the order they were placed (R3.5: the ready turn travels)."""
    out = []
    for sq, here in enumerate(position.ground_articles):
        ready = position.ground_ready[sq] if position.ground_ready else (0,) * len(here)
        out += [(article.value, _row_col(sq), turn)
                for article, turn in zip(here, ready, strict=True)]
    return out


def _in_order(entries: list[Any], items: list[Any], same: Callable[[Any, Any], bool]) -> list[Any]:
    """``entries`` (the data of ``items``, in another order) in the order of ``items``."""
    remaining = list(entries)
    ordered = []
    for item in items:
        found = next(index for index, entry in enumerate(remaining) if same(entry, item))
        ordered.append(remaining.pop(found))
    return ordered


def _row_col(sq: int) -> tuple[int, int]:
    return (board.row_of(sq), board.col_of(sq))


def _sorted_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(item) for item in value]
    return value


# ---------------------------------------------------------------- reading

def decode_save(data: bytes) -> Match:
    """The match saved in ``data``, replayed and checked step by step; a ``SaveError``
    names the first problem (foreign file, newer version, truncation, corruption,
    invalid content, or the step whose state hash differs)."""
    body = _open_envelope(data)
    content = _read_body(body)
    return _replay(content)


def _open_envelope(data: bytes) -> bytes:
    """BODY of a save after checking the header, the version and the checksum."""
    if not data:
        raise SaveError("empty file: not a wec saved game")
    head = data[:_HEADER_LENGTH]
    if not 0x92 <= head[0] <= 0x9F or not _TAG.startswith(head[1:]):
        raise SaveError("not a wec saved game (it does not start with the wec-save header)")
    if len(head) < _HEADER_LENGTH:
        raise SaveError("truncated: the file ends before the saved game does")
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=len(data))
    unpacker.feed(data)
    length = unpacker.read_array_header()
    unpacker.unpack()  # the format name, checked above
    version = _next_item(unpacker)
    if type(version) is not int or version < 1:
        raise SaveError(f"corrupted: the format version is not a version of wec saves "
                        f"(got {version!r})")
    if version > SAVE_VERSION:
        raise SaveError(f"made by a newer wec: format {version}, this wec reads up to "
                        f"{SAVE_VERSION}")
    if length != _ENVELOPE_LENGTH:
        raise SaveError(f"corrupted: a version {version} save has {_ENVELOPE_LENGTH} parts "
                        f"(got {length})")
    body, checksum = _next_item(unpacker), _next_item(unpacker)
    if type(body) is not bytes or type(checksum) is not bytes \
            or len(checksum) != _CHECKSUM_LENGTH:
        raise SaveError("corrupted: the body or the checksum is not where the format puts it")
    extra = len(data) - unpacker.tell()
    if extra:
        raise SaveError(f"corrupted: {extra} unexpected byte(s) after the end of the saved game")
    if hashlib.sha256(body).digest() != checksum:
        raise SaveError("corrupted: checksum mismatch (the file was damaged or altered)")
    return body


def _next_item(unpacker: Any) -> Any:
    try:
        return unpacker.unpack()
    except msgpack.OutOfData:
        raise SaveError("truncated: the file ends before the saved game does") from None
    except (ValueError, msgpack.UnpackException):
        raise SaveError("corrupted: the file's structure is damaged (not readable as "
                        "msgpack)") from None


def _read_body(body: bytes) -> dict[str, Any]:
    """The content map, checked to hold only JSON-shaped data with the known keys."""
    try:
        content = msgpack.unpackb(body, raw=False)
    except (ValueError, TypeError, msgpack.UnpackException):
        raise SaveError("invalid content: the body is not readable as msgpack") from None
    _require_plain(content)
    if not isinstance(content, dict):
        raise SaveError("invalid content: the body is not a map")
    _require_keys(content, _BODY_KEYS, "the body")
    if content["intent_format"] != INTENT_FORMAT:
        raise SaveError(f"invalid content: intent_format {content['intent_format']!r} is not "
                        f"readable by this version of wec (it reads {INTENT_FORMAT})")
    if content["mode"] not in [mode.value for mode in Mode]:
        raise SaveError(f"invalid content: mode must be non_competitive or competitive "
                        f"(got {content['mode']!r})")
    if not isinstance(content["steps"], list):
        raise SaveError("invalid content: steps must be a list")
    return content


def _require_plain(value: Any) -> None:
    """Only what JSON can say (no floats either: the engine has none), so the position
    and intent readers see the data they are written for. Iterative: a crafted body
    may nest deeper than Python's recursion limit."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                raise SaveError("invalid content: a map key is not text")
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
        elif item is not None and not isinstance(item, bool | int | str):
            raise SaveError(f"invalid content: unexpected {type(item).__name__} value")


def _require_keys(data: dict[str, Any], keys: tuple[str, ...], what: str,
                  where: str = "") -> None:
    if tuple(sorted(data)) != keys:
        raise SaveError(f"{where}invalid content: {what} must have exactly the keys "
                        f"{', '.join(keys)} (got {', '.join(sorted(data)) or 'none'})")


def _replay(content: dict[str, Any]) -> Match:
    """The match rebuilt from the start by the rules, every state hash compared."""
    try:
        start = position_from_dict(content["start"])
    except FormatError as exc:
        raise SaveError(f"invalid content: start position: {exc}") from None
    if start.viewer is not None:
        raise SaveError(f"invalid content: start position: a saved game holds the full "
                        f"state, not {start.viewer.title}'s view")
    match = Match.begin(start)
    if match.start_hash != content["start_hash"]:
        raise SaveError(f"start position: state hash differs: {_ALTERED}")
    for number, step in enumerate(content["steps"], start=1):
        where = f"step {number} (turn {match.current.turn})"
        match = _replay_step(match, step, where)
    if match.mode.value != content["mode"]:
        raise SaveError(f"invalid content: mode: the file says {content['mode']} but its "
                        f"history leaves the game {match.mode.value}")
    return match


def _replay_step(match: Match, step: Any, where: str) -> Match:
    if not isinstance(step, dict):
        raise SaveError(f"{where}: invalid content: a step must be a map")
    if "options" in step:
        _require_keys(step, _OPTION_STEP_KEYS, "an option change", f"{where}: ")
        after = _replay_option_change(match, step["options"], where)
    else:
        _require_keys(step, _INTENT_STEP_KEYS, "a played intent", f"{where}: ")
        try:
            after = match.play(intent_from_dict(step["intent"]))
        except FormatError as exc:
            raise SaveError(f"{where}: invalid content: {exc}") from None
        except IllegalIntent as exc:
            raise SaveError(f"{where}: illegal intent: {exc}") from None
    if after.current_hash != step["hash"]:
        raise SaveError(f"{where}: state hash differs: {_ALTERED}")
    return after


def _replay_option_change(match: Match, data: Any, where: str) -> Match:
    """R14.2, R14.3: an option change, or the one-way switch to competitive mode."""
    try:
        options = options_from_dict(data)
        current = match.current.options
        if options.competitive and not current.competitive:
            if options != replace(current, competitive=True):
                raise SaveError(f"{where}: invalid content: R14.3: the switch to competitive "
                                "may change no other option")
            after = match.go_competitive()
        else:
            after = match.with_options(options)
    except (FormatError, MatchError) as exc:
        raise SaveError(f"{where}: invalid option change: {exc}") from None
    if len(after.actions) != len(match.actions) + 1:
        raise SaveError(f"{where}: invalid option change: R14.2: it changes nothing or comes "
                        "before the first action, so no match records it as a step")
    return after


# ---------------------------------------------------------------- summary

def save_summary(match: Match) -> dict[str, Any]:
    """What a player reads before loading a save: the sides with their governments, the
    turn and the side to act, the mode, the result, and how many steps were taken."""
    current = match.current
    option_changes = sum(isinstance(a.intent, OptionChange) for a in match.actions)
    result = None if current.result is None else {"winner": current.result.winner.value,
                                                   "reason": current.result.reason}
    return {
        "sides": {side.value: {"government": current.options.government(side).value}
                  for side in (Side.BLACK, Side.WHITE)},
        "turn": current.turn,
        "side_to_act": None if result else current.side_to_act.value,
        "mode": match.mode.value,
        "result": result,
        "actions": len(match.actions) - option_changes,
        "option_changes": option_changes,
    }
