"""Moves (R5, R8.7): legal Moves of a side, and resolving one on the truth.

Two tiers, as python-chess does: candidate routes come from geometry tables
(engine.routes); the legality filter checks them against what the mover knows
(R4.13: hidden enemies count as absent). Resolution then walks the chosen route on
the truth, asking the Referee about unseen enemies (R5.2.4 hidden collisions).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from wec.engine import board
from wec.engine.articles import ArticleTable
from wec.engine.board import GROUND
from wec.engine.budget import has_acted, refuse_if_acted, refuse_if_spent, spend
from wec.engine.ending import game_end
from wec.engine.errors import IllegalIntent, Reason
from wec.engine.events import ArticleDropped, Captured, Event, GameOver, Moved
from wec.engine.intents import Move
from wec.engine.pieces import TRAITS, PieceKind, Side, describe_kind, may_share, traits
from wec.engine.position import Piece, PieceCache, Position, Reveal
from wec.engine.questions import PieceInfo
from wec.engine.routes import ATTACK, PEACEFUL, MovementRules, Route, RouteGroups, movement_rule
from wec.engine.selection import earlier_twins, select_own, twin_hand


class Plan(NamedTuple):
    """A legal Move, ready to resolve: who moves, with which passenger, along which route.

    A NamedTuple because move generation builds one per legal Move: it is built with
    ``tuple.__new__`` in the hot path, ten times cheaper than a frozen dataclass.
    """

    piece: Piece
    passenger: Piece | None
    route: Route


_new_plan = tuple.__new__


def movement_rules(position: Position) -> MovementRules:
    derived = position.derived
    rules = derived.rules
    if rules is None:
        rules = derived.rules = MovementRules.from_options(position.options)
    return rules


def piece_routes(position: Position, piece: Piece) -> tuple[Route, ...]:
    """Candidate routes of ``piece`` (geometry only, R5.3-R5.5)."""
    return movement_rules(position).routes(TRAITS[piece.kind].movement, piece.side, piece.hand,
                                           piece.sq, piece.level)


def immobile_reason(position: Position, piece: Piece) -> Reason | None:
    """Why ``piece`` may not make a Move at all right now, or None (R4.3, R5.1.1, R2.5)."""
    if position.actions.move:
        return ("R4.3", f"{position.side_to_act.title} has already made this turn's Move")
    if piece.stunned(position.turn):
        return ("R7.2", f"the {describe_kind(piece.kind)} at {board.describe_cell(piece.cell)} "
                        f"is stunned until turn {piece.stunned_until} and may not Move")
    if piece.transit is not None:
        return ("R8.4.3", f"the {describe_kind(piece.kind)} at {board.describe_cell(piece.cell)} "
                          "is in transit and may not Move")
    if piece.pid in position.actions.transited:
        return ("R4.5", f"the {describe_kind(piece.kind)} at {board.describe_cell(piece.cell)} "
                        "travelled by transport this turn and may not make the Move")
    if piece.level not in traits(piece.kind).native:
        return ("R2.5", f"the {describe_kind(piece.kind)} at "
                        f"{board.describe_cell(piece.cell)} is a passenger at a level not native "
                        "to it and moves only with its carrier")
    return None


def passenger_of(position: Position, piece: Piece) -> Piece | None:
    """The one other own piece sharing ``piece``'s square and level, if any."""
    occ = position.known_occupancy(piece.side)
    for other in occ[piece.cell]:
        if other is not piece and other.side is piece.side and other.transit is None:
            return other  # a piece in transit travels on its own (R8.4)
    return None


def must_carry(passenger: Piece) -> bool:
    """R2.5: a passenger at a non-native level goes wherever its carrier goes."""
    return passenger.level not in traits(passenger.kind).native


def keeps_primary_grounded(carrier: Piece, passenger: Piece, dest: int) -> bool:
    """R8.7.2 with O25 off: would carrying this primary piece take it to Air or Sub?

    RULES.md bars the primary piece only "when the carrier goes to Air / Sub": a carrier
    ending at Ground may carry it, a Chopper too (its flight path through Air is how it
    moves, not where the passenger ends up; docs/architecture.md).
    """
    return TRAITS[passenger.kind].primary and dest % 3 != GROUND


