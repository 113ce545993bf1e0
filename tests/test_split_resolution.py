"""Resolution on two half states (issue 17): each side resolves every intent on its own
half state, asking the other side's half referee about the other side's pieces, never
the full state (engine.half_resolution, engine.half_referee).

Both must arrive at the projection of the full-state result, field for field with the
pieces' identifiers (``halves.half_key``; in bytes, ``encode_state``), and at
``events_for(side, ...)`` of the full-state events (R14.3). The property runs over more
than 5,000 intents of every kind of random games with O15, O16 and O17 on, and again
with O18 and with Stealth dominance (O23), and with many more pieces hidden; after every
action each half state holds nothing of the enemy pieces it does not see.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest
from halves import KINDS, category, collect, compare, halves_of, resolve_both, unseen_in
from rules_helpers import BLACK_TURN, WHITE_TURN, black, make, white

from wec.engine import board
from wec.engine.board import Level
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
from wec.engine.game import Outcome, apply, legal_intents
from wec.engine.half_referee import HalfReferee
from wec.engine.half_resolution import round_trips
from wec.engine.intents import Doze, EndTurn, Fire, Intent, Move, PickUp, Reinforce
from wec.engine.knowledge import project, view
from wec.engine.options import Options
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.position import Position, Projectile, Reinforcement
from wec.engine.visibility import settle as settled

A = ArticleKind
K = PieceKind


def cell(row: int, col: int, level: Level = Level.GROUND) -> int:
    return board.cell_at(row, col, level)


def both_sides(before: Position, intent: Intent) -> tuple[Outcome, dict[Side, Outcome]]:
    """The full-state outcome and each side's two-halves outcome."""
    return apply(before, intent), resolve_both(halves_of(before), intent)


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


def test_a_move_asks_one_first_hit_and_is_told_where_it_stopped():
    # the questions of a Move without capture (engine.half_resolution): the mover's side
    # asks the first hit along the route (R5.2.4), then what it sees after the step
    # (R9.5: with pieces that can hide, O15/O16, after every step, so that whether it
    # asks tells nothing of its hidden detectors); the other side asks where the Move
    # took its pieces (nowhere) and then what it sees (R9.7)
    p = settled(make([black("aaa", 8, 3), black("king", 10, 6), white("king", 1, 5)],
                     turn=BLACK_TURN))
    split = resolve_both(halves_of(p), Move(cell(8, 3), cell(7, 3)))
    assert [name for name, _, _ in split[Side.BLACK].questions] == ["first_hit", "detect"]
    assert split[Side.BLACK].questions[0][1] == (cell(7, 3),)
    assert split[Side.BLACK].questions[0][2] is None  # no White piece on the route
    # Black's referee plays the Move as White's questions open, asking White back about
    # its pieces on the route (answered by White from its own pieces)
    assert [name for name, _, _ in split[Side.WHITE].questions] == [
        "asked back: first_hit", "act", "detect"]
    assert round_trips(split[Side.BLACK]) == 2
    # the question asked back is Black's own first_hit again: counted on Black's side
    assert round_trips(split[Side.WHITE]) == 2


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


def test_a_dozes_pieces_are_listed_in_identifier_order_whatever_order_they_were_selected_in():
    # White's Dozer and Flame Pawn on e5 doze north-east the Rocket Pawn on f6 and the
    # hidden AAA on d4, selected in that order: Dozed lists them by identifier (R14.3),
    # so that the side that does not act, shown each piece it sees apart, lists them alike
    p = settled(make([white("dozer", 5, 5), white("flame_pawn", 5, 5), white("aaa", 4, 4),
                      white("rocket_pawn", 6, 6), white("king", 1, 5), black("king", 10, 6)]))
    doze = Doze(board.square(5, 5), (board.square(6, 6), board.square(4, 4)), (1, 1))
    full, split = both_sides(p, doze)
    dozed = full.events[0]
    assert isinstance(dozed, Dozed)
    assert [(k, frm, to) for _, k, frm, to in dozed.moved] == [
        (K.DOZER, cell(5, 5), cell(6, 6)), (K.FLAME_PAWN, cell(5, 5), cell(6, 6)),
        (K.AAA, cell(4, 4), cell(5, 5)), (K.ROCKET_PAWN, cell(6, 6), cell(7, 7))]
    assert split[Side.WHITE].events == full.events
    assert split[Side.BLACK].events == (replace(dozed, moved=(*dozed.moved[:2],
                                                             dozed.moved[3])),)


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


