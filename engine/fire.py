"""Fire (R6, R8.1): weapons and transport articles.

A Fire names one ability type of one own piece; every ready instance of it fires
together (group fire, R6.2) and each starts its cooldown (R6.3). Legality is judged
on what the firer's side knows; effects resolve on the truth and reach pieces of both
sides, visible or hidden (R6.1.5, R9.11).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from typing import NamedTuple, overload

from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB, Level
from wec.engine.budget import refuse_if_acted, refuse_if_spent, spend, transited
from wec.engine.effects import Working
from wec.engine.errors import IllegalIntent, Reason
from wec.engine.events import Fired, ProjectileLaunched, TransportEnded, TransportStepped
from wec.engine.intents import Fire
from wec.engine.movement import piece_cache
from wec.engine.outcome import FIRED, EventLog, about
from wec.engine.pieces import TRAITS, ArticleKind, Hand, PieceKind, describe_kind, may_share
from wec.engine.position import (
    PATH_MODES,
    Piece,
    Position,
    Projectile,
    Reveal,
    Transit,
    normal_ready,
)
from wec.engine.selection import select_own, twin_hand
from wec.engine.transport import advance, distinct_paths

A = ArticleKind

# R6.3.1, O28: the rate-of-fire option of each weapon type.
RATE = {A.FLAME: "flame", A.STUNNER: "stunner", A.CONVERSION: "conversion",
        A.ROCKET_LAUNCHER: "rocket", A.SAM_LAUNCHER: "sam", A.TORPEDO_LAUNCHER: "torpedo"}
WEAPONS = tuple(RATE)
TRANSPORTS = (A.BIKE, A.JUMP_PACK, A.SCUBA_SUIT)
PROJECTILE = {A.ROCKET_LAUNCHER: "rocket", A.SAM_LAUNCHER: "sam", A.TORPEDO_LAUNCHER: "torpedo"}
PROJECTILE_LEVEL = {"rocket": GROUND, "sam": AIR, "torpedo": SUB}
_RISE = {A.JUMP_PACK: AIR, A.SCUBA_SUIT: SUB}


class FirePlan(NamedTuple):
    """A legal Fire, ready to resolve."""

    piece: Piece
    weapon: ArticleKind
    instances: tuple[int, ...]  # indexes into piece.abilities() that fire
    dir: tuple[int, int] | None
    target: Piece | None
    dest: int | None
    path: str


def _name(article: ArticleKind) -> str:
    return article.value.replace("_", " ").replace("sam", "SAM")


def _who(piece: Piece) -> str:
    return f"the {describe_kind(piece.kind)} at {board.describe_cell(piece.cell)}"


def is_restricted(piece: Piece, instance: int) -> bool:
    """R6.12: the inherent Rocket Launcher of a Jet or Sub is restricted."""
    return (instance < len(TRAITS[piece.kind].inherent)
            and piece.kind in (PieceKind.JET, PieceKind.SUB)
            and TRAITS[piece.kind].inherent[instance] is A.ROCKET_LAUNCHER)


def ready_instances(piece: Piece, weapon: ArticleKind, turn: int,
                    targeted: bool = False) -> tuple[int, ...]:
    """R6.2.1: the instances of ``weapon`` that would fire now; a restricted Rocket
    Launcher joins only a targeted rocket, which it must lead (R6.2.2, R6.12.2)."""
    out = []
    lead = False
    for i, ability in enumerate(piece.abilities()):
        if ability is not weapon or piece.ready_at(i) > turn:
            continue
        if weapon is A.ROCKET_LAUNCHER:
            restricted = is_restricted(piece, i)
            if restricted and not targeted:
                continue
            lead = lead or restricted
        out.append(i)
    if weapon is A.ROCKET_LAUNCHER and targeted and not lead:
        return ()
    return tuple(out)


# ---------------------------------------------------------------- legality

def firer_reason(position: Position, piece: Piece) -> Reason | None:
    """Why ``piece`` may not fire anything now (R4.5, R7.2), or None."""
    if piece.pid in position.actions.firers:
        return ("R4.5", f"{_who(piece)} has already fired this turn (one Fire per piece)")
    if piece.stunned(position.turn):
        return ("R7.2", f"{_who(piece)} is stunned until turn {piece.stunned_until} and may "
                        "not Fire")
    return None


def check_fire(position: Position, piece: Piece, intent: Fire) -> FirePlan | Reason:
    """The legality filter for one Fire of ``piece`` (R6, R8.1)."""
    reason = firer_reason(position, piece)
    if reason:
        return reason
    weapon = intent.weapon
    if weapon not in piece.abilities():
        return ("R6.1.1", f"{_who(piece)} holds no {_name(weapon)}")
    if weapon in TRANSPORTS:
        return _check_transport(position, piece, intent)
    if weapon not in RATE:
        return ("R3.1", f"a {_name(weapon)} cannot be fired")
    aims = [a for a in (intent.dir, intent.target, intent.dest) if a is not None]
    if len(aims) != 1 or intent.dest is not None:
        return ("R6.1.3", f"aim a {_name(weapon)} with a direction \"dir\""
                + (" or a target \"target\"" if weapon in PROJECTILE else ""))
    if intent.target is not None:
        return _check_targeted(position, piece, intent)
    d = intent.dir
    assert d is not None
    if d not in board.DIRECTIONS:
        return ("R1.10", f"a direction is one of the 8 king vectors (got {list(d)})")
    instances = ready_instances(piece, weapon, position.turn)
    if not instances:
        return _not_ready(position, piece, weapon)
    if board.offset(piece.sq, d) is None:
        return ("R6.8.2" if weapon in PROJECTILE else "R1.10",
                f"no square of the board lies in direction {list(d)} from "
                f"{board.describe_square(piece.sq)}")
    return FirePlan(piece, weapon, instances, d, None, None, "beeline")


def _not_ready(position: Position, piece: Piece, weapon: ArticleKind) -> Reason:
    held = [i for i, a in enumerate(piece.abilities()) if a is weapon]
    if weapon is A.ROCKET_LAUNCHER and all(is_restricted(piece, i) for i in held):
        return ("R6.12.1", f"the restricted Rocket Launcher of {_who(piece)} fires only at a "
                           "target (\"target\"), never in a direction")
    soonest = min(piece.ready_at(i) for i in held)
    return ("R6.3.2", f"the {_name(weapon)} of {_who(piece)} has fired and is ready again on "
                      f"turn {soonest}")


def _check_targeted(position: Position, piece: Piece, intent: Fire) -> FirePlan | Reason:
    """Homing SAM and Torpedo (R6.11.1) and the restricted rocket (R6.12.1)."""
    weapon, target_cell = intent.weapon, intent.target
    assert target_cell is not None
    if weapon not in PROJECTILE:
        return ("R6.1.3", f"a {_name(weapon)} is aimed with a direction, not a target")
    level = board.cell_level(target_cell)
    sq = board.cell_square(target_cell)
    where = board.describe_cell(target_cell)
    rule = "R6.12.1" if weapon is A.ROCKET_LAUNCHER else "R6.11.1"
    enemies = [p for p in position.known_occupancy(piece.side)[target_cell]
               if p.side is not piece.side]
    if intent.target_kind is not None:
        enemies = [p for p in enemies if p.kind is intent.target_kind]
    if not enemies:
        return (rule, f"no visible enemy piece at {where} to aim at")
    target = enemies[0]
    distance = board.distance(piece.sq, sq)
    if weapon is A.ROCKET_LAUNCHER:
        if level is not GROUND:
            return (rule, "the restricted rocket hits a target at Ground only")
        limit = position.options.restricted_rocket_range
        if distance > limit:
            return (rule, f"{where} is {distance} squares away; the restricted Rocket "
                          f"Launcher reaches {limit} (option O13)")
        instances = ready_instances(piece, weapon, position.turn, targeted=True)
        if not instances:
            if not any(is_restricted(piece, i) for i, a in enumerate(piece.abilities())
                       if a is weapon):
                return (rule, f"{_who(piece)} has no restricted Rocket Launcher: a Rocket is "
                              "fired in a direction (R6.9.1)")
            return _not_ready(position, piece, weapon)
        return FirePlan(piece, weapon, instances, None, target, None, "beeline")
    if level is not PROJECTILE_LEVEL[PROJECTILE[weapon]]:
        return (rule, f"a {PROJECTILE[weapon].upper() if weapon is A.SAM_LAUNCHER else 'Torpedo'}"
                      f" homes on a target at {PROJECTILE_LEVEL[PROJECTILE[weapon]].label}")
    limit = position.options.homing_range
    if distance > limit:
        return (rule, f"{where} is {distance} squares away; homing reaches {limit} "
                      "(option O14)")
    if distance == 0:
        return ("R6.8.2", "a projectile starts on an adjacent square; this target shares the "
                          "firer's square")
    instances = ready_instances(piece, weapon, position.turn)
    if not instances:
        return _not_ready(position, piece, weapon)
    return FirePlan(piece, weapon, instances, None, target, None, "beeline")


def _check_transport(position: Position, piece: Piece, intent: Fire) -> FirePlan | Reason:
    """R8.1, R4.5, R8.3.1, R8.6."""
    reason = transport_piece_reason(position, piece, intent.weapon)
    if reason:
        return reason
    if intent.dest is None or intent.dir is not None or intent.target is not None:
        return ("R8.1.2", "aim a transport article with a destination square \"dest\"")
    if intent.dest == piece.sq:
        return ("R8.1.2", "the destination must differ from the current square")
    if intent.path not in PATH_MODES:
        return ("R8.5", f"path is one of {', '.join(PATH_MODES)} (got {intent.path!r})")
    return FirePlan(piece, intent.weapon, (), None, None, intent.dest, intent.path)


def transport_piece_reason(position: Position, piece: Piece,
                           article: ArticleKind) -> Reason | None:
    """Why ``piece`` may not fire its transport ``article`` to any destination now."""
    name = _name(article)
    if article not in piece.articles:
        return ("R8.1.1", f"{_who(piece)} carries no {name}")
    if piece.transit is not None:
        return ("R8.4.3", f"{_who(piece)} is in transit and cannot fire its transport again")
    if piece.pid == position.actions.mover:
        return ("R4.5", f"{_who(piece)} made this turn's Move and may not be set in transport")
    if TRAITS[piece.kind].primary and article is not A.BIKE \
            and not position.options.king_may_fly_or_go_sub:
        return ("R8.1.1", f"option O25 forbids the {describe_kind(piece.kind)} a {name}")
    if piece.level is not GROUND:
        carried_from = {A.JUMP_PACK: AIR, A.SCUBA_SUIT: SUB}.get(article)
        if not (position.options.transport_from_non_ground and piece.level is carried_from
                and not piece.is_native_here()):
            return ("R8.1.1", f"a transport article is fired from Ground (option O27 allows a "
                              f"Jump Pack from Air or a Scuba Suit from Sub when carried); "
                              f"{_who(piece)} is at {piece.level.label}")
        return None
    rise = _RISE.get(article)
    if rise is not None:
        cell = piece.sq * 3 + rise
        here = position.known_occupancy(piece.side)[cell]
        if any(p.side is not piece.side for p in here) or not may_share(
                len(here) + 1, TRAITS[piece.kind].coexists
                or any(TRAITS[p.kind].coexists for p in here)):
            return ("R8.3.1", f"{board.describe_cell(cell)} cannot take the "
                              f"{describe_kind(piece.kind)} (R1.6)")
    return None


def plan_fire(position: Position, intent: Fire) -> FirePlan:
    """Check a Fire intent; the plan to resolve, or IllegalIntent naming the rule."""
    refuse_if_spent(position, "fire")
    piece = select_own(position, intent.frm, intent.kind, intent.hand, "R6.1.1", "fire",
                       able=lambda p: isinstance(check_fire(position, p, intent), FirePlan))
    refuse_if_acted(position, piece)
    checked = check_fire(position, piece, intent)
    if not isinstance(checked, FirePlan):
        raise IllegalIntent(*checked)
    return checked


# ---------------------------------------------------------------- resolution

def resolve_fire(position: Position, intent: Fire) -> tuple[Position, EventLog]:
    """Fire on the truth (the full state): effects in the order the rules give them.
    A partial state asks the Referee instead (engine.game, question 4)."""
    plan = plan_fire(position, intent)
    if position.viewer is not None:
        raise ValueError("a Fire resolves on the full state (its effects reach hidden pieces)")
    piece, weapon = plan.piece, plan.weapon
    w = Working(position)
    actions = spend(position.actions, "fire", piece)
    if position.options.reveal_on_fire:  # R9.8: firing anything reveals the firer
        piece = piece.but(revealed=Reveal("fire", piece.cell))
        w.pieces[piece.pid] = piece
    if weapon in TRANSPORTS:
        w.events.emit(Fired(piece.side, piece.kind, piece.cell, weapon, 1, dest=plan.dest,
                            path=plan.path), (FIRED, (piece.pid,)))
        if _start_transport(w, piece, plan):
            actions = transited(actions, piece.pid)
        return w.finish(actions=actions), w.events
    ready = list(piece.ready or (0,) * len(piece.abilities()))
    next_ready = position.turn + 2 * position.options.rate(RATE[weapon])  # R6.3.2
    for i in plan.instances:
        ready[i] = next_ready
    firer = piece.but(ready=normal_ready(tuple(ready)))
    w.pieces[piece.pid] = firer
    n = len(plan.instances)
    target_cell = plan.target.cell if plan.target else None
    w.events.emit(Fired(piece.side, piece.kind, piece.cell, weapon, n, dir=plan.dir,
                        target=target_cell), (FIRED, (piece.pid,)))
    if weapon is A.FLAME:
        _flame(w, firer, plan.dir, n)
    elif weapon is A.STUNNER:
        _stun(w, firer, plan.dir, n)
    elif weapon is A.CONVERSION:
        _convert(w, firer, plan.dir, n)
    elif plan.target is not None and weapon is A.ROCKET_LAUNCHER:
        # R6.12.2: the restricted rocket impacts at once on every piece at Ground there
        for p in w.at(plan.target.sq * 3 + GROUND):
            if p.pid in w.pieces:
                w.hit(w.pieces[p.pid], A.ROCKET_LAUNCHER, n)
    else:
        _launch(w, firer, weapon, plan, n)
    return w.finish(actions=actions), w.events


def _flame(w: Working, firer: Piece, d: tuple[int, int] | None, n: int) -> None:
    """R6.5.1: every piece at the firer's level in squares 1..FlameRange along ``d``."""
    assert d is not None
    for k in range(1, w.options.flame_range + 1):
        sq = board.offset(firer.sq, d, k)
        if sq is None:
            break
        for p in w.at(sq * 3 + firer.level):
            if p.pid in w.pieces:
                w.hit(w.pieces[p.pid], A.FLAME, n)


