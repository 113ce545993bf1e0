"""The closed set of questions (engine.questions), answered by the owner of the pieces
from its own half state (engine.half_referee), and the local referee backed by the full
state (engine.referee, hotseat and tests).

Each answer reveals what the rule's outcome reveals: the first cell of a Move's route
holding the owner's pieces and those pieces (R5.2.4: taken, Captured is public); which
cells hold the owner's pieces (R1.6); what the asker sees of them (R9.3-R9.7) with the
lock-on choice (R9.4); and the effects on them (R6), as the asker may see them.
"""

from __future__ import annotations

import random

from halves import conceal, half_bytes, halves_of
from rules_helpers import BLACK_TURN, WHITE_TURN, black, make, white
from wec_strategies import random_game_positions

from wec.engine.board import GROUND, cell_at
from wec.engine.events import Captured
from wec.engine.game import apply
from wec.engine.half_referee import HalfReferee
from wec.engine.intents import Move
from wec.engine.knowledge import project
from wec.engine.movement import legal_moves
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.position import Lock
from wec.engine.questions import FirstHit, PieceInfo, Sight, WeaponStep
from wec.engine.referee import FullStateReferee
from wec.engine.setup import standard_position
from wec.engine.visibility import settle

K = PieceKind
A = ArticleKind


class Asking:
    """A side asking (engine.questions ``Asker``) that has nothing to say back."""

    def __init__(self, side: Side) -> None:
        self.side = side

    def presence(self, cells):
        return frozenset()

    def first_hit(self, cells):
        return None

    def ground(self, squares):
        return ()


def conversation(position, owner: Side):
    """The owner's side of the other side's resolution of a Move (nothing acts)."""
    return HalfReferee(project(position, owner)).converse(Move(0, 0), Asking(owner.other))


def column(row: int) -> int:
    return cell_at(row, 1, GROUND)


def test_first_hit_is_the_first_cell_of_the_route_holding_the_owners_pieces():
    p = settle(make([
        white("tank", 1, 1, hand="right"),
        black("rocket_pawn", 3, 1, articles=["stealth"]),
        black("aaa", 2, 1), black("destroyer", 2, 1),
        black("dozer", 4, 1), black("king", 10, 6), white("king", 1, 5)], turn=WHITE_TURN))
    route = [column(r) for r in (5, 4, 3, 2)]
    # (4,1) holds a Dozer White sees: the first of the route holding Black's pieces,
    # seen or not (White's route never crosses one it sees: the legality filter)
    answer = conversation(p, Side.BLACK).first_hit(0, route)
    assert answer == FirstHit(1, route[1], (PieceInfo(Side.BLACK, K.DOZER, None, ()),))
    # the owner takes them out: a second question of the same intent does not meet them
    talk = conversation(p, Side.BLACK)
    talk.first_hit(0, route)
    assert talk.first_hit(0, route) == FirstHit(
        2, route[2], (PieceInfo(Side.BLACK, K.ROCKET_PAWN, None, (A.STEALTH,)),))
    assert conversation(p, Side.BLACK).first_hit(0, [column(6), column(7)]) is None


def test_presence_names_only_the_asked_cells_holding_the_owners_pieces():
    p = settle(make([black("aaa", 2, 1), black("king", 10, 6), white("king", 1, 5)],
                    turn=WHITE_TURN))
    talk = conversation(p, Side.BLACK)
    assert talk.presence([column(2), column(3)]) == frozenset({column(2)})
    assert talk.presence([column(3)]) == frozenset()


def test_detection_answers_what_the_asker_sees_and_its_lock_on_choice():
    # Black's AAA (stealthy, R9.2) at (6,3) and its stealthy Rocket Pawn at (5,5):
    # White's Stealth Pawn at (2,5) acquires a lock (R9.4(a)) on the nearest, (5,5)
    p = settle(make([black("aaa", 6, 3), black("rocket_pawn", 5, 5, articles=["stealth"]),
                     black("king", 10, 6), white("king", 1, 5),
                     white("stealth_pawn", 2, 5)], turn=WHITE_TURN))
    white_half = project(p, Side.WHITE)
    assert sorted(q.kind.value for q in white_half.pieces if q.side is Side.BLACK) == ["king"]
    holder = next(q for q in p.pieces if q.kind is K.STEALTH_PAWN)
    pawn = next(q for q in p.pieces if q.kind is K.ROCKET_PAWN)
    king = next(q for q in p.pieces if q.kind is K.KING and q.side is Side.BLACK)
    aaa = next(q for q in p.pieces if q.kind is K.AAA)
    answer = conversation(p, Side.BLACK).detect(Sight(
        (), ((holder.pid, 0, holder.sq),), 0, 0, (king.pid,), ()))
    assert answer.acquired == (pawn.pid,)
    assert [q.kind for q in answer.seen] == [K.ROCKET_PAWN, K.KING]  # locked on: seen
    # a lock released by its target (R9.4(c)): the AAA stops being stealthy only by
    # leaving play; a lock on a piece out of play ends
    gone = conversation(p, Side.BLACK).detect(Sight(
        (Lock(holder.pid, 0, 999), Lock(holder.pid, 0, aaa.pid)), (), 0, 0, (), (999,)))
    assert gone.released == (0,) and gone.in_play == ()
    assert [q.kind for q in gone.seen] == [K.AAA, K.KING]


