"""The position format ``wec-position/1`` and intent JSON (docs/formats.md).

Pure conversions between JSON-shaped data (dicts, lists) and engine values; the
caller does the reading and writing. Every refusal is a FormatError naming the
field, and the rule where a rule is broken.
"""

from __future__ import annotations

from typing import Any

from wec.engine import board
from wec.engine.articles import MAX_ARTICLES
from wec.engine.board import Level
from wec.engine.errors import FormatError
from wec.engine.intents import Doze, Drop, EndTurn, Exchange, Fire, Intent, Move, PickUp, Reinforce
from wec.engine.options import options_from_dict, options_to_dict
from wec.engine.pieces import (
    TRAITS,
    ArticleKind,
    Hand,
    PieceKind,
    Side,
    article_capacity,
    may_share,
)
from wec.engine.position import (
    ACTION_LIMITS,
    FRESH_TURN,
    PATH_MODES,
    PROJECTILE_KINDS,
    ActionCounts,
    Lock,
    Marker,
    Piece,
    Position,
    Projectile,
    Reinforcement,
    Result,
    Reveal,
    Transit,
    normal_ready,
)
from wec.engine.reinforcement import turn_start_squares

POSITION_FORMAT = "wec-position/1"
INTENT_FORMAT = "wec-intent/1"
_POSITION_KEYS = ("format", "turn", "options", "pieces", "articles", "reinforcements",
                  "turn_start_squares", "locks", "projectiles", "hits_this_turn",
                  "actions_this_turn", "result", "viewer", "last_seen", "next_id")
_PIECE_KEYS = ("side", "kind", "at", "level", "hand", "articles", "moved", "hidden",
               "stunned_until", "ready", "transit", "revealed", "id")
_REVEALS = ("fire", "capture")  # R9.8
_ACTION_LISTS = ("actors", "firers", "transited")


# ---------------------------------------------------------------- writing

def piece_order_key(p: Piece) -> tuple[Any, ...]:
    """Canonical listing order: by square, level (Air, Ground, Sub), then content."""
    return (p.sq, int(p.level), p.side.value, p.kind.value, p.hand.value if p.hand else "",
            tuple(a.value for a in p.articles), p.moved, p.hidden, p.stunned_until, p.ready,
            (p.transit.article.value, p.transit.dest, p.transit.path) if p.transit else ())


