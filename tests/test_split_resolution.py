"""Split resolution and events per side (issue 4, items 3-5 and 8).

Every intent, of every kind, resolves identically on the full state and on each side's
partial state with a Referee backed by the full state: the acting side resolves it
(``apply(view, intent, referee)``), the side that does not act observes it (the same
call on its own view). Both must arrive at the projection of the full-state result,
byte for byte (``encode_state``), and at ``events_for(side, ...)`` of the full-state
events. Events are censored as R14.3 says: a side's stream never mentions enemy pieces
hidden from it, and perturbing those pieces changes nothing in it.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from rules_helpers import BLACK_TURN, WHITE_TURN, black, make, perturb_hidden, white
from wec_strategies import hide_randomly

from wec.engine import board
from wec.engine.board import GROUND, Level
from wec.engine.censor import events_for
from wec.engine.encoding import encode_state
from wec.engine.errors import IllegalIntent
from wec.engine.events import (
    Captured,
    Dozed,
    Hit,
    Moved,
    ProjectileLaunched,
    ReinforceFoiled,
    TransportStepped,
)
from wec.engine.game import Outcome, apply, end_turn, legal_intents, observe
from wec.engine.intents import Doze, EndTurn, Fire, Intent, Move, Reinforce
from wec.engine.knowledge import project, view
from wec.engine.movement import legal_moves
from wec.engine.pieces import TRAITS, ArticleKind, Hand, PieceKind, Side
from wec.engine.playout import play_turn
from wec.engine.position import Position, Reinforcement
from wec.engine.referee import FullStateReferee
from wec.engine.setup import standard_position
from wec.engine.visibility import refresh

A = ArticleKind
K = PieceKind


def cell(row: int, col: int, level: Level = Level.GROUND) -> int:
    return board.cell_at(row, col, level)


def settled(position: Position) -> Position:
    """The position with visibility computed by the rules (as after any action)."""
    return refresh(position, position)


def both_sides(before: Position, intent: Intent) -> tuple[Outcome, dict[Side, Outcome]]:
    """The full-state outcome and each side's split outcome (one Referee, as in lockstep
    play where both sides resolve the same intent)."""
    full = apply(before, intent)
    referee = FullStateReferee(before)
    return full, {side: apply(project(before, side), intent, referee)
                  for side in (before.side_to_act, before.side_to_act.other)}


def stream(before: Position, intent: Intent, side: Side) -> list[str]:
    """``side``'s events of ``intent``, as type names."""
    return [type(e).__name__ for e in events_for(side, apply(before, intent))]


# ---------------------------------------------------------------- what each side sees

def test_a_hidden_enemy_move_is_absent_from_the_other_sides_stream():
    p = settled(make([black("aaa", 8, 3), black("king", 10, 6), white("king", 1, 5)],
                     turn=BLACK_TURN))
    move = Move(cell(8, 3), cell(7, 3))
    full, split = both_sides(p, move)
    assert full.events == (Moved(Side.BLACK, K.AAA, None, cell(8, 3), cell(7, 3), cell(7, 3)),)
    assert split[Side.BLACK].events == full.events
    assert split[Side.WHITE].events == ()  # R14.3: the AAA is hidden from White (R9.2)
    # White's view after the Move: still no AAA, nothing else changed but the budget
    assert [q.kind for q in split[Side.WHITE].position.pieces] == [K.KING, K.KING]
    assert encode_state(split[Side.WHITE].position) == encode_state(
        project(full.position, Side.WHITE))


def test_flame_hits_on_a_hidden_piece_are_shown_to_its_owner_only():
    # White's Flame Pawn flames (6,4), where Black's AAA stands hidden from White (R9.11)
    p = settled(make([white("flame_pawn", 5, 4), black("aaa", 6, 4), black("king", 10, 6),
                      white("king", 1, 5)], turn=WHITE_TURN))
    fire = Fire(cell(5, 4), A.FLAME, dir=(1, 0))
    full, split = both_sides(p, fire)
    assert [type(e).__name__ for e in full.events] == ["Fired", "Hit", "Destroyed"]
    assert split[Side.BLACK].events == full.events  # its own AAA: hit and destroyed
    assert [type(e).__name__ for e in split[Side.WHITE].events] == ["Fired"]
    assert not any(q.kind is K.AAA for q in full.position.pieces)
    for side in Side:
        assert encode_state(split[side].position) == encode_state(
            project(full.position, side))