def _stun(w: Working, firer: Piece, d: tuple[int, int] | None, n: int) -> None:
    """R6.6.1, D-26: the first square along ``d`` holding any piece at the firer's level."""
    assert d is not None
    for k in range(1, w.options.stunner_range + 1):
        sq = board.offset(firer.sq, d, k)
        if sq is None:
            return
        here = w.at(sq * 3 + firer.level)
        if here:
            for p in here:
                if p.pid in w.pieces:
                    w.hit(w.pieces[p.pid], A.STUNNER, n)
            return


def _convert(w: Working, firer: Piece, d: tuple[int, int] | None, n: int) -> None:
    """R6.7.1: the opposing side's pieces at the firer's level on the adjacent square."""
    assert d is not None
    sq = board.offset(firer.sq, d)
    assert sq is not None
    for p in w.at(sq * 3 + firer.level):
        current = w.pieces.get(p.pid)
        if current is not None and current.side is not firer.side:
            w.hit(current, A.CONVERSION, n)


def _launch(w: Working, firer: Piece, weapon: ArticleKind, plan: FirePlan, n: int) -> None:
    """R6.8.2: the projectile appears on the adjacent square at its own level."""
    kind = PROJECTILE[weapon]
    target = plan.target
    d = plan.dir if target is None else board.sign_step(firer.sq, target.sq)
    assert d is not None
    sq = board.offset(firer.sq, d)
    assert sq is not None
    w.projectiles.append(Projectile(kind, firer.side, sq, n, d,
                                    target.pid if target is not None else None))
    w.events.emit(ProjectileLaunched(kind, firer.side, sq, n, d,
                                     target.cell if target is not None else None))


