"""A hidden traveller's transport phase over the wire asks on the schedule its Fire
announced (issue 21; engine.transit_schedule).

A transport starts with a public Fire (R8.1.3, R9.8: the firer revealed, the destination
and path named), so the other side can count the steps it takes, one per own turn
(R8.2.1, R8.3.2, R8.4.1). Before ``wec-fog/11`` a hidden traveller that its own side's
hidden piece stopped (R8.4.2) asked one presence question fewer at that step, and its
side's later transport phases asked nothing for it: the other side learned that a hidden
piece stood on the public path, and where. Now each step asks the questions its travel's
kind does, a travel that ended early takes phantom steps until its announced end, and the
other side receives the same messages either way.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from halves import conceal, half_bytes
from rules_helpers import black, make, white
from test_net_audit import Liar, TampersOnce, audit_names_the_liar, refused_at_once, tampering
from test_net_fog import (
    KEYS,
    Wire,
    _deliver_one,
    finish_and_audit,
    new_pair,
    restored_on_another_thread,
)
from test_net_fog_leakage import _fixed

from wec.engine import board
from wec.engine.board import GROUND, Level
from wec.engine.censor import events_for
from wec.engine.game import apply, legal_intents
from wec.engine.intents import Doze, EndTurn, Fire, Intent, Move
from wec.engine.knowledge import project
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.playout import play_turn
from wec.engine.position import Position, Transit
from wec.engine.setup import standard_position
from wec.engine.sides import SideWorking, transit_phase
from wec.engine.transit_schedule import (
    Travel,
    bound_after,
    questions_per_step,
    travels_after,
)
from wec.engine.visibility import settle
from wec.net import fog_codec as codec
from wec.net.audit import _presence_asked_back
from wec.net.fog_game import FogGame, _implied_presence, _Script
from wec.net.resumable import Resumable

A = ArticleKind
W, B = Side.WHITE, Side.BLACK
TRAVELLER = (9, 2)  # Black's hidden traveller (a Stealth pawn), White coordinates
DEST = (5, 2)  # four squares ahead: a Bike steps with its Fire, then at three turn
# starts; a Jump Pack or Scuba Suit rises with its Fire and steps at four
OFF_THE_PATH = (8, 9)  # where Black's other hidden pieces stand when not in the way


# per transport article, Black's other hidden pieces that fill its level on the way
# (R8.4.2, R1.6: a Stealth pawn at Ground; two Choppers with Stealth in the Air, two Subs
# below, hidden by submersion, O16: both kinds coexist, R1.6(c), so it takes two)
IN_THE_WAY = {A.BIKE: ("stealth_pawn", "ground", (), 1),
              A.JUMP_PACK: ("chopper", "air", ("stealth",), 2),
              A.SCUBA_SUIT: ("sub", "sub", (), 2)}


def _start(article: ArticleKind, other: tuple[int, int],
           more: tuple[dict[str, Any], ...] = ()) -> Position:
    """Black to act: its hidden traveller carrying ``article`` at (9,2), both Kings far
    from it, other hidden pieces of Black's (``IN_THE_WAY``) at ``other`` (on the path
    at (6,2), or off it), and ``more`` pieces."""
    kind, level, articles, count = IN_THE_WAY[article]
    others = [black(kind, *other, level, articles=articles,
                    **({"hand": hand} if kind == "chopper" else {}))
              for hand in ("right", "left")[:count]]
    return settle(make([white("king", 1, 5), black("king", 10, 8),
                        black("stealth_pawn", *TRAVELLER, articles=(article.value,)),
                        *others, *more], turn=1))


def _king_move(full: Position, side: Side, turn: int) -> Move:
    """A Move of ``side``'s King, to and fro (nothing else moves)."""
    moves = [i for i in legal_intents(project(full, side)) if isinstance(i, Move)
             and next(p for p in full.pieces if p.cell == i.frm).kind is PieceKind.KING]
    moves.sort(key=lambda m: (m.to, m.frm))
    return moves[turn % 2 if len(moves) > 1 else 0]