def check_route(position: Position, piece: Piece, passenger: Piece | None,
                route: Route) -> Reason | None:
    """The legality filter for one route on what the mover knows (R5.1-R5.2, R1.6)."""
    occ = position.known_occupancy(piece.side)
    if route.first_move_only and piece.moved:
        return (route.rule, "the two-square first move is only for a pawn that has never "
                            "left its starting square")
    for c in route.path:
        if occ[c]:
            return ("R5.2.2", f"path blocked at {board.describe_cell(c)}")
    if (passenger is not None and not position.options.king_may_fly_or_go_sub
            and keeps_primary_grounded(piece, passenger, route.dest)):
        return ("R8.7.2", "option O25 forbids the primary government piece to fly or go Sub, "
                          f"and this {describe_kind(piece.kind)} would take it there")
    return _destination_reason(piece, passenger, route, occ[route.dest])


def _destination_reason(piece: Piece, passenger: Piece | None, route: Route,
                        here: tuple[Piece, ...]) -> Reason | None:
    where = board.describe_cell(route.dest)
    own = [p for p in here if p.side is piece.side]
    enemies = len(here) - len(own)
    if own and enemies:
        return ("R5.1.4", f"{where} is in the conversion anomaly and cannot be entered")
    if enemies:
        if route.mode == PEACEFUL:
            return ("R5.1.3", f"a {describe_kind(piece.kind)} does not capture and {where} "
                              "holds a visible enemy piece")
        return None  # combat and attack routes take every enemy there (R5.1.3)
    if route.mode == ATTACK:
        return (route.rule, f"{where} is a pawn attack square and holds no visible enemy")
    if own:
        count = len(own) + (2 if passenger is not None else 1)
        if not may_share(count, traits(piece.kind).coexists
                         or any(traits(p.kind).coexists for p in own)):
            if count > 2:
                return ("R1.6", f"{where} would hold more than 2 pieces")
            return ("R1.6", f"{where} holds a {describe_kind(own[0].kind)} and neither piece "
                            "can coexist")
    return None


def legal_plans(position: Position, piece: Piece) -> list[Plan]:
    """Every legal Move of one own piece, in route order, with each carrying choice."""
    if (position.actions.move or piece.stunned(position.turn) or has_acted(position, piece)
            or piece.transit is not None or piece.pid in position.actions.transited):
        return []
    return _plans(position, piece, position.known_occupancy(piece.side),
                  movement_rules(position), position.options.king_may_fly_or_go_sub)


def _plans(position: Position, piece: Piece, occ: list[tuple[Piece, ...]],
           rules: MovementRules, king_may_fly: bool,
           groups: RouteGroups | None = None) -> list[Plan]:
    """The hot path of move generation.

    It repeats the checks of ``check_route`` inline, without building refusal
    messages; a property test keeps the two in agreement. Alternative routes to one
    destination are tried in order and the first clear one is used (R5.2.3).
    """
    kind_traits = TRAITS[piece.kind]
    if piece.level not in kind_traits.native:
        return []
    side = piece.side
    passenger = _passenger_in(piece, occ) if kind_traits.carries else None
    choices: tuple[Piece | None, ...]
    if passenger is None:
        choices = (None,)
    elif must_carry(passenger):
        choices = (passenger,)
    else:
        choices = (None, passenger)
    mover_coexists = kind_traits.coexists
    plans: list[Plan] = []
    append = plans.append
    singles, alternatives, _ = groups or rules.route_groups(
        kind_traits.movement, side, piece.hand, piece.sq, piece.level)
    if passenger is None:
        return _unladen_plans(piece, occ, singles, alternatives, mover_coexists)
    clear = occ.__getitem__
    # R5.2.2: a route's path must be empty; of alternatives, the first clear one (R5.2.3).
    chosen = [r for r in singles if not (r.path and any(map(clear, r.path)))]
    for group in alternatives:
        for candidate in group:
            if candidate.first_move_only and piece.moved:
                continue
            if candidate.path and any(map(clear, candidate.path)):
                continue
            chosen.append(candidate)
            break
    for route in chosen:
        dest = route.dest
        here = occ[dest]
        if not here:
            if route.mode == ATTACK:
                continue
            for carried in choices:
                if (carried is not None and not king_may_fly
                        and keeps_primary_grounded(piece, carried, dest)):
                    continue
                append(_new_plan(Plan, (piece, carried, route)))
            continue
        own_here = enemies = 0
        coexist_here = False
        for p in here:
            if p.side is side:
                own_here += 1
                coexist_here = coexist_here or TRAITS[p.kind].coexists
            else:
                enemies += 1
        if enemies:
            if own_here or route.mode == PEACEFUL:
                continue
            own_here = 0  # combat and attack routes take every enemy there
        elif route.mode == ATTACK:
            continue
        for carried in choices:
            if carried is None:
                if not may_share(own_here + 1, mover_coexists or coexist_here):
                    continue
            else:  # the carrier and its passenger arrive (the carrier coexists, R2.1)
                if not may_share(own_here + 2, True):
                    continue
                if not king_may_fly and keeps_primary_grounded(piece, carried, dest):
                    continue
            append(_new_plan(Plan, (piece, carried, route)))
    return plans


