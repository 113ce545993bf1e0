"""Wire encoding of the fog-of-war protocol (issue 21): the half referee's questions and
answers, intents and their public forms, cell contents for commitments and PSI labels.

The engine's questions and answers (engine.questions) are frozen dataclasses of ints,
strings, enums, tuples and other such dataclasses (pieces, locks, projectiles, events).
``to_wire`` turns one into msgpack-ready data (lists, ints, strings, bytes, maps with
string keys) and ``from_wire`` back, accepting only the classes of ``_CLASSES`` (the
peer is untrusted: a name outside the list, a wrong field count, a field whose value is
not of its declared type (a flag is no number, a text no number: ``_built``) or a
constructor that refuses its fields is a ``WireError``). Encoding is deterministic: the
same value always gives the same bytes (no hash-ordered iteration; frozensets are
sorted).

``pack`` and ``unpack`` frame one body: a 4-byte length, the msgpack bytes, then zeros up
to a *size class* (powers of two from 64 bytes), so that a message's size tells at most
its class, never, say, how many pieces an answer holds within it.

``cell_contents`` is the canonical bytes of what a side holds in one cell (the
``PieceInfo`` of its pieces there, in the canonical order): the leaf contents of a
commitment (net.commitment) and the label of a first-hit PSI (net.psi), so an opening
or a label says exactly what ``first_hit`` reveals (the pieces taken, no identifiers).

``public_form`` is what the other side is told of an intent: the intent itself when
its actor is a piece the other side sees whatever its detectors and locks (it cannot
hide, or a reveal shows it: ``surely_seen``; since ``wec-fog/14`` the acting side is told
nothing of the other side's detection to go by); otherwise only what the rules show
(R9.1, R4.13): a Move of a hidden piece is ``HIDDEN_MOVE`` (the other side's resolution
asks the mover's side what it took, engine.half_resolution ``_moved``, and never reads
the Move's cells), a Pick-up or Drop keeps only the ground square (the ground is
public), an Exchange nothing, a Reinforce only its square (R10.5: the enemy's waiting
kinds are secret). A Fire is sent whole: with O21 on the firer is fire-revealed by it
(R9.8) and its aim shows in the public projectile or effects (fog-of-war games with O21
off are refused in the lobby, net.game_fog ``fog_problem``). "Sees" below means
sees whatever its detectors and locks (``surely_seen``). A Doze
that moves only pieces the other side does not see is ``HIDDEN_MOVE`` too (a Doze is its
Dozer's Move, R8.8; net.doze_judge judges it without its squares); any other Doze is sent
without the selected squares whose pieces the other side does not see (judged apart),
with its direction (the moving pieces it sees show it) and its Dozer's square, or
``UNSEEN_SQUARE`` when the other side sees neither the Dozer nor its coincident (their
destination judged apart too). This holds in every fog game: the base transfers that
judge the left-out squares are made whenever O15 or O16 is on (``wec-fog/10``).
"""

from __future__ import annotations

import dataclasses
import struct
import types
import typing
from collections.abc import Callable, Container, Iterable
from enum import Enum
from typing import Any

import msgpack  # type: ignore[import-untyped]

from wec.engine import events as ev
from wec.engine import intents as it
from wec.engine import position as pos
from wec.engine import questions as qu
from wec.engine.board import DIRECTIONS, GROUND, Level
from wec.engine.errors import IllegalIntent
from wec.engine.movement import plan_move
from wec.engine.options import Options
from wec.engine.pieces import ArticleKind, Government, Hand, PieceKind, Side
from wec.engine.position import Piece, Position
from wec.engine.questions import PieceInfo
from wec.engine.visibility import seen_whatever
from wec.net.errors import ProtocolError, with_article
from wec.net.psi import FirstHitShape

# the route of a Move is at most 10 cells (net.psi); a cell's contents are at most 126 bytes
FIRST_HIT_SHAPE = FirstHitShape(max_cells=10, max_items=56, label_size=128)

