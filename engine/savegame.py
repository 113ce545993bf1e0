"""Saved games: the ``wec-save`` format, versions 1 and 2 (docs/formats.md, "Saved games").

A save holds what it takes to resume, undo and replay a match (engine.match, R14):
the start position (with its options, governments included), every step of the
history (each played intent, each option change) with the state hash it led to, the
mode, and a SHA-256 checksum of the whole body. The file is msgpack::

    ["wec-save", VERSION, BODY, CHECKSUM]

BODY is the msgpack bytes of the content (keys sorted, so equal matches give equal
bytes) and CHECKSUM the 32-byte SHA-256 of BODY. The first two elements keep their
meaning in every version, so a file made by a newer wec is told apart from a
damaged one.

Version 2 adds what a replay needs to open a long game at once (engine.replay, issue
7): a full-position *snapshot* every ``SNAPSHOT_INTERVAL`` steps and after the last
step (zlib-compressed msgpack of the position data listed in engine order, so that
decoding one gives the very position the game reached), and the R16 notation of
every turn, full and censored for each side (R14.3). A history shorter than
``SNAPSHOT_INTERVAL`` steps needs no snapshot and is written as version 1, which
every wec reads; version 1 files load as before.

Loading never trusts the file: it checks the envelope and the checksum, then replays
every intent from the start through ``Match.play`` (the rules check each one again)
and compares every recorded state hash, refusing at the first step that differs; in
a version 2 file every snapshot and notation line must also equal what the replay
gives. ``read_content`` stops after the structural checks (engine.replay then checks
lazily, step by step).

Pure: bytes in, bytes out. The file itself is read and written by ``wec.storage.saves``.
Every refusal is a ``SaveError`` whose message says what is wrong and where.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import msgpack  # type: ignore[import-untyped]

from wec.engine import board
from wec.engine.errors import FormatError, IllegalIntent, MatchError, SaveError
from wec.engine.formats import (
    INTENT_FORMAT,
    intent_from_dict,
    intent_to_dict,
    piece_order_key,
    position_from_dict,
    position_to_dict,
    projectile_to_dict,
)
from wec.engine.intents import EndTurn
from wec.engine.match import Action, Match, Mode, OptionChange
from wec.engine.options import Options, options_from_dict, options_to_dict
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.position import Lock, Marker, Position

SAVE_FORMAT = "wec-save"
SAVE_VERSION = 2
# Version 2: a snapshot every SNAPSHOT_INTERVAL steps, so a replay reaches any step by
# decoding one snapshot and replaying at most SNAPSHOT_INTERVAL - 1 steps (about 2 ms
# each): well under 50 ms (issue 7 item 3).
SNAPSHOT_INTERVAL = 8
# No position of a real game comes near this once decompressed (one is about 6 KB);
# more is a crafted snapshot, refused before it fills the memory.
MAX_SNAPSHOT_BYTES = 4 * 1024 * 1024
NOTATION_COPIES = ("black", "full", "white")
# The bytes every save starts with: a msgpack array header (2..15 elements, 0x92-0x9f)
# and the format name as a msgpack string of 8 characters (0xa8).
_TAG = b"\xa8" + SAVE_FORMAT.encode("ascii")
_HEADER_LENGTH = 1 + len(_TAG)
_ENVELOPE_LENGTH = 4  # version 1: [format, version, body, checksum]
_CHECKSUM_LENGTH = 32
_BODY_KEYS = ("intent_format", "mode", "start", "start_hash", "steps")
_BODY_KEYS_V2 = ("intent_format", "mode", "notation", "snapshots", "start", "start_hash",
                 "steps")
_INTENT_STEP_KEYS = ("hash", "intent")
_OPTION_STEP_KEYS = ("hash", "options")
_ALTERED = "the file was altered or made by a different engine version"


# ---------------------------------------------------------------- writing

def encode_save(match: Match) -> bytes:
    """The save file's bytes for ``match`` (deterministic: equal matches, equal bytes):
    version 2 with snapshots and notation, or version 1 for a history shorter than
    ``SNAPSHOT_INTERVAL`` steps (nothing to snapshot)."""
    steps: list[dict[str, Any]] = []
    for action in match.actions:
        if isinstance(action.intent, OptionChange):
            steps.append({"options": options_to_dict(action.intent.options),
                          "hash": action.state_hash})
        else:
            steps.append({"intent": intent_to_dict(action.intent), "hash": action.state_hash})
    content: dict[str, Any] = {
        "intent_format": INTENT_FORMAT, "mode": match.mode.value,
        "start": _listed_in_engine_order(match.start), "start_hash": match.start_hash,
        "steps": steps}
    version = 1
    if len(match.actions) >= SNAPSHOT_INTERVAL:
        version = 2
        content["snapshots"] = [[number, encode_snapshot(match.position_at(number))]
                                for number in snapshot_steps(len(match.actions))]
        content["notation"] = {"full": match.turn_notation(None),
                               "black": match.turn_notation(Side.BLACK),
                               "white": match.turn_notation(Side.WHITE)}
    body: bytes = msgpack.packb(_sorted_keys(content), use_bin_type=True)
    packed: bytes = msgpack.packb(
        [SAVE_FORMAT, version, body, hashlib.sha256(body).digest()], use_bin_type=True)
    return packed


def snapshot_steps(length: int) -> list[int]:
    """The steps after which a version 2 save holds a snapshot: every
    ``SNAPSHOT_INTERVAL``-th step and the last one."""
    numbers = list(range(SNAPSHOT_INTERVAL, length + 1, SNAPSHOT_INTERVAL))
    if length and (not numbers or numbers[-1] != length):
        numbers.append(length)
    return numbers


def snapshot_data(position: Position) -> bytes:
    """The uncompressed bytes of a snapshot: msgpack (keys sorted) of the position data
    listed in engine order, and under ``ids`` what the position format leaves out
    because no rule reads it, yet the engine's position holds: the pieces' identifiers
    (in engine order) and the next one, and, by identifier and in the engine's order,
    the locks, the pieces that acted this turn, the hits of this turn and the last-seen
    markers (a piece that left play may still be named there). Decoding gives a position equal
    to the engine's in every field, so equal bytes mean the same position, and a
    client that follows pieces by identifier sees the same piece on both sides of a
    snapshot."""
    actions = position.actions
    ids = {"pids": [piece.pid for piece in position.pieces], "next_pid": position.next_pid,
           "actors": list(actions.actors), "firers": list(actions.firers),
           "transited": list(actions.transited), "mover": actions.mover,
           "hits": [[pid, weapon.value, count] for pid, weapon, count in position.hits],
           "locks": [[lock.holder, lock.instance, lock.target] for lock in position.locks],
           "last_seen": [[m.viewer.value, m.pid, m.kind.value, m.cell]
                         for m in position.last_seen]}
    content = {"position": _listed_in_engine_order(position), "ids": ids}
    packed: bytes = msgpack.packb(_sorted_keys(content), use_bin_type=True)
    return packed


def encode_snapshot(position: Position) -> bytes:
    """A snapshot as stored: ``snapshot_data`` compressed with zlib."""
    return zlib.compress(snapshot_data(position), 6)


def expand_snapshot(blob: bytes, where: str) -> bytes:
    """The uncompressed bytes of a stored snapshot (SaveError if damaged or too big)."""
    expander = zlib.decompressobj()
    try:
        data = expander.decompress(blob, MAX_SNAPSHOT_BYTES)
    except zlib.error:
        raise SaveError(f"{where}: invalid content: the snapshot is not zlib data") from None
    if expander.unconsumed_tail or not expander.eof or expander.unused_data:
        raise SaveError(f"{where}: invalid content: the snapshot is damaged or larger than "
                        f"{MAX_SNAPSHOT_BYTES} bytes")
    return data


def decode_snapshot(data: bytes, where: str) -> Position:
    """The full position of a snapshot's uncompressed bytes, equal to the engine's in
    every field (SaveError names ``where``)."""
    try:
        content = msgpack.unpackb(data, raw=False)
    except (ValueError, TypeError, msgpack.UnpackException):
        raise SaveError(f"{where}: invalid content: the snapshot is not readable as "
                        "msgpack") from None
    _require_plain(content)
    if not isinstance(content, dict):
        raise SaveError(f"{where}: invalid content: a snapshot must be a map")
    _require_keys(content, ("ids", "position"), "a snapshot", f"{where}: ")
    try:
        position = position_from_dict(content["position"])
    except FormatError as exc:
        raise SaveError(f"{where}: invalid content: snapshot: {exc}") from None
    if position.viewer is not None:
        raise SaveError(f"{where}: invalid content: a snapshot holds the full state, not "
                        f"{position.viewer.title}'s view")
    try:
        return _with_identifiers(position, content["ids"])
    except (KeyError, IndexError, TypeError, ValueError):
        raise SaveError(f"{where}: invalid content: snapshot: ids must hold "
                        f"{', '.join(_IDS_KEYS)} as the format says") from None


_IDS_KEYS = ("actors", "firers", "hits", "last_seen", "locks", "mover", "next_pid", "pids",
             "transited")


def _with_identifiers(position: Position, ids: dict[str, Any]) -> Position:
    """``position`` as read (piece ``i`` has identifier ``i``) with the engine's
    identifiers and the fields the position format leaves out (``snapshot_data``);
    a malformed ``ids`` raises KeyError, IndexError, TypeError or ValueError."""
    if tuple(sorted(ids)) != _IDS_KEYS:
        raise KeyError("ids")
    pids, next_pid = ids["pids"], _whole(ids["next_pid"])
    if len(pids) != len(position.pieces) or len(set(pids)) != len(pids) \
            or not all(0 <= _whole(pid) < next_pid for pid in pids):
        raise ValueError("pids")
    actions = position.actions
    mover = ids["mover"]
    return position.evolve(
        pieces=tuple(piece.but(pid=pids[piece.pid]) for piece in position.pieces),
        locks=_locks(ids["locks"], {pids[lock.holder] for lock in position.locks}),
        projectiles=tuple(replace(pr, target=None if pr.target is None else pids[pr.target])
                          for pr in position.projectiles),
        hits=tuple((_whole(pid), ArticleKind(weapon), _whole(count))
                   for pid, weapon, count in ids["hits"]),
        actions=replace(actions, actors=_identifiers(ids["actors"]),
                        firers=_identifiers(ids["firers"]),
                        transited=_identifiers(ids["transited"]),
                        mover=None if mover is None else _whole(mover)),
        last_seen=tuple(Marker(Side(viewer), _whole(pid), PieceKind(kind), _whole(cell))
                        for viewer, pid, kind, cell in ids["last_seen"]),
        next_pid=next_pid)


def _locks(entries: list[Any], holders: set[int]) -> tuple[Lock, ...]:
    """The locks in the engine's order; they must be the ones the position data lists
    (their holders at least: the position format checks each lock)."""
    locks = tuple(Lock(_whole(holder), _whole(instance), _whole(target))
                  for holder, instance, target in entries)
    if {lock.holder for lock in locks} != holders or len(locks) != len(set(locks)):
        raise ValueError("locks")
    return locks


def _whole(value: Any) -> int:
    if type(value) is not int:
        raise TypeError("not a whole number")
    return value


def _identifiers(values: list[Any]) -> tuple[int, ...]:
    return tuple(_whole(value) for value in values)


def position_in_engine_order(position: Position) -> dict[str, Any]:
    """``wec-position/1`` data of ``position`` listing its pieces, ground articles and
    reinforcements in the engine's order (see ``_listed_in_engine_order``): reading it
    back gives a position whose game goes on exactly as this one's."""
    return _listed_in_engine_order(position)