def _passenger_in(carrier: Piece, occ: list[tuple[Piece, ...]]) -> Piece | None:
    """The own piece a Chopper or Sub may carry from its cell: the other one there, not
    in transit (R8.7.1; a piece in transit travels on its own, R8.4)."""
    passenger = None
    for other in occ[carrier.sq * 3 + carrier.level]:
        if other is not carrier and other.side is carrier.side and other.transit is None:
            passenger = other
    return passenger


def _unladen_plans(piece: Piece, occ: list[tuple[Piece, ...]], singles: tuple[Route, ...],
                   alternatives: tuple[tuple[Route, ...], ...],
                   mover_coexists: bool) -> list[Plan]:
    """``_plans`` for a piece with no passenger, in one pass: each single route whose
    path is clear (R5.2.2), then of each group of alternatives the first clear one
    (R5.2.3), where the piece may end at its destination (R5.1.3, R1.6)."""
    side = piece.side
    plans: list[Plan] = []
    append = plans.append
    clear = occ.__getitem__
    for route in singles:
        path = route.path
        if path and any(map(clear, path)):
            continue
        here = occ[route.dest]
        if not here:
            if route.mode != ATTACK:
                append(_new_plan(Plan, (piece, None, route)))
            continue
        if _may_end_at(route, here, side, mover_coexists):
            append(_new_plan(Plan, (piece, None, route)))
    moved = piece.moved
    for group in alternatives:
        for route in group:
            if route.first_move_only and moved:
                continue
            path = route.path
            if path and any(map(clear, path)):
                continue
            here = occ[route.dest]
            if (not here and route.mode != ATTACK) or (
                    here and _may_end_at(route, here, side, mover_coexists)):
                append(_new_plan(Plan, (piece, None, route)))
            break
    return plans


def _may_end_at(route: Route, here: tuple[Piece, ...], side: Side,
                mover_coexists: bool) -> bool:
    """Whether a piece of ``side`` without a passenger may end ``route`` at its
    destination, which holds ``here`` (not empty): it takes every enemy there by a
    combat or attack route, or shares the cell with one own piece where one of the two
    can coexist (R5.1.3, R1.6)."""
    own_here = enemies = 0
    coexist_here = False
    for p in here:
        if p.side is side:
            own_here += 1
            coexist_here = coexist_here or TRAITS[p.kind].coexists
        else:
            enemies += 1
    if enemies:
        return not own_here and route.mode != PEACEFUL
    return route.mode != ATTACK and may_share(own_here + 1, mover_coexists or coexist_here)


def legal_moves(position: Position) -> list[Move]:
    """Every legal Move of the side to act, on what it knows (R4.13); a Move that two
    identical twins could make is listed once, as the intent names it."""
    if position.result is not None or position.actions.move:
        return []
    side = position.side_to_act
    moves: list[Move] = []
    for piece in position.pieces:
        if piece.side is side:
            plans = _named_plans(position, piece, legal_plans(position, piece))
            moves.extend(move_of(position, plan) for plan in plans)
    return moves


def _named_plans(position: Position, piece: Piece, plans: list[Plan]) -> list[Plan]:
    """The plans of ``piece`` its Move intent names. A Move names its piece by cell, kind
    and hand only; of identical twins sharing the cell, ``select_mover`` takes the first
    (``twin_order_key``) that can reach the destination, so a later twin's plan to a
    destination an earlier twin reaches is left out: its intent would move the earlier
    twin, and a replay of the intents would reach another position."""
    if not plans:
        return plans
    twins = earlier_twins(position, piece)
    if not twins:
        return plans
    taken = {plan.route.dest for twin in twins for plan in legal_plans(position, twin)}
    return [plan for plan in plans if plan.route.dest not in taken]


