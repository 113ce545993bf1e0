"""The board editor (R14.4): engine/editor.py.

A player builds a board from an empty one (or from any position), and the editor says,
before play starts, every way the board breaks R14.4 (a)-(f), naming the constraint, the
rule under it and the square. Each constraint has a test with the exact message a player
reads; the edits themselves refuse only what cannot be said (a square off the board, a
Tank without a hand, a reinforcement carrying articles).
"""

from __future__ import annotations

import pytest

from wec.engine import board
from wec.engine.board import AIR, GROUND, SUB
from wec.engine.editor import Editor, EditorProblem, article_total, check_start, settle
from wec.engine.encoding import state_hash
from wec.engine.errors import EditorError, WecError
from wec.engine.formats import position_from_dict, position_to_dict
from wec.engine.game import apply
from wec.engine.intents import Move
from wec.engine.options import Options
from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side
from wec.engine.position import Lock, Piece, Projectile, Reinforcement, Transit
from wec.engine.setup import standard_position

A = ArticleKind
K = PieceKind
B, W = Side.BLACK, Side.WHITE
R, L = Hand.RIGHT, Hand.LEFT


def kings() -> Editor:
    """The smallest sound board: each side's King on its R15.1 square."""
    return Editor.empty().add_piece(B, K.KING, (10, 6)).add_piece(W, K.KING, (1, 5))


def messages(editor: Editor) -> list[str]:
    return [str(problem) for problem in editor.problems()]


def layout(position) -> list[tuple[str, str, int, int, str, str | None, tuple[str, ...], bool]]:
    return sorted((p.side.value, p.kind.value, p.row, p.col, p.level.label,
                   p.hand.value if p.hand else None, tuple(a.value for a in p.articles),
                   p.hidden) for p in position.pieces)


# ---------------------------------------------------------------- building a board

def test_a_small_legal_board_built_from_an_empty_one():
    """Clear, place pieces (both sides, levels, hands, articles, a passenger, a
    reinforcement), lay articles, set options: a valid start whose visibility is computed
    (R9: the AAA is stealthy, the Sub submerged out of Torpedo range) and that plays."""
    editor = (Editor(standard_position()).clear()
              .set_options({"tank_range": 6, "government": {"black": "democracy",
                                                              "white": "monarchy"}})
              .add_piece(B, K.PRESIDENT, (10, 6))
              .add_piece(B, K.TANK, (10, 1), hand=L, articles=(A.XXX, A.FLAME, A.ANTI_ROCKET))
              .add_piece(B, K.AAA, (9, 3))
              .add_piece(B, K.PRIME_MINISTER, (1, 3), reinforcement=True)
              .add_piece(W, K.KING, (1, 5))
              .add_piece(W, K.CHOPPER, (1, 4), AIR, hand=R)
              .add_piece(W, K.STUNNER_PAWN, (1, 4), AIR)  # the Chopper's passenger (R8.7)
              .add_piece(W, K.SUB, (2, 9), SUB)
              .add_article(A.JUMP_PACK, (5, 5)).add_article(A.BIKE, (5, 5))
              .add_article(A.STEALTH, (6, 2)))
    assert editor.problems() == []
    start = editor.start_position()
    assert layout(start) == [
        ("black", "aaa", 9, 3, "ground", None, (), True),
        ("black", "president", 10, 6, "ground", None, (), False),
        ("black", "tank", 10, 1, "ground", "left", ("xxx", "flame", "anti_rocket"), False),
        ("white", "chopper", 1, 4, "air", "right", (), False),
        ("white", "king", 1, 5, "ground", None, (), False),
        ("white", "stunner_pawn", 1, 4, "air", None, (), False),
        ("white", "sub", 2, 9, "sub", None, (), True),
    ]
    data = position_to_dict(start)
    assert data["turn"] == 1
    assert data["options"]["tank_range"] == 6
    assert data["options"]["government"] == {"black": "democracy", "white": "monarchy"}
    assert data["articles"] == [{"kind": "bike", "at": [5, 5]},
                                {"kind": "jump_pack", "at": [5, 5]},
                                {"kind": "stealth", "at": [6, 2]}]
    assert data["reinforcements"] == [{"side": "black", "kind": "prime_minister",
                                       "at": [1, 3]}]
    assert article_total(start) == 6
    # the file a player keeps reads back as the same state, and play starts from it
    assert state_hash(position_from_dict(data)) == state_hash(start)
    moved = apply(start, Move(board.cell_at(10, 6, GROUND), board.cell_at(9, 6, GROUND)))
    assert [(p.kind.value, p.row, p.col) for p in moved.position.pieces
            if p.side is B and p.kind is K.PRESIDENT] == [("president", 9, 6)]