def _play(start: Position, article: ArticleKind, turns: int = 5,
          liar: type[FogGame] | None = None, restore_after: int | None = None,
          first_move: Callable[[Position], Intent] | None = None,
          white_first_move: Callable[[Position], Intent] | None = None
          ) -> tuple[Wire, Position]:
    """Black fires its transport toward (5,2), then both sides move their King and end
    their turn, ``turns`` times each; every action checked against the full state (unless
    Black is a ``liar``). ``restore_after``: both sides restored from their records
    after that many turns, and play goes on with the restored games. ``first_move``:
    Black's Move after its Fire (of the position after it), instead of its King's;
    ``white_first_move``: White's first Move, instead of its King's."""
    wire = Wire(new_pair(start, {B: liar} if liar else None, seed=5))
    wire.run()
    full = start
    frm = next(p for p in start.pieces if p.sq == board.square(*TRAVELLER)).cell
    fire = Fire(frm, article, dest=board.square(*DEST), kind=PieceKind.STEALTH_PAWN)
    for turn in range(turns):
        if turn == restore_after:
            wire.games = {s: FogGame.restore(wire.games[s].record(), KEYS[s]) for s in Side}
        for side in (B, W):
            intents: list[Intent] = [fire] if side is B and turn == 0 else []
            base = apply(full, fire).position if intents else full
            chosen = first_move if side is B else white_first_move
            move = chosen(base) if turn == 0 and chosen else _king_move(base, side, turn)
            for intent in (*intents, move, EndTurn()):
                events = wire.play(side, intent)
                full = apply(full, intent).position
                if liar is not None:
                    continue
                assert not any(type(e).__name__ == "Refused" for e in events), (intent, events)
                assert not any(wire.faults().values()), wire.faults()
                for s in Side:
                    assert half_bytes(wire.games[s].half) == half_bytes(project(full, s))
    return wire, full


@pytest.mark.parametrize("article", list(IN_THE_WAY))
def test_a_hidden_traveller_stopped_by_its_own_piece_sends_what_a_free_one_sends(
        article: ArticleKind) -> None:
    """The same Fire, turns and King moves, with Black's other hidden piece off the path
    (at (8,9)) or on it (at (6,2)): there the traveller stops a step early (R8.4.2; a
    flyer or diver lands where it is), and White receives the same message kinds, sizes
    and fields (but for the random-looking ones) all the same, five turns long; both
    halves follow the full state and both audits come out clean."""
    free_wire, free_full = _play(_start(article, OFF_THE_PATH), article)
    stopped_wire, stopped_full = _play(_start(article, (6, 2)), article)
    at = {name: next(p for p in full.pieces if p.side is B and p.kind is PieceKind.STEALTH_PAWN)
          for name, full in (("free", free_full), ("stopped", stopped_full))}
    assert at["free"].sq == board.square(*DEST) and at["free"].level is GROUND
    assert at["stopped"].sq == board.square(7, 2) and at["stopped"].level is GROUND
    for full in (free_full, stopped_full):  # White sees none of Black's pieces but its King
        assert all(p.hidden for p in full.pieces if p.side is B and p.kind is not PieceKind.KING)
    for wire in (free_wire, stopped_wire):
        assert all(v.clean for v in finish_and_audit(wire).values())
    assert_same_messages(free_wire.received[W], stopped_wire.received[W])


# Black's Dozer and its coincident (R8.8.1) next to (8,2), where the Bike rider stands
# after its Fire's step: hidden from White (a Stealth article, R9.2) or seen by it
DOZERS = {"hidden": (black("dozer", 8, 3, articles=("stealth",)), black("stealth_pawn", 8, 3)),
          "seen": (black("dozer", 8, 3), black("flame_pawn", 8, 3))}
RIDER_AFTER_FIRE = (8, 2)
AWAY = next(d for d in board.DIRECTIONS  # from (8,2) to (9,2): away from (5,2)
            if board.offset(board.square(*RIDER_AFTER_FIRE), d) == board.square(*TRAVELLER))


def _doze_away(select_rider: bool, dozer: tuple[int, int] = (8, 3)
               ) -> Callable[[Position], Intent]:
    """Black's Doze from ``dozer`` away from the rider's destination, dozing the rider
    along (R8.8.5: its transit goes on from (9,2), a step more) or not (the Dozer and
    its coincident alone)."""
    def doze(full: Position) -> Intent:
        rider = board.square(*RIDER_AFTER_FIRE)
        dozes = [i for i in legal_intents(project(full, B)) if isinstance(i, Doze)
                 and i.sq == board.square(*dozer) and i.dir == AWAY
                 and i.squares == ((rider,) if select_rider else ())]
        assert len(dozes) == 1, dozes
        return dozes[0]
    return doze