def _start_transport(w: Working, piece: Piece, plan: FirePlan) -> bool:
    """R8.2.1, R8.3.1, R8.6.1: set off; True if the piece is now in transport."""
    assert plan.dest is not None
    traveller = piece.but(transit=Transit(plan.weapon, plan.dest, plan.path))
    rise: Level | None = _RISE.get(plan.weapon) if piece.level is GROUND else None
    if rise is not None:
        cell = piece.sq * 3 + rise
        risen = traveller.but(level=rise)
        if not w.accepts(risen, cell):  # only a hidden enemy can be there (R4.13, D-12)
            w.events.emit(TransportEnded(piece.side, piece.kind, piece.cell, "foiled"),
                          about(piece.pid))
            return False
        w.pieces[piece.pid] = risen
        w.events.emit(TransportStepped(piece.side, piece.kind, piece.cell, cell),
                      about(piece.pid))
        return True
    w.pieces[piece.pid] = traveller
    advance(w, traveller)  # a Bike, or a carried passenger (O27), steps at once
    return True


# ---------------------------------------------------------------- legal intents

def legal_fires(position: Position) -> list[Fire]:
    """Every legal Fire of the side to act (R4.3 budget permitting), on what it knows.

    Incremental: each piece's Fires are cached (``piece_cache`` "fires") with the mask
    of the cells they depend on (its square, and the cells its homing or restricted
    weapons reach) and the turns its ready instances allow (R6.3); tests/test_incremental.py
    compares with a fresh listing."""
    out: list[Fire] = []
    for entry in _fire_entries(position):
        out.extend(entry[1])
        for transports in entry[6]:
            out.extend(transports.all())
    return out