def move_of(position: Position, plan: Plan) -> Move:
    """The Move intent that names ``plan``: ``carry`` where the piece has a passenger it
    may leave behind or take, ``hand`` where two own Choppers share the cell."""
    piece = plan.piece
    passenger = passenger_of(position, piece) if TRAITS[piece.kind].carries else None
    carry = None if passenger is None else plan.passenger is not None
    # two Choppers share the cell (one may be in transit): the hand tells them apart
    hand = twin_hand(position, piece) if TRAITS[piece.kind].handed else None
    return Move(piece.cell, plan.route.dest, piece.kind, carry, hand)


def all_legal_plans(position: Position) -> list[Plan]:
    """Every legal Move of the side to act as resolvable plans (move generation for AIs).

    Incremental: each piece's plans are cached with the mask of cells they depend on,
    and a Move carries the cache over for every piece whose cells it left alone
    (tests/test_incremental.py compares with a fresh generation). Of identical twins
    sharing a cell, only the plans their Move intent names are listed (``_named_plans``),
    so that ``apply`` of ``move_of(plan)`` reaches the position ``apply_plan`` does.
    """
    if position.result is not None or position.actions.move:
        return []
    side = position.side_to_act
    occ = position.known_occupancy(side)
    rules = movement_rules(position)
    king_may_fly = position.options.king_may_fly_or_go_sub
    # per pid: (piece, its plans, the cells they depend on, the passenger they carry,
    # whether an identical twin may share its cell)
    cache: dict[int, _PlansEntry] = piece_cache(position, _PLANS, side)
    get = cache.get
    plans: list[Plan] = []
    extend = plans.extend
    turn = position.turn
    acted = (position.actions.actors
             if position.options.action_restriction == "one_action_per_piece" else ())
    acted += position.actions.transited  # R4.5
    for piece in position.pieces:
        # R7.2: a stunned piece makes no Move; R4.12(b): nor one that has acted;
        # R8.4.3: nor one in transit
        if (piece.side is not side or turn < piece.stunned_until or piece.transit is not None
                or (acted and piece.pid in acted)):
            continue
        entry = get(piece.pid)
        # a passenger that changed in place leaves its cell unchanged for this side
        # (what_changed): the plans naming it are checked by identity; one that came
        # or went changed the cell
        if (entry is None
                or (entry[3] is not None and entry[3] is not _passenger_in(piece, occ))):
            entry = cache[piece.pid] = _plans_entry(position, piece, occ, rules, king_may_fly)
        elif entry[0] is not piece:
            entry = cache[piece.pid] = (
                _renamed_entry(entry, piece) if _same_movement(entry[0], piece)
                else _plans_entry(position, piece, occ, rules, king_may_fly))
        if entry[4]:  # twins: only the plans the Move intent names (_named_plans)
            extend(_named_plans(position, piece, entry[1]))
        else:
            extend(entry[1])
    return plans


_PlansEntry = tuple[Piece, list[Plan], int, Piece | None, bool]


def _same_movement(old: Piece, new: Piece) -> bool:
    """Whether ``new`` (the same pid) moves exactly as ``old``: the same cell, side,
    kind, hand and first-move right (R5.3.1). A piece that changed only in place
    (articles, ready turns, reveal, ``hidden``, stun: what_changed leaves its cell
    alone for its own side) has the same routes, passenger and twin, so the same plans."""
    return (old.sq == new.sq and old.level is new.level and old.side is new.side
            and old.kind is new.kind and old.hand is new.hand and old.moved == new.moved)


def _renamed_entry(entry: _PlansEntry, piece: Piece) -> _PlansEntry:
    """``entry`` of a piece that changed in place (``_same_movement``), its plans naming
    the new ``piece``: what ``_plans_entry`` would compute, without the route checks."""
    plans = [_new_plan(Plan, (piece, plan[1], plan[2])) for plan in entry[1]]
    return (piece, plans, entry[2], entry[3], entry[4])