MAX_BODY = 1 << 20
# 64 B .. 1 MiB by powers of two, and 48 KiB: a detection's answer (its input labels'
# reply, its garbled material and its clear part: 41-43 KB, their sizes fixed by public
# facts) then travels in one session frame (net.lockstep_fog ``PART_SIZE``) instead of
# a 64 KiB body split in two (since ``wec-fog/18``, session 30)
SIZE_CLASSES = tuple(sorted({64 << k for k in range(15)} | {48 << 10}))
_LEN = struct.Struct(">I")


class WireError(ProtocolError):
    """A fog message from the peer that does not decode (malformed, unknown class, a
    value its type refuses). Fatal for the game: the exchange cannot go on."""


def _classes() -> dict[str, type]:
    found: dict[str, type] = {}
    for module in (qu, ev, pos, it):
        for name in dir(module):
            value = getattr(module, name)
            if isinstance(value, type) and dataclasses.is_dataclass(value) \
                    and value.__module__ == module.__name__:
                found[name] = value
    found.pop(Position.__name__, None)  # positions travel through position_to_wire only
    found[Options.__name__] = Options
    return found


_CLASSES = _classes()
_DATACLASSES = frozenset(cls for cls in _CLASSES.values() if dataclasses.is_dataclass(cls))
_ENUMS: dict[str, type[Enum]] = {cls.__name__: cls for cls in (Side, PieceKind, ArticleKind,
                                                               Hand, Level, Government)}
# every travelling enum member by (enum name, value): decoding looks one up instead of
# calling the enum (a few microseconds each, and a detection answer holds hundreds)
_ENUM_NAMES: dict[type, str] = {cls: name for name, cls in _ENUMS.items()}
_ENUM_MEMBERS: dict[tuple[str, Any], Enum] = {
    (name, member.value): member for name, cls in _ENUMS.items() for member in cls}


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _plain_types(hint: Any) -> frozenset[type] | None:
    """The exact types a value of ``hint`` may have, when ``hint`` is a plain type or a
    union of them (``int | None``); None for anything else."""
    if hint is type(None):
        return frozenset((type(None),))
    if isinstance(hint, type) and hint is not object and typing.get_origin(hint) is None:
        return frozenset((hint,))
    if typing.get_origin(hint) in (types.UnionType, typing.Union):
        found: frozenset[type] = frozenset()
        for option in typing.get_args(hint):
            plain = _plain_types(option)
            if plain is None:
                return None
            found |= plain
        return found
    return None


def _checker(hint: Any) -> Callable[[Any], bool]:
    """Whether a decoded value is of the type ``hint`` (a travelling class's field's
    annotation: ints, strings, flags, enums, travelling classes, tuples of them, and
    unions with None), exactly: a flag is not a number, a list decodes as a tuple.
    Plain types are compared as sets of types (in C: a detection's clear part holds a
    few hundred values)."""
    if hint is object or hint is Any:
        return lambda value: True
    plain = _plain_types(hint)
    if plain is not None:
        return lambda value: type(value) in plain
    origin = typing.get_origin(hint)
    if origin is types.UnionType or origin is typing.Union:
        options = tuple(_checker(option) for option in typing.get_args(hint))
        return lambda value: any(check(value) for check in options)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            elements = _plain_types(args[0])
            if elements is not None:
                return lambda value: type(value) is tuple and set(map(type, value)) <= elements
            each = _checker(args[0])
            return lambda value: type(value) is tuple and all(map(each, value))
        places = tuple(_checker(arg) for arg in args)
        return lambda value: type(value) is tuple and len(value) == len(places) and all(
            check(v) for check, v in zip(places, value, strict=True))
    raise TypeError(f"no check for a field of type {hint!r}")


def _type_name(hint: Any) -> str:
    """A field's type as a refusal names it ("int", "Hand | None", "tuple[int, ...]")."""
    if hint is type(None):
        return "None"
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is types.UnionType or origin is typing.Union:
        return " | ".join(map(_type_name, args))
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return f"tuple[{_type_name(args[0])}, ...]"
        return f"tuple[{', '.join(map(_type_name, args))}]"
    return str(getattr(hint, "__name__", hint))