def test_the_standard_setup_is_a_valid_start_and_stays_as_it_is():
    """R15 passes every R14.4 check; settling it changes nothing (same sync hash)."""
    standard = standard_position()
    assert check_start(standard) == []
    assert state_hash(Editor(standard).start_position()) == state_hash(standard)


def test_edits_leave_the_old_editor_unchanged():
    empty = Editor.empty()
    one = empty.add_piece(W, K.KING, (1, 5))
    assert empty.position.pieces == ()
    assert layout(one.position) == [("white", "king", 1, 5, "ground", None, (), False)]
    assert one.remove_piece((1, 5)).position.pieces == ()
    assert len(one.position.pieces) == 1


def test_clear_keeps_the_options_and_the_turn():
    editor = Editor(standard_position(Options(flame_range=2))).set_turn(8).clear()
    position = editor.position
    assert (position.pieces, position.reinforcements, position.projectiles) == ((), (), ())
    assert article_total(position) == 0
    assert (position.turn, position.options.flame_range) == (8, 2)


def test_remove_piece_names_which_when_two_differ():
    """A Dozer and a Sub share (1,2) ground in R15.1: the kind says which one goes."""
    editor = Editor(standard_position())
    with pytest.raises(EditorError) as refused:
        editor.remove_piece((1, 2))
    assert str(refused.value) == ("(1,2) ground holds the White Dozer and White Sub: say "
                                  "which to remove (kind, side, hand)")
    left = editor.remove_piece((1, 2), kind=K.SUB)
    assert [p.kind for p in left.position.pieces if p.sq == board.square(1, 2)] == [K.DOZER]
    with pytest.raises(EditorError) as refused:
        editor.remove_piece((5, 5))
    assert str(refused.value) == "no piece at (5,5) ground to remove"


def test_removing_a_locked_stealth_pawn_takes_its_locks_along():
    """R15.3: the Stealth Pawns start locked on each other; removing one removes both
    locks (as R9.4(c) releases a lock when its holder or target leaves play)."""
    editor = Editor(standard_position())
    assert len(editor.position.locks) == 2
    assert editor.remove_piece((2, 5)).position.locks == ()


def test_articles_are_added_last_and_removed_first_placed():
    editor = (Editor.empty().add_article(A.FLAME, (5, 5)).add_article(A.XXX, (5, 5))
              .remove_article(A.FLAME, (5, 5)))
    assert editor.position.ground_articles[board.square(5, 5)] == (A.XXX,)
    with pytest.raises(EditorError) as refused:
        editor.remove_article(A.FLAME, (5, 5))
    assert str(refused.value) == "no unowned flame lies at (5,5)"


def test_reinforcements_are_added_and_removed():
    editor = kings().add_piece(W, K.TANK, (10, 1), hand=R, reinforcement=True)
    assert editor.position.reinforcements == (Reinforcement(W, K.TANK, board.square(10, 1),
                                                            R),)
    assert editor.remove_reinforcement(W, K.TANK, (10, 1)).position.reinforcements == ()
    with pytest.raises(EditorError) as refused:
        editor.remove_reinforcement(B, K.TANK, (10, 1))
    assert str(refused.value) == "no black Tank reinforcement waits at (10,1)"