def _plans_entry(position: Position, piece: Piece, occ: list[tuple[Piece, ...]],
                 rules: MovementRules, king_may_fly: bool) -> _PlansEntry:
    """One piece's entry of the plans cache: the piece, its plans, the cells they depend
    on (its own cell among them), its passenger, and whether an identical twin may
    share its cell. The last reads only the pieces at its cell (their number, sides,
    kinds and hands), so it holds as long as the plans do."""
    side = piece.side
    kind_traits = TRAITS[piece.kind]
    groups = rules.route_groups(kind_traits.movement, side, piece.hand, piece.sq, piece.level)
    here = occ[piece.sq * 3 + piece.level]
    twin = False
    passenger = None
    if len(here) > 1:  # maybe a twin (R1.6: 2 pieces at most, but the anomaly)
        other = here[1] if here[0] is piece else here[0]
        twin = len(here) > 2 or (other.kind is piece.kind and other.side is side
                                 and other.hand is piece.hand)
        if kind_traits.carries:  # a passenger shares the cell: here holds 2 pieces or more
            passenger = _passenger_in(piece, occ)
    if passenger is not None:
        plans = _plans(position, piece, occ, rules, king_may_fly, groups)
    elif piece.level in kind_traits.native:  # _plans without a passenger
        plans = _unladen_plans(piece, occ, groups[0], groups[1], kind_traits.coexists)
    else:
        plans = []
    return (piece, plans, groups[2], passenger, twin)


_PLANS = "plans"  # one of PIECE_CACHES


def has_legal_move(position: Position) -> bool:
    side = position.side_to_act
    return any(legal_plans(position, p) for p in position.pieces if p.side is side)


def select_mover(position: Position, move: Move) -> Piece:
    """The own piece a Move names (R5.1.1), or a refusal saying what to fix; of two
    identical pieces sharing the cell, one that can make this Move."""
    return select_own(position, move.frm, move.kind, move.hand, "R5.1.1", "move",
                      able=lambda p: any(plan.route.dest == move.to
                                         for plan in legal_plans(position, p)))


def plan_move(position: Position, move: Move) -> Plan:
    """Check an intent against the rules; the Plan to resolve, or IllegalIntent."""
    refuse_if_spent(position, "move")
    piece = select_mover(position, move)
    refuse_if_acted(position, piece)
    reason = immobile_reason(position, piece)
    if reason:
        raise IllegalIntent(*reason)
    passenger = _chosen_passenger(position, piece, move)
    routes = [r for r in piece_routes(position, piece) if r.dest == move.to]
    if not routes:
        rule = movement_rule(position.options.movement_system, TRAITS[piece.kind].movement)
        raise IllegalIntent(rule, f"a {describe_kind(piece.kind)} at "
                                  f"{board.describe_cell(piece.cell)} cannot reach "
                                  f"{board.describe_cell(move.to)}")
    first_reason: Reason | None = None
    for route in routes:
        reason = check_route(position, piece, passenger, route)
        if reason is None:
            return Plan(piece, passenger, route)
        first_reason = first_reason or reason
    assert first_reason is not None
    raise IllegalIntent(*first_reason)


def _chosen_passenger(position: Position, piece: Piece, move: Move) -> Piece | None:
    """R8.7.1: a Chopper or Sub may (or, R2.5, must) take its co-located own piece."""
    if not traits(piece.kind).carries:
        if move.carry:
            raise IllegalIntent("R8.7.1", f"only a Chopper or a Sub carries; a "
                                          f"{describe_kind(piece.kind)} cannot")
        return None
    passenger = passenger_of(position, piece)
    if passenger is None:
        if move.carry:
            raise IllegalIntent("R8.7.1", f"no own piece shares {board.describe_cell(piece.cell)}"
                                          " to carry")
        return None
    if must_carry(passenger):
        if move.carry is False:
            raise IllegalIntent("R2.5", f"the {describe_kind(passenger.kind)} passenger is at a "
                                        "level not native to it and must be taken along")
        return passenger
    return passenger if move.carry else None


# ---------------------------------------------------------------- resolution

def resolve_move(position: Position, move: Move) -> tuple[Position, list[Event]]:
    """Make a Move on the full state: legality on what the mover knows, outcome on the
    truth (R5.2.4). A half state resolves through engine.half_resolution."""
    return resolve_plan(position, plan_move(position, move))