def _listed_in_engine_order(position: Position) -> dict[str, Any]:
    """The position data listed in the engine's own order instead of the canonical one.

    The position format sorts what it lists, but orders it does not write decide how a
    game goes on. Two pieces equal in every written field are listed in the order the
    engine holds them, so which of them an index (the turn's mover, a lock) names
    depends on that order, and so do the state hash and which one a later intent
    moves (engine.selection.twin_order_key); of two equal articles on a square the
    first placed is picked up (engine.articles); projectiles reaching one cell in the
    same step resolve in the engine's order (engine.effects). Reading keeps the listing
    order, so listing pieces, ground articles, reinforcements and projectiles in the
    engine's order lets the replay reach the very positions that were saved.
    """
    data = position_to_dict(position)
    _list_pieces_in_engine_order(position, data)
    if position.projectiles:  # a projectile names its target by cell: no renumbering
        data["projectiles"] = [projectile_to_dict(pr, position) for pr in position.projectiles]
    data["articles"] = _in_order(
        data["articles"], _ground_in_placement_order(position),
        lambda entry: (entry["kind"], tuple(entry["at"]), entry.get("ready", 0)),
        lambda item: item)
    data["reinforcements"] = _in_order(
        data["reinforcements"], list(position.reinforcements),
        lambda entry: (entry["side"], tuple(entry["at"]), entry.get("kind"), entry.get("hand")),
        lambda r: (r.side.value, _row_col(r.sq), r.kind and r.kind.value,
                   r.hand and r.hand.value))
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