@pytest.mark.parametrize("edit, message", [
    (lambda e: e.add_piece(W, K.TANK, (4, 3)),
     "R14.4(f): a Tank needs a hand: right or left (R2.3)"),
    (lambda e: e.add_piece(W, K.KING, (4, 3), hand=R),
     "R14.4(f): a King has no hand (R2.3: only Tanks, Clerics and Choppers are handed)"),
    (lambda e: e.add_piece(W, K.QUEEN, (1, 3), articles=(A.XXX,), reinforcement=True),
     "R14.4(f): a reinforcement waits off-board with no articles and no stun, and enters at "
     "Ground of its activation square (R10.1, R10.6)"),
    (lambda e: e.add_piece(W, K.KING, (11, 3)),
     "(11, 3) is not a square of the board: (row, col) with rows and columns 1..10 (R1.1, "
     "R1.2)"),
    (lambda e: e.add_projectile("sam", W, (4, 3), (2, 0)),
     "R1.10: a direction is one of the 8 king vectors (got (2, 0))"),
    (lambda e: e.set_turn(0), "R4.1: turns are numbered 1, 2, 3, ... (got 0)"),
    (lambda e: e.set_options({"flame_range": 4}),
     "options.flame_range: O10 flame_range must be a whole number 1..3 (got 4)"),
    (lambda e: e.set_options(Options(sub_jet_combat=True)),
     "options.sub_jet_combat: O4 sub_jet_combat may be true only with action_restriction "
     "move_only and movement_system standard_chess or mass_destruction (R5.6.1)"),
    (lambda e: e.set_options({"competitive": True}),
     "R14.4: the board editor exists only in non-competitive mode (R14.3): option O32 "
     "competitive must stay off"),
])
def test_edits_that_cannot_be_made_are_refused(edit, message):
    with pytest.raises(EditorError) as refused:
        edit(kings())
    assert str(refused.value) == message
    assert isinstance(refused.value, WecError)


def test_options_are_set_whole_from_data_or_an_options_object():
    """R13: data is read by options_from_dict (missing keys: the standard defaults)."""
    editor = kings().set_options({"stun_duration": 5})
    assert editor.position.options == Options(stun_duration=5)
    chosen = Options(movement_system="standard_chess", action_restriction="move_only",
                     sub_jet_combat=True)
    assert kings().set_options(chosen).position.options is chosen


def test_the_editor_refuses_a_competitive_game_and_a_view():
    """R14.4 (non-competitive only) on the full state."""
    with pytest.raises(EditorError) as refused:
        Editor(standard_position(Options(competitive=True)))
    assert str(refused.value) == ("R14.4: the board editor exists only in non-competitive "
                                  "mode (R14.3): option O32 competitive is on")
    view = standard_position().evolve(viewer=W)
    assert [str(p) for p in check_start(view)] == [
        "R14.4: the edit buffer is the full state, not White's view"]


# ---------------------------------------------------------------- R14.4 (a)

def test_a_r1_6_a_three_pieces_on_one_level():
    editor = (kings().add_piece(W, K.DOZER, (4, 3)).add_piece(W, K.SUB, (4, 3))
              .add_piece(W, K.DESTROYER, (4, 3)))
    assert editor.problems() == [EditorProblem(
        "R14.4(a)", "R1.6(a): (4,3) ground holds 3 pieces (at most 2)", (4, 3), GROUND)]


def test_a_r1_6_b_both_sides_on_one_level():
    """Both sides may share a level only in the conversion anomaly, both independent
    there (R6.7.4): a passenger at Air is not."""
    anomaly = kings().add_piece(W, K.DOZER, (4, 3)).add_piece(B, K.DOZER, (4, 3))
    assert anomaly.problems() == []
    editor = kings().add_piece(W, K.CHOPPER, (4, 3), AIR, hand=R).add_piece(
        B, K.ROCKET_PAWN, (4, 3), AIR)
    assert messages(editor) == [
        "R14.4(a): R1.6(b): pieces of both sides share (4,3) air and are not both independent "
        "there (R6.7.4)",
        "R14.4(a): R2.5: the Black Rocket Pawn at (4,3) air must be the passenger of an own "
        "Chopper or Sub there"]