@pytest.mark.parametrize("dozer", list(DOZERS))
def test_a_hidden_bike_rider_dozed_away_by_its_own_side_sends_what_an_undozed_one_sends(
        dozer: str) -> None:
    """Black's Bike rider, hidden, is dozed a square away from its destination by its own
    Dozer right after its Fire, or the Dozer dozes nothing: the dozed rider takes four
    turn-start steps where the other takes three (R8.8.5), yet White receives the same
    messages six turns long. Whether a Doze moved a hidden rider is not shown (a hidden
    Dozer's Doze travels as a hidden Move; a seen one's leaves the rider's square out),
    so every Doze of Black's adds a step to its Bike travels, and the rider that needs
    fewer takes a phantom one."""
    steps = _dozed_or_not(_start(A.BIKE, OFF_THE_PATH, DOZERS[dozer]), (8, 3))
    assert steps == (5, 4)  # the Fire's step, then 4 or 3


# White dozes the square of Black's seen Dozer, (9,2), away from (5,2), with its own
# Dozer and coincident from (9,3) (O24); Black's hidden Dozer stands at (8,1)
ENEMY_DOZE = (black("dozer", 9, 2), black("dozer", 8, 1, articles=("stealth",)),
              black("stealth_pawn", 8, 1), white("dozer", 9, 3), white("flame_pawn", 9, 3))


def _white_dozes_the_seen_dozer(full: Position) -> Intent:
    """White's Doze of (9,2) toward (10,2): its seen Black Dozer moves, and every other
    Ground piece there, hidden ones too (R8.8.2)."""
    there, to = board.square(9, 2), board.square(10, 2)
    [doze] = [i for i in legal_intents(project(full, W)) if isinstance(i, Doze)
              and i.squares == (there,) and board.offset(there, i.dir) == to]
    return doze


def test_a_hidden_rider_an_enemy_doze_moves_along_unseen_sends_what_an_unmoved_one_sends(
        ) -> None:
    """Black's hidden rider, after its Fire's step at (8,2), is dozed by its own hidden
    Dozer onto (9,2), beside Black's seen Dozer, or the hidden Dozer dozes nothing (both
    a hidden Move). White then dozes the seen Dozer's square away from (5,2): where the
    rider stands there it goes along unseen (R8.8.2: every Ground piece of a selected
    square), five squares from its destination instead of four. White cannot tell, so
    its Doze adds a step to Black's Bike travels too (O24), and it receives the same
    messages either way, six turns long."""
    steps = _dozed_or_not(_start(A.BIKE, OFF_THE_PATH, ENEMY_DOZE), (8, 1),
                          _white_dozes_the_seen_dozer)
    assert steps == (6, 4)  # the Fire's step, then 5 or 3


def _dozed_or_not(start: Position, dozer: tuple[int, int],
                  white_first_move: Callable[[Position], Intent] | None = None
                  ) -> tuple[int, int]:
    """Six turns from ``start``, Black's Dozer at ``dozer`` dozing its rider away after
    its Fire or dozing nothing: in both the rider arrives at (5,2), hidden, both audits
    are clean, and White receives the same messages; the rider's transit steps, dozed
    and not."""
    rider = next(p for p in start.pieces if p.kind is PieceKind.STEALTH_PAWN
                 and p.sq == board.square(*TRAVELLER))
    wires, steps = [], []
    for select in (True, False):
        wire, full = _play(start, A.BIKE, turns=6, first_move=_doze_away(select, dozer),
                           white_first_move=white_first_move)
        wires.append(wire)
        steps.append(sum(type(e).__name__ == "TransportStepped"
                         for e in _black_events(wire)))
        at = next(p for p in full.pieces if p.pid == rider.pid)
        assert (at.sq, at.level, at.transit, at.hidden) == \
            (board.square(*DEST), GROUND, None, True)
        assert all(v.clean for v in finish_and_audit(wire).values())
    assert_same_messages(wires[0].received[W], wires[1].received[W])
    return steps[0], steps[1]


def assert_same_messages(real: list[Any], other: list[Any]) -> None:
    """The same message kinds, sizes and fields, but for the random-looking ones."""
    assert [(m.kind, len(m.body), len(m.entry)) for m in real] == \
        [(m.kind, len(m.body), len(m.entry)) for m in other]
    assert [_fixed(m) for m in real] == [_fixed(m) for m in other]