def first_hit(position: Position, side: Side,
              cells: tuple[int, ...]) -> tuple[int, list[PieceInfo]]:
    """R5.2.4 on the full state: the first of ``cells`` (a route's path, then its
    destination) holding pieces of ``side``'s enemy, and those pieces, which the Move
    takes; the destination and nothing taken when none does. The path holds no enemy
    piece the mover sees (the legality filter), so the first one met is hidden from it,
    or the visible enemies of the destination."""
    enemy = position.known_occupancy(side.other)  # holds every piece of the enemy
    for c in cells:
        here = enemy[c]
        if here:
            taken = [PieceInfo.of(p) for p in here if p.side is not side]
            if taken:
                taken.sort(key=PieceInfo.sort_key)
                return c, taken
    return cells[-1], []


def resolve_plan(position: Position, plan: Plan) -> tuple[Position, list[Event]]:
    """Resolve a legal plan on the full state: hidden collisions stop the mover (R5.2.4)."""
    if position.viewer is not None:
        raise ValueError("a half state resolves a Move through engine.half_resolution")
    piece, passenger, route = plan.piece, plan.passenger, plan.route
    side = piece.side
    stop, taken = first_hit(position, side, (*route.path, route.dest))

    stop_sq, stop_level = board.cell_square(stop), board.cell_level(stop)
    pieces: list[Piece] = []
    removed = []
    arrived = []
    replaced = []  # (old, new) of the movers
    gone = []
    # R9.8: a stealthy piece that takes by Move is capture-revealed where it stops
    reveal = (Reveal("capture", stop) if taken and position.options.reveal_on_capture
              and piece.is_stealthy(position.options) else None)
    if not taken and passenger is None:  # the common case: only the mover changes
        mover = _moved(piece, stop_sq, stop_level, None)
        arrived.append(mover)
        replaced.append((piece, mover))
        pieces = [mover if p is piece else p for p in position.pieces]
    else:
        for p in position.pieces:
            if p is piece or p is passenger:
                arrived.append(_moved(p, stop_sq, stop_level, reveal if p is piece else None))
                pieces.append(arrived[-1])
                replaced.append((p, arrived[-1]))
            elif p.side is not side and p.sq * 3 + p.level == stop:
                removed.append(p.pid)  # taken: every enemy piece at the stop cell (R5.1.3)
                gone.append(p)
            else:
                pieces.append(p)
    events: list[Event] = [Moved(side, piece.kind, piece.hand, piece.cell, stop, route.dest,
                                 passenger.kind if passenger else None)]
    ground, ground_ready = position.ground_articles, position.ground_ready
    locks = position.locks
    if taken:
        events.append(Captured(stop, tuple(taken)))
        table = ArticleTable(ground, ground_ready)
        for info in taken:  # R3.4: a destroyed piece's articles drop by R7.4
            placed = table.place_dropped(stop_sq, info.side, info.articles, info.ready)
            events.extend(ArticleDropped(article, sq) for article, sq in placed)
        ground, ground_ready = table.packed()
        if removed and locks:  # R9.4(c): locks held by or aimed at taken pieces end
            locks = tuple(lk for lk in locks
                          if lk.holder not in removed and lk.target not in removed)
    after = position.evolve(pieces=tuple(pieces), ground_articles=ground,
                            ground_ready=ground_ready, locks=locks,
                            actions=spend(position.actions, "move", piece))
    _carry_occupancy(position, after, plan, stop, arrived)
    record_changes(position, after, replaced, gone)
    after, over = judge(after, stop, piece.kind, taken)
    events.extend(over)
    return after, events


def _carry_occupancy(before: Position, after: Position, plan: Plan, stop: int,
                     arrived: list[Piece]) -> None:
    """Derive the new occupancy maps from the old ones instead of rebuilding them.

    Only two cells change: the movers leave their cell, and at the stop cell every
    enemy of the mover is taken and the movers arrive (visible to the enemy unless
    hidden). The result equals a rebuild up to the order within a cell, which no rule
    depends on (tests/test_occupancy.py).
    """
    side = plan.piece.side
    origin = plan.piece.cell
    old_maps, new = before.derived, after.derived
    for viewer in (Side.BLACK, Side.WHITE):
        old = old_maps.black if viewer is Side.BLACK else old_maps.white
        if old is None:
            continue  # never built: the new position builds it when asked
        occ = old.copy()
        occ[origin] = tuple([p for p in occ[origin]
                             if p is not plan.piece and p is not plan.passenger])
        seen = [m for m in arrived if viewer is side or not m.hidden]
        occ[stop] = tuple([p for p in occ[stop] if p.side is side] + seen)
        if viewer is Side.BLACK:
            new.black = occ
        else:
            new.white = occ
    # the stop cell's order may differ from a rebuild's: carry_plan_caches rebuilds it
    new.unordered = old_maps.unordered | (1 << stop)
    _carry_piece_caches(before, after, (1 << origin) | (1 << stop))