def test_an_enemy_hit_on_its_own_hidden_piece_is_absent():
    # Black flames its own hidden AAA (fratricide, R6.1.5): White sees only the Fire
    p = settled(make([black("flame_pawn", 7, 4), black("aaa", 6, 4), black("king", 10, 6),
                      white("king", 1, 5)], turn=BLACK_TURN))
    fire = Fire(cell(7, 4), A.FLAME, dir=(-1, 0))
    assert stream(p, fire, Side.BLACK) == ["Fired", "Hit", "Destroyed"]
    assert stream(p, fire, Side.WHITE) == ["Fired"]
    hit = next(e for e in apply(p, fire).events if isinstance(e, Hit))
    assert (hit.side, hit.kind, hit.total, hit.defences) == (Side.BLACK, K.AAA, 1, 0)


def test_a_hidden_firer_is_shown_firing_when_the_fire_reveals_it():
    pieces = [black("aaa", 7, 3), black("king", 10, 6), white("king", 1, 5)]
    fire = Fire(cell(7, 3), A.SAM_LAUNCHER, dir=(-1, 0))
    revealing = settled(make(pieces, turn=21))
    assert stream(revealing, fire, Side.WHITE) == ["Fired", "ProjectileLaunched"]  # R9.8
    quiet = settled(make(pieces, turn=21, options={"reveal_on_fire": False}))
    launched = [e for e in events_for(Side.WHITE, apply(quiet, fire))]
    assert launched == [ProjectileLaunched("sam", Side.BLACK, board.square(6, 3), 1, (-1, 0))]
    assert stream(quiet, fire, Side.BLACK) == ["Fired", "ProjectileLaunched"]


def test_a_visible_carrier_is_shown_moving_without_its_hidden_passenger():
    # R9.7(b), Stealth dominance: the Sub is detected by the Destroyer, its stealthy
    # passenger is not; White sees the Sub move, alone
    p = settled(make([black("sub", 5, 5, "sub"),
                      black("rocket_pawn", 5, 5, "sub", articles=["stealth"]),
                      white("destroyer", 3, 5), white("king", 1, 5), black("king", 10, 6)],
                     turn=BLACK_TURN, options={"dominance": "stealth"}))
    assert [q.kind for q in view(p, Side.WHITE).pieces if q.side is Side.BLACK] == [
        K.SUB, K.KING]
    move = next(m for m in legal_intents(p) if isinstance(m, Move) and m.kind is K.SUB
                and m.frm == cell(5, 5, Level.SUB) and m.to == cell(4, 5, Level.SUB))
    full, split = both_sides(p, move)
    moved = full.events[0]
    assert isinstance(moved, Moved) and moved.passenger is K.ROCKET_PAWN
    assert split[Side.WHITE].events == (replace(moved, passenger=None),)
    assert split[Side.BLACK].events == full.events


def test_dozed_pieces_hidden_from_a_side_are_left_out_of_its_doze():
    # Black's Dozer shoves its Flame Pawn and its hidden AAA west; White sees the two
    # visible pieces move
    p = settled(make([black("dozer", 5, 5), black("flame_pawn", 5, 5), black("aaa", 5, 6),
                      white("king", 1, 5), black("king", 10, 6)], turn=BLACK_TURN))
    doze = Doze(board.square(5, 5), (board.square(5, 6),), (0, -1))
    full, split = both_sides(p, doze)
    dozed = full.events[0]
    assert isinstance(dozed, Dozed) and len(dozed.moved) == 3
    assert split[Side.BLACK].events == full.events
    shown = split[Side.WHITE].events
    assert shown == (replace(dozed, moved=dozed.moved[:2]),)
    assert [(s, k) for s, k, _, _ in shown[0].moved] == [(Side.BLACK, K.DOZER),
                                                           (Side.BLACK, K.FLAME_PAWN)]