def fire_choices(position: Position) -> list[Sequence[Fire]]:
    """``legal_fires`` as consecutive parts, in order: the transport destinations of a
    piece (R8.1) are a ``TransportFires`` that builds a Fire only when asked for it. A
    random player picks one Fire of hundreds without building the rest."""
    out: list[Sequence[Fire]] = []
    for entry in _fire_entries(position):
        if entry[1]:
            out.append(entry[1])
        out.extend(entry[6])
    return out


def _fire_entries(position: Position) -> list[_FireEntry]:
    """The cache entries of the side to act's pieces that may fire, in piece order."""
    if (position.actions.fire >= 2 or position.options.action_restriction == "move_only"
            or position.result is not None):
        return []
    side, turn = position.side_to_act, position.turn
    actions = position.actions
    firers = actions.firers
    acted = (actions.actors
             if position.options.action_restriction == "one_action_per_piece" else ())
    cache: dict[int, _FireEntry] = piece_cache(position, _FIRES, side)
    out: list[_FireEntry] = []
    enemies: list[Piece] | None = None
    for piece in position.pieces:
        # R4.5: one Fire per piece; R7.2: a stunned piece does not fire; R4.12(b)
        if (piece.side is not side or piece.pid in firers or turn < piece.stunned_until
                or piece.pid in acted):
            continue
        moved = piece.pid == actions.mover  # R4.5: the mover is not set in transport
        entry = cache.get(piece.pid)
        if (entry is None or entry[0] is not piece or not entry[3] <= turn < entry[4]
                or entry[5] is not moved):
            if enemies is None:
                # the enemy pieces the side sees (R4.13): hidden ones are absent
                enemies = [p for p in position.pieces if p.side is not side and not p.hidden]
            entry = cache[piece.pid] = _fires_of(position, piece, enemies, moved)
        out.append(entry)
    return out