def _carry_cells_occupancy(before: Position, after: Position, changed: int) -> None:
    """The occupancy maps of ``after`` from those of ``before``, where only the cells in
    ``changed`` (bit mask) differ: those cells are filled from the pieces, in their
    order, exactly as ``known_occupancy`` builds them. So are the cells a Move left out
    of that order (``_carry_occupancy``), so that every cell is as a rebuild orders it."""
    black_before, white_before = before.derived.black, before.derived.white
    if black_before is None or white_before is None:
        return
    changed |= before.derived.unordered
    cells = set()
    while changed:
        low = changed & -changed
        cells.add(low.bit_length() - 1)
        changed ^= low
    black, white = black_before.copy(), white_before.copy()
    for c in cells:
        black[c] = white[c] = ()
    for p in after.pieces:
        c = p.sq * 3 + p.level
        if c in cells:
            if not p.hidden or p.side is Side.BLACK:
                black[c] = black[c] + (p,)
            if not p.hidden or p.side is Side.WHITE:
                white[c] = white[c] + (p,)
    after.derived.black, after.derived.white = black, white


def carry_plan_caches(before: Position, after: Position, changed: int,
                      stale: dict[Side, int] | None = None,
                      in_place: list[tuple[Piece, Piece]] | None = None) -> None:
    """Keep the occupancy maps, updated at the cells in ``changed`` (bit mask), and the
    per-piece caches of every piece none of whose cells changed.

    Used when an action changes pieces without moving them along a route (Fire, Doze,
    transport steps): plans of untouched pieces stay valid, as after a Move. ``stale``
    may narrow, per side, the cells whose change its caches see (``what_changed``).
    ``in_place``: every change is one of these (old, new) pairs, each piece keeping its
    index among the pieces (``with_pieces_in_place``).
    """
    if after.options is not before.options:
        return
    if before.derived.rules is not None:
        after.derived.rules = before.derived.rules
    if in_place is None or not _substitute_in_occupancy(before, after, in_place):
        _carry_cells_occupancy(before, after, changed)
    _carry_piece_caches(before, after, changed, stale)


def _substitute_in_occupancy(before: Position, after: Position,
                             in_place: list[tuple[Piece, Piece]]) -> bool:
    """The occupancy maps of ``after`` from those of ``before`` when each piece in
    ``in_place`` was replaced by a version at the same cell, side and ``hidden`` (so seen
    by the same viewers) and the same index among the pieces: put in its old place
    within its cell, it leaves every cell as a rebuild orders it. False (nothing done)
    when that does not hold, or a cell of ``before`` is out of order (``_UNORDERED``)."""
    black, white = before.derived.black, before.derived.white
    if black is None or white is None or before.derived.unordered:
        return False
    for old, new in in_place:
        if (old.sq != new.sq or old.level is not new.level or old.side is not new.side
                or old.hidden != new.hidden):
            return False
    black, white = black.copy(), white.copy()
    for old, new in in_place:
        c = old.sq * 3 + old.level
        if not old.hidden or old.side is Side.BLACK:
            black[c] = tuple([new if p is old else p for p in black[c]])
        if not old.hidden or old.side is Side.WHITE:
            white[c] = tuple([new if p is old else p for p in white[c]])
    after.derived.black, after.derived.white = black, white
    return True