def test_a_r1_6_c_neither_piece_can_coexist():
    editor = kings().add_piece(W, K.TANK, (4, 3), hand=R).add_piece(W, K.CLERIC, (4, 3), hand=L)
    assert messages(editor) == [
        "R14.4(a): R1.6(c): a Cleric and a Tank share (4,3) ground but neither can coexist"]


def test_a_r2_5_a_passenger_needs_its_carrier():
    editor = kings().add_piece(W, K.TANK, (4, 3), SUB, hand=R)
    assert editor.problems() == [EditorProblem(
        "R14.4(a)", "R2.5: the White Tank at (4,3) sub must be the passenger of an own "
        "Chopper or Sub there", (4, 3), SUB)]


def test_a_r2_6_article_capacity():
    """R2.6: one article without an XXX box, three with one; an XXX Pawn two."""
    editor = (kings().add_piece(W, K.DOZER, (4, 3), articles=(A.FLAME, A.BIKE))
              .add_piece(W, K.XXX_PAWN, (2, 6), articles=(A.FLAME, A.BIKE, A.STEALTH))
              .add_piece(B, K.AAA, (9, 3), articles=(A.XXX, A.FLAME, A.BIKE)))
    assert messages(editor) == [
        "R14.4(a): R2.6: the White XXX Pawn at (2,6) ground carries 3 articles (at most 2)",
        "R14.4(a): R2.6: the White Dozer at (4,3) ground carries 2 articles (at most 1)"]


def test_a_r9_9_no_stealth_for_a_primary_piece_unless_o26():
    editor = Editor.empty().add_piece(B, K.KING, (10, 6)).add_piece(
        W, K.KING, (1, 5), articles=(A.STEALTH,))
    assert messages(editor) == [
        "R14.4(a): R9.9: the White King at (1,5) ground may not carry Stealth unless option "
        "O26 king_may_be_stealthy is on"]
    assert editor.set_options({"king_may_be_stealthy": True}).problems() == []


def test_a_r1_7_at_most_two_unowned_articles_per_square():
    editor = kings().add_article(A.FLAME, (4, 3)).add_article(A.XXX, (4, 3)).add_article(
        A.BIKE, (4, 3))
    assert editor.problems() == [EditorProblem(
        "R14.4(a)", "R1.7: (4,3) holds 3 unowned articles (at most 2)", (4, 3))]


def test_a_r10_4_reinforcements_per_activation_square():
    """Two may wait on one square if none is handed; a handed one waits alone."""
    two = kings().add_piece(W, K.JET, (10, 2), reinforcement=True).add_piece(
        W, K.SUB, (10, 2), reinforcement=True)
    assert two.problems() == []
    three = two.add_piece(W, K.DOZER, (10, 2), reinforcement=True)
    handed = kings().add_piece(B, K.TANK, (1, 10), hand=R, reinforcement=True).add_piece(
        B, K.AAA, (1, 10), reinforcement=True)
    assert three.problems() == [EditorProblem(
        "R14.4(a)", "R10.4: 3 of White's reinforcements at (10,2) (at most 2)", (10, 2))]
    assert messages(handed) == [
        "R14.4(a): R10.4: Black's reinforcements at (1,10): a handed Tank must wait alone"]


# ---------------------------------------------------------------- R14.4 (b)

def test_b_no_piece_in_transit():
    position = kings().position
    rider = Piece(7, W, K.DOZER, board.square(4, 3), GROUND, articles=(A.BIKE,),
                  transit=Transit(A.BIKE, board.square(8, 3)))
    stuck = position.evolve(pieces=(*position.pieces, rider), next_pid=8)
    assert [str(p) for p in check_start(stuck)] == [
        "R14.4(b): the White Dozer at (4,3) ground is in transit (bike)"]


def test_b_no_homing_projectile_but_directional_ones_may_stand():
    directional = kings().add_projectile("sam", W, (4, 3), (1, 0))
    assert directional.problems() == []
    position = kings().add_piece(B, K.JET, (6, 3), AIR).position
    jet = next(p for p in position.pieces if p.kind is K.JET)
    homing = position.evolve(projectiles=(Projectile("sam", W, board.square(4, 3), 1, (1, 0),
                                                     jet.pid),))
    assert check_start(homing) == [EditorProblem("R14.4(b)", "homing projectile at (4,3) air",
                                                 (4, 3), AIR)]