class TransportFires(Sequence[Fire]):
    """The Fires of one transport article of one piece, to every destination with each
    distinct path (R8.1, R8.5), in ``_transport_fires`` order; each built when asked."""

    __slots__ = ("article", "frm", "hand", "kind", "paths")

    def __init__(self, frm: int, article: ArticleKind, kind: PieceKind,
                 hand: Hand | None) -> None:
        self.frm, self.article, self.kind, self.hand = frm, article, kind, hand
        self.paths = _transport_paths(frm // 3)

    def __len__(self) -> int:
        return len(self.paths)

    @overload
    def __getitem__(self, index: int) -> Fire: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Fire]: ...

    def __getitem__(self, index: int | slice) -> Fire | Sequence[Fire]:
        if isinstance(index, slice):
            return self.all()[index]
        dest, path = self.paths[index]
        return Fire(self.frm, self.article, dest=dest, path=path, kind=self.kind,
                    hand=self.hand)

    def all(self) -> tuple[Fire, ...]:
        """Every one of these Fires (memo)."""
        return _transport_fires(self.frm, self.article, self.kind, self.hand)


# A piece's cached Fires: (piece, its Fires but the transport ones, mask of the cells
# they depend on, first and last-plus-one turn they hold for, whether the piece made
# this turn's Move, its transport Fires).
_FireEntry = tuple[Piece, tuple[Fire, ...], int, int, int, bool, tuple[TransportFires, ...]]
_FIRES = "fires"  # one of movement.PIECE_CACHES
_NEVER = 1 << 62  # no turn limit


