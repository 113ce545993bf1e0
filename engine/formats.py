"""The position format ``wec-position/1`` and intent JSON (docs/formats.md).

Pure conversions between JSON-shaped data (dicts, lists) and engine values; the
caller does the reading and writing. Every refusal is a FormatError naming the
field, and the rule where a rule is broken.
"""

from __future__ import annotations

from typing import Any

from engine import board
from engine.articles import MAX_ARTICLES
from engine.board import Level
from engine.errors import FormatError
from engine.intents import Drop, EndTurn, Exchange, Intent, Move, PickUp, Reinforce
from engine.options import options_from_dict, options_to_dict
from engine.pieces import TRAITS, ArticleKind, Hand, PieceKind, Side, article_capacity
from engine.position import (
    ACTION_LIMITS,
    FRESH_TURN,
    ActionCounts,
    Lock,
    Piece,
    Position,
    Reinforcement,
    Result,
)
from engine.reinforcement import turn_start_squares

POSITION_FORMAT = "wec-position/1"
INTENT_FORMAT = "wec-intent/1"
_POSITION_KEYS = ("format", "turn", "options", "pieces", "articles", "reinforcements",
                  "turn_start_squares", "locks", "actions_this_turn", "result", "viewer")
_PIECE_KEYS = ("side", "kind", "at", "level", "hand", "articles", "moved", "hidden",
               "stunned_until")


# ---------------------------------------------------------------- writing

def piece_order_key(p: Piece) -> tuple[Any, ...]:
    """Canonical listing order: by square, level (Air, Ground, Sub), then content."""
    return (p.sq, int(p.level), p.side.value, p.kind.value, p.hand.value if p.hand else "",
            tuple(a.value for a in p.articles), p.moved, p.hidden, p.stunned_until)


def position_to_dict(position: Position) -> dict[str, Any]:
    """The position as ``wec-position/1`` data; fields at their default are left out."""
    ordered = sorted(position.pieces, key=piece_order_key)
    index = {p.pid: i for i, p in enumerate(ordered)}
    out: dict[str, Any] = {"format": POSITION_FORMAT, "turn": position.turn}
    if position.viewer is not None:
        out["viewer"] = position.viewer.value
    out["options"] = options_to_dict(position.options)
    out["pieces"] = [_piece_to_dict(p) for p in ordered]
    out["articles"] = [{"kind": a.value, "at": [board.row_of(sq), board.col_of(sq)]}
                       for sq, here in enumerate(position.ground_articles)
                       for a in sorted(here, key=lambda a: a.value)]
    out["reinforcements"] = [_reinforcement_to_dict(r) for r in
                             sorted(position.reinforcements, key=_reinforcement_key)]
    if position.turn_start_squares:
        out["turn_start_squares"] = [[board.row_of(sq), board.col_of(sq)]
                                     for sq in position.turn_start_squares]
    locks = sorted((index[lk.holder], lk.instance, index[lk.target]) for lk in position.locks
                   if lk.holder in index and lk.target in index)
    if locks:
        out["locks"] = [{"holder": h, "instance": i, "target": t} for h, i, t in locks]
    if not position.actions.is_fresh():
        done: dict[str, Any] = {name: getattr(position.actions, name)
                                for name in ACTION_LIMITS if getattr(position.actions, name)}
        actors = sorted(index[pid] for pid in position.actions.actors if pid in index)
        if actors:
            done["actors"] = actors
        out["actions_this_turn"] = done
    if position.result is not None:
        out["result"] = {"winner": position.result.winner.value,
                         "reason": position.result.reason}
    return out


def _piece_to_dict(p: Piece) -> dict[str, Any]:
    out: dict[str, Any] = {"side": p.side.value, "kind": p.kind.value,
                           "at": [p.row, p.col], "level": p.level.label}
    if p.hand is not None:
        out["hand"] = p.hand.value
    if p.articles:
        out["articles"] = [a.value for a in p.articles]
    if p.moved:
        out["moved"] = True
    if p.hidden:
        out["hidden"] = True
    if p.stunned_until:
        out["stunned_until"] = p.stunned_until
    return out


def _reinforcement_key(r: Reinforcement) -> tuple[str, int, str, str]:
    return (r.side.value, r.sq, r.kind.value if r.kind else "", r.hand.value if r.hand else "")


def _reinforcement_to_dict(r: Reinforcement) -> dict[str, Any]:
    out: dict[str, Any] = {"side": r.side.value}
    if r.kind is not None:
        out["kind"] = r.kind.value
    out["at"] = [board.row_of(r.sq), board.col_of(r.sq)]
    if r.hand is not None:
        out["hand"] = r.hand.value
    return out