def _black_events(wire: Wire) -> list[Any]:
    """The events of Black's game, all its actions."""
    return [e for a in wire.games[B].actions if a.outcome is not None
            for e in a.outcome.events]


def test_the_schedule_counts_the_turn_start_steps_a_fire_announces() -> None:
    """A Bike steps with its Fire (R8.2.1) and then once per own turn; a Jump Pack rises
    with it (R8.3.1) and steps every own turn after; the other side's End takes one step
    of each (the last one ends the travel); a Fire of another weapon or by the other
    side changes nothing, and a Bike's Fire one square away announces no turn-start
    step (the Fire's own step arrives)."""
    for article, steps, lands in ((A.BIKE, 3, False), (A.JUMP_PACK, 4, True)):
        start = _start(article, OFF_THE_PATH)
        frm = next(p for p in start.pieces if p.sq == board.square(*TRAVELLER))
        fire = Fire(frm.cell, article, dest=board.square(*DEST))
        travels = travels_after((), start, fire, B)
        assert travels == (Travel(frm.pid, steps, lands, 8),)  # (5,2) to (5,10): 8
        assert travels_after((), start, fire, W) == ()
        assert questions_per_step(lands) == (2 if lands else 1)
        after = apply(start, fire).position
        assert travels_after(travels, after, EndTurn(), B) == travels  # Black's own End
        white_to_act = after.evolve(turn=after.turn + 1)
        assert white_to_act.side_to_act is W
        assert travels_after(travels, white_to_act, EndTurn(), B) == \
            (Travel(frm.pid, steps - 1, lands, 8),)
        last = (Travel(frm.pid, 1, lands, 8),)
        assert travels_after(last, white_to_act, EndTurn(), B) == ()
        flame = Fire(frm.cell, A.FLAME, dir=(1, 0))
        assert travels_after(travels, start, flame, B) == travels
        near = Fire(frm.cell, article, dest=board.square(8, 2))
        assert travels_after((), start, near, B) == \
            (() if article is A.BIKE else (Travel(frm.pid, 1, True, 8),))


def test_every_action_that_may_doze_a_bike_rider_adds_a_step_to_its_travels() -> None:
    """R8.8.5: a Doze may move a Bike rider in transit a square farther from its
    destination, and the other side cannot tell whether it did. A Doze of Black's, a
    hidden Move of Black's (a hidden Dozer's Doze travels as one) and, with O24 on, the
    same by White add a step to Black's Bike travels, never past the farthest square
    from the destination; a seen Move, a Jump Pack's travel, or White's Doze with O24
    off add none."""
    start = _start(A.BIKE, OFF_THE_PATH, DOZERS["hidden"])
    bike, jump = Travel(7, 3, False, 8), Travel(8, 3, True, 8)
    doze = Doze(board.square(8, 3), (board.square(*RIDER_AFTER_FIRE),), AWAY)
    king = _king_move(start, B, 0)
    white_to_act = start.evolve(turn=start.turn + 1)
    no_enemy_dozing = white_to_act.evolve(options=replace(start.options, enemy_dozing=False))
    after = {(name, hidden): travels_after((bike, jump), before, intent, B, hidden)
             for name, before, intent in (("doze", start, doze), ("move", start, king),
                                         ("white doze", white_to_act, doze),
                                         ("white doze, O24 off", no_enemy_dozing, doze))
             for hidden in (False, True)}
    one_more = (Travel(7, 4, False, 8), jump)
    assert after == {("doze", False): one_more, ("doze", True): one_more,
                     ("move", False): (bike, jump), ("move", True): one_more,
                     ("white doze", False): one_more, ("white doze", True): one_more,
                     ("white doze, O24 off", False): (bike, jump),
                     ("white doze, O24 off", True): (bike, jump)}
    at_most = (Travel(7, 8, False, 8),)
    assert travels_after(at_most, start, doze, B) == at_most


def _phase(article: ArticleKind, other: tuple[int, int], in_transit: bool,
           travels: tuple[Travel, ...] = ()) -> tuple[list[int], int, list[int]]:
    """Black's transport phase on its own pieces alone (engine.sides ``transit_phase``,
    White asked nothing but presence, which holds nothing): the cells asked, the next
    free operation number from 1, the travellers that moved. The traveller stands at
    (9,2) (in the Air with a Jump Pack), in transit to (5,2) or not."""
    asked: list[int] = []
    start = _start(article, other)
    level = Level.GROUND if article is A.BIKE else Level.AIR
    own = {}
    for p in start.pieces:
        if p.side is B and p.sq == board.square(*TRAVELLER):
            p = p.but(level=level, transit=Transit(article, board.square(*DEST))
                      if in_transit else None)
        if p.side is B:
            own[p.pid] = p

    def presence(cells: Any) -> frozenset[int]:
        asked.extend(cells)
        return frozenset()

    w = SideWorking(B, own, (), (), start.turn, start.options, presence)
    op, moved = transit_phase(w, 1, [], travels)
    return asked, op, moved