def what_changed(old: Piece | None, new: Piece | None, stale: dict[Side, int]) -> int:
    """The cells of a piece that changed from ``old`` to ``new`` (None: not in play), as
    a bit mask, and in ``stale`` per side those whose change that side's per-piece
    caches see.

    A piece that stays at its cell with its side, kind, hand, transit and ``moved``
    (new articles, ready turns, reveal, ``hidden``) changes nothing the cached
    listings of other pieces read: whether a cell is empty, which sides and kinds are
    there (R1.6, targets). Only the enemy sees a change of ``hidden`` (R4.13). Its own
    entries and those naming it as a passenger are checked by identity."""
    if old is None or new is None:
        piece = new or old
        assert piece is not None
        bit = 1 << (piece.sq * 3 + piece.level)
        stale[Side.BLACK] |= bit
        stale[Side.WHITE] |= bit
        return bit
    bit = 1 << (new.sq * 3 + new.level)
    if (old.sq == new.sq and old.level is new.level and old.side is new.side
            and old.kind is new.kind and old.hand is new.hand and old.transit == new.transit
            and old.moved == new.moved):
        if old.hidden != new.hidden:
            stale[Side.WHITE if new.side is Side.BLACK else Side.BLACK] |= bit
        return bit
    bit |= 1 << (old.sq * 3 + old.level)
    stale[Side.BLACK] |= bit
    stale[Side.WHITE] |= bit
    return bit


def with_pieces_in_place(position: Position, changed: dict[int, Piece],
                         **fields: object) -> Position:
    """The position with some pieces replaced by versions at the same cell (articles,
    flags): nothing moved, so cached plans of pieces away from those cells stay valid."""
    get = changed.get
    pieces = tuple([get(p.pid, p) for p in position.pieces])
    replaced = [(p, new) for p, new in zip(position.pieces, pieces, strict=True) if p is not new]
    mask = 0
    stale = {Side.BLACK: 0, Side.WHITE: 0}
    for p, new in replaced:
        mask |= what_changed(p, new, stale)
    after = position.evolve(pieces=pieces, **fields)
    carry_plan_caches(position, after, mask, stale, replaced)
    record_changes(position, after, replaced)
    return after


def record_changes(before: Position, after: Position, replaced: list[tuple[Piece, Piece]],
                   gone: list[Piece] | None = None, added: list[Piece] | None = None) -> None:
    """Note in ``after``'s derived data how its pieces differ from those of ``before``, the
    position it was made from: pairs (old, new) under one pid, pieces that left, pieces
    that entered (every other piece is the same object). Kept, as the cache is, while
    the pieces stay; engine.visibility reads it instead of comparing all pieces. Only
    ``before``'s pieces tuple is kept with it, not ``before`` and its cache."""
    after.derived.changes = (before.pieces, replaced, gone or [], added or [])


# Per-piece derived data of a position (``Derived.piece_caches``, engine.position
# ``PieceCache``): an entry is valid while the piece is the same object and no cell in its
# mask changed; carrying a cache to the next position only adds to its stale cells, and
# ``piece_cache`` filters when the cache is next used.
PIECE_CACHES = ("plans", "dozes", "fires")


def piece_cache(position: Position, name: str, side: Side) -> dict[int, Any]:
    """The valid entries of ``side``'s per-piece cache ``name`` (one of PIECE_CACHES) in
    ``position``, to read and to add to; entries computed on this position stay valid
    in every position carried from it until one of their cells changes."""
    return position.derived.piece_cache(name, side).writable()


def _carry_piece_caches(before: Position, after: Position, changed: int,
                        stale: dict[Side, int] | None = None) -> None:
    carried = after.derived.mine("piece_caches")
    for key, found in before.derived.piece_caches.items():
        if found.entries:
            found.shared = True  # neither position changes it in place any more
            carried[key] = PieceCache(found.entries, found.stale | (
                changed if stale is None else stale[key[1]]), shared=True)


def _moved(p: Piece, sq: int, level: board.Level, reveal: Reveal | None) -> Piece:
    """The piece at its new cell; an earlier reveal ends with the move (D-36)."""
    return Piece(p.pid, p.side, p.kind, sq, level, p.hand, p.articles,
                 p.moved or sq != p.sq, p.hidden, p.stunned_until, p.ready, p.transit, reveal)


def judge(position: Position, cell: int, taker: PieceKind,
          taken: list[PieceInfo]) -> tuple[Position, list[Event]]:
    """R12.2: after a Move that took pieces, the game-end test (engine.ending): the acting
    side loses if it lost a primary piece in it, otherwise wins if the opponent did; the
    game ends at once (D-41)."""
    if position.result is not None:
        return position, []
    how = f"taken at {board.describe_cell(cell)} by a {describe_kind(taker)}"
    result = game_end(position.side_to_act,
                      [(i.side, i.kind, how) for i in taken if traits(i.kind).primary])
    if result is None:
        return position, []
    return position.evolve(result=result), [GameOver(result.winner, result.reason)]