# ---------------------------------------------------------------- reading

def position_from_dict(data: Any) -> Position:
    """Read and validate ``wec-position/1`` data into a Position."""
    if not isinstance(data, dict):
        raise FormatError("position: expected a JSON object")
    fmt = data.get("format")
    if fmt != POSITION_FORMAT:
        if isinstance(fmt, str) and fmt.startswith("wec-position/"):
            raise FormatError(f"format: {fmt!r} is not readable by this version of wec "
                              f"(it reads {POSITION_FORMAT})")
        raise FormatError(f"format: expected {POSITION_FORMAT!r} (got {fmt!r})")
    _no_unknown(data, _POSITION_KEYS, "position")
    turn = data.get("turn", 1)
    if type(turn) is not int or turn < 1:
        raise FormatError(f"turn: expected a whole number >= 1 (got {turn!r})")
    options = options_from_dict(data.get("options", {}))
    viewer = _side(data["viewer"], "viewer") if "viewer" in data else None
    pieces = tuple(_piece_from_dict(p, i) for i, p in enumerate(_list(data, "pieces", None)))
    ground = _ground_from(_list(data, "articles", []))
    reinforcements = tuple(_reinforcement_from(r, i, viewer)
                           for i, r in enumerate(_list(data, "reinforcements", [])))
    locks = tuple(_lock_from(lk, i, pieces) for i, lk in enumerate(_list(data, "locks", [])))
    actions = _actions_from(data.get("actions_this_turn", {}), pieces)
    result = _result_from(data["result"]) if "result" in data else None
    position = Position(turn=turn, pieces=pieces, ground_articles=ground, options=options,
                        reinforcements=reinforcements, locks=locks, actions=actions,
                        result=result, viewer=viewer, next_pid=len(pieces))
    if "turn_start_squares" in data:
        squares = tuple(sorted({_square(v, f"turn_start_squares[{i}]") for i, v in
                                enumerate(_list(data, "turn_start_squares", []))}))
        position = position.evolve(turn_start_squares=squares)
    elif actions.is_fresh():  # a position at the start of a turn: what stands there now
        position = position.evolve(turn_start_squares=turn_start_squares(position))
    validate_position(position)
    return position


def _no_unknown(data: dict[str, Any], known: tuple[str, ...], where: str) -> None:
    for key in data:
        if key not in known:
            raise FormatError(f"{where}.{key}: unknown field (known: {', '.join(known)})")


def _list(data: dict[str, Any], key: str, default: list[Any] | None) -> list[Any]:
    if key not in data:
        if default is None:
            raise FormatError(f"{key}: required field is missing")
        return default
    value = data[key]
    if not isinstance(value, list):
        raise FormatError(f"{key}: expected a list (got {type(value).__name__})")
    return value


def _enum(cls: Any, value: Any, where: str) -> Any:
    try:
        return cls(value)
    except ValueError:
        allowed = ", ".join(m.value for m in cls)
        raise FormatError(f"{where}: expected one of {allowed} (got {value!r})") from None


def _side(value: Any, where: str) -> Side:
    return _enum(Side, value, where)  # type: ignore[no-any-return]


def _square(value: Any, where: str) -> int:
    if (not isinstance(value, list) or len(value) != 2
            or not all(type(v) is int for v in value) or not board.on_board(*value)):
        raise FormatError(f"{where}: expected [row, col] with row and col 1..10 (got {value!r})")
    return board.square(value[0], value[1])


def _level(value: Any, where: str) -> Level:
    if not isinstance(value, str):
        raise FormatError(f"{where}: expected air, ground or sub (got {value!r})")
    try:
        return Level.parse(value)
    except ValueError as exc:
        raise FormatError(f"{where}: {exc}") from None


def _hand(value: Any, kind: PieceKind, where: str, required: bool = True) -> Hand | None:
    if TRAITS[kind].handed:
        if value is None:
            if not required:
                return None
            raise FormatError(f"{where}.hand: a {kind.value} is handed (R2.3): give "
                              "\"hand\": \"right\" or \"left\"")
        return _enum(Hand, value, f"{where}.hand")  # type: ignore[no-any-return]
    if value is not None:
        raise FormatError(f"{where}.hand: a {kind.value} has no handedness (R2.3)")
    return None