def position_to_dict(position: Position, handles: bool = False) -> dict[str, Any]:
    """The position as ``wec-position/1`` data; fields at their default are left out.

    ``handles`` (a half state only): each piece with its identifier ("id", which the two
    half states of one game share), the next identifier ("next_id"), and the side's locks,
    markers and projectile targets naming a piece it does not see by identifier
    ("target_id", "piece_id"): what ``wec half`` writes, so that two half files can
    resolve intents together (docs/formats.md)."""
    if handles and position.viewer is None:
        raise ValueError("only a half state is written with its identifiers")
    ordered = sorted(position.pieces, key=piece_order_key)
    index = {p.pid: i for i, p in enumerate(ordered)}
    out: dict[str, Any] = {"format": POSITION_FORMAT, "turn": position.turn}
    if position.viewer is not None:
        out["viewer"] = position.viewer.value
    out["options"] = options_to_dict(position.options)
    out["pieces"] = [_piece_to_dict(p) for p in ordered]
    if handles:
        for item, p in zip(out["pieces"], ordered, strict=True):
            item["id"] = p.pid
        out["next_id"] = position.next_pid
    out["articles"] = ground_to_list(position)
    out["reinforcements"] = [_reinforcement_to_dict(r) for r in
                             sorted(position.reinforcements, key=_reinforcement_key)]
    if position.turn_start_squares:
        out["turn_start_squares"] = [[board.row_of(sq), board.col_of(sq)]
                                     for sq in position.turn_start_squares]
    locks = sorted((index[lk.holder], lk.instance, index[lk.target]) for lk in position.locks
                   if lk.holder in index and lk.target in index)
    if locks:
        out["locks"] = [{"holder": h, "instance": i, "target": t} for h, i, t in locks]
    if handles:  # R9.7(b): locks on pieces the side does not see (locked, but submerged)
        unseen = sorted((index[lk.holder], lk.instance, lk.target) for lk in position.locks
                        if lk.holder in index and lk.target not in index)
        out.setdefault("locks", []).extend(
            {"holder": h, "instance": i, "target_id": t} for h, i, t in unseen)
        if not out["locks"]:
            del out["locks"]
    if position.projectiles:
        out["projectiles"] = [projectile_to_dict(pr, position, handles) for pr in
                              sorted(position.projectiles, key=_projectile_key)]
    hits = sorted((index[pid], weapon.value, n) for pid, weapon, n in position.hits
                  if pid in index)
    if hits:
        out["hits_this_turn"] = [{"piece": i, "weapon": w, "count": n} for i, w, n in hits]
    if not position.actions.is_fresh():
        done: dict[str, Any] = {name: getattr(position.actions, name)
                                for name in ACTION_LIMITS if getattr(position.actions, name)}
        for name in _ACTION_LISTS:
            listed = sorted({index[pid] for pid in getattr(position.actions, name)
                             if pid in index})
            if listed:
                done[name] = listed
        if position.actions.mover in index:
            done["mover"] = index[position.actions.mover]
        if done:
            out["actions_this_turn"] = done
    if position.result is not None:
        out["result"] = {"winner": position.result.winner.value,
                         "reason": position.result.reason}
    if position.last_seen:
        shown = [m for m in position.last_seen if position.viewer is not None or m.pid in index]
        # canonical order (both sides and every action order agree on it)
        shown.sort(key=lambda m: (m.viewer.value, m.cell, m.kind.value, index.get(m.pid, -1)))
        out["last_seen"] = [_marker_to_dict(m, index, position.viewer, handles) for m in shown]
    return out