def _field_checks(cls: type) -> tuple[tuple[str, str, type | None, Callable[[Any], bool]],
                                      ...]:
    """Each field of a travelling dataclass: its name, its type's name, the one type its
    value must have when the annotation is a plain type (checked inline: most fields),
    and its check."""
    hints = typing.get_type_hints(cls)
    return tuple((name, _type_name(hints[name]),
                  hints[name] if isinstance(hints[name], type) and hints[name] is not object
                  else None, _checker(hints[name])) for name in _field_names(cls))


# every travelling dataclass's field checks, made once: a value from the peer is built
# only from fields of its declared types (since session 40; before, a field of another
# type went through to whatever code of ours read it, as a whole answer of another type
# did: "'bool' object has no attribute 'strength'")
_FIELD_CHECKS: dict[type, tuple[tuple[str, str, type | None, Callable[[Any], bool]],
                                 ...]] = {}


def _built(cls: type, values: list[Any]) -> Any:
    """``cls(*values)`` (as many as its fields: the callers check), each value checked
    against its field's type first (WireError naming the field)."""
    checks = _FIELD_CHECKS.get(cls)
    if checks is None:
        checks = _FIELD_CHECKS[cls] = _field_checks(cls)
    for (name, what, exact, check), value in zip(checks, values, strict=True):
        if type(value) is not exact if exact is not None else not check(value):
            raise WireError(f"{with_article(cls.__name__)} whose {name} is not {what} (got "
                            f"{type(value).__name__})")
    return cls(*values)


def _field_names(cls: type) -> tuple[str, ...]:
    """The field names of a travelling dataclass, in order (looked up once per class)."""
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