def _in_order(entries: list[Any], items: list[Any], entry_key: Callable[[Any], Any],
              item_key: Callable[[Any], Any]) -> list[Any]:
    """``entries`` (the data of ``items``, in another order) in the order of ``items``:
    equal keys are taken in the entries' order."""
    by_key: dict[Any, list[Any]] = {}
    for entry in reversed(entries):
        by_key.setdefault(entry_key(entry), []).append(entry)
    return [by_key[item_key(item)].pop() for item in items]


def _row_col(sq: int) -> tuple[int, int]:
    return (board.row_of(sq), board.col_of(sq))


def _sorted_keys(value: Any) -> Any:
    """``value`` with every map's keys sorted (scalars are not visited one by one: a
    long game's snapshots hold hundreds of thousands)."""
    kind = type(value)
    if kind is dict:
        return {key: _sorted_keys(item) if type(item) in _CONTAINERS else item
                for key, item in sorted(value.items())}
    if kind is list:
        return [_sorted_keys(item) if type(item) in _CONTAINERS else item for item in value]
    return value


_CONTAINERS = (dict, list)


# ---------------------------------------------------------------- reading

@dataclass(frozen=True, slots=True)
class SaveContent:
    """A save after the structural checks (envelope, checksum, keys, start position),
    before any step is replayed: what ``engine.replay`` opens lazily."""

    version: int
    start: Position
    start_hash: str
    steps: tuple[Any, ...]  # the step maps, as in the file (checked when replayed)
    mode: str
    snapshots: dict[int, bytes]  # step number -> stored snapshot (version 2)
    notation: dict[str, list[str]] | None  # "full", "black", "white" (version 2)