def test_two_instances_acquiring_at_once_lock_two_pieces_in_their_order():
    # R9.4(b): White's Stealth Pawns at (2,5) and (3,5) acquire in one detection (as
    # two Anti-Stealth instances do after a swap, R4.9(b)). The first locks the nearest
    # hidden stealthy piece, Black's Rocket Pawn at (5,5); the second may not lock it
    # again ("not locked by another of its instances") and locks the AAA at (6,3).
    p = settle(make([black("aaa", 6, 3), black("rocket_pawn", 5, 5, articles=["stealth"]),
                     black("king", 10, 6), white("king", 1, 5),
                     white("stealth_pawn", 2, 5), white("stealth_pawn", 3, 5)],
                    turn=WHITE_TURN))
    first, second = sorted((q for q in p.pieces if q.kind is K.STEALTH_PAWN),
                           key=lambda q: q.sq)
    pawn = next(q for q in p.pieces if q.kind is K.ROCKET_PAWN)
    aaa = next(q for q in p.pieces if q.kind is K.AAA)
    sight = Sight((), ((first.pid, 0, first.sq), (second.pid, 0, second.sq)), 0, 0, (), ())
    answer = conversation(p, Side.BLACK).detect(sight)
    assert answer.acquired == (pawn.pid, aaa.pid)
    alone = Sight((), ((second.pid, 0, second.sq),), 0, 0, (), ())
    assert conversation(p, Side.BLACK).detect(alone).acquired == (pawn.pid,)


def test_weapon_effects_are_answered_with_what_the_asker_may_see():
    # White flames (6,4) where Black's AAA stands hidden from White (R9.11): it is
    # destroyed; White learns only the public part (no articles to drop here)
    p = settle(make([white("flame_pawn", 5, 4), black("aaa", 6, 4), black("king", 10, 6),
                     white("king", 1, 5)], turn=WHITE_TURN))
    talk = conversation(p, Side.BLACK)
    aaa_cell = cell_at(6, 4, GROUND)
    assert talk.weapon(1, WeaponStep("area", A.FLAME, 1, (aaa_cell,), Side.WHITE)).joined == ()
    king = next(q for q in p.pieces if q.kind is K.KING and q.side is Side.BLACK)
    answer = talk.detect(Sight((), (), 0, 0, (king.pid,), ()))
    assert answer.entries == ()  # the AAA's Hit and Destroyed are about a piece White never saw
    assert [q.kind for q in answer.seen] == [K.KING]
    # a stun stopped by the owner's hidden piece before the asker's own one says so only
    # when the asker has a piece in range (R6.6.1)
    stun = conversation(p, Side.BLACK).weapon(1, WeaponStep(
        "stun", A.STUNNER, 1, (aaa_cell, cell_at(7, 4, GROUND)), Side.WHITE, limit=1))
    assert stun.blocked is True
    nothing = conversation(p, Side.BLACK).weapon(1, WeaponStep(
        "stun", A.STUNNER, 1, (aaa_cell,), Side.WHITE, limit=1))
    assert nothing.blocked is None


def test_the_local_referee_answers_as_the_other_sides_half_referee():
    p = conceal(standard_position(), random.Random(3), 0.5)
    route = [cell_at(r, c, GROUND) for r in range(8, 0, -1) for c in (2, 5, 9)]
    local = FullStateReferee(p).converse(Move(0, 0), Asking(Side.BLACK))
    half = conversation(p, Side.WHITE)
    assert local.first_hit(0, route) == half.first_hit(0, route)


# ---------------------------------------------------------------- the Move property

def _check(position) -> int:
    """Every legal Move, resolved on the two half states, equals the full state's;
    returns the captures of pieces the mover did not see."""
    side = position.side_to_act
    halves = halves_of(position)
    assert legal_moves(halves[side]) == legal_moves(position)  # R4.13
    hidden = {q.cell for q in position.pieces if q.side is not side and q.hidden}
    captures = 0
    for move in legal_moves(position):
        full = apply(position, move)
        for s in Side:
            split = apply(halves[s], move, HalfReferee(halves[s.other]))
            assert half_bytes(split.position) == half_bytes(project(full.position, s)), move
        captures += sum(1 for e in full.events if isinstance(e, Captured) and e.cell in hidden)
    return captures


def test_moves_resolve_alike_on_half_states_where_hidden_pieces_abound():
    rng = random.Random(2026)
    hidden_captures = checked = 0
    for position in random_game_positions(seed=11, turns=160)[::8]:
        if position.result is None:
            hidden_captures += _check(conceal(position, rng, 0.6))
            checked += 1
    assert checked == 21
    assert hidden_captures > 10  # the property met real hidden collisions (R5.2.4)


def test_partial_state_holds_no_trace_of_unseen_pieces():
    truth = make([white("king", 1, 5), black("king", 10, 6), black("aaa", 9, 3)],
                 turn=BLACK_TURN)
    truth = settle(truth.evolve(reinforcements=standard_position().reinforcements))
    view = project(truth, Side.WHITE)
    kinds = sorted(p.kind.value for p in view.pieces)
    assert kinds == ["king", "king"]
    assert all(r.kind is None for r in view.reinforcements if r.side is Side.BLACK)
    assert all(r.kind is not None for r in view.reinforcements if r.side is Side.WHITE)
    # Changing the unseen part of the truth leaves White's half state byte-identical.
    moved = settle(truth.evolve(pieces=tuple(
        p if p.kind is not K.AAA else p.but(sq=p.sq - 1, articles=(A.ANTI_FLAME,))
        for p in truth.pieces)))
    assert half_bytes(project(moved, Side.WHITE)) == half_bytes(view)