def to_wire(value: Any) -> Any:
    """``value`` as msgpack-ready data (see the module docstring)."""
    kind = type(value)
    if kind is int:
        if -(1 << 63) <= value < (1 << 64):
            return value
        return {"n": format(value, "x")}  # square masks (100 bits)
    if value is None or kind is bool or kind is str or kind is bytes:
        return value
    if kind is tuple or kind is list:
        return [to_wire(v) for v in value]
    if kind in _DATACLASSES:
        return {"c": kind.__name__, "f": [to_wire(getattr(value, name))
                                          for name in _field_names(kind)]}
    name = _ENUM_NAMES.get(kind)
    if name is not None:
        return {"e": name, "v": value.value}
    if isinstance(value, bool | str | bytes):
        return value
    if isinstance(value, Enum):
        name = type(value).__name__
        if name not in _ENUMS:
            raise TypeError(f"enum {name} does not travel")
        return {"e": name, "v": value.value}
    if isinstance(value, int):
        if -(1 << 63) <= value < (1 << 64):
            return value
        return {"n": format(value, "x")}  # square masks (100 bits)
    if isinstance(value, tuple | list):
        return [to_wire(v) for v in value]
    if isinstance(value, frozenset | set):
        return {"s": sorted(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if _CLASSES.get(name) is not type(value):
            raise TypeError(f"{name} does not travel")
        return {"c": name, "f": [to_wire(getattr(value, f.name))
                                 for f in dataclasses.fields(value)]}
    raise TypeError(f"{type(value).__name__} does not travel")


def from_wire(data: Any) -> Any:
    """The value ``to_wire`` encoded; WireError for anything else."""
    return _decoded(_from, data)


def _decoded(read: Callable[[Any, int], Any], data: Any) -> Any:
    """``read(data, 0)``; WireError for whatever a malformed value makes it raise."""
    try:
        return read(data, 0)
    except WireError:
        raise
    except (TypeError, ValueError, KeyError, RecursionError) as exc:
        raise WireError(f"a fog message does not decode ({exc})") from None


def _from(data: Any, depth: int) -> Any:
    kind = type(data)
    if kind is int or kind is str or kind is bool or kind is bytes or data is None:
        return data
    if depth > 32:
        raise WireError("a fog message nests too deep")
    if kind is list:
        return tuple([_from(v, depth + 1) for v in data])
    if kind is dict:
        if "e" in data:
            member = _ENUM_MEMBERS.get((data["e"], data.get("v")))
            if member is None or len(data) != 2:
                raise WireError(f"unknown enum {data.get('e')!r} value {data.get('v')!r}")
            return member
        if "n" in data:
            text = data["n"]
            if not isinstance(text, str) or len(data) != 1 or len(text) > 80:
                raise WireError("a large integer is a short hexadecimal string")
            return int(text, 16)
        if "s" in data:
            items = data["s"]
            if not isinstance(items, list) or not all(type(i) is int for i in items):
                raise WireError("a set holds integers only")
            return frozenset(items)
        cls = _CLASSES.get(data.get("c"))
        fields = data.get("f")
        if cls is None or type(fields) is not list or len(data) != 2:
            raise WireError(f"unknown class {data.get('c')!r}")
        names = _field_names(cls)
        if len(fields) != len(names):
            raise WireError(f"{cls.__name__} has {len(names)} fields (got {len(fields)})")
        return _built(cls, [_from(v, depth + 1) for v in fields])
    if isinstance(data, bool | int | str | bytes):  # subclasses msgpack does not make
        return data
    raise WireError(f"a fog message holds a {type(data).__name__}")


# the compact form (``compact``): every travelling class and enum member by its number
# in a fixed order, known to both sides from the code alone
_CLASS_ORDER = tuple(sorted(cls.__name__ for cls in _DATACLASSES))
_CLASS_NUMBERS = {name: i for i, name in enumerate(_CLASS_ORDER)}
_MEMBER_ORDER = tuple(sorted(_ENUM_MEMBERS, key=lambda key: (key[0], str(key[1]))))
_MEMBER_NUMBERS = {key: i for i, key in enumerate(_MEMBER_ORDER)}


def compact(data: Any) -> Any:
    """``to_wire``'s data with each class and enum member by its number instead of its
    name: the same value in about a third of the bytes (the private detection seals
    entries in fixed-size variants: engine events named in full outgrow them)."""
    if type(data) is list:
        return [compact(v) for v in data]
    if type(data) is dict:
        if "e" in data:
            return {"m": _MEMBER_NUMBERS[(data["e"], data["v"])]}
        if "c" in data:
            return {"k": [_CLASS_NUMBERS[data["c"]], *(compact(v) for v in data["f"])]}
    return data


def expand(data: Any, depth: int = 0) -> Any:
    """``compact``'s data back as ``to_wire`` made it (for ``from_wire``); WireError for
    a number of no class or member."""
    if depth > 32:
        raise WireError("a fog message nests too deep")
    if type(data) is list:
        return [expand(v, depth + 1) for v in data]
    if type(data) is dict and len(data) == 1:
        try:
            if "m" in data:
                name, value = _MEMBER_ORDER[data["m"]]
                return {"e": name, "v": value}
            if "k" in data:
                number, *fields = data["k"]
                return {"c": _CLASS_ORDER[number], "f": [expand(v, depth + 1) for v in fields]}
        except (TypeError, IndexError, ValueError):
            raise WireError("a compact fog value names no class or member") from None
    return data



def to_compact(value: Any) -> Any:
    """``compact(to_wire(value))`` in one pass: the same data without the named form in
    between (the private detection's clear part, on the path of every detection, was
    two walks of a few hundred values)."""
    kind = type(value)
    if kind is int:
        if -(1 << 63) <= value < (1 << 64):
            return value
        return {"n": format(value, "x")}
    if value is None or kind is bool or kind is str or kind is bytes:
        return value
    if kind is tuple or kind is list:
        return [to_compact(v) for v in value]
    if kind in _DATACLASSES:
        return {"k": [_CLASS_NUMBERS[kind.__name__],
                      *[to_compact(getattr(value, name)) for name in _field_names(kind)]]}
    name = _ENUM_NAMES.get(kind)
    if name is not None:
        return {"m": _MEMBER_NUMBERS[(name, value.value)]}
    return compact(to_wire(value))  # the rarer kinds, as the two passes make them


def from_compact(data: Any) -> Any:
    """``from_wire(expand(data))`` in one pass (the same value, or WireError where
    those raise)."""
    return _decoded(_from_compact, data)


def _from_compact(data: Any, depth: int) -> Any:
    if depth > 32:
        raise WireError("a fog message nests too deep")
    kind = type(data)
    if kind is int or kind is str or kind is bool or kind is bytes or data is None:
        return data
    if kind is list:
        return tuple([_from_compact(v, depth + 1) for v in data])
    if kind is dict and len(data) == 1 and ("m" in data or "k" in data):
        try:
            if "m" in data:
                key = _MEMBER_ORDER[data["m"]]
                return _ENUM_MEMBERS[key]
            number, *fields = data["k"]
            cls = _CLASSES[_CLASS_ORDER[number]]
        except (TypeError, IndexError, ValueError):
            raise WireError("a compact fog value names no class or member") from None
        names = _field_names(cls)
        if len(fields) != len(names):
            raise WireError(f"{cls.__name__} has {len(names)} fields (got {len(fields)})")
        return _built(cls, [_from_compact(v, depth + 1) for v in fields])
    return _from(data, depth)  # not a compact form: read as ``from_wire`` reads it

_POSITION_FIELDS = tuple(f.name for f in dataclasses.fields(Position) if f.name != "derived")


def position_to_wire(position: Position) -> dict[str, Any]:
    """A position (a half state: the start a side reveals at the end, or keeps in its
    record) field by field, exactly (formats.position_to_dict is the file format; this
    is the identity round trip the audit and the record need)."""
    return {name: to_wire(getattr(position, name)) for name in _POSITION_FIELDS}


def position_from_wire(data: Any) -> Position:
    """``position_to_wire`` read back; WireError if malformed."""
    if not isinstance(data, dict) or set(data) != set(_POSITION_FIELDS):
        raise WireError("not a position")
    try:
        values = {name: from_wire(data[name]) for name in _POSITION_FIELDS}
        if not isinstance(values["options"], Options) or type(values["turn"]) is not int:
            raise WireError("a position's options or turn do not decode")
        return Position(**values)
    except (TypeError, ValueError) as exc:
        raise WireError(f"a position does not decode ({exc})") from None


# ---------------------------------------------------------------- framing


def size_class(n: int) -> int:
    for size in SIZE_CLASSES:
        if n <= size:
            return size
    raise ValueError(f"a fog message body of {n} bytes is too large")


def pack(payload: Any) -> bytes:
    """``payload`` (msgpack-ready) as a padded body."""
    raw: bytes = msgpack.packb(payload, use_bin_type=True)
    data = _LEN.pack(len(raw)) + raw
    return data + bytes(size_class(len(data)) - len(data))


def unpack(body: bytes) -> Any:
    """The payload of a padded body; WireError if it is not one."""
    if type(body) is not bytes or len(body) < _LEN.size or len(body) > MAX_BODY:
        raise WireError("a fog message body is not bytes of a valid size")
    (n,) = _LEN.unpack_from(body)
    end = _LEN.size + n
    if end > len(body) or len(body) != size_class(end) \
            or body.count(0, end) != len(body) - end:  # zeros, counted in C
        raise WireError("a fog message body is not padded to its size class")
    try:
        return msgpack.unpackb(body[_LEN.size:_LEN.size + n], raw=False, strict_map_key=True,
                               max_bin_len=MAX_BODY, max_str_len=MAX_BODY)
    except (ValueError, msgpack.UnpackException) as exc:
        raise WireError(f"a fog message body does not unpack ({exc})") from None


# ---------------------------------------------------------------- cells


def cell_contents(infos: Iterable[PieceInfo]) -> bytes:
    """The canonical bytes of one cell's pieces (``PieceInfo``, canonical order); empty
    for an empty cell."""
    ordered = sorted(infos, key=PieceInfo.sort_key)
    if not ordered:
        return b""
    packed: bytes = msgpack.packb([[i.side.value[0], i.kind.value,
                                    i.hand.value if i.hand else "",
                                    [a.value for a in i.articles], list(i.ready)]
                                   for i in ordered], use_bin_type=True)
    return packed


def infos_from_contents(data: bytes) -> tuple[PieceInfo, ...]:
    """``cell_contents`` read back; WireError if malformed."""
    if not data:
        return ()
    try:
        raw = msgpack.unpackb(data, raw=False, max_bin_len=1024, max_str_len=1024)
        infos = tuple(PieceInfo(Side.BLACK if s == "b" else Side.WHITE, PieceKind(k),
                                Hand(h) if h else None, tuple(ArticleKind(a) for a in arts),
                                tuple(int(r) for r in ready))
                      for s, k, h, arts, ready in raw)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise WireError(f"cell contents do not decode ({exc})") from None
    if cell_contents(infos) != data:
        raise WireError("cell contents are not canonical")
    return infos


def own_contents(pieces: Iterable[Piece], side: Side) -> dict[int, bytes]:
    """Cell -> ``cell_contents`` of ``side``'s pieces among ``pieces``, in cell order."""
    by_cell: dict[int, list[PieceInfo]] = {}
    for p in pieces:
        if p.side is side:
            by_cell.setdefault(p.sq * 3 + p.level, []).append(PieceInfo.of(p))
    return {cell: cell_contents(by_cell[cell]) for cell in sorted(by_cell)}


# ---------------------------------------------------------------- intents

HIDDEN_MOVE = it.Move(0, 0)
_PLACEHOLDER_ARTICLE = next(iter(ArticleKind))
_PLACEHOLDER_KIND = next(iter(PieceKind))


def surely_seen(half: Position) -> frozenset[int]:
    """The identifiers of the pieces of ``half``'s side that the other side sees whatever
    its detectors and locks (engine.visibility ``seen_whatever``): what the acting side
    knows of what the other sees without being told (issue 21: since ``wec-fog/14``
    nothing of the other side's detection reaches it to go by)."""
    side, options = half.viewer, half.options
    return frozenset(p.pid for p in half.pieces
                     if p.side is side and seen_whatever(p, options))


def public_form(intent: it.Intent, half: Position) -> tuple[it.Intent, bool]:
    """(what the other side is told of ``intent``, whether its actor may be hidden from
    it): ``half`` is the acting side's half state before the intent. An actor goes as
    seen only when the other side sees it whatever its detectors and locks
    (``surely_seen``); any other goes as hidden, seen or not (see the module
    docstring)."""
    side = half.viewer
    assert side is not None
    seen = surely_seen(half)

    def all_seen(*cells: int) -> bool:
        return all(p.pid in seen for p in half.pieces if p.side is side and p.cell in cells)

    if isinstance(intent, it.Doze):
        if _dozes_unseen(intent, half, seen):
            return HIDDEN_MOVE, True  # net.doze_judge: the Doze as a hidden Move
        # the selected squares whose pieces the other side does not see are left out
        # (net.doze_judge judges them apart)
        shown = tuple(sq for sq in intent.squares if not _unseen_at(sq, half, seen))
        # the Dozer's square too, when it holds only the Dozer and its coincident, both
        # unseen: the rules show only the dozed pieces the other side sees move
        dozer_sq = it.UNSEEN_SQUARE if _unseen_at(intent.sq, half, seen) else intent.sq
        return it.Doze(dozer_sq, shown, intent.dir), False
    if isinstance(intent, it.EndTurn | it.Fire):
        return intent, False
    if isinstance(intent, it.Move):
        try:
            mover = plan_move(half, intent).piece
        except IllegalIntent:
            return HIDDEN_MOVE, True  # refused before anything is sent (FogGame.play)
        if mover.pid in seen:
            return it.Move(intent.frm, intent.to, intent.kind, None, intent.hand), False
        return HIDDEN_MOVE, True
    if isinstance(intent, it.Reinforce):
        return it.Reinforce(intent.sq, _PLACEHOLDER_KIND), False
    if isinstance(intent, it.PickUp):
        if all_seen(intent.at):
            return intent, False
        return it.PickUp(intent.at, intent.article), True
    if isinstance(intent, it.Drop):
        if all_seen(intent.frm):
            return intent, False
        return it.Drop((intent.frm // 3) * 3 + GROUND, intent.article), True
    if isinstance(intent, it.Exchange):
        if all_seen(intent.frm, intent.to):
            return intent, False
        return it.Exchange(0, 0, _PLACEHOLDER_ARTICLE), True
    raise TypeError(f"not an intent: {intent!r}")


def form_problem(form: it.Intent) -> str | None:
    """What makes ``form`` (a peer's public form) a Doze no honest peer sends, or None:
    a square off the board, a direction that is not one step, more selected squares than
    a Dozer's neighbours, or an unseen Dozer that moves nothing the other side sees
    (that Doze travels as a hidden Move)."""
    if not isinstance(form, it.Doze):
        return None
    if type(form.sq) is not int or type(form.squares) is not tuple \
            or any(type(sq) is not int for sq in form.squares):
        return "a Doze form whose squares are not numbers (R8.8)"
    if form.sq != it.UNSEEN_SQUARE and not 0 <= form.sq < 100:
        return f"a Doze form's Dozer square {form.sq} is off the board (R8.8)"
    if len(form.squares) > 8 or len(set(form.squares)) != len(form.squares) \
            or any(not 0 <= sq < 100 for sq in form.squares):
        return "a Doze form's selected squares are not distinct squares of the board (R8.8.2)"
    if tuple(form.dir) not in DIRECTIONS:
        return f"a Doze form's direction {form.dir} is not one step (R8.8.3)"
    if form.sq == it.UNSEEN_SQUARE and not form.squares:
        return ("a Doze form with an unseen Dozer and no square: such a Doze travels as a "
                "hidden Move (R9.1)")
    return None


def _unseen_at(sq: int, half: Position, seen: Container[int]) -> bool:
    """Whether every Ground piece at ``sq`` is the acting side's own and unseen by the
    other side (and there is one)."""
    here = [p for p in half.pieces if p.sq == sq and p.level is GROUND]
    return bool(here) and all(p.side is half.viewer and p.pid not in seen for p in here)


def _dozes_unseen(intent: it.Doze, half: Position, seen: Container[int]) -> bool:
    """Whether the other side sees none of the pieces ``intent`` moves (R8.8.1-3): every
    Ground piece of the Dozer's square and of the selected squares is the acting side's
    own, unseen by it. Then the rules show it nothing of the Doze (R9.1)."""
    squares = {intent.sq, *intent.squares}
    movers = [p for p in half.pieces if p.sq in squares and p.level is GROUND]
    return bool(movers) and all(p.side is half.viewer and p.pid not in seen for p in movers)


def run_id(game_id: bytes, n: int, role: str, i: int) -> bytes:
    """A PSI run's id: unique per game, action, role and question."""
    return b"wec-fog first hit|" + game_id + b"|%d|%s|%d" % (n, role.encode(), i)


def doze_run_id(game_id: bytes, n: int, asker: Side, i: int) -> bytes:
    """A Doze judgement's transfer id (net.ot ``LabelReceiver``), the same on both
    sides: unique per game, action, asking (Dozing) side and question."""
    return b"wec-fog doze|" + game_id + b"|%d|%s|%d" % (n, asker.value.encode(), i)


def stun_run_id(game_id: bytes, n: int, asker: Side, i: int) -> bytes:
    """A Stunner line's transfer id (net.ot ``STUN_LABELS``), the same on both sides:
    unique per game, action, asking side and question."""
    return b"wec-fog stun|" + game_id + b"|%d|%s|%d" % (n, asker.value.encode(), i)


def hidden_doze_run_id(game_id: bytes, n: int, asker: Side, i: int) -> bytes:
    """A hidden Move's Doze transfer id (net.ot ``HIDDEN_DOZE_LABELS``), the same on both
    sides: unique per game, action, asking side and question."""
    return b"wec-fog hidden doze|" + game_id + b"|%d|%s|%d" % (n, asker.value.encode(), i)


def presence_run_id(game_id: bytes, n: int, asker: Side, back: bool, i: int) -> bytes:
    """A presence transfer's id (net.ot), the same on both sides: unique per game,
    action, asking side, whether its owner side asks back, and question."""
    return b"wec-fog presence|" + game_id + b"|%d|%s|%d|%d" % (n, asker.value.encode(),
                                                               back, i)


def reach_run_id(game_id: bytes, n: int, receiver: Side, j: int) -> bytes:
    """A detection's reach transfer's id (net.ot), the same on both sides: unique per
    game, action, receiving side and its question asked back."""
    return b"wec-fog reach|" + game_id + b"|%d|%s|%d" % (n, receiver.value.encode(), j)