def _marker_to_dict(m: Marker, index: dict[int, int], viewer: Side | None,
                    handles: bool = False) -> dict[str, Any]:
    """R9.10: a half state writes where (and, with its handles, which piece); the full
    state also whose and which piece."""
    out: dict[str, Any] = {"kind": m.kind.value, "at": [board.row_of(m.cell // 3),
                                                        board.col_of(m.cell // 3)],
                           "level": board.cell_level(m.cell).label}
    if viewer is None:
        out = {"viewer": m.viewer.value, "piece": index[m.pid], **out}
    elif handles and m.pid >= 0:
        out["piece_id"] = m.pid
    return out


def ground_to_list(position: Position) -> list[dict[str, Any]]:
    return ground_list(position.ground_articles, position.ground_ready)


def ground_list(ground_articles: tuple[tuple[ArticleKind, ...], ...],
                ground_ready: tuple[tuple[int, ...], ...]) -> list[dict[str, Any]]:
    """The ground articles of the position format (R3.5: with their ready turn when not
    yet ready), square by square, each square's in a fixed order."""
    out = []
    for sq, here in enumerate(ground_articles):
        ready = ground_ready[sq] if ground_ready else (0,) * len(here)
        for a, r in sorted(zip(here, ready, strict=True), key=lambda ar: (ar[0].value, ar[1])):
            item: dict[str, Any] = {"kind": a.value, "at": [board.row_of(sq), board.col_of(sq)]}
            if r:
                item["ready"] = r
            out.append(item)
    return out


def _projectile_key(pr: Projectile) -> tuple[Any, ...]:
    return (pr.sq, pr.kind, pr.side.value, pr.strength, pr.dir, pr.target is not None)


def projectile_to_dict(pr: Projectile, position: Position,
                       handles: bool = False) -> dict[str, Any]:
    """One projectile's entry of the position format (its target named by cell; in a
    half state written with its handles, a target the side does not see by identifier)."""
    out: dict[str, Any] = {"kind": pr.kind, "side": pr.side.value,
                           "at": [board.row_of(pr.sq), board.col_of(pr.sq)],
                           "strength": pr.strength, "dir": list(pr.dir)}
    target = next((p for p in position.pieces if p.pid == pr.target), None)
    if target is None and pr.target is not None and handles:
        out["target_id"] = pr.target
    if target is not None:
        out["target"] = cell_to_list(target.cell)
        twins = [p for p in position.pieces if p.cell == target.cell and p.side is target.side]
        if len(twins) > 1:
            out["target_kind"] = target.kind.value
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
    if p.ready:
        out["ready"] = list(p.ready)
    if p.transit is not None:
        out["transit"] = {"article": p.transit.article.value,
                          "dest": [board.row_of(p.transit.dest), board.col_of(p.transit.dest)],
                          "path": p.transit.path}
    if p.revealed is not None and p.revealed.cell == p.cell:  # D-36: lasts while it stays
        out["revealed"] = p.revealed.kind
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
    next_pid = _identifiers(data, pieces, viewer)
    reinforcements = tuple(_reinforcement_from(r, i, viewer)
                           for i, r in enumerate(_list(data, "reinforcements", [])))
    ground, ground_ready = _ground_from(_list(data, "articles", []))
    locks = tuple(_lock_from(lk, i, pieces) for i, lk in enumerate(_list(data, "locks", [])))
    projectiles = tuple(_projectile_from(pr, i, pieces)
                        for i, pr in enumerate(_list(data, "projectiles", [])))
    hits = _hits_from(_list(data, "hits_this_turn", []), pieces)
    actions = _actions_from(data.get("actions_this_turn", {}), pieces)
    result = _result_from(data["result"]) if "result" in data else None
    markers = tuple(_marker_from(m, i, pieces, viewer)
                    for i, m in enumerate(_list(data, "last_seen", [])))
    position = Position(turn=turn, pieces=pieces, ground_articles=ground, options=options,
                        reinforcements=reinforcements, locks=locks, projectiles=projectiles,
                        hits=hits, ground_ready=ground_ready, actions=actions,
                        result=result, viewer=viewer, next_pid=next_pid, last_seen=markers)
    if "turn_start_squares" in data:
        squares = tuple(sorted({_square(v, f"turn_start_squares[{i}]") for i, v in
                                enumerate(_list(data, "turn_start_squares", []))}))
        position = position.evolve(turn_start_squares=squares)
    elif actions.is_fresh():  # a position at the start of a turn: what stands there now
        position = position.evolve(turn_start_squares=turn_start_squares(position))
    validate_position(position)
    return position


def _identifiers(data: dict[str, Any], pieces: tuple[Piece, ...], viewer: Side | None) -> int:
    """The pieces' identifiers: their index, or in a half state the "id" each states (all
    or none); the next identifier a piece entering play takes."""
    stated = ["id" in p for p in data["pieces"]]
    if any(stated) and viewer is None:
        raise FormatError("pieces: identifiers (\"id\") are written only in half states "
                          "(with \"viewer\")")
    if any(stated) and not all(stated):
        raise FormatError("pieces: every piece of a half state has its \"id\", or none")
    if len({p.pid for p in pieces}) != len(pieces):
        raise FormatError("pieces: two pieces have one id")
    least = max((p.pid for p in pieces), default=-1) + 1
    if "next_id" not in data:
        return least
    if viewer is None:
        raise FormatError("next_id: only a half state states it")
    next_id = data["next_id"]
    if type(next_id) is not int or next_id < least:
        raise FormatError(f"next_id: expected a whole number above every piece's id "
                          f"(got {next_id!r})")
    return next_id


def _marker_from(data: Any, i: int, pieces: tuple[Piece, ...], viewer: Side | None) -> Marker:
    """R9.10: a last-seen marker; in a full state it names its viewer and the (hidden,
    enemy) piece it stands for; in a half state written with its handles, the piece's
    identifier (``piece_id``)."""
    where = f"last_seen[{i}]"
    if not isinstance(data, dict):
        raise FormatError(f"{where}: expected an object")
    keys = ("kind", "at", "level") + (("viewer", "piece") if viewer is None else ())
    _no_unknown(data, (*keys, "piece_id") if viewer is not None else keys, where)
    for key in keys:
        if key not in data:
            raise FormatError(f"{where}.{key}: required field is missing")
    kind = _enum(PieceKind, data["kind"], f"{where}.kind")
    cell = _square(data["at"], f"{where}.at") * 3 + _level(data["level"], f"{where}.level")
    if viewer is not None:
        pid = data.get("piece_id", -1)
        if type(pid) is not int or (pid >= 0 and any(p.pid == pid for p in pieces)):
            raise FormatError(f"{where}.piece_id: R9.10: the id of an enemy piece the side "
                              f"does not see (got {pid!r})")
        return Marker(viewer, pid, kind, cell)
    marker_viewer = _side(data["viewer"], f"{where}.viewer")
    at = data["piece"]
    if type(at) is not int or not 0 <= at < len(pieces):
        raise FormatError(f"{where}.piece: expected the index of a listed piece (got {at!r})")
    piece = pieces[at]
    if piece.side is marker_viewer or not piece.hidden:
        raise FormatError(f"{where}.piece: R9.10: a marker stands for an enemy piece hidden "
                          f"from {marker_viewer.value}")
    return Marker(marker_viewer, piece.pid, kind, cell)


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
    ready = _ready_from(data.get("ready", []), len(TRAITS[kind].inherent) + len(articles), where)
    transit = _transit_from(data["transit"], where) if "transit" in data else None
    if transit is not None and transit.article not in articles:
        raise FormatError(f"{where}.transit: R8.4.3: a piece in transit carries its "
                          f"{transit.article.value}")
    revealed = None
    if "revealed" in data:
        if data["revealed"] not in _REVEALS:
            raise FormatError(f"{where}.revealed: R9.8: expected one of {list(_REVEALS)} "
                              f"(got {data['revealed']!r})")
        revealed = Reveal(data["revealed"], sq * 3 + level)
    pid = data.get("id", i)
    if type(pid) is not int or pid < 0:
        raise FormatError(f"{where}.id: expected a whole number >= 0 (got {pid!r})")
    return Piece(pid, side, kind, sq, level, hand, articles, flags["moved"], flags["hidden"],
                 stunned_until, ready, transit, revealed)


def _turn_number(value: Any, where: str, rule: str) -> int:
    if type(value) is not int or value < 0:
        raise FormatError(f"{where}: expected a turn number >= 0 ({rule}; got {value!r})")
    return value


def _ready_from(value: Any, instances: int, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or (value and len(value) != instances):
        raise FormatError(f"{where}.ready: expected one turn number per ability instance "
                          f"(inherent first, then articles: {instances}; R3.5)")
    return normal_ready(tuple(_turn_number(v, f"{where}.ready[{j}]", "R6.3")
                              for j, v in enumerate(value)))


def _transit_from(data: Any, where: str) -> Transit:
    where = f"{where}.transit"
    if not isinstance(data, dict) or not {"article", "dest"} <= set(data) \
            or not set(data) <= {"article", "dest", "path"}:
        raise FormatError(f"{where}: expected {{\"article\": ARTICLE, \"dest\": [row, col], "
                          "\"path\": beeline|port|starboard}")
    article = _enum(ArticleKind, data["article"], f"{where}.article")
    if article not in (ArticleKind.BIKE, ArticleKind.JUMP_PACK, ArticleKind.SCUBA_SUIT):
        raise FormatError(f"{where}.article: R8: bike, jump_pack or scuba_suit")
    return Transit(article, _square(data["dest"], f"{where}.dest"),
                   _path(data.get("path", "beeline"), f"{where}.path"))


def _path(value: Any, where: str) -> str:
    if value not in PATH_MODES:
        raise FormatError(f"{where}: R8.5: one of {', '.join(PATH_MODES)} (got {value!r})")
    return str(value)


def _ground_from(items: list[Any]) -> tuple[tuple[tuple[ArticleKind, ...], ...],
                                            tuple[tuple[int, ...], ...]]:
    ground: list[tuple[ArticleKind, ...]] = [()] * board.SQUARES
    ready: list[tuple[int, ...]] = [()] * board.SQUARES
    for i, item in enumerate(items):
        where = f"articles[{i}]"
        if not isinstance(item, dict) or not {"at", "kind"} <= set(item) \
                or not set(item) <= {"at", "kind", "ready"}:
            raise FormatError(f"{where}: expected {{\"kind\": ARTICLE, \"at\": [row, col]}} "
                              "(and \"ready\": TURN for a weapon cooling down)")
        kind = _enum(ArticleKind, item["kind"], f"{where}.kind")
        sq = _square(item["at"], f"{where}.at")
        if len(ground[sq]) >= 2:
            raise FormatError(f"{where}: R1.7: {board.describe_square(sq)} would hold more than "
                              "2 unowned articles")
        ground[sq] = ground[sq] + (kind,)
        ready[sq] = ready[sq] + (_turn_number(item.get("ready", 0), f"{where}.ready", "R3.5"),)
    return tuple(ground), (tuple(ready) if any(any(r) for r in ready) else ())


def _projectile_from(data: Any, i: int, pieces: tuple[Piece, ...]) -> Projectile:
    where = f"projectiles[{i}]"
    known = {"kind", "side", "at", "strength", "dir", "target", "target_kind", "target_id"}
    if not isinstance(data, dict) or not {"kind", "side", "at"} <= set(data) \
            or not set(data) <= known:
        raise FormatError(f"{where}: expected {{\"kind\", \"side\", \"at\", \"strength\", "
                          "\"dir\"}} (and \"target\" when homing)")
    kind = data["kind"]
    if kind not in PROJECTILE_KINDS:
        raise FormatError(f"{where}.kind: R6.8.1: one of {', '.join(PROJECTILE_KINDS)} "
                          f"(got {kind!r})")
    side = _side(data["side"], f"{where}.side")
    sq = _square(data["at"], f"{where}.at")
    strength = data.get("strength", 1)
    if type(strength) is not int or not 1 <= strength <= 3:
        raise FormatError(f"{where}.strength: R6.4.5: 1..3 (got {strength!r})")
    d = data.get("dir")
    target = None
    if "target" in data:
        cell = _cell(data["target"], f"{where}.target")
        level = {"rocket": Level.GROUND, "sam": Level.AIR, "torpedo": Level.SUB}[kind]
        if kind == "rocket" or board.cell_level(cell) is not level:
            raise FormatError(f"{where}.target: R6.11.1: a {kind} homes on a piece at "
                              f"{level.label}" if kind != "rocket" else
                              f"{where}.target: R6.9.1: a rocket never homes")
        candidates = [p for p in pieces if p.cell == cell and p.side is not side]
        if "target_kind" in data:
            tk = _enum(PieceKind, data["target_kind"], f"{where}.target_kind")
            candidates = [p for p in candidates if p.kind is tk]
        if not candidates:
            raise FormatError(f"{where}.target: no {side.other.value} piece at "
                              f"{board.describe_cell(cell)} to home on")
        target = sorted(candidates, key=piece_order_key)[0]
        if d is None:
            d = list(board.sign_step(sq, target.sq))
    unseen_target = data.get("target_id")
    if unseen_target is not None and (target is not None or kind == "rocket"
                                      or type(unseen_target) is not int
                                      or any(p.pid == unseen_target for p in pieces)):
        raise FormatError(f"{where}.target_id: R6.11: the id of the homing target when the "
                              "half state does not see it (and no \"target\")")
    if not isinstance(d, list) or tuple(d) not in board.DIRECTIONS:
        raise FormatError(f"{where}.dir: R1.10: one of the 8 king vectors [dr, dc] "
                          f"(got {d!r})")
    return Projectile(kind, side, sq, strength, (d[0], d[1]),
                      target.pid if target is not None else unseen_target)


def _hits_from(items: list[Any], pieces: tuple[Piece, ...]
               ) -> tuple[tuple[int, ArticleKind, int], ...]:
    out = {}
    for i, item in enumerate(items):
        where = f"hits_this_turn[{i}]"
        if not isinstance(item, dict) or sorted(item) != ["count", "piece", "weapon"]:
            raise FormatError(f"{where}: expected {{\"piece\": INDEX, \"weapon\": WEAPON, "
                              "\"count\": N}")
        index, count = item["piece"], item["count"]
        if type(index) is not int or not 0 <= index < len(pieces):
            raise FormatError(f"{where}.piece: expected an index into pieces (got {index!r})")
        weapon = _enum(ArticleKind, item["weapon"], f"{where}.weapon")
        if weapon.value not in _WEAPON_NAMES:
            raise FormatError(f"{where}.weapon: R6.4.4: one of {', '.join(_WEAPON_NAMES)}")
        if type(count) is not int or count < 1:
            raise FormatError(f"{where}.count: R6.4.2: a number of hits >= 1 (got {count!r})")
        out[(pieces[index].pid, weapon)] = count
    return tuple(sorted(((pid, w, n) for (pid, w), n in out.items()),
                        key=lambda h: (h[0], h[1].value)))


_WEAPON_NAMES = ("flame", "stunner", "conversion", "rocket_launcher", "sam_launcher",
                 "torpedo_launcher")


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
    if isinstance(data, dict) and sorted(data) == ["holder", "instance", "target_id"]:
        return _unseen_lock(data, where, pieces)
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


def _unseen_lock(data: dict[str, Any], where: str, pieces: tuple[Piece, ...]) -> Lock:
    """R9.4, R9.7(b): a half state's lock on a piece it does not see, by identifier."""
    holder, instance, target = data["holder"], data["instance"], data["target_id"]
    if type(holder) is not int or not 0 <= holder < len(pieces):
        raise FormatError(f"{where}.holder: expected an index into pieces (got {holder!r})")
    owner = pieces[holder]
    instances = owner.abilities().count(ArticleKind.ANTI_STEALTH)
    if type(instance) is not int or not 0 <= instance < instances:
        raise FormatError(f"{where}.instance: R9.4: the holder has {instances} Anti-Stealth "
                          f"instance(s) (got {instance!r})")
    if type(target) is not int or any(p.pid == target for p in pieces):
        raise FormatError(f"{where}.target_id: the id of a piece the half state does not see "
                          f"(got {target!r})")
    return Lock(owner.pid, instance, target)


def _actions_from(data: Any, pieces: tuple[Piece, ...]) -> ActionCounts:
    if not isinstance(data, dict):
        raise FormatError("actions_this_turn: expected an object of action: count")
    counts: dict[str, Any] = {}
    for name in sorted(data):
        value = data[name]
        if name in _ACTION_LISTS:
            if (not isinstance(value, list)
                    or not all(type(v) is int and 0 <= v < len(pieces) for v in value)):
                raise FormatError(f"actions_this_turn.{name}: expected indexes into pieces "
                                  "(R4.5, R4.12)")
            counts[name] = tuple(pieces[v].pid for v in sorted(set(value)))
            continue
        if name == "mover":
            if type(value) is not int or not 0 <= value < len(pieces):
                raise FormatError("actions_this_turn.mover: expected the index of the piece "
                                  "that made the Move (R4.5)")
            counts["mover"] = pieces[value].pid
            continue
        if name not in ACTION_LIMITS:
            raise FormatError(f"actions_this_turn.{name}: unknown action "
                              f"(known: {', '.join(ACTION_LIMITS)}, "
                              f"{', '.join(_ACTION_LISTS)}, mover)")
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
        if any(not p.is_native_here() for p in pieces):
            raise FormatError(f"{where}: R1.6: pieces of both sides share {at} and are not "
                              "both independent there (R6.7.4)")
    elif not may_share(len(pieces), any(TRAITS[p.kind].coexists for p in pieces)):
        raise FormatError(f"{where}: R1.6: {pieces[0].kind.value} and {pieces[1].kind.value} "
                          f"share {at} but neither can coexist")
    for i, p in entries:
        if p.is_native_here():
            continue
        carriers = [q for q in pieces if q is not p and q.side is p.side and TRAITS[q.kind].carries
                    and q.is_native_here()]
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
    "fire": (("from", "weapon"), ("dir", "target", "dest", "path", "kind", "hand",
                                  "target_kind")),
    "doze": (("from", "squares", "dir"), ()),
}
_FIRE_WEAPONS = ("flame", "stunner", "conversion", "rocket_launcher", "sam_launcher",
                 "torpedo_launcher", "bike", "jump_pack", "scuba_suit")


def _direction(value: Any, where: str) -> tuple[int, int]:
    if not isinstance(value, list) or len(value) != 2 or tuple(value) not in board.DIRECTIONS:
        raise FormatError(f"{where}: R1.10: one of the 8 king vectors [dr, dc] with dr, dc in "
                          f"-1..1, not both 0 (got {value!r})")
    return (value[0], value[1])


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
    if not isinstance(act, str) or act not in _INTENT_FIELDS:
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
    if act == "doze":
        squares = data["squares"]
        if not isinstance(squares, list):
            raise FormatError("intent.squares: expected a list of [row, col] (R8.8.2)")
        return Doze(_square(data["from"][:2] if isinstance(data["from"], list) else None,
                            "intent.from"),
                    tuple(_square(v, f"intent.squares[{i}]") for i, v in enumerate(squares)),
                    _direction(data["dir"], "intent.dir"))
    if act == "fire":
        return _fire_from(data)
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


def _fire_from(data: dict[str, Any]) -> Fire:
    weapon = data["weapon"]
    if weapon not in _FIRE_WEAPONS:
        raise FormatError(f"intent.weapon: one of {', '.join(_FIRE_WEAPONS)} (got {weapon!r})")
    aims = [key for key in ("dir", "target", "dest") if data.get(key) is not None]
    if len(aims) != 1:
        raise FormatError("intent: R6.1.3: a Fire has exactly one aim: \"dir\", \"target\" or "
                          "\"dest\"")
    path = _path(data.get("path", "beeline"), "intent.path")
    if "path" in data and aims != ["dest"]:
        raise FormatError("intent.path: only a transport Fire (with \"dest\") has a path")

    def opt(key: str, cls: Any) -> Any:
        value = data.get(key)
        return None if value is None else _enum(cls, value, f"intent.{key}")

    return Fire(_cell(data["from"], "intent.from"), ArticleKind(weapon),
                dir=_direction(data["dir"], "intent.dir") if aims == ["dir"] else None,
                target=_cell(data["target"], "intent.target") if aims == ["target"] else None,
                dest=_square(data["dest"], "intent.dest") if aims == ["dest"] else None,
                path=path, kind=opt("kind", PieceKind), hand=opt("hand", Hand),
                target_kind=opt("target_kind", PieceKind))


def cell_to_list(c: int) -> list[Any]:
    sq = board.cell_square(c)
    return [board.row_of(sq), board.col_of(sq), board.cell_level(c).label]


def _square_list(sq: int) -> list[int]:
    return [board.row_of(sq), board.col_of(sq)]


def intent_to_dict(intent: Intent) -> dict[str, Any]:
    """One intent as JSON data; optional fields only where set."""
    if isinstance(intent, EndTurn):
        return {"act": "end"}
    out: dict[str, Any]
    if isinstance(intent, Doze):
        return {"act": "doze", "from": _square_list(intent.sq),
                "squares": [_square_list(q) for q in intent.squares], "dir": list(intent.dir)}
    if isinstance(intent, Move):
        out = {"act": "move", "from": cell_to_list(intent.frm), "to": cell_to_list(intent.to)}
        extra = {"kind": intent.kind, "hand": intent.hand, "carry": intent.carry}
    elif isinstance(intent, Reinforce):
        out = {"act": "reinforce", "at": [board.row_of(intent.sq), board.col_of(intent.sq)],
               "kind": intent.kind.value}
        extra = {"hand": intent.hand}
    elif isinstance(intent, Fire):
        out = {"act": "fire", "from": cell_to_list(intent.frm), "weapon": intent.weapon.value}
        if intent.dir is not None:
            out["dir"] = list(intent.dir)
        elif intent.target is not None:
            out["target"] = cell_to_list(intent.target)
        elif intent.dest is not None:
            out["dest"] = _square_list(intent.dest)
            if intent.path != "beeline":
                out["path"] = intent.path
        extra = {"kind": intent.kind, "hand": intent.hand, "target_kind": intent.target_kind}
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