def decode_save(data: bytes) -> Match:
    """The match saved in ``data``, replayed and checked step by step; a ``SaveError``
    names the first problem (foreign file, newer version, truncation, corruption,
    invalid content, or the step whose state hash, snapshot or notation differs)."""
    content = read_content(data)
    match = _replay(content)
    _check_snapshots(content, match)
    _check_notation(content, match)
    return match


def read_content(data: bytes) -> SaveContent:
    """The content of a save, checked for structure only (no step is replayed)."""
    version, body = _open_envelope(data)
    content = _read_body(body, version)
    try:
        start = position_from_dict(content["start"])
    except FormatError as exc:
        raise SaveError(f"invalid content: start position: {exc}") from None
    if start.viewer is not None:
        raise SaveError(f"invalid content: start position: a saved game holds the full "
                        f"state, not {start.viewer.title}'s view")
    return SaveContent(version, start, content["start_hash"], tuple(content["steps"]),
                       content["mode"], dict(content.get("snapshots", [])),
                       content.get("notation"))


def _open_envelope(data: bytes) -> tuple[int, bytes]:
    """The version and BODY of a save after checking the header, the version and the
    checksum."""
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
    return version, body


def _next_item(unpacker: Any) -> Any:
    try:
        return unpacker.unpack()
    except msgpack.OutOfData:
        raise SaveError("truncated: the file ends before the saved game does") from None
    except (ValueError, msgpack.UnpackException):
        raise SaveError("corrupted: the file's structure is damaged (not readable as "
                        "msgpack)") from None


def _read_body(body: bytes, version: int) -> dict[str, Any]:
    """The content map, checked to hold only JSON-shaped data with the known keys (and
    in version 2 the snapshots, the only bytes, each left compressed)."""
    try:
        content = msgpack.unpackb(body, raw=False)
    except (ValueError, TypeError, msgpack.UnpackException):
        raise SaveError("invalid content: the body is not readable as msgpack") from None
    snapshots = content.pop("snapshots", None) if isinstance(content, dict) else None
    _require_plain(content)
    if not isinstance(content, dict):
        raise SaveError("invalid content: the body is not a map")
    if snapshots is not None:
        content["snapshots"] = snapshots
    _require_keys(content, _BODY_KEYS_V2 if version >= 2 else _BODY_KEYS, "the body")
    if content["intent_format"] != INTENT_FORMAT:
        raise SaveError(f"invalid content: intent_format {content['intent_format']!r} is not "
                        f"readable by this version of wec (it reads {INTENT_FORMAT})")
    if content["mode"] not in [mode.value for mode in Mode]:
        raise SaveError(f"invalid content: mode must be non_competitive or competitive "
                        f"(got {content['mode']!r})")
    if not isinstance(content["steps"], list):
        raise SaveError("invalid content: steps must be a list")
    if version >= 2:
        _check_snapshot_list(content["snapshots"], len(content["steps"]))
        _check_notation_lists(content["notation"])
    return content