def test_every_step_asks_its_travels_questions_a_phantom_step_too() -> None:
    """One step, three ops (the step, its settling, its judgement), and the questions of
    its kind: a Bike one (the next square, asked even where Black's own piece fills it),
    a Jump Pack two (the next square, then its landing or a question about a cell of its
    own); a travel that ended takes the same questions and ops, moving nothing."""
    ground, air = (board.square(8, 2) * 3 + level for level in (Level.GROUND, Level.AIR))
    here_ground, here_air = (board.square(*TRAVELLER) * 3 + level
                             for level in (Level.GROUND, Level.AIR))
    pid = next(p.pid for p in _start(A.BIKE, OFF_THE_PATH).pieces
               if p.sq == board.square(*TRAVELLER))
    assert _phase(A.BIKE, OFF_THE_PATH, True) == ([ground], 4, [pid])
    assert _phase(A.BIKE, (8, 2), True) == ([ground], 4, [])  # blocked by its own piece
    assert _phase(A.BIKE, (8, 2), False, (Travel(pid, 2, False),)) == ([here_ground], 4, [])
    assert _phase(A.BIKE, (8, 2), False) == ([], 1, [])  # nothing scheduled, nothing due
    assert _phase(A.JUMP_PACK, OFF_THE_PATH, True) == ([air, air], 4, [pid])
    # blocked in the Air by its own Choppers: it lands where it is
    assert _phase(A.JUMP_PACK, (8, 2), True) == ([air, here_ground], 4, [])
    assert _phase(A.JUMP_PACK, (8, 2), False, (Travel(pid, 3, True),)) == \
        ([here_air, here_air], 4, [])


class SkipsPhantomSteps(Liar):
    """Its transport phase asks nothing for a travel that ended early (as before
    ``wec-fog/11``): the steps its Fire announced stop short, which tells the other side
    that a hidden piece of its own stopped the traveller."""

    def _run_mine(self, act: Any) -> None:
        real = {p.pid for p in act.start.pieces if p.transit is not None}
        kept = tuple(t for t in act.travels if t.pid in real)
        if kept != act.travels:
            act.travels = kept
            self.lied = act.n if self.lied is None else self.lied
        super()._run_mine(act)


def test_a_peer_that_skips_its_phantom_steps_is_caught_with_proof() -> None:
    """The audit re-runs the liar's transport phases on the truth with the schedule its
    Fire made, and names the action, the lie and the signed messages."""
    wire, _ = _play(_start(A.BIKE, (6, 2)), A.BIKE, turns=4, liar=SkipsPhantomSteps)
    liar = wire.games[B]
    assert isinstance(liar, SkipsPhantomSteps) and liar.lied is not None
    audit_names_the_liar(wire, liar, B, "skipped questions")


def test_games_restored_between_the_stop_and_the_announced_end_go_on_alike() -> None:
    """Both sides restored from their records after the traveller stopped, while its
    phantom steps are still due: the schedule comes back with the replay, and the game
    goes on to the same messages, halves and clean audits as without the restore."""
    article = A.JUMP_PACK
    plain, _ = _play(_start(article, (6, 2)), article)
    restored, full = _play(_start(article, (6, 2)), article, restore_after=3)
    assert restored.games[B].travels == plain.games[B].travels
    for side in Side:
        assert half_bytes(restored.games[side].half) == half_bytes(project(full, side))
        assert [m.to_wire() for m in restored.received[side]] == \
            [m.to_wire() for m in plain.received[side]]
    assert all(v.clean for v in finish_and_audit(restored).values())