def _fires_of(position: Position, piece: Piece, enemies: list[Piece],
              moved: bool) -> _FireEntry:
    """One piece's legal Fires as a cache entry. They depend on the piece, the turn only
    through which instances are ready (until the next ready turn after it), the side's
    knowledge of the piece's square (its twin, R8.3.1's rise cell) and of the cells its
    targeted weapons reach (R6.11.1, R6.12.1)."""
    turn = position.turn
    hand = twin_hand(position, piece)
    readiness = tuple([r > turn for r in piece.ready]) if piece.ready else ()
    key = (piece.kind, piece.sq * 3 + piece.level, piece.articles, readiness, hand)
    found = _PIECE_FIRES.get(key)
    if found is None:
        if len(_PIECE_FIRES) > _PIECE_FIRES_LIMIT:
            _PIECE_FIRES.clear()
        found = _PIECE_FIRES[key] = _piece_fires(piece, turn, hand, readiness)
    directional, targeted, transports = found
    fires = directional
    mask = _SQUARE_CELLS[piece.sq]
    if targeted:
        aimed = list(fires)
        for weapon in targeted:
            aimed.extend(_legal_targets(position, piece, weapon, hand, enemies))
            level, reach, nearest = _target_reach(position, weapon)
            mask |= _reach_mask(piece.sq, level, nearest, reach)
        fires = tuple(aimed)
    legal_transports = tuple(TransportFires(piece.sq * 3 + piece.level, article, piece.kind,
                                            hand) for article in transports
                             if not transport_piece_reason(position, piece, article))
    until = min([r for r in piece.ready if r > turn], default=_NEVER) if piece.ready else _NEVER
    return (piece, fires, mask, turn, until, moved, legal_transports)


# What a piece may fire apart from the position around it, by kind, cell, articles,
# which instances are ready and hand (``_piece_fires``).
_PIECE_FIRES: dict[tuple[object, ...], tuple[tuple[Fire, ...], tuple[ArticleKind, ...],
                                               tuple[ArticleKind, ...]]] = {}
_PIECE_FIRES_LIMIT = 20_000


# per square, the bit mask of its three cells
_SQUARE_CELLS = [0b111 << (sq * 3) for sq in range(board.SQUARES)]


def _target_reach(position: Position, weapon: ArticleKind) -> tuple[Level, int, int]:
    """The level, range and least distance of a targeted weapon's targets: the
    restricted rocket at Ground within O13 (R6.12.1), homing within O14 and not in the
    firer's square (R6.11.1, R6.8.2)."""
    if weapon is A.ROCKET_LAUNCHER:
        return GROUND, position.options.restricted_rocket_range, 0
    return (PROJECTILE_LEVEL[PROJECTILE[weapon]], position.options.homing_range, 1)


@cache
def _reach_mask(sq: int, level: Level, nearest: int, reach: int) -> int:
    """Bit mask of the cells at ``level`` between ``nearest`` and ``reach`` squares from
    ``sq``."""
    row, col = board.row_of(sq), board.col_of(sq)
    mask = 0
    for to_row in range(max(1, row - reach), min(board.SIZE, row + reach) + 1):
        for to_col in range(max(1, col - reach), min(board.SIZE, col + reach) + 1):
            if max(abs(to_row - row), abs(to_col - col)) >= nearest:  # R1.9 distance
                mask |= 1 << (board.square(to_row, to_col) * 3 + level)
    return mask


def _piece_fires(piece: Piece, turn: int, hand: Hand | None, readiness: tuple[bool, ...]
                 ) -> tuple[tuple[Fire, ...], tuple[ArticleKind, ...], tuple[ArticleKind, ...]]:
    """What one piece may fire on ``turn``, apart from the position around it: its
    directional Fires, the weapons it may aim at a target, and its transport articles
    (a piece's abilities, cell, ready turns and hand decide these alone). Which weapons
    those are depends only on its kind, articles and which instances are ready
    (``readiness``: for each, whether its ready turn is after ``turn``): memoised by
    those (``_fire_weapons``), the cell and hand add the directions."""
    key = (piece.kind, piece.articles, readiness)
    weapons = _FIRE_WEAPONS.get(key)
    if weapons is None:
        if len(_FIRE_WEAPONS) > _PIECE_FIRES_LIMIT:
            _FIRE_WEAPONS.clear()
        weapons = _FIRE_WEAPONS[key] = _fire_weapons(piece, turn)
    aimed, targeted, transports = weapons
    if not aimed:
        return (), targeted, transports
    if len(aimed) == 1:
        return _directional_fires(piece.cell, aimed[0], piece.kind, hand), targeted, transports
    directional: list[Fire] = []
    for weapon in aimed:
        directional.extend(_directional_fires(piece.cell, weapon, piece.kind, hand))
    return tuple(directional), targeted, transports