# ---------------------------------------------------------------- R14.4 (c)

def test_c_at_most_200_articles():
    """R3.6: 200 articles pass (two on every square), one more is refused."""
    editor = kings()
    for sq in range(board.SQUARES):
        at = (board.row_of(sq), board.col_of(sq))
        editor = editor.add_article(A.XXX, at).add_article(A.FLAME, at)
    assert article_total(editor.position) == 200
    assert editor.problems() == []
    one_more = editor.remove_piece((1, 5)).add_piece(W, K.KING, (1, 5), articles=(A.BIKE,))
    assert messages(one_more) == ["R14.4(c): R3.6: 201 articles (at most 200)"]


# ---------------------------------------------------------------- R14.4 (d)

def test_d_each_side_needs_a_legal_move():
    """"Do not stun the opponent's last mobile piece": White's only piece is stunned
    while the turn is below 10, so on turn 2, White's first, it has no Move (R7.2)."""
    stunned = Editor.empty().add_piece(B, K.KING, (10, 6)).add_piece(
        W, K.KING, (1, 5), stunned_until=10)
    assert stunned.problems() == [EditorProblem("R14.4(d)", "White has no legal Move")]
    with pytest.raises(EditorError) as refused:
        stunned.start_position()
    assert str(refused.value) == "R14.4(d): White has no legal Move"
    assert refused.value.problems == ("R14.4(d): White has no legal Move",)


def test_d_is_judged_on_each_sides_first_turn():
    """Stunned until turn 2 means free on turn 2 (R7.1): White may move on its first
    turn. Starting on turn 2 White acts first and Black's first turn is turn 3, so a
    Black King stunned until turn 2 is free in time; starting on turn 1 it is not."""
    assert Editor.empty().add_piece(B, K.KING, (10, 6)).add_piece(
        W, K.KING, (1, 5), stunned_until=2).problems() == []
    later = (Editor.empty().set_turn(2).add_piece(B, K.KING, (10, 6), stunned_until=2)
             .add_piece(W, K.KING, (1, 5)))
    assert later.problems() == []
    assert messages(later.set_turn(1)) == ["R14.4(d): Black has no legal Move"]


def test_d_a_doze_is_a_move_and_a_side_without_pieces_has_none():
    """R4.3: a Doze is the Dozer's Move. A Dozer with its coincident Pawn boxed in
    the corner by its own pieces still dozes them all; a side with no piece has none."""
    boxed = (Editor.empty().add_piece(B, K.KING, (10, 6))
             .add_piece(W, K.DOZER, (1, 1)).add_piece(W, K.KING, (1, 1), stunned_until=9)
             .add_piece(W, K.ROCKET_PAWN, (1, 2), stunned_until=9)
             .add_piece(W, K.ROCKET_PAWN, (2, 1), stunned_until=9)
             .add_piece(W, K.ROCKET_PAWN, (2, 2), stunned_until=9))
    assert boxed.problems() == []
    alone = Editor.empty().add_piece(W, K.KING, (1, 5))
    assert messages(alone) == ["R14.4(d): Black has no legal Move"]
    assert messages(Editor.empty()) == ["R14.4(d): Black has no legal Move",
                                        "R14.4(d): White has no legal Move"]


# ---------------------------------------------------------------- R14.4 (e)

def test_e_several_primary_pieces_per_side_are_allowed():
    """R14.4(e), R12.1: two Kings on each side, even of other governments' kinds."""
    editor = kings().add_piece(B, K.DICTATOR, (10, 4)).add_piece(W, K.KING, (1, 7))
    assert editor.problems() == []
    primaries = [p.kind for p in editor.start_position().pieces if p.kind in
                 (K.KING, K.DICTATOR)]
    assert sorted(k.value for k in primaries) == ["dictator", "king", "king", "king"]


# ---------------------------------------------------------------- R14.4 (f)