def test_a_foiled_reinforce_is_shown_to_the_reinforcing_side_only():
    # A hidden Black AAA stands on White's activation square: the Reinforce is foiled
    # (R4.13, D-12) and Black never learns what waited there (R10.5)
    data_pieces = [black("aaa", 8, 5), white("king", 1, 5), black("king", 10, 6)]
    p = settled(make(data_pieces, turn=WHITE_TURN))
    p = p.evolve(reinforcements=(Reinforcement(Side.WHITE, K.DESTROYER, board.square(8, 5)),),
                 turn_start_squares=(board.square(8, 5),))
    intent = Reinforce(board.square(8, 5), K.DESTROYER)
    full, split = both_sides(p, intent)
    assert full.events == (ReinforceFoiled(Side.WHITE, board.square(8, 5)),)
    assert split[Side.WHITE].events == full.events
    assert split[Side.BLACK].events == ()


def test_a_hidden_enemy_transport_step_at_turn_start_is_absent():
    # White's Bike Fire sends its hidden AAA off; at White's next turn start the step is
    # shown to White only
    p = settled(make([white("aaa", 3, 3, articles=["bike"]), white("king", 1, 5),
                      black("king", 10, 6)], turn=WHITE_TURN,
                     options={"reveal_on_fire": False}))
    p = apply(p, Fire(cell(3, 3), A.BIKE, dest=board.square(8, 3))).position
    p = apply(apply(p, Move(cell(1, 5), cell(1, 4))).position, EndTurn()).position
    p = apply(p, Move(cell(10, 6), cell(10, 5))).position
    full, split = both_sides(p, EndTurn())
    steps = [e for e in full.events if isinstance(e, TransportStepped)]
    assert steps == [TransportStepped(Side.WHITE, K.AAA, cell(4, 3), cell(5, 3))]
    assert [type(e).__name__ for e in split[Side.BLACK].events] == ["TurnEnded"]
    assert split[Side.WHITE].events == full.events
    for side in Side:
        assert encode_state(split[side].position) == encode_state(
            project(full.position, side))


# ---------------------------------------------------------------- the API

def test_a_partial_state_ends_the_turn_only_through_the_referee():
    p = settled(make([white("king", 1, 5), black("king", 10, 6)], turn=BLACK_TURN))
    p = apply(p, Move(cell(10, 6), cell(10, 5))).position
    with pytest.raises(ValueError, match="turn-start phases"):
        end_turn(project(p, Side.BLACK))
    with pytest.raises(ValueError, match="needs a Referee"):
        apply(project(p, Side.BLACK), EndTurn())
    ended = apply(project(p, Side.BLACK), EndTurn(), FullStateReferee(p))
    assert ended.position.turn == 2 and ended.position.viewer is Side.BLACK


def test_both_sides_refuse_an_illegal_intent_with_the_same_rule():
    p = settled(make([white("king", 1, 5), black("king", 10, 6)], turn=BLACK_TURN))
    referee = FullStateReferee(p)
    for attempt in (lambda: apply(p, EndTurn()),
                    lambda: apply(project(p, Side.BLACK), EndTurn(), referee),
                    lambda: observe(project(p, Side.WHITE), EndTurn(), referee)):
        with pytest.raises(IllegalIntent) as refused:
            attempt()
        assert refused.value.rule == "R4.4"
    with pytest.raises(ValueError, match="other side's partial state"):
        observe(project(p, Side.BLACK), EndTurn(), referee)


# ---------------------------------------------------------------- the property