def _end_with_a_rocket(rocket_at: tuple[int, int]) -> tuple[Outcome, dict[Side, Outcome]]:
    """White (its Move made) ends its turn while its Rocket flies east along row 5 from
    ``rocket_at``; Black's Sub lies hidden from White (R9.6) far from the row, Black's
    Tank stands at (5,7)."""
    p = settled(make([white("king", 1, 5), black("king", 10, 6),
                      black("tank", 5, 7, hand="right"), black("sub", 8, 2, "sub")],
                     turn=WHITE_TURN))
    p = apply(p, Move(cell(1, 5), cell(1, 4))).position
    rocket = Projectile("rocket", Side.WHITE, board.square(*rocket_at), 1, (0, 1))
    return both_sides(p.evolve(projectiles=(rocket,)), EndTurn())


def test_an_end_whose_projectiles_hit_nothing_asks_no_detect_for_its_projectile_step():
    """R4.2, R9.5: a projectile phase that hits nothing changes no piece of either side,
    and both sides know it (every projectile shows, R9.1): what each sees stands, so
    neither asks ``detect`` after it, though pieces can hide (O16). The ending side
    still asks after the other side's transport phase, whose hidden transports it
    cannot see (R8.4); the side to act, with nothing in transit, asks nothing more.
    After a hit both ask, as after any step that changed pieces."""
    full, split = _end_with_a_rocket((5, 1))
    assert [type(e).__name__ for e in full.events] == ["TurnEnded", "ProjectileStepped"]
    assert [q[0] for q in split[Side.WHITE].questions] == [
        "collide", "transport_phase", "detect"]
    assert [q[0] for q in split[Side.BLACK].questions] == ["collide"]
    for side in Side:
        assert encode_state(split[side].position) == encode_state(
            project(full.position, side))
    full, split = _end_with_a_rocket((5, 6))  # it steps onto the Tank's cell
    assert [type(e).__name__ for e in full.events][:3] == [
        "TurnEnded", "ProjectileStepped", "ProjectileRemoved"]
    assert [q[0] for q in split[Side.WHITE].questions if q[0] == "detect"] == [
        "detect", "detect"]
    assert [q[0] for q in split[Side.BLACK].questions if q[0] == "detect"] == ["detect"]
    for side in Side:
        assert encode_state(split[side].position) == encode_state(
            project(full.position, side))


def _end_with_a_chopper_hit(projectiles: list[Projectile]) -> tuple[Outcome, dict[Side, Outcome]]:
    """White (its Move made) ends its turn while ``projectiles`` fly; Black's Chopper
    hovers at (6,5) Air with a Flame pawn aboard, whose Anti-SAM stops a SAM's one hit
    (R6.4.3): the Chopper destroyed, the pawn falls to (6,5) Ground (R7.3)."""
    p = settled(make([white("king", 1, 5), black("king", 10, 6),
                      black("chopper", 6, 5, "air", hand="left"),
                      black("flame_pawn", 6, 5, "air", articles=["anti_sam"])],
                     turn=WHITE_TURN))
    p = apply(p, Move(cell(1, 5), cell(1, 4))).position
    return both_sides(p.evolve(projectiles=tuple(projectiles)), EndTurn())


def _collides(outcome: Outcome) -> list[tuple[tuple[Projectile, ...], object]]:
    return [(q[1], q[2]) for q in outcome.questions if q[0] == "collide"]