def _piece_from_dict(data: Any, i: int) -> Piece:
    where = f"pieces[{i}]"
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected an object")
    _no_unknown(data, _PIECE_KEYS, where)
    for key in ("side", "kind", "at"):
        if key not in data:
            raise FormatError(f"{where}.{key}: required field is missing")
    side = _side(data["side"], f"{where}.side")
    kind = _enum(PieceKind, data["kind"], f"{where}.kind")
    sq = _square(data["at"], f"{where}.at")
    level = _level(data.get("level", "ground"), f"{where}.level")
    hand = _hand(data.get("hand"), kind, where)
    articles_raw = data.get("articles", [])
    if not isinstance(articles_raw, list):
        raise FormatError(f"{where}.articles: expected a list of article names")
    articles = tuple(_enum(ArticleKind, a, f"{where}.articles[{j}]")
                     for j, a in enumerate(articles_raw))
    flags = {}
    for flag in ("moved", "hidden"):
        value = data.get(flag, False)
        if type(value) is not bool:
            raise FormatError(f"{where}.{flag}: expected true or false (got {value!r})")
        flags[flag] = value
    stunned_until = data.get("stunned_until", 0)
    if type(stunned_until) is not int or stunned_until < 0:
        raise FormatError(f"{where}.stunned_until: expected a turn number >= 0 (R7.1; got "
                          f"{stunned_until!r})")
    return Piece(i, side, kind, sq, level, hand, articles, flags["moved"], flags["hidden"],
                 stunned_until)


def _ground_from(items: list[Any]) -> tuple[tuple[ArticleKind, ...], ...]:
    ground: list[tuple[ArticleKind, ...]] = [()] * board.SQUARES
    for i, item in enumerate(items):
        where = f"articles[{i}]"
        if not isinstance(item, dict) or sorted(item) != ["at", "kind"]:
            raise FormatError(f"{where}: expected {{\"kind\": ARTICLE, \"at\": [row, col]}}")
        kind = _enum(ArticleKind, item["kind"], f"{where}.kind")
        sq = _square(item["at"], f"{where}.at")
        if len(ground[sq]) >= 2:
            raise FormatError(f"{where}: R1.7: {board.describe_square(sq)} would hold more than "
                              "2 unowned articles")
        ground[sq] = ground[sq] + (kind,)
    return tuple(ground)


def _reinforcement_from(data: Any, i: int, viewer: Side | None) -> Reinforcement:
    where = f"reinforcements[{i}]"
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected an object")
    _no_unknown(data, ("side", "kind", "at", "hand"), where)
    if "side" not in data or "at" not in data:
        raise FormatError(f"{where}: \"side\" and \"at\" are required")
    side = _side(data["side"], f"{where}.side")
    sq = _square(data["at"], f"{where}.at")
    if "kind" not in data:
        if viewer is None or side is viewer:
            raise FormatError(f"{where}.kind: required (only a view may hide the enemy's "
                              "reinforcement types, R10.5)")
        return Reinforcement(side, None, sq)
    kind = _enum(PieceKind, data["kind"], f"{where}.kind")
    return Reinforcement(side, kind, sq, _hand(data.get("hand"), kind, where))


def _lock_from(data: Any, i: int, pieces: tuple[Piece, ...]) -> Lock:
    where = f"locks[{i}]"
    if not isinstance(data, dict) or sorted(data) != ["holder", "instance", "target"]:
        raise FormatError(f"{where}: expected {{\"holder\": PIECE_INDEX, \"instance\": N, "
                          "\"target\": PIECE_INDEX}")
    holder, instance, target = data["holder"], data["instance"], data["target"]
    for key, value in (("holder", holder), ("target", target)):
        if type(value) is not int or not 0 <= value < len(pieces):
            raise FormatError(f"{where}.{key}: expected an index into pieces "
                              f"(0..{len(pieces) - 1}, got {value!r})")
    owner, aimed = pieces[holder], pieces[target]
    instances = owner.abilities().count(ArticleKind.ANTI_STEALTH)
    if type(instance) is not int or not 0 <= instance < instances:
        raise FormatError(f"{where}.instance: R9.4: the holder has {instances} Anti-Stealth "
                          f"instance(s) (got {instance!r})")
    if owner.side is aimed.side:
        raise FormatError(f"{where}: R9.4: a lock aims at an enemy piece")
    return Lock(owner.pid, instance, aimed.pid)