def _fire_weapons(piece: Piece, turn: int
                  ) -> tuple[tuple[ArticleKind, ...], tuple[ArticleKind, ...],
                             tuple[ArticleKind, ...]]:
    """The weapons ``piece`` may fire in a direction on ``turn`` (R6.2.1: with a ready
    instance), those it may aim at a target (R6.11, R6.12) and its transport articles
    (R8.1), each once, in ability order."""
    directional: list[ArticleKind] = []
    targeted: list[ArticleKind] = []
    transports: list[ArticleKind] = []
    seen: list[ArticleKind] = []
    for weapon in piece.abilities():
        if weapon in seen:
            continue
        seen.append(weapon)
        if weapon in TRANSPORTS:
            transports.append(weapon)
            continue
        if weapon not in RATE:
            continue
        if ready_instances(piece, weapon, turn):
            directional.append(weapon)
        if weapon in PROJECTILE and ready_instances(piece, weapon, turn,
                                                    weapon is A.ROCKET_LAUNCHER):
            targeted.append(weapon)
    return tuple(directional), tuple(targeted), tuple(transports)


# ``_fire_weapons`` by kind, articles and readiness.
_FIRE_WEAPONS: dict[tuple[object, ...], tuple[tuple[ArticleKind, ...], tuple[ArticleKind, ...],
                                              tuple[ArticleKind, ...]]] = {}


def _legal_targets(position: Position, piece: Piece, weapon: ArticleKind,
                   hand: Hand | None, enemies: list[Piece]) -> list[Fire]:
    """Targets in reach among the visible ``enemies``: at the projectile's level within
    HomingRange and not in the firer's own square (R6.11.1, R6.8.2), or at Ground
    within the restricted rocket's range (R6.12.1). The caller has checked that
    instances are ready."""
    level, reach, nearest = _target_reach(position, weapon)
    by_cell: dict[int, list[Piece]] = {}
    for enemy in enemies:
        if enemy.level is level and nearest <= board.distance(piece.sq, enemy.sq) <= reach:
            by_cell.setdefault(enemy.cell, []).append(enemy)
    out: list[Fire] = []
    for cell in sorted(by_cell):
        here = by_cell[cell]
        kinds: list[PieceKind | None] = [None]
        if len(here) > 1:  # name the target where two enemy pieces share its cell
            kinds = [*sorted({p.kind for p in here}, key=lambda k: k.value)]
        out.extend(Fire(piece.cell, weapon, target=cell, kind=piece.kind, hand=hand,
                        target_kind=k) for k in kinds)
    return out


@lru_cache(maxsize=4096)
def _directional_fires(frm: int, weapon: ArticleKind, kind: PieceKind,
                       hand: Hand | None) -> tuple[Fire, ...]:
    """Fires in every direction with an adjacent on-board square (memo: pure geometry)."""
    sq = frm // 3
    return tuple(Fire(frm, weapon, dir=d, kind=kind, hand=hand) for d in board.DIRECTIONS
                 if board.offset(sq, d) is not None)


@lru_cache(maxsize=4096)
def _transport_fires(frm: int, article: ArticleKind, kind: PieceKind,
                     twin: Hand | None) -> tuple[Fire, ...]:
    """Every destination with its distinct paths (memo: pure geometry)."""
    return tuple(Fire(frm, article, dest=dest, path=path, kind=kind, hand=twin)
                 for dest, path in _transport_paths(frm // 3))


@cache
def _transport_paths(sq: int) -> tuple[tuple[int, str], ...]:
    """From ``sq``, every destination with the beeline and, of port and starboard, the
    one that differs from it (one of them is always the beeline)."""
    return tuple((dest, path) for dest in range(board.SQUARES) if dest != sq
                 for path in distinct_paths(sq, dest))