def test_a_later_collide_asks_only_about_the_projectiles_on_the_squares_hit():
    """R6.8.5 settles until nothing changes, and a hit changes pieces on its own square
    alone (R6.4, R7.3): after the SAM destroys the Chopper at (6,5) Air, the pawn that
    falls to (6,5) Ground meets the Rocket that reached that cell empty, and is hit.
    White asks Black about the Rocket there, not about the Rocket flying on along row 2,
    whose cell was just found empty (until wec-fog/27 every later collide asked about
    every projectile left). With no projectile on the hit square, no later collide is
    asked at all. Both halves come out as the full state."""
    sam_ = Projectile("sam", Side.WHITE, board.square(5, 5), 1, (1, 0))
    rocket = Projectile("rocket", Side.WHITE, board.square(5, 5), 1, (1, 0))
    far = Projectile("rocket", Side.WHITE, board.square(2, 8), 1, (0, 1))
    full, split = _end_with_a_chopper_hit([rocket, sam_, far])
    assert [type(e).__name__ for e in full.events if type(e).__name__ in (
        "Destroyed", "Fell", "ProjectileRemoved")] == [
        "ProjectileRemoved", "Destroyed", "Fell", "ProjectileRemoved", "Destroyed"]
    white_collides = _collides(split[Side.WHITE])
    assert [len(asked) for asked, _ in white_collides] == [3, 1]
    assert white_collides[0][1] == {cell(6, 5, Level.AIR)}
    later, hit = white_collides[1]
    assert (later[0].kind, later[0].sq, later[0].level) == (
        "rocket", board.square(6, 5), Level.GROUND)
    assert hit == {cell(6, 5, Level.GROUND)}
    assert full.position.projectiles == (
        Projectile("rocket", Side.WHITE, board.square(2, 9), 1, (0, 1)),)
    for side in Side:
        assert encode_state(split[side].position) == encode_state(
            project(full.position, side))
        assert split[side].events == events_for(side, full)
    full, split = _end_with_a_chopper_hit([sam_, far])  # nothing else on (6,5)
    assert [len(asked) for asked, _ in _collides(split[Side.WHITE])] == [2]
    assert [q[0] for q in split[Side.WHITE].questions].count("detect") == 2
    for side in Side:
        assert encode_state(split[side].position) == encode_state(
            project(full.position, side))
        assert split[side].events == events_for(side, full)


# ---------------------------------------------------------------- the API

def test_a_half_state_resolves_only_with_the_other_sides_referee():
    p = settled(make([white("king", 1, 5), black("king", 10, 6)], turn=BLACK_TURN))
    p = apply(p, Move(cell(10, 6), cell(10, 5))).position
    halves = halves_of(p)
    with pytest.raises(ValueError, match="needs a Referee"):
        apply(halves[Side.BLACK], EndTurn())
    with pytest.raises(ValueError, match="answers the other side"):
        apply(halves[Side.BLACK], EndTurn(), HalfReferee(halves[Side.BLACK]))
    with pytest.raises(ValueError, match="half state"):
        HalfReferee(p)
    ended = apply(halves[Side.BLACK], EndTurn(), HalfReferee(halves[Side.WHITE]))
    assert ended.position.turn == 2 and ended.position.viewer is Side.BLACK


def test_the_acting_side_refuses_an_illegal_intent_with_the_full_states_rule():
    p = settled(make([white("king", 1, 5), black("king", 10, 6)], turn=BLACK_TURN))
    halves = halves_of(p)
    for attempt in (lambda: apply(p, EndTurn()),
                    lambda: apply(halves[Side.BLACK], EndTurn(),
                                  HalfReferee(halves[Side.WHITE]))):
        with pytest.raises(IllegalIntent) as refused:
            attempt()
        assert refused.value.rule == "R4.4"


# ---------------------------------------------------------------- the property