def _category(intent: Intent, before: Position) -> str:
    if isinstance(intent, Fire):
        if intent.dest is not None:
            return "fire: transport"
        if intent.target is not None:
            return "fire: restricted rocket" if intent.weapon is A.ROCKET_LAUNCHER else \
                "fire: homing"
        return "fire: " + intent.weapon.value
    if isinstance(intent, EndTurn):
        parts = []
        if before.projectiles:
            parts.append("projectiles")
        if any(p.transit is not None and p.side is before.side_to_act.other
               for p in before.pieces):
            parts.append("transport")
        return "end turn" + (": " + ", ".join(parts) if parts else "")
    return type(intent).__name__.lower()


def _with_waiting_reinforcement(position: Position, rng: random.Random) -> Position | None:
    """The position with a reinforcement of the side to act waiting on an activation
    square where its piece stood at the turn start and has left (R10.3): a Ground square
    empty to its knowledge; where a hidden enemy stands, the Reinforce is foiled (D-12)."""
    side = position.side_to_act
    known = position.known_occupancy(side)
    taken = {r.sq for r in position.reinforcements}
    empty = [sq for sq in range(board.SQUARES)
             if not known[sq * 3 + GROUND] and sq not in taken]
    hidden = sorted(q.sq for q in position.pieces if q.side is not side and q.hidden
                    and q.level is Level.GROUND and q.sq not in taken)
    if not empty:
        return None
    sq = rng.choice(hidden) if hidden and rng.random() < 0.5 else rng.choice(empty)
    kind = rng.choice([K.AAA, K.STEALTH_PAWN, K.DESTROYER, K.JET, K.TANK, K.SUB])
    hand = rng.choice([Hand.LEFT, Hand.RIGHT]) if TRAITS[kind].handed else None
    return position.evolve(
        reinforcements=(*position.reinforcements, Reinforcement(side, kind, sq, hand)),
        turn_start_squares=tuple(sorted({*position.turn_start_squares, sq})))


def _random_game_actions(seed: int, turns: int) -> list[tuple[Position, Intent]]:
    """Each action of a random game with every action kind (engine.playout), with the
    full state before it; visibility as the rules compute it (R9)."""
    rng = random.Random(seed)
    position = standard_position()
    seen: list[tuple[Position, Intent]] = []
    for _ in range(turns):
        position = play_turn(position, rng, lambda before, intent, _: seen.append(
            (before, intent)))
        if position.result is not None:
            position = standard_position()
    return seen


class _Tally:
    """What the property met: intent categories, censored events, hidden collisions."""

    def __init__(self) -> None:
        self.categories: Counter[str] = Counter()
        self.censored = 0
        self.hidden_captures = 0
        self.refused = 0


def _check(before: Position, intent: Intent, tally: _Tally) -> None:
    """Full state vs each side's partial state + Referee: byte-identical results."""
    referee = FullStateReferee(before)
    try:
        full = apply(before, intent)
    except IllegalIntent as refused:
        for side in Side:
            with pytest.raises(IllegalIntent) as also:
                apply(project(before, side), intent, referee)
            assert also.value.rule == refused.rule, (side, intent)
        tally.refused += 1
        return
    tally.categories[_category(intent, before)] += 1
    for side in (before.side_to_act, before.side_to_act.other):
        split = apply(project(before, side), intent, referee)
        assert encode_state(split.position) == encode_state(project(full.position, side)), (
            side, intent)
        expected = events_for(side, full)
        assert split.events == expected, (side, intent)
        tally.censored += len(full.events) - len(expected)
    unseen = {p.cell for p in before.pieces if p.side is not before.side_to_act and p.hidden}
    tally.hidden_captures += sum(1 for e in full.events
                                 if isinstance(e, Captured) and e.cell in unseen)


def _extra_intents(before: Position, rng: random.Random) -> list[Intent]:
    """Two more legal intents of random categories, and sometimes an early end of turn."""
    by_category: dict[str, list[Intent]] = {}
    for intent in legal_intents(before):
        by_category.setdefault(_category(intent, before), []).append(intent)
    names = sorted(by_category)
    rng.shuffle(names)
    extra = [rng.choice(by_category[name]) for name in names[:2]]
    if not before.actions.move and rng.random() < 0.1:
        extra.append(EndTurn())  # refused (R4.4) unless no Move is possible
    return extra


