"""Incremental move generation equals a fresh generation in every position of a game."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from wec_strategies import hide_randomly, positions

from wec.engine.game import end_turn
from wec.engine.movement import all_legal_plans, resolve_plan
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.engine.setup import standard_position


def _signature(plans):
    return [(p.piece.pid, p.passenger.pid if p.passenger else None, p.route) for p in plans]


def _play_and_compare(position: Position, rng: random.Random, turns: int) -> int:
    """Play random turns; at each, carried plans must equal plans from a fresh cache."""
    compared = 0
    for _ in range(turns):
        plans = all_legal_plans(position)
        fresh = all_legal_plans(position.evolve(pieces=position.pieces))
        assert _signature(plans) == _signature(fresh), position.turn
        compared += 1
        if plans:
            position, _ = resolve_plan(position, rng.choice(plans))
        if position.result is not None:
            break
        position = end_turn(position).position
    return compared


def test_incremental_generation_along_random_standard_games():
    rng = random.Random(77)
    compared = 0
    for game in range(4):
        start = hide_randomly(standard_position(), random.Random(game), share=0.3)
        compared += _play_and_compare(start, rng, 250)
    assert compared > 400


@settings(max_examples=60, deadline=None)
@given(positions(max_pieces=30), st.randoms(use_true_random=False))
def test_incremental_generation_from_random_positions(position, rng):
    if position.result is None:
        _play_and_compare(position, rng, 25)


def test_carried_move_and_doze_listings_equal_fresh_ones_in_all_action_games():
    """Plans and Doze listings carried across every action kind (Fire, Doze, articles,
    transport and projectile phases) equal listings computed from an empty cache."""
    from wec.engine.dozing import legal_dozes
    from wec.engine.playout import play_turn

    compared = 0

    def compare(position: Position, intent, outcome) -> None:
        nonlocal compared
        after = outcome.position
        if after.result is not None:
            return
        fresh = after.evolve(pieces=after.pieces)  # same state, empty cache
        assert [(p.piece, p.passenger, p.route) for p in all_legal_plans(after)] == [
            (p.piece, p.passenger, p.route) for p in all_legal_plans(fresh)], after.turn
        assert legal_dozes(after) == legal_dozes(fresh), after.turn
        compared += 1

    rng = random.Random(5)
    position = standard_position()
    for _ in range(600):
        position = play_turn(position, rng, compare)
        if position.result is not None:
            position = standard_position()
    assert compared > 1200


# ---------------------------------------------------------------- every cache, all actions

def _all_action_games(observe, turns: int, seed: int, options=None) -> None:
    """Random games with every action kind (engine.playout), calling ``observe(before,
    intent, outcome)`` after each action and end of turn."""
    from wec.engine.options import Options
    from wec.engine.playout import play_turn

    rng = random.Random(seed)
    start = standard_position(Options(**options) if options else None)
    position = start
    for _ in range(turns):
        position = play_turn(position, rng, observe)
        if position.result is not None:
            position = start


def _fresh(position: Position) -> Position:
    """The same state with an empty cache: everything derived is computed anew."""
    return position.evolve(pieces=position.pieces)


def test_carried_fire_listings_equal_fresh_ones_in_all_action_games():
    """Each piece's cached Fires (engine.fire, "fires"), carried across every action
    kind and checked against the turn, equal a listing from an empty cache; the lazy
    parts the playout picks from list the same Fires in the same order."""
    from wec.engine.fire import fire_choices, legal_fires
    from wec.engine.playout import Joined

    compared = listed = 0

    def compare(before: Position, intent, outcome) -> None:
        nonlocal compared, listed
        for position in (before, outcome.position):
            if position.result is not None:
                continue
            fires = legal_fires(position)
            assert fires == legal_fires(_fresh(position)), position.turn
            joined = Joined(fire_choices(position))
            assert len(joined) == len(fires)
            assert [joined[i] for i in range(0, len(fires), 7)] == fires[::7]
            compared += 1
            listed += len(fires)

    _all_action_games(compare, turns=300, seed=11)
    assert compared > 800 and listed > 50_000


def test_listings_equal_fresh_ones_with_range_detection_and_one_action_per_piece():
    """The per-piece caches under options that change what they depend on: stealth
    detection by range (O18), one action per piece (O3), transport from Air or Sub
    (O27) and a wider homing range (O14)."""
    from wec.engine.dozing import legal_dozes
    from wec.engine.fire import legal_fires

    compared = 0

    def compare(before: Position, intent, outcome) -> None:
        nonlocal compared
        after = outcome.position
        if after.result is not None:
            return
        fresh = _fresh(after)
        assert _signature(all_legal_plans(after)) == _signature(all_legal_plans(fresh))
        assert legal_dozes(after) == legal_dozes(fresh)
        assert legal_fires(after) == legal_fires(fresh)
        compared += 1

    _all_action_games(compare, turns=150, seed=12,
                      options={"stealth_range_detection": True, "homing_range": 5,
                               "action_restriction": "one_action_per_piece",
                               "transport_from_non_ground": True})
    assert compared > 300


def test_incremental_refresh_equals_a_refresh_from_scratch(monkeypatch):
    """engine.visibility.refresh from a state it settled (its cached _Seen) looks only at
    what changed; every refresh of all-action games must equal one from empty caches:
    hidden flags, locks, reveals and last-seen markers (R9)."""
    from wec.engine import game as engine_game
    from wec.engine import visibility

    real = visibility.refresh
    compared = 0

    def checked(before: Position, after: Position) -> Position:
        nonlocal compared
        settled = real(before, after)
        fresh = real(_fresh(before), _fresh(after))
        assert settled == fresh, after.turn
        hidden = {p.pid for p in settled.pieces if p.hidden}
        assert hidden <= {p.pid for p in visibility.hideable(settled)}
        compared += 1
        return settled

    monkeypatch.setattr(engine_game, "refresh", checked)
    for seed, options in ((21, None), (22, {"stealth_range_detection": True,
                                            "stealth_detector_range": 2}),
                          (23, {"dominance": "stealth", "reveal_on_fire": False})):
        _all_action_games(lambda *_: None, turns=300, seed=seed, options=options)
    assert compared > 1500


def test_carried_occupancy_is_a_rebuild_in_the_same_order():
    """The occupancy maps carried through Fire, Doze, transport and article actions and
    the turn-start phases list each cell's pieces in piece order, as a rebuild does;
    only the stop cell of a Move may hold them in another order (tests/test_occupancy.py)
    until the next carry puts it in order."""

    compared = 0

    def ordered(occ, unordered: int):
        return [sorted(p.pid for p in here) if unordered >> c & 1 else [p.pid for p in here]
                for c, here in enumerate(occ)]

    def compare(before: Position, intent, outcome) -> None:
        nonlocal compared
        after = outcome.position
        for side in (Side.BLACK, Side.WHITE):
            if (after.derived.black if side is Side.BLACK else after.derived.white) is None:
                continue
            unordered = after.derived.unordered
            assert ordered(after.known_occupancy(side), unordered) == ordered(
                _fresh(after).known_occupancy(side), unordered), (after.turn, side)
            compared += 1

    _all_action_games(compare, turns=200, seed=31)
    assert compared > 800


def test_recorded_changes_equal_a_comparison_of_the_pieces():
    """The changes an action notes in its result (movement.record_changes) are exactly
    the pieces that differ from the state it started from."""
    compared = 0

    def compare(before: Position, intent, outcome) -> None:
        nonlocal compared
        for state in outcome.audience.states if outcome.audience else ():
            recorded = state.derived.changes
            if recorded is None:
                continue
            parent, replaced, gone, added = recorded
            old = {p.pid: p for p in parent}
            new = {p.pid: p for p in state.pieces}
            assert {(o.pid, id(o), id(n)) for o, n in replaced} == {
                (pid, id(o), id(new[pid])) for pid, o in old.items()
                if pid in new and new[pid] is not o}
            assert {p.pid for p in gone} == old.keys() - new.keys()
            assert {p.pid for p in added} == new.keys() - old.keys()
            compared += 1

    _all_action_games(compare, turns=200, seed=41)
    assert compared > 500


def test_exchange_memo_agrees_with_exchange_reason():
    """The Exchange memo (article_actions._trades) keys pieces by what R2.6 and R9.9 ask
    of their kinds; every pair in reach must get exactly the trades exchange_reason
    allows, whichever pieces filled the memo first."""
    from wec.engine.article_actions import _kinds, _trades, exchange_reason
    from wec.engine.board import distance
    from wec.engine.pieces import TRAITS

    compared = 0

    def compare(before: Position, intent, outcome) -> None:
        nonlocal compared
        position = outcome.position
        own = [p for p in position.pieces if p.side is position.side_to_act]
        for giver in own:
            if not giver.articles:
                continue
            for taker in own:
                if taker is giver or (distance(giver.sq, taker.sq) > 1
                                      and not TRAITS[giver.kind].secondary
                                      and not TRAITS[taker.kind].secondary):
                    continue
                expected = tuple((give, take) for give in _kinds(giver.articles)
                                 for take in (None, *_kinds(taker.articles))
                                 if exchange_reason(position, giver, taker, give, take)
                                 is None)
                assert _trades(position, giver, taker) == expected
                compared += 1

    for seed, options in ((51, None), (52, {"king_may_be_stealthy": True})):
        _all_action_games(compare, turns=100, seed=seed, options=options)
    assert compared > 2000


def test_exchange_memo_tells_apart_what_the_rules_ask_of_a_kind():
    """Pieces with the same articles but of a kind the rules treat apart (a primary
    government piece may not acquire Stealth without O26, R9.9; an XXX Pawn carries 2,
    R2.6) get their own trades, whichever pair filled the memo first."""
    from itertools import product

    from rules_helpers import black, make, white

    from wec.engine.article_actions import _kinds, _trades, exchange_reason

    loads = [[], ["stealth"], ["xxx", "flame"], ["stealth", "xxx"], ["anti_stealth"]]
    kinds = ["flame_pawn", "king", "xxx_pawn", "queen"]
    compared = refused = 0
    for o26, (giver_kind, taker_kind), (giver_load, taker_load) in product(
            (False, True), product(kinds, kinds), product(loads[1:], loads)):
        if not o26 and any(kind == "king" and "stealth" in load for kind, load in (
                (giver_kind, giver_load), (taker_kind, taker_load))):
            continue  # such a position is refused as it is read (R9.9)
        pieces = [white(giver_kind, 4, 4, articles=giver_load),
                  white(taker_kind, 4, 5, articles=taker_load), black("king", 10, 10)]
        if "king" not in (giver_kind, taker_kind):
            pieces.append(white("king", 1, 1))
        position = make(pieces, options={"king_may_be_stealthy": o26})
        giver, taker = (next(p for p in position.pieces if p.sq == sq)
                        for sq in (33, 34))
        expected = tuple((give, take) for give in _kinds(giver.articles)
                         for take in (None, *_kinds(taker.articles))
                         if exchange_reason(position, giver, taker, give, take) is None)
        assert _trades(position, giver, taker) == expected, (giver, taker, o26)
        compared += 1
        refused += not expected
    assert compared > 500 and refused > 5


def test_a_quiet_projectile_phase_equals_the_full_one():
    """The projectile phase without homing or collision (projectiles._quiet_step) leaves
    exactly the state and events the full phase on a Working copy does."""
    from wec.engine.position import FRESH_TURN
    from wec.engine.projectiles import _quiet_step, _step

    compared = 0
    hiding = random.Random(62)

    def compare(before: Position, intent, outcome) -> None:
        nonlocal compared
        after = outcome.position
        if not after.projectiles or after.result is not None:
            return
        start = after.evolve(turn=after.turn + 1, actions=FRESH_TURN, hits=())
        # and with many pieces hidden, so that projectiles meet unseen pieces too
        for state in (start, hide_randomly(start, hiding, share=0.6)):
            quiet = _quiet_step(state)
            if quiet is not None:
                full = _step(_fresh(state))
                assert quiet[0] == full[0] and list(quiet[1]) == list(full[1])
                assert quiet[1].subjects == full[1].subjects
                compared += 1

    _all_action_games(compare, turns=600, seed=61)
    assert compared > 250


# ---------------------------------------------------------------- geometry tables and memos


def test_routes_placed_from_relative_routes_equal_routes_placed_square_by_square():
    """routes.routes_for places each piece's routes relative to its origin (memoised per
    rules, kind of movement, side, hand and level) on the origin and drops those whose
    box leaves the board; that equals placing every square of every route one by one and
    dropping a route with any square off the board (R5.2.1, D-15), for every origin, in
    every movement system."""
    from wec.engine import board
    from wec.engine.board import Level
    from wec.engine.pieces import Hand, Movement
    from wec.engine.routes import MovementRules, Route, relative_routes

    def placed_one_by_one(rules, movement, side, hand, sq, level):
        out = []
        row, col = board.row_of(sq), board.col_of(sq)
        for _, _, mode, rule, first, _, deltas in relative_routes(rules, movement, side,
                                                                  hand, level):
            if all(board.on_board(row + dr, col + dc) for dr, dc, _ in deltas):
                cells = [board.cell_at(row + dr, col + dc, lv) for dr, dc, lv in deltas]
                out.append(Route(cells[-1], tuple(cells[:-1]), mode, rule, first))
        return tuple(out)

    compared = 0
    for system in ("wec", "standard_chess", "mass_destruction"):
        rules = MovementRules(system=system)  # not the interned one: its memos start empty
        for movement in Movement:
            for side in Side:
                for hand in (Hand.RIGHT, Hand.LEFT, None):
                    if hand is None and movement in (Movement.TANK, Movement.CLERIC,
                                                     Movement.CHOPPER):
                        continue
                    for sq in range(board.SQUARES):
                        for level in Level:
                            assert rules.routes(movement, side, hand, sq, level) == (
                                placed_one_by_one(rules, movement, side, hand, sq, level)), (
                                system, movement, side, hand, sq, level)
                            compared += 1
    assert compared == 3 * 2 * 100 * 3 * (6 * 3 + 3 * 2)


def test_transport_step_table_equals_the_step_rule_for_every_pair_of_squares():
    """transport.next_step reads a table by displacement; it equals step_toward (R8.5,
    D-31) for every pair of squares and path, and the destinations a transport article
    lists (fire._transport_paths) are each square with the beeline and the port or
    starboard path whose first step differs from it."""
    from wec.engine import board
    from wec.engine.fire import _transport_paths
    from wec.engine.transport import next_step, step_toward

    for frm in range(board.SQUARES):
        expected = []
        for dest in range(board.SQUARES):
            dr = board.row_of(dest) - board.row_of(frm)
            dc = board.col_of(dest) - board.col_of(frm)
            for path in ("beeline", "port", "starboard"):
                assert next_step(frm, dest, path) == step_toward(dr, dc, path), (frm, dest)
            if dest != frm:
                expected.append((dest, "beeline"))
                expected += [(dest, path) for path in ("port", "starboard")
                             if step_toward(dr, dc, path) != step_toward(dr, dc, "beeline")]
        assert _transport_paths(frm) == tuple(expected), frm
    # three rows forward and one column right: starboard (right of the line) turns
    # diagonally first, as the beeline does; port goes straight first
    assert [step_toward(3, 1, path) for path in ("beeline", "port", "starboard")] == [
        (1, 1), (1, 0), (1, 1)]


def test_drop_order_table_equals_the_ring_walk_of_r7_4():
    """articles.drop_order walks precomputed ring offsets; it equals walking the rings
    square by square (R7.4, D-29) from every square for both sides."""
    from wec.engine import board
    from wec.engine.articles import drop_order

    def ring_walk(sq: int, side: Side) -> tuple[int, ...]:
        row, col = board.row_of(sq), board.col_of(sq)
        order = [sq]
        for k in range(1, board.SIZE):
            ring = [(k, r) for r in range(-k, k + 1)]
            ring += [(f, -k) for f in range(k - 1, -k, -1)]
            ring += [(f, k) for f in range(k - 1, -k, -1)]
            ring += [(-k, r) for r in range(-k, k + 1)]
            for f, r in ring:
                dr, dc = (f, r) if side is Side.WHITE else (-f, -r)
                if board.on_board(row + dr, col + dc):
                    order.append(board.square(row + dr, col + dc))
        return tuple(order)

    for side in Side:
        for sq in range(board.SQUARES):
            assert drop_order(sq, side) == ring_walk(sq, side), (sq, side)
            assert sorted(drop_order(sq, side)) == list(range(board.SQUARES))
    # R7.4(2): White at (5,5): own square, then forward-left (6,4), forward, forward-right
    assert drop_order(board.square(5, 5), Side.WHITE)[:4] == (
        board.square(5, 5), board.square(6, 4), board.square(6, 5), board.square(6, 6))


def test_reach_masks_equal_a_scan_of_every_square():
    """fire._reach_mask (the cells a homing or restricted weapon reaches, R6.11.1,
    R6.12.1) scans only the box around the firer; it equals a scan of every square."""
    from wec.engine import board
    from wec.engine.board import Level
    from wec.engine.fire import _reach_mask

    for sq in range(board.SQUARES):
        for level in Level:
            for nearest in (0, 1):
                for reach in range(0, board.SIZE + 1):
                    assert _reach_mask(sq, level, nearest, reach) == sum(
                        1 << (other * 3 + level) for other in range(board.SQUARES)
                        if nearest <= board.distance(sq, other) <= reach)


def test_dozer_listings_from_index_memos_equal_a_direct_enumeration(monkeypatch):
    """dozing._dozes_of reads which (selection, direction) pairs are lawful from memos
    keyed by the near squares' piece counts and the directions' conditions alone
    (_index_selections, _lawful), and builds each Doze only when asked (DozeListing);
    for every Dozer listing of all-action games that equals enumerating the selections
    of the near squares themselves (every subset holding at most MAX_DOZED pieces,
    R8.8.2, by size, in combinations order) and testing each against each direction's
    conditions (R8.8.4)."""
    from itertools import combinations

    from wec.engine import board, dozing
    from wec.engine.intents import Doze

    compared = 0
    real = dozing._dozes_of

    def direct(sq, near, counts, conditions):
        out = []
        for d, found in zip(board.DIRECTIONS, conditions, strict=True):
            if found is None:
                continue
            forbidden, required, with_dest, without_dest = found
            for size in range(len(near) + 1):
                for chosen in combinations(range(len(near)), size):
                    if sum(counts[i] for i in chosen) > dozing.MAX_DOZED:
                        continue
                    mask = sum(1 << i for i in chosen)
                    if (mask & forbidden or mask & required != required
                            or any(mask & b and not mask & dest for b, dest in with_dest)
                            or any(mask & b and mask & dest for b, dest in without_dest)):
                        continue
                    out.append(Doze(sq, tuple(near[i] for i in chosen), d))
        return tuple(out)

    def checked(sq, near, counts, conditions):
        nonlocal compared
        listed = real(sq, near, counts, conditions)
        expected = direct(sq, near, counts, conditions)
        # built one by one when asked (as a random player does), then all at once
        assert [listed[i] for i in range(len(listed))] == list(expected), (sq, near)
        assert listed.all() == expected
        compared += 1
        return listed

    monkeypatch.setattr(dozing, "_MEMO", {})  # every listing is computed anew
    monkeypatch.setattr(dozing, "_dozes_of", checked)
    _all_action_games(lambda *_: None, turns=300, seed=71)
    assert compared > 50


def test_the_playout_move_listing_is_the_plans_then_the_dozes():
    """engine.playout reads the Move plans and the Dozes as one listing without copying
    them (Joined); it lists exactly the plans, then the Dozes, of a fresh generation."""
    from wec.engine.dozing import legal_dozes
    from wec.engine.playout import _moves

    compared = dozes = 0

    def compare(before: Position, intent, outcome) -> None:
        nonlocal compared, dozes
        position = outcome.position
        if position.result is not None:
            return
        listing = _moves(position)
        fresh = _fresh(position)
        expected = [*all_legal_plans(fresh), *legal_dozes(fresh)]
        assert len(listing) == len(expected)
        assert [listing[i] for i in range(len(listing))] == expected, position.turn
        compared += 1
        dozes += len(legal_dozes(fresh))

    _all_action_games(compare, turns=150, seed=81)
    assert compared > 300 and dozes > 100


def test_piece_fires_from_the_weapons_memo_equal_a_direct_listing():
    """fire._piece_fires reads which weapons a piece may fire from a memo keyed by its
    kind, articles and which instances are ready (_fire_weapons); for every piece of
    all-action games that equals listing, ability by ability, the directional Fires of
    each weapon with a ready instance (R6.2.1), the weapons with a ready instance for a
    target (R6.11, R6.12) and the transport articles (R8.1)."""
    from wec.engine import board
    from wec.engine.fire import PROJECTILE, RATE, TRANSPORTS, _piece_fires, ready_instances
    from wec.engine.intents import Fire
    from wec.engine.selection import twin_hand

    def direct(piece, turn, hand):
        directional, targeted, transports, seen = [], [], [], []
        for weapon in piece.abilities():
            if weapon in seen:
                continue
            seen.append(weapon)
            if weapon in TRANSPORTS:
                transports.append(weapon)
            elif weapon in RATE:
                if ready_instances(piece, weapon, turn):
                    directional += [Fire(piece.cell, weapon, dir=d, kind=piece.kind, hand=hand)
                                    for d in board.DIRECTIONS
                                    if board.offset(piece.sq, d) is not None]
                if weapon in PROJECTILE and ready_instances(piece, weapon, turn, True):
                    targeted.append(weapon)
        return tuple(directional), tuple(targeted), tuple(transports)

    compared = aimed = 0

    def compare(before: Position, intent, outcome) -> None:
        nonlocal compared, aimed
        position = outcome.position
        turn = position.turn
        for piece in position.pieces:
            hand = twin_hand(position, piece)
            readiness = tuple(r > turn for r in piece.ready) if piece.ready else ()
            listed = _piece_fires(piece, turn, hand, readiness)
            assert listed == direct(piece, turn, hand), (piece, turn)
            compared += 1
            aimed += bool(listed[1])

    _all_action_games(compare, turns=100, seed=91)
    assert compared > 10_000 and aimed > 500


def test_plans_of_a_piece_changed_in_place_equal_fresh_plans(monkeypatch):
    """A piece that changed only in place (articles, ready turns, reveal, hidden: the
    same cell, side, kind, hand and first-move right, R5.3.1) keeps its cached plans,
    renamed to the new piece (engine.movement._renamed_entry): they must equal the plans
    of a fresh generation, piece objects included, after every action of all-action
    games (Fire, Pick-up, Drop, Exchange, Doze, visibility changes)."""
    from wec.engine import movement

    real = movement._renamed_entry
    renamed = compared = 0

    def counted(entry, piece):
        nonlocal renamed
        renamed += 1
        return real(entry, piece)

    def compare(before: Position, intent, outcome) -> None:
        nonlocal compared
        after = outcome.position
        if after.result is not None:
            return
        plans = [(p.piece, p.passenger, p.route) for p in all_legal_plans(after)]
        assert plans == [(p.piece, p.passenger, p.route)
                         for p in all_legal_plans(_fresh(after))], after.turn
        compared += 1

    monkeypatch.setattr(movement, "_renamed_entry", counted)
    _all_action_games(compare, turns=400, seed=31)
    _all_action_games(compare, turns=200, seed=32, options={"stealth_range_detection": True,
                                                            "stealth_detector_range": 2})
    assert compared > 1000
    assert renamed > 50


def test_a_carried_cache_never_changes_under_another_position():
    """engine.position Derived: what a position derived is carried into a later position
    with the same pieces, and shared until either writes: listing Moves on the later one
    leaves the earlier one's caches as they were (and the other way round)."""
    from wec.engine.movement import all_legal_plans
    from wec.engine.setup import standard_position

    start = standard_position()
    all_legal_plans(start)
    before = {key: (cache.entries, dict(cache.entries))
              for key, cache in start.derived.piece_caches.items()}
    later = start.evolve(turn=start.turn + 2)  # the same pieces and options: carried
    assert later.derived is not start.derived
    assert later.derived.black is start.derived.black  # read-only data is shared
    all_legal_plans(later)
    for key, (entries, copy) in before.items():
        assert start.derived.piece_caches[key].entries is entries and entries == copy
        assert later.derived.piece_caches[key].entries is not entries  # written: its own
    other = start.evolve(turn=start.turn + 4)
    other.derived.mine("listings")[("probe", 0, other.actions)] = "only here"
    assert ("probe", 0, other.actions) not in start.derived.listings