def test_f_every_piece_and_reinforcement_is_fully_described():
    """A hand for every Tank, Cleric and Chopper and for no other piece; a type for
    every reinforcement (a position built outside the editor can lack them)."""
    position = kings().position
    odd = (Piece(7, W, K.TANK, board.square(4, 3), GROUND),
           Piece(8, B, K.QUEEN, board.square(10, 5), GROUND, Hand.LEFT))
    broken = position.evolve(pieces=(*position.pieces, *odd), next_pid=9,
                             reinforcements=(Reinforcement(B, None, board.square(1, 3)),
                                             Reinforcement(W, K.CLERIC, board.square(10, 3))))
    assert [str(p) for p in check_start(broken)] == [
        "R14.4(f): the White Tank at (4,3) ground needs a hand: right or left (R2.3)",
        "R14.4(f): the Black Queen at (10,5) ground has no hand (R2.3: only Tanks, Clerics "
        "and Choppers are handed)",
        "R14.4(f): Black's reinforcement at (1,3) needs a type",
        "R14.4(f): White's Cleric reinforcement at (10,3) needs a hand: right or left (R2.3)"]


# ---------------------------------------------------------------- the start position

def test_every_problem_is_listed_at_once():
    editor = (kings().add_piece(W, K.TANK, (4, 3), SUB, hand=R)
              .add_article(A.FLAME, (5, 5)).add_article(A.FLAME, (5, 5))
              .add_article(A.FLAME, (5, 5)))
    with pytest.raises(EditorError) as refused:
        editor.start_position()
    assert refused.value.problems == (
        "R14.4(a): R2.5: the White Tank at (4,3) sub must be the passenger of an own Chopper "
        "or Sub there",
        "R14.4(a): R1.7: (5,5) holds 3 unowned articles (at most 2)")
    assert str(refused.value) == (
        "not a valid start board (2 problems): R14.4(a): R2.5: the White Tank at (4,3) sub "
        "must be the passenger of an own Chopper or Sub there; R14.4(a): R1.7: (5,5) holds 3 "
        "unowned articles (at most 2)")


def test_a_board_without_locks_acquires_them_before_turn_1():
    """R9.4(d): stated locks are kept; none stated: every Anti-Stealth instance acquires
    per R9.4(b), holders in row-then-column order, Black's first. Black's Stealth Pawn
    at (9,6) locks on White's nearest hidden stealthy piece (the AAA at (3,6), not the
    one at (2,2)); White's on Black's only one."""
    editor = (kings().add_piece(B, K.STEALTH_PAWN, (9, 6)).add_piece(W, K.AAA, (3, 6))
              .add_piece(W, K.AAA, (2, 2)).add_piece(W, K.STEALTH_PAWN, (2, 5)))
    start = editor.start_position()
    by_pid = {p.pid: p for p in start.pieces}
    assert sorted((by_pid[lk.holder].side.value, by_pid[lk.holder].kind.value, lk.instance,
                   by_pid[lk.target].kind.value, by_pid[lk.target].row,
                   by_pid[lk.target].col) for lk in start.locks) == [
        ("black", "stealth_pawn", 0, "aaa", 3, 6),
        ("white", "stealth_pawn", 0, "stealth_pawn", 9, 6)]
    # locked on: visible; White's other AAA and its Stealth Pawn stay hidden (R9.3(a))
    assert sorted((p.kind.value, p.row, p.col) for p in start.pieces if p.hidden) == [
        ("aaa", 2, 2), ("stealth_pawn", 2, 5)]
    stated = editor.position.evolve(locks=(Lock(start.pieces[2].pid, 0,
                                                start.pieces[4].pid),))
    assert settle(stated).locks == stated.locks


def test_settling_clears_what_belongs_to_a_turn_in_progress():
    """The start of a turn: no action taken, no hits, no result (R4.2)."""
    standard = standard_position()
    played = apply(standard, Move(board.cell_at(9, 1, GROUND), board.cell_at(8, 2, GROUND)))
    buffer = played.position
    assert buffer.actions.move == 1
    start = Editor(buffer).start_position()
    assert start.actions.is_fresh()
    assert start.turn == 1
    assert (start.hits, start.result, start.last_seen) == ((), None, ())