class _NotesImpliedPresence(FogGame):
    """An honest game noting each presence question of its owner side (R1.6) and the
    answer its own resolution gave it (net.fog_game ``_implied_presence``; None: asked
    back)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.implied: list[tuple[int, int, tuple[int, ...], frozenset[int] | None]] = []

    def _implied_presence(self, act: Any, rank: int, cells: tuple[int, ...]
                          ) -> frozenset[int] | None:
        answer = super()._implied_presence(act, rank, cells)
        self.implied.append((act.n, rank, cells, answer))
        return answer


def _presence_messages(wire: Wire, side: Side) -> list[str]:
    """The kinds of the presence questions ``side`` received (``ask``: the peer's
    resolution's; ``back``: its owner side's)."""
    return [m.kind for m in wire.received[side] if m.kind in ("ask", "back")
            and codec.unpack(m.body)["q"][0] == "presence_ot"]


# each step's cell, Ground, for the Bike: (8,2) with its Fire, then (7,2), (6,2), (5,2)
BIKE_STEPS = [board.square(x, 2) * 3 + GROUND for x in (8, 7, 6, 5)]
# the presence questions of the whole travel: a Bike asks one a step, four steps; a Jump
# Pack or Scuba Suit one as it rises with its Fire, then two a step (the step and its
# landing, ``questions_per_step``), four steps
TRAVEL_QUESTIONS = {A.BIKE: 4, A.JUMP_PACK: 1 + 4 * questions_per_step(True),
                    A.SCUBA_SUIT: 1 + 4 * questions_per_step(True)}


@pytest.mark.parametrize("article,blocked", [(A.BIKE, False), (A.BIKE, True),
                                             (A.JUMP_PACK, False), (A.SCUBA_SUIT, False)])
def test_a_transport_phase_answers_the_other_side_on_its_own_presence_answers(
        article: ArticleKind, blocked: bool) -> None:
    """``wec-fog/25``: Black's hidden traveller steps (R8.2.1, R8.4), and both Black's
    resolution of the action and its owner side answering White's transport question
    move it, the same steps in the same order: each asks White whether it holds the
    cell entered (R1.6). White is asked once a question, by Black's resolution; Black's
    owner side takes that answer (until ``wec-fog/24`` it asked each again, one more
    message each way on the End's path). With White's Flame pawn at (7,2) the Bike is
    told so at its second step and stops (R8.4.2), then takes phantom steps on its own
    cell; the halves follow the full state and both audits come out clean."""
    more = (white("flame_pawn", 7, 2),) if blocked else ()
    wire, full = _play(_start(article, OFF_THE_PATH, more), article,
                       liar=_NotesImpliedPresence)
    black_game = wire.games[B]
    assert isinstance(black_game, _NotesImpliedPresence)
    asked = _presence_messages(wire, W)
    assert asked == ["ask"] * TRAVEL_QUESTIONS[article]
    assert len(black_game.implied) == len(asked)
    assert all(answer is not None for *_, answer in black_game.implied)
    if article is A.BIKE:
        pawn = BIKE_STEPS[1]
        steps = [BIKE_STEPS[0], pawn, BIKE_STEPS[0], BIKE_STEPS[0]] if blocked else BIKE_STEPS
        assert black_game.implied == [
            (n, 0, (cell,), frozenset({cell}) if blocked and cell == pawn else frozenset())
            for n, cell in zip((0, 4, 8, 12), steps, strict=True)]
    for side in Side:
        assert half_bytes(wire.games[side].half) == half_bytes(project(full, side))
    assert all(v.clean for v in finish_and_audit(wire).values())


def test_an_owner_presence_question_is_implied_by_ours_of_its_rank_and_cells_alone() -> None:
    """``_implied_presence`` (wec-fog/25), on an action's record as the messages fill
    it: our owner side's presence question of rank r takes the answer of our own
    resolution's r-th presence question when that asked the same cells, once it is
    answered; other cells, or our resolution over with fewer presence questions, and
    it is asked back (None). The peer's audit finds the same from both resolutions on
    the truth (``net.audit._presence_asked_back``)."""
    start = _start(A.BIKE, OFF_THE_PATH)
    wire = Wire(new_pair(start, seed=5))
    wire.run()
    wire.play(B, _king_move(start, B, 0))
    played = wire.games[B].actions[-1]
    act = replace(played, mine=_Script(), resolved=None, outcome=None)
    step, other = BIKE_STEPS[:2]
    act.mine.questions += [["collide", 0], ["presence", [step]]]
    act.mine.answers.append(None)

    def implied(rank: int, cells: tuple[int, ...]) -> Resumable[frozenset[int] | None]:
        return Resumable(lambda: _implied_presence(act, rank, cells))

    same = implied(0, (step,))
    assert same.resume() == (False, None)  # asked, not answered yet: it waits
    act.mine.answers.append(frozenset({step}))
    assert same.resume() == (True, frozenset({step}))
    assert implied(0, (other,)).resume() == (True, None)  # other cells: asked back
    later = implied(1, (other,))
    assert later.resume() == (False, None)  # our resolution may still ask it
    act.mine.questions.append(["presence", [other]])
    assert later.resume() == (False, None)
    act.mine.answers.append(frozenset())
    assert later.resume() == (True, frozenset())
    beyond = implied(2, (other,))
    assert beyond.resume() == (False, None)
    act.resolved = played.outcome  # our resolution is over without it
    assert beyond.resume() == (True, None)
    assert _presence_asked_back(
        [("asked back: presence", (step,), frozenset()), ("first_hit", (1,), None),
         ("asked back: presence", (other,), frozenset()),
         ("asked back: presence", (step,), frozenset())],
        [["collide", 0], ["presence", [step]], ["presence", [step]]]) == [(other,), (step,)]


def _to_whites_first_end() -> Wire:
    """The Bike scenario (free path) up to White's first End of turn, whose transport
    phase steps Black's hidden rider (R4.2(3), R8.4): the End played, its first
    messages in flight, none delivered yet."""
    start = _start(A.BIKE, OFF_THE_PATH)
    wire = Wire(new_pair(start, seed=5))
    wire.run()
    full = start
    frm = next(p for p in start.pieces if p.sq == board.square(*TRAVELLER)).cell
    fire = Fire(frm, A.BIKE, dest=board.square(*DEST), kind=PieceKind.STEALTH_PAWN)
    for side, intent in ((B, fire), (B, None), (B, EndTurn()), (W, None)):
        intent = intent or _king_move(full, side, 0)
        assert not any(type(e).__name__ == "Refused" for e in wire.play(side, intent))
        full = apply(full, intent).position
    step = wire.games[W].play(EndTurn())
    wire.events[W].extend(step.events)
    wire.send(W, step.send)
    return wire


def test_games_restored_at_any_message_of_a_transport_end_go_on_alike() -> None:
    """Black's owner side waits for its own resolution's presence answer (wec-fog/25,
    ``_implied_presence``) in the middle of White's End: restored from their records on
    another thread (where the waiting computations are run afresh from the answers
    kept) after any number of the End's messages, both sides go on to the same
    messages, events and halves as the games never restored."""
    reference = _to_whites_first_end()
    start = {s: (len(reference.received[s]), len(reference.events[s])) for s in Side}
    reference.run()
    assert _presence_messages(reference, W) == ["ask", "ask"]  # the Fire's step, the End's
    end_messages = sum(len(reference.received[s]) - start[s][0] for s in Side)
    for delivered in range(end_messages):
        wire = _to_whites_first_end()
        for _ in range(delivered):
            assert _deliver_one(wire)
        restored = restored_on_another_thread(wire)
        twin = wire.twin(restored)
        twin.run()
        for side in Side:
            split = len(wire.received[side])
            assert [m.to_wire() for m in twin.received[side]] == \
                [m.to_wire() for m in reference.received[side][split:]], (delivered, side)
            assert twin.events[side] == \
                reference.events[side][len(reference.events[side]) - len(twin.events[side]):]
            assert half_bytes(restored[side].half) == half_bytes(reference.games[side].half)
            assert not restored[side].busy
    assert end_messages >= 8


class _OldPresence(TampersOnce):
    """Asks a presence question the way games with stealth only did before
    ``wec-fog/10`` (``presence_psi``, a labelled PSI run), or twice under one number."""

    def tamper(self, kind: str, payload: dict[str, Any]) -> list[tuple[str, Any]] | None:
        q = payload.get("q")
        if kind != "ask" or not q or q[0] != "presence_ot":
            return None
        if self.how == "labelled PSI":
            return [(kind, {**payload, "q": ["presence_psi", *q[1:]]})]
        return [(kind, payload), (kind, payload)]  # twice


@pytest.mark.parametrize("how,reason", [
    ("labelled PSI", "not a question of engine.questions"),
    ("twice", "question 0 where 1 was due")])
def test_a_transport_phases_presence_question_of_another_kind_or_twice_is_refused(
        how: str, reason: str) -> None:
    """Black's Bike, stepping with its Fire (R8.2.1), asks its presence question as a
    labelled PSI run (valid and signed), or sends it twice: White stops the game at
    once, naming the message, before answering; its record stays intact."""
    wire, _ = _play(_start(A.BIKE, OFF_THE_PATH), A.BIKE, turns=2,
                    liar=tampering(_OldPresence, how))
    refused_at_once(wire, W, reason)


def _travellers_moved(before: Position, after: Position) -> list[tuple[str, Side, bool]]:
    """What an action did to pieces in transit that the Fires did not announce: moved
    one farther from its destination (a Doze, R8.8.5) or converted (R6.7.2), with its
    side after and whether it was hidden."""
    now = {p.pid: p for p in after.pieces}
    out = []
    for p in before.pieces:
        q = now.get(p.pid)
        if p.transit is None or q is None:
            continue
        if board.distance(q.sq, p.transit.dest) > board.distance(p.sq, p.transit.dest):
            out.append(("dozed away by " + before.side_to_act.value, q.side, p.hidden))
        if q.side is not p.side and q.transit is not None:
            out.append(("converted", q.side, p.hidden))
    return out


# per seed, what the random games did to pieces in transit (_travellers_moved)
MOVED = {1: [("dozed away by white", W, False)],
         5: [("dozed away by white", B, False), ("dozed away by black", B, False)],
         7: [("dozed away by white", W, True)],
         13: [("converted", B, False)]}


@pytest.mark.parametrize("seed", list(MOVED))
def test_the_schedule_never_falls_short_of_a_travellers_steps_in_random_games(
        seed: int) -> None:
    """Random games with most pieces concealed, 10,000 actions, both sides' schedules
    kept as the two machines keep them: after every action each piece in transit has
    its travel, with at least the turn-start steps it still has to take (its distance
    to its destination; one to arrive when a Doze put it there, R8.8.5). A transport
    phase then never takes a step the other side did not count. The games include
    riders dozed away from their destination by their own side and by the other's
    (O24), a hidden one among them, and a traveller converted (R6.7.2). Each side's
    bound of the other's schedule, kept from what it is shown (``bound_after``, since
    wec-fog/20), has a step due whenever the schedule has: an End that asks no
    transport phase never misses one."""
    rng = random.Random(seed)
    travels: dict[Side, tuple[Travel, ...]] = {side: () for side in Side}
    kept: dict[Side, tuple[Travel, ...]] = {side: () for side in Side}
    bounds: dict[Side, tuple[Travel, ...]] = {side: () for side in Side}
    moved: list[tuple[str, Side, bool]] = []
    count = 0

    def seen(before: Position, intent: Intent, outcome: Any) -> None:
        nonlocal count, travels, kept, bounds
        count += 1
        after = outcome.position
        mover = next((p for p in before.pieces if isinstance(intent, Move)
                      and p.cell == intent.frm), None)
        hidden = mover is not None and mover.hidden
        travels = {side: travels_after(travels[side], before, intent, side, hidden, after)
                   for side in Side}
        # the schedules as the machines keep them: by the public form's hidden flag (a
        # piece concealed here may be one the other side surely sees)
        form, shown_hidden = codec.public_form(intent, project(before, before.side_to_act))
        kept = {side: travels_after(kept[side], before, intent, side, shown_hidden, after)
                for side in Side}
        if isinstance(intent, EndTurn | Fire | Doze) or shown_hidden:  # else they stay
            bounds = {side: bound_after(bounds[side], project(before, side), form, side.other,
                                        shown_hidden, events_for(side, outcome))
                      for side in Side}
        for side in Side:
            most = max((t.steps for t in kept[side.other]), default=0)
            assert max((t.steps for t in bounds[side]), default=0) >= most, \
                (count, kept[side.other], bounds[side])
        moved.extend(_travellers_moved(before, after))
        for p in after.pieces if after.result is None else ():  # over: no more steps
            if p.transit is not None:
                due = {t.pid: t.steps for t in travels[p.side]}
                assert due.get(p.pid, 0) >= max(board.distance(p.sq, p.transit.dest), 1), \
                    (count, p, travels[p.side])

    position = conceal(standard_position(None), rng, 0.9)
    while count < 10_000:
        position = play_turn(position, rng, seen)
        if position.result is not None:
            position = conceal(standard_position(None), rng, 0.9)
            travels = {side: () for side in Side}
            kept = {side: () for side in Side}
            bounds = {side: () for side in Side}
    assert moved == MOVED[seed]