def test_split_resolution_equals_full_resolution_for_every_intent_and_both_sides():
    """Issue 4, item 4: over thousands of actions of random games, every kind of intent."""
    tally = _Tally()
    rng = random.Random(44)
    checked = 0
    for seed in (7, 8, 9):
        for i, (before, intent) in enumerate(_random_game_actions(seed, 150)):
            _check(before, intent, tally)
            checked += 1
            if i % 5 == 0 and before.result is None:
                # more hidden pieces than R9 hides: Moves legal only because a piece is
                # hidden meet it on the way (R5.2.4)
                hidden = hide_randomly(before, rng)
                known = set(legal_moves(before))
                moves = [m for m in legal_moves(hidden) if m not in known]
                for tried in [intent, *([rng.choice(moves)] if moves else [])]:
                    _check(hidden, tried, tally)
                    checked += 1
            if i % 3 == 0:
                for extra in _extra_intents(before, rng):
                    _check(before, extra, tally)
                    checked += 1
            if i % 12 == 0 and before.result is None and not before.actions.reinforce:
                ready = _with_waiting_reinforcement(before, rng)
                if ready is not None:
                    for extra in legal_intents(ready):
                        if isinstance(extra, Reinforce):
                            _check(ready, extra, tally)
                            checked += 1
    assert checked >= 2000
    kinds = tally.categories
    for needed in ("move", "doze", "pickup", "drop", "exchange", "reinforce", "fire: flame",
                   "fire: stunner", "fire: conversion", "fire: rocket_launcher",
                   "fire: sam_launcher", "fire: torpedo_launcher", "fire: homing",
                   "fire: transport", "end turn", "end turn: projectiles",
                   "end turn: transport"):
        assert kinds[needed] >= 5, (needed, kinds)
    assert tally.censored > 100  # events hidden from one side were really met
    assert tally.refused > 5
    assert tally.hidden_captures > 10


# ---------------------------------------------------------------- leakage (item 8)

def _same_view(a: Position, b: Position, side: Side) -> bool:
    return encode_state(project(a, side)) == encode_state(project(b, side))


def _outcome(position: Position, intent: Intent) -> Outcome | None:
    try:
        return apply(position, intent)
    except IllegalIntent:
        return None


def test_perturbing_hidden_pieces_leaves_the_other_sides_event_stream_identical():
    """Issue 4, item 8, for events: wherever the other side's view is the same before and
    after an intent, its event stream is byte-identical too (the only exception is what
    a hidden collision shows the mover, R5.2.4)."""
    rng = random.Random(808)
    compared = concealed = positions = 0
    actions = _random_game_actions(31, 160) + _random_game_actions(32, 160)
    for before, intent in actions:
        for side in Side:
            other = side.other
            moved = perturb_hidden(before, side, rng, some=True)
            perturbed = None if moved is None else settled(moved)
            if perturbed is None or not _same_view(before, perturbed, other):
                continue
            positions += 1
            candidates = [intent, *_extra_intents(before, rng)[:1]]
            for tried in candidates:
                real, fake = _outcome(before, tried), _outcome(perturbed, tried)
                if real is None or fake is None:
                    continue
                if any(isinstance(e, Captured) for e in real.events + fake.events):
                    continue
                if not _same_view(real.position, fake.position, other):
                    continue
                mine = events_for(other, real)
                assert mine == events_for(other, fake), (other, tried)
                concealed += len(real.events) != len(mine)
                compared += 1
    assert positions >= 1000 and compared >= 1000
    assert concealed > 30  # the stream really left out events about hidden pieces


def test_events_for_needs_a_full_state_outcome():
    p = settled(make([white("king", 1, 5), black("king", 10, 6)], turn=BLACK_TURN))
    split = apply(project(p, Side.BLACK), Move(cell(10, 6), cell(10, 5)), FullStateReferee(p))
    with pytest.raises(ValueError, match="full-state outcome"):
        events_for(Side.BLACK, split)