def _actions_from(data: Any, pieces: tuple[Piece, ...]) -> ActionCounts:
    if not isinstance(data, dict):
        raise FormatError("actions_this_turn: expected an object of action: count")
    counts: dict[str, Any] = {}
    for name in sorted(data):
        value = data[name]
        if name == "actors":
            if (not isinstance(value, list)
                    or not all(type(v) is int and 0 <= v < len(pieces) for v in value)):
                raise FormatError("actions_this_turn.actors: expected indexes into pieces of "
                                  "the pieces that acted this turn (R4.12)")
            counts["actors"] = tuple(pieces[v].pid for v in sorted(set(value)))
            continue
        if name not in ACTION_LIMITS:
            raise FormatError(f"actions_this_turn.{name}: unknown action "
                              f"(known: {', '.join(ACTION_LIMITS)}, actors)")
        limit = ACTION_LIMITS[name]
        if type(value) is not int or not 0 <= value <= limit:
            raise FormatError(f"actions_this_turn.{name}: R4.3 allows 0..{limit} per turn "
                              f"(got {value!r})")
        counts[name] = value
    return ActionCounts(**counts) if counts else FRESH_TURN


def _result_from(data: Any) -> Result:
    if not isinstance(data, dict) or sorted(data) != ["reason", "winner"] \
            or not isinstance(data["reason"], str):
        raise FormatError("result: expected {\"winner\": SIDE, \"reason\": TEXT}")
    return Result(_side(data["winner"], "result.winner"), data["reason"])


def validate_position(position: Position) -> None:
    """The board invariants every position keeps (R1.6, R1.7, R2.5, R2.6, R3.6, R9.9, R10.4)."""
    by_cell: dict[int, list[tuple[int, Piece]]] = {}
    for i, p in enumerate(position.pieces):
        by_cell.setdefault(p.cell, []).append((i, p))
        where = f"pieces[{i}]"
        capacity = article_capacity(p.kind, p.articles)
        if len(p.articles) > capacity:
            raise FormatError(f"{where}: R2.6: a {p.kind.value} carrying these articles may "
                              f"carry at most {capacity}")
        if (TRAITS[p.kind].primary and ArticleKind.STEALTH in p.articles
                and not position.options.king_may_be_stealthy):
            raise FormatError(f"{where}: R9.9: a primary government piece may not carry Stealth "
                              "unless option O26 king_may_be_stealthy is on")
        if position.viewer is not None and p.side is not position.viewer and p.hidden:
            raise FormatError(f"{where}: a view lists only enemy pieces its side sees")
    for c in sorted(by_cell):
        _validate_cell(c, by_cell[c])
    total = sum(len(g) for g in position.ground_articles) + sum(
        len(p.articles) for p in position.pieces)
    if total > MAX_ARTICLES:
        raise FormatError(f"articles: R3.6: at most {MAX_ARTICLES} articles may exist "
                          f"(got {total})")
    _validate_reinforcements(position.reinforcements)


def _validate_cell(c: int, entries: list[tuple[int, Piece]]) -> None:
    where = f"pieces[{entries[-1][0]}]"
    at = board.describe_cell(c)
    pieces = [p for _, p in entries]
    if len(pieces) > 2:
        raise FormatError(f"{where}: R1.6: {at} holds {len(pieces)} pieces (at most 2)")
    sides = {p.side.value for p in pieces}
    if len(sides) == 2:
        if any(p.level not in TRAITS[p.kind].native for p in pieces):
            raise FormatError(f"{where}: R1.6: pieces of both sides share {at} and are not "
                              "both independent there (R6.7.4)")
    elif len(pieces) == 2 and not any(TRAITS[p.kind].coexists for p in pieces):
        raise FormatError(f"{where}: R1.6: {pieces[0].kind.value} and {pieces[1].kind.value} "
                          f"share {at} but neither can coexist")
    for i, p in entries:
        if p.level in TRAITS[p.kind].native:
            continue
        carriers = [q for q in pieces if q is not p and q.side is p.side and TRAITS[q.kind].carries
                    and q.level in TRAITS[q.kind].native]
        if not carriers:
            raise FormatError(f"pieces[{i}]: R2.5: a {p.kind.value} at {p.level.label} must be "
                              "the passenger of an own Chopper or Sub in the same cell")


def _validate_reinforcements(items: tuple[Reinforcement, ...]) -> None:
    by_square: dict[tuple[str, int], list[Reinforcement]] = {}
    for r in items:
        by_square.setdefault((r.side.value, r.sq), []).append(r)
    for (_, sq), group in sorted(by_square.items()):
        handed = any(r.kind is not None and TRAITS[r.kind].handed for r in group)
        if len(group) > 2 or (handed and len(group) > 1):
            raise FormatError(f"reinforcements: R10.4: {board.describe_square(sq)} may hold 2 "
                              "reinforcements, or a handed one alone")


# ---------------------------------------------------------------- intents