def _check_snapshot_list(snapshots: Any, length: int) -> None:
    """Version 2: ``[[STEP, BYTES], ...]``, steps rising within the history."""
    shape = ("invalid content: snapshots must be a list of [step, bytes] pairs with rising "
             f"step numbers from 1 to the number of steps ({length})")
    if not isinstance(snapshots, list):
        raise SaveError(shape)
    previous = 0
    for entry in snapshots:
        if not isinstance(entry, list) or len(entry) != 2 or type(entry[0]) is not int \
                or type(entry[1]) is not bytes or not previous < entry[0] <= length:
            raise SaveError(shape)
        previous = entry[0]


def _check_notation_lists(notation: Any) -> None:
    """Version 2: ``{"black": [...], "full": [...], "white": [...]}`` of strings."""
    if not isinstance(notation, dict) or tuple(sorted(notation)) != NOTATION_COPIES \
            or not all(isinstance(lines, list) and all(isinstance(line, str) for line in lines)
                       for lines in notation.values()):
        raise SaveError("invalid content: notation must map black, full and white to lists "
                        "of turn strings")


_PLAIN_LEAVES = frozenset({str, int, bool, type(None)})  # what msgpack gives for JSON's


def _require_plain(value: Any) -> None:
    """Only what JSON can say (no floats either: the engine has none), so the position
    and intent readers see the data they are written for. Iterative: a crafted body
    may nest deeper than Python's recursion limit. Leaves are checked where they
    stand, containers queued (a long history has some 100,000 leaves)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) is dict:
            for key in item:
                if type(key) is not str:
                    raise SaveError("invalid content: a map key is not text")
            children: Any = item.values()
        elif type(item) is list:
            children = item
        else:
            children = (item,)
        for child in children:
            kind = type(child)
            if kind is dict or kind is list:
                pending.append(child)
            elif kind not in _PLAIN_LEAVES:
                raise SaveError(f"invalid content: unexpected {kind.__name__} value")


def _require_keys(data: dict[str, Any], keys: tuple[str, ...], what: str,
                  where: str = "") -> None:
    if tuple(sorted(data)) != keys:
        raise SaveError(f"{where}invalid content: {what} must have exactly the keys "
                        f"{', '.join(keys)} (got {', '.join(sorted(data)) or 'none'})")


def _replay(content: SaveContent) -> Match:
    """The match rebuilt from the start by the rules, every state hash compared."""
    match = Match.begin(content.start)
    if match.start_hash != content.start_hash:
        raise SaveError(f"start position: state hash differs: {_ALTERED}")
    for number, step in enumerate(content.steps, start=1):
        where = f"step {number} (turn {match.current.turn})"
        match = _replay_step(match, step, where)
    if match.mode.value != content.mode:
        raise SaveError(f"invalid content: mode: the file says {content.mode} but its "
                        f"history leaves the game {match.mode.value}")
    return match


def _check_snapshots(content: SaveContent, match: Match) -> None:
    """Version 2: every snapshot is the replayed position, engine orders included."""
    for number, blob in content.snapshots.items():
        action = match.actions[number - 1]
        where = f"step {number} (turn {action.turn})"
        if expand_snapshot(blob, where) != snapshot_data(action.position):
            raise SaveError(f"{where}: snapshot differs from the replayed position: "
                            f"{_ALTERED}")


def _check_notation(content: SaveContent, match: Match) -> None:
    """Version 2: every recorded notation line is what the replayed game writes."""
    if content.notation is None:
        return
    for copy in NOTATION_COPIES:
        viewer = None if copy == "full" else Side(copy)
        written = match.turn_notation(viewer)
        recorded = content.notation[copy]
        for line, (mine, theirs) in enumerate(zip(written, recorded, strict=False), start=1):
            if mine != theirs:
                raise SaveError(f"notation ({copy}) of turn line {line} differs from the "
                                f"replayed game: {_ALTERED}")
        if len(written) != len(recorded):
            raise SaveError(f"notation ({copy}): {len(recorded)} turn line(s) recorded, the "
                            f"replayed game writes {len(written)}: {_ALTERED}")


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
    except FormatError as exc:
        raise SaveError(f"{where}: invalid option change: {exc}") from None
    return _changed_options(match, options, where)


def option_change_after(before: Position, options: Options, where: str) -> Position:
    """The position after an option-change step made on ``before`` (a step of the
    history, so after at least one action): exactly what ``Match`` does (R14.2,
    R14.3), refused with a SaveError naming ``where``."""
    placeholder = Action(EndTurn(), before.side_to_act, before.turn, before, (), "")
    match = Match(before, "", (placeholder,))
    return _changed_options(match, options, where).current


def _changed_options(match: Match, options: Options, where: str) -> Match:
    try:
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