def _equivalence(intents: list[tuple[Position, Intent, Outcome]], floor: int
                 ) -> tuple[Counter[str], int, int]:
    """Every intent resolved on the two half states equals the full-state resolution;
    the intents compared by kind (each at least ``floor``), the events left out of a
    side's stream and the captures made by hidden collisions (R5.2.4)."""
    kinds: Counter[str] = Counter()
    censored = hidden_captures = 0
    for before, intent, full in intents:
        wrong, outcomes = compare(before, intent, full)
        assert wrong == [], (wrong, intent, before.turn)
        kinds[category(intent, before)] += 1
        for side, outcome in outcomes.items():
            censored += len(full.events) - len(outcome.events)
            held = unseen_in(outcome.position, full.position)
            assert held == [], (side, held, intent)
        unseen = {p.cell for p in before.pieces if p.side is not before.side_to_act and p.hidden}
        hidden_captures += sum(1 for e in full.events
                               if isinstance(e, Captured) and e.cell in unseen)
    print(f"two halves = full state: {sum(kinds.values())} intents compared: "
          + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    for kind in KINDS:  # the rarest (a Jet right above an enemy, R6.12.1) a fifth
        least = floor // 5 if kind in ("fire: restricted rocket", "end turn: transport") else floor
        assert kinds[kind] >= least, (kind, kinds[kind], least)
    return kinds, censored, hidden_captures


def test_two_halves_resolve_every_intent_as_the_full_state_does():
    """Over more than 5,000 intents of every kind of random games (O15, O16, O17 on),
    each side's half state and events equal the full-state result's projection."""
    intents = collect(7, 5200) + collect(8, 1000, conceal_share=0.5)
    kinds, censored, hidden_captures = _equivalence(intents, floor=20)
    assert sum(kinds.values()) >= 6000
    assert censored > 500  # events hidden from one side were really met
    assert hidden_captures > 10  # and Moves stopped by hidden pieces


@pytest.mark.parametrize("variant", ["O18 stealth range detection", "O23 stealth dominance"])
def test_two_halves_resolve_as_the_full_state_with_other_visibility_options(variant):
    """The same with range detection of stealth (O18) and with Stealth dominance (O23),
    pieces concealed more often so that the option matters."""
    options = (replace(Options(), stealth_range_detection=True) if "O18" in variant
               else replace(Options(), dominance="stealth"))
    intents = collect(9, 1400, options) + collect(10, 700, options, conceal_share=0.5)
    kinds, _, _ = _equivalence(intents, floor=3)
    assert sum(kinds.values()) >= 2000




def test_whether_the_actor_asks_what_it_sees_tells_nothing_of_its_hidden_detectors():
    """Issue 21: the acting side used to ask ``detect`` after a step only when its reach
    changed (R9.5, R9.6), and whether it changed depends on its hidden detectors. Here
    Black's visible Rocket Pawn picks up a Torpedo Launcher (a detector of subs, R9.6);
    Black's Sub, submerged and hidden from White, is either on that very square (the same
    reach: the union would not change) or far away. With pieces that can hide (O15,
    O16) the actor asks after every step, so White is asked the same either way."""
    def questions(sub_row: int, sub_col: int) -> list[str]:
        p = settled(make([black("rocket_pawn", 5, 5), black("sub", sub_row, sub_col, "sub"),
                          black("king", 10, 10), white("king", 1, 1)],
                         turn=BLACK_TURN, articles=[("torpedo_launcher", 5, 5)]))
        assert all(q.hidden for q in p.pieces if q.kind.value == "sub")
        intent = PickUp(cell(5, 5), ArticleKind.TORPEDO_LAUNCHER, PieceKind.ROCKET_PAWN)
        assert intent in legal_intents(p)
        split = resolve_both(halves_of(p), intent)
        return [name for name, _, _ in split[Side.BLACK].questions]

    under = questions(5, 5)
    assert under == questions(9, 1) == ["detect"]