def _cell(value: Any, where: str) -> int:
    if (isinstance(value, list) and len(value) in (2, 3)
            and all(type(v) is int for v in value[:2]) and board.on_board(value[0], value[1])):
        level = _level(value[2], where) if len(value) == 3 else Level.GROUND
        return board.cell_at(value[0], value[1], level)
    raise FormatError(f"{where}: expected [row, col, level] with row and col 1..10 and level "
                      f"air, ground or sub (got {value!r})")


_INTENT_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # act: (required fields, optional fields)
    "move": (("from", "to"), ("kind", "hand", "carry")),
    "end": ((), ()),
    "pickup": (("from", "article"), ("kind", "hand")),
    "drop": (("from", "article"), ("kind", "hand")),
    "exchange": (("from", "to", "give"), ("take", "kind", "to_kind", "hand", "to_hand")),
    "reinforce": (("at", "kind"), ("hand",)),
}


def intent_from_dict(data: Any) -> Intent:
    """Read one intent (board frame, docs/formats.md)."""
    if not isinstance(data, dict):
        raise FormatError("intent: expected a JSON object with \"act\"")
    if "format" in data:
        if data["format"] != INTENT_FORMAT:
            raise FormatError(f"intent.format: {data['format']!r} is not readable by this "
                              f"version of wec (it reads {INTENT_FORMAT})")
        data = {k: v for k, v in data.items() if k != "format"}
    act = data.get("act")
    if act not in _INTENT_FIELDS:
        raise FormatError(f"intent.act: expected one of {', '.join(_INTENT_FIELDS)} "
                          f"(got {act!r})")
    required, optional = _INTENT_FIELDS[act]
    _no_unknown(data, ("act", *required, *optional), "intent")
    for key in required:
        if key not in data:
            raise FormatError(f"intent.{key}: required for {act}")

    def opt(key: str, cls: Any) -> Any:
        value = data.get(key)
        return None if value is None else _enum(cls, value, f"intent.{key}")

    if act == "end":
        return EndTurn()
    if act == "reinforce":
        return Reinforce(_square(data["at"], "intent.at"), opt("kind", PieceKind),
                         opt("hand", Hand))
    frm = _cell(data["from"], "intent.from")
    if act == "move":
        carry = data.get("carry")
        if carry is not None and type(carry) is not bool:
            raise FormatError(f"intent.carry: expected true or false (got {carry!r})")
        return Move(frm, _cell(data["to"], "intent.to"), opt("kind", PieceKind), carry,
                    opt("hand", Hand))
    if act == "pickup":
        return PickUp(frm, opt("article", ArticleKind), opt("kind", PieceKind), opt("hand", Hand))
    if act == "drop":
        return Drop(frm, opt("article", ArticleKind), opt("kind", PieceKind), opt("hand", Hand))
    return Exchange(frm, _cell(data["to"], "intent.to"), opt("give", ArticleKind),
                    opt("take", ArticleKind), opt("kind", PieceKind), opt("to_kind", PieceKind),
                    opt("hand", Hand), opt("to_hand", Hand))


def cell_to_list(c: int) -> list[Any]:
    sq = board.cell_square(c)
    return [board.row_of(sq), board.col_of(sq), board.cell_level(c).label]


def intent_to_dict(intent: Intent) -> dict[str, Any]:
    """One intent as JSON data; optional fields only where set."""
    if isinstance(intent, EndTurn):
        return {"act": "end"}
    out: dict[str, Any]
    if isinstance(intent, Move):
        out = {"act": "move", "from": cell_to_list(intent.frm), "to": cell_to_list(intent.to)}
        extra = {"kind": intent.kind, "hand": intent.hand, "carry": intent.carry}
    elif isinstance(intent, Reinforce):
        out = {"act": "reinforce", "at": [board.row_of(intent.sq), board.col_of(intent.sq)],
               "kind": intent.kind.value}
        extra = {"hand": intent.hand}
    elif isinstance(intent, PickUp | Drop):
        act = "pickup" if isinstance(intent, PickUp) else "drop"
        where = intent.at if isinstance(intent, PickUp) else intent.frm
        out = {"act": act, "from": cell_to_list(where), "article": intent.article.value}
        extra = {"kind": intent.kind, "hand": intent.hand}
    else:
        out = {"act": "exchange", "from": cell_to_list(intent.frm),
               "to": cell_to_list(intent.to), "give": intent.give.value,
               "take": intent.take.value if intent.take else None}
        extra = {"kind": intent.kind, "to_kind": intent.to_kind, "hand": intent.hand,
                 "to_hand": intent.to_hand}
    for key, value in extra.items():
        if value is not None:
            out[key] = value if isinstance(value, bool) else value.value
    return out
