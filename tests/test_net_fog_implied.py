"""Questions implied by the intent (issue 21, ``wec-fog/18``): the side that does not act
asks nothing the intent's public form already tells it will ask first.

A Fire that launches a projectile (R6.8.2) is resolved by the side that does not act
from the acting piece's strength and homing target, which the projectile shows both
sides (R6.2.2, R9.1): its first question was always ``act("strength")``. Now both sides
know it is asked (net.fog_game ``implied_questions``): it never travels, and the acting
side answers it with its intent, one round trip off the other side's chain. A peer that
asks it all the same, or answers it falsely, is stopped at once.

Since ``wec-fog/20`` both sides' first ``collide`` of such a Fire is implied too, when no
projectile homes (engine.half_resolution ``collide_implied``): its cells are the
projectiles', which both sides see. Each side answers the other's unasked, as its own
resolution reaches the same question: one more round trip off both chains.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from halves import conceal
from test_net_audit import KEYS
from test_net_fog import Wire, finish_and_audit, fog_options, new_pair, random_intent

from wec.engine.fire import TRANSPORTS, fire_choices
from wec.engine.half_resolution import (
    MOVE_COLLIDE_OP,
    collide_implied,
    doze_collide_follows,
    launches_projectile,
    move_collide_follows,
)
from wec.engine.intents import Doze, EndTurn, Fire, Intent, Move
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.playout import MAX_EXTRA_ACTIONS
from wec.engine.position import Position, Projectile
from wec.engine.questions import ActAnswer, PieceInfo
from wec.engine.setup import standard_position
from wec.net import fog_codec as codec
from wec.net import fog_game
from wec.net.evidence import verify_record
from wec.net.fog_game import FogGame, Refused, implied_questions
from wec.net.fog_game import _ActorConversation as ActorConversation

A = ArticleKind
STRENGTH = ["act", "strength"]


def questions_received(wire: Wire, side: Side) -> list[tuple[int, list[Any]]]:
    """Every question ``side`` received: (action, question)."""
    found = []
    for m in wire.received[side]:
        if m.kind == "ask":
            payload = codec.unpack(m.body)
            found.append((payload["n"], payload["q"]))
    return found


def test_which_fires_imply_the_strength_question() -> None:
    """R6.8.2: every projectile weapon's Fire, directional or homing, and a directional
    rocket; not a Flame, a Stunner, a Conversion (they ask only when they reach the
    asker's pieces, R6.5.1, R6.6.1, R6.7.1), a targeted rocket (an area, R6.12.2) or a
    transport (R8.1)."""
    implied = {A.TORPEDO_LAUNCHER: True, A.SAM_LAUNCHER: True, A.ROCKET_LAUNCHER: True,
               A.FLAME: False, A.STUNNER: False, A.CONVERSION: False}
    for weapon, launches in implied.items():
        fire = Fire(34, weapon, (0, 1))
        assert launches_projectile(fire) is launches
        assert implied_questions(fire) == ([STRENGTH] if launches else [])
    assert not launches_projectile(Fire(34, A.ROCKET_LAUNCHER, None, 52))
    assert implied_questions(Fire(34, A.SAM_LAUNCHER, None, 52)) == [STRENGTH]
    for transport in TRANSPORTS:
        assert implied_questions(Fire(34, transport, None, None, 55)) == []
    assert implied_questions(EndTurn()) == []


def firing_intent(half: Position, rng: random.Random, step: int) -> Intent:
    """Mostly a Fire that launches a projectile when the side to act has one (random
    play fires few of them), else a random intent."""
    if step >= MAX_EXTRA_ACTIONS:  # a Move (R4.4), then the End
        return random_intent(half, rng, MAX_EXTRA_ACTIONS if not half.actions.move else step)
    fires = [f for part in fire_choices(half) for f in part
             if isinstance(f, Fire) and launches_projectile(f)]
    if fires and rng.random() < 0.7:
        return rng.choice(fires)
    return random_intent(half, rng, step)


def play_actions(wire: Wire, rng: random.Random, actions: int,
                 until: Any = None) -> None:
    """``actions`` actions of random play, firing projectiles often, until a fault, the
    game's end or ``until(games)``."""
    games = wire.games
    for _ in range(actions):
        g = games[games[Side.BLACK].half.side_to_act]
        if any(wire.faults().values()) or g.result is not None \
                or (until is not None and until(games)):
            return
        step = min(len(g.half.actions.actors), MAX_EXTRA_ACTIONS + 1)
        events = wire.play(g.side, firing_intent(g.half, rng, step))
        if events and isinstance(events[0], Refused) and g.half.actions.move:
            wire.play(g.side, EndTurn())


def projectile_fires(game: FogGame, actor: Side | None = None) -> list[Any]:
    """The actions of ``game`` that are Fires launching a projectile (by ``actor``)."""
    return [a for a in game.actions if isinstance(a.form, Fire)
            and launches_projectile(a.form) and actor in (None, a.actor)]


def _concealed_game(seed: int) -> tuple[Wire, dict[Side, FogGame]]:
    """120 actions of a random game from the standard start with 40% of the pieces
    concealed, played over the wire without a fault."""
    rng = random.Random(seed)
    full = conceal(standard_position(fog_options()), rng, 0.4)
    games = new_pair(full, seed=seed)
    wire = Wire(games)
    wire.run()
    play_actions(wire, rng, 120)
    assert not any(wire.faults().values()), wire.faults()
    return wire, games


def test_a_projectile_fire_goes_without_the_strength_question() -> None:
    """Random games with many pieces concealed: no side ever receives the strength
    question; for each Fire that launches a projectile the side that does not act
    resolved it as its first question, answered from the acting side's answer sent
    with the intent; both halves agree with each other and the audits are clean."""
    wire, games = _concealed_game(30)
    for side in Side:
        assert not [q for q in questions_received(wire, side) if q[1] == STRENGTH]
    fires = projectile_fires(games[Side.BLACK])
    assert len(fires) >= 20, len(fires)
    for black_act in fires:
        other = games[black_act.actor.other].actions[black_act.n]
        assert other.mine.questions[0] == STRENGTH
        strength = other.mine.answers[0].strength
        assert type(strength) is int and strength >= 1
        mine = games[black_act.actor].actions[black_act.n]
        assert mine.theirs[0] == STRENGTH and mine.theirs_proof[0] == -1
    verdicts = finish_and_audit(wire)
    assert all(v.clean for v in verdicts.values()), verdicts


def test_a_projectile_fire_without_homing_goes_without_the_first_collide() -> None:
    """R6.8.5: in random games with many pieces concealed, each Fire that launches a
    projectile while none homes resolves its first collide on both sides without the
    question travelling: it is each side's question right after what the intent implies,
    recorded by the other side as the peer's (no message its proof) and answered
    unasked; a homing one asks as before. The halves agree and the audits are clean."""
    wire, games = _concealed_game(31)
    implied = 0
    for black_act in projectile_fires(games[Side.BLACK]):
        if not collide_implied(black_act.form, black_act.start.projectiles):
            continue
        implied += 1
        for side in Side:
            act = games[side].actions[black_act.n]
            first = 0 if act.actor is side else 1  # after the strength it implies
            assert act.mine.questions[first][0] == "collide"
            assert act.theirs[1 - first][0] == "collide" and act.theirs_proof[1 - first] == -1
            collides = [i for i, q in enumerate(act.theirs) if q[0] == "collide"]
            received = [q for n, q in questions_received(wire, side)
                        if n == act.n and q[0] == "collide"]
            assert len(received) == len(collides) - 1  # the first never came
    assert implied >= 15, implied
    verdicts = finish_and_audit(wire)
    assert all(v.clean for v in verdicts.values()), verdicts


class AsksTheCollide(FogGame):
    """Sends its first collide of its own projectile Fires, as ``wec-fog/19`` did."""

    def _run_mine(self, act: Any) -> None:
        if act.actor is self.side and act.collide_implied and not act.mine.answers:
            act.collide_implied = False
        super()._run_mine(act)


@pytest.mark.parametrize("questions_first", [False, True])
def test_a_peer_that_asks_the_implied_collide_is_stopped_at_once(
        questions_first: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its collide comes as its question 0, which the other side's log already holds
    (implied, no message its proof); or, sent before its answer with the strength, where
    the implied collide is still due: the side that does not act stops the game at that
    question, naming the signed message; its record verifies."""
    # a step's questions before its answers, or (the order before session 35, when a
    # collide question went after the answers) its answers first
    first = "ask" if questions_first else "answer"
    monkeypatch.setattr(fog_game, "_send_order", lambda item: {
        "intent": 0, first: 1}.get(item[0], 2))
    wire, games = _until_a_projectile_fire(AsksTheCollide, Side.WHITE)
    reason = ("question 0 where the peer's implied collide was due" if questions_first
              else "question 0 where 1 was due")
    black_stopped(wire, games, reason)


class AsksTheImplied(FogGame):
    """Asks the strength question itself, as ``wec-fog/17`` did: the side that does not
    act, its implied question left out of its log, sends it as its question 0."""

    def _begin(self, act: Any) -> None:
        if act.actor is not self.side and act.mine.questions[:1] == [STRENGTH]:
            act.mine.questions.clear()
            act.mine_args.clear()
        super()._begin(act)


class LiesStrength(FogGame):
    """Answers the implied strength question of its own Fires one higher than true."""

    def _answer(self, act: Any, conv: Any, k: int, q: list[Any]) -> Any:
        answer, extra = super()._answer(act, conv, k, q)
        if q == STRENGTH and isinstance(conv, ActorConversation) and k == len(act.answered):
            true = codec.from_wire(answer)
            answer = codec.to_wire(type(true)(strength=true.strength + 1, target=true.target))
        return answer, extra


def black_stopped(wire: Wire, games: dict[Side, Any], reason: str) -> None:
    """Black stopped the game at once for ``reason``, naming the signed message, and its
    record verifies."""
    faults = wire.faults()[Side.BLACK]
    assert faults and reason in faults[0].reason, faults
    assert faults[0].proof
    assert verify_record(games[Side.BLACK].log.record(), KEYS[Side.WHITE].public_key,
                         KEYS[Side.BLACK].public_key).ok


def _until_a_projectile_fire(cls: type[FogGame], actor: Side) -> tuple[Wire, dict[Side, Any]]:
    """White plays ``cls``; random play until ``actor`` played a Fire that launches a
    projectile, or a fault stopped the game."""
    games = new_pair(standard_position(fog_options()), {Side.WHITE: cls}, seed=7)
    wire = Wire(games)
    wire.run()
    play_actions(wire, random.Random(8), 300,
                 lambda games: projectile_fires(games[Side.BLACK], actor))
    assert projectile_fires(games[Side.BLACK], actor)
    return wire, games


def test_a_peer_that_asks_the_implied_question_is_stopped_at_once() -> None:
    """Its question 0 comes where question 2 is due (the strength and the first collide
    are implied, wec-fog/20): the acting side stops the game, naming the signed message,
    and its record verifies."""
    wire, games = _until_a_projectile_fire(AsksTheImplied, Side.BLACK)
    black_stopped(wire, games, "question 0 where 2 was due")


def test_a_false_strength_sent_with_the_fire_is_caught_at_once() -> None:
    """The projectile both sides hold differs: the honest side stops the game at the
    liar's ``done`` (its public state hash differs), naming that signed message."""
    wire, games = _until_a_projectile_fire(LiesStrength, Side.WHITE)
    faults = wire.faults()[Side.BLACK]
    assert faults and "desync" in faults[0].reason and "public state hash" in \
        faults[0].reason, faults
    assert faults[0].proof
    assert verify_record(games[Side.BLACK].log.record(), KEYS[Side.WHITE].public_key,
                         KEYS[Side.BLACK].public_key).ok


def test_a_moves_collide_after_its_act_goes_unasked() -> None:
    """R6.8.5, wec-fog/22: in random games with many pieces concealed, each Move made
    while projectiles are in flight and none homes is resolved by the side that does not
    act with its collide right after its act("move") (engine.half_resolution
    ``move_collide_follows``), never sent: the acting side records it as the peer's
    question 1 (no message its proof) and answers it unasked. The audits are clean."""
    wire, games = _concealed_game(32)
    implied = 0
    for black_act in games[Side.BLACK].actions:
        if not isinstance(black_act.form, Move):
            continue
        resolver = black_act.actor.other
        act = games[resolver].actions[black_act.n]
        mover = games[black_act.actor].actions[black_act.n]
        received = {p["i"]: p["q"] for p in (codec.unpack(m.body)
                                             for m in wire.received[black_act.actor]
                                             if m.kind == "ask") if p["n"] == act.n}
        assert act.mine.questions[0] == ["act", "move"]
        if not move_collide_follows(act.form, act.start.projectiles, act.mine.answers[0],
                                    act.actor):
            continue
        implied += 1
        assert act.mine.questions[1] == mover.theirs[1] == [
            "collide", MOVE_COLLIDE_OP, codec.to_wire(tuple(act.start.projectiles))]
        assert mover.theirs_proof[1] == -1
        assert received[0] == ["act", "move"] and 1 not in received, received
        assert codec.to_wire(act.mine.answers[1]) == mover.answered[1]
    assert implied >= 20, implied
    verdicts = finish_and_audit(wire)
    assert all(v.clean for v in verdicts.values()), verdicts


def test_which_moves_imply_the_collide_after_their_act() -> None:
    """A Move while a projectile flies and none homes, unless its capture ends the game
    (R12.2: the resolution stops there); nothing but a Move."""
    flying = (Projectile("rocket", Side.WHITE, 44, 3, (0, 1)),)
    homing = (Projectile("rocket", Side.WHITE, 54, 3, (0, 1), 7),)
    move = Move(33, 43)
    quiet = ActAnswer()
    assert move_collide_follows(move, flying, quiet, Side.BLACK)
    assert not move_collide_follows(move, (), quiet, Side.BLACK)
    assert not move_collide_follows(move, (*flying, *homing), quiet, Side.BLACK)
    assert not move_collide_follows(Fire(34, A.FLAME, (0, 1)), flying, quiet, Side.BLACK)
    tank = PieceInfo(Side.WHITE, PieceKind.TANK, None, ())
    assert move_collide_follows(move, flying, ActAnswer(stop=129, taken=(tank,)), Side.BLACK)
    king = PieceInfo(Side.WHITE, PieceKind.KING, None, ())
    assert not move_collide_follows(
        move, flying, ActAnswer(stop=129, taken=(king,), taker=PieceKind.TANK), Side.BLACK)


class AsksTheMoveCollide(FogGame):
    """Asks the collide after its act("move") in the peer's Moves, as ``wec-fog/21``
    did; ``early``: at once with its act("move"), before the answer."""

    early = False

    def _send(self, kind: str, payload: Any) -> None:
        super()._send(kind, payload)
        if self.early and kind == "ask" and payload["q"] == ["act", "move"]:
            act = self.actions[payload["n"]]
            if act.start.projectiles and all(p.target is None for p in act.start.projectiles):
                super()._send("ask", {"n": act.n, "i": 1,
                                      "q": fog_game._collide_after_first_question(act)})


@pytest.mark.parametrize("early", [False, True])
def test_a_peer_that_asks_a_moves_implied_collide_is_stopped_at_once(
        early: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """White, resolving Black's Moves, sends its collide after its act("move") all the
    same: after Black answered the act (its log holds the implied collide already), or
    at once with the act (Black finds it there when the collide falls due). Black stops
    the game, naming the signed message, and its record verifies."""
    implied = fog_game._collide_after_first_implied

    def asks_anyway(act: Any, questions: Any, answers: Any) -> bool:
        return implied(act, questions, answers) and not (
            act.actor is Side.BLACK and questions is act.mine.questions)

    if not early:
        monkeypatch.setattr(fog_game, "_collide_after_first_implied", asks_anyway)
    games = new_pair(conceal(standard_position(fog_options()), random.Random(9), 0.4),
                     {Side.WHITE: AsksTheMoveCollide}, seed=9)
    asker = games[Side.WHITE]
    assert isinstance(asker, AsksTheMoveCollide)
    asker.early = early
    wire = Wire(games)
    wire.run()
    play_actions(wire, random.Random(9), 300)
    reason = ("the peer asked the collide that follows its act" if early
              else "question 1 where 2 was due")
    black_stopped(wire, games, reason)


def test_which_dozes_imply_the_collide_after_their_doze_question() -> None:
    """A Doze while a projectile flies and none homes (R8.8, R6.8.5; a Doze ends no game);
    nothing but a Doze."""
    flying = (Projectile("torpedo", Side.WHITE, 44, 3, (0, 1)),)
    homing = (Projectile("rocket", Side.WHITE, 54, 3, (0, 1), 7),)
    doze = Doze(33, (43,), (1, 0))
    assert doze_collide_follows(doze, flying)
    assert not doze_collide_follows(doze, ())
    assert not doze_collide_follows(doze, (*flying, *homing))
    assert not doze_collide_follows(Move(33, 43), flying)


def _dozes_with_collide(games: dict[Side, FogGame]) -> list[tuple[Any, Any]]:
    """(the resolving side's log, the Dozer's log) of each Doze the side that does not
    act sees, made while projectiles fly and none homes."""
    found = []
    for black_act in games[Side.BLACK].actions:
        if isinstance(black_act.form, Doze) and not black_act.hidden \
                and doze_collide_follows(black_act.form, black_act.start.projectiles):
            found.append((games[black_act.actor.other].actions[black_act.n],
                          games[black_act.actor].actions[black_act.n]))
    return found


def test_a_dozes_collide_after_its_doze_question_goes_unasked() -> None:
    """R6.8.5, wec-fog/24: in random games with many pieces concealed, each Doze made
    while projectiles are in flight and none homes is resolved by the side that does not
    act with its collide right after its doze question, never sent: the Dozer records it
    as the peer's question 1 (no message its proof) and answers it unasked, with the
    answer the resolving side took. At least ten such Dozes; the audits are clean.
    (Until session 35 it was asked, one round trip more on the longest chain a Doze
    makes.)"""
    dozes = 0
    for seed in (34, 35):
        wire, games = _concealed_game(seed)
        for act, dozer in _dozes_with_collide(games):
            dozes += 1
            received = {p["i"]: p["q"] for p in (codec.unpack(m.body)
                                                 for m in wire.received[dozer.actor]
                                                 if m.kind == "ask") if p["n"] == act.n}
            assert act.mine.questions[0][0] == "doze" == received[0][0], received
            assert act.mine.questions[1] == dozer.theirs[1] == [
                "collide", MOVE_COLLIDE_OP, codec.to_wire(tuple(act.start.projectiles))]
            assert dozer.theirs_proof[1] == -1 and 1 not in received, received
            assert codec.to_wire(act.mine.answers[1]) == dozer.answered[1]
        verdicts = finish_and_audit(wire)
        assert all(v.clean for v in verdicts.values()), (seed, verdicts)
    assert dozes >= 10, dozes


def test_a_peer_that_asks_a_dozes_implied_collide_is_stopped_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """White, resolving Black's Dozes, sends its collide after its doze question all the
    same, after Black answered it (Black's log holds the implied collide already): Black
    stops the game at the first, naming the signed message, and its record verifies."""
    implied = fog_game._collide_after_first_implied

    def asks_anyway(act: Any, questions: Any, answers: Any) -> bool:
        return implied(act, questions, answers) and not (
            act.actor is Side.BLACK and isinstance(act.form, Doze)
            and questions is act.mine.questions)

    monkeypatch.setattr(fog_game, "_collide_after_first_implied", asks_anyway)
    rng = random.Random(34)
    games = new_pair(conceal(standard_position(fog_options()), rng, 0.4), seed=34)
    wire = Wire(games)
    wire.run()
    play_actions(wire, rng, 120)
    sent = [(n, q) for n, q in questions_received(wire, Side.BLACK)
            if q[0] == "collide" and isinstance(games[Side.BLACK].actions[n].form, Doze)]
    assert len(sent) == 1, sent  # the first one stopped the game
    black_stopped(wire, games, "question 1 where 2 was due")


class FallsSilentAtAnImpliedAnswer(FogGame):
    """Stops sending anything from its first answer to a question of kind ``KIND`` the
    peer does not ask (implied, recorded with no message its proof): ``act`` the
    strength sent with its Fire, ``collide`` a first collide, a Move's or Doze's collide
    or an End's later one, ``collision_effects`` a collide's effects (an End's notice
    has no answer)."""

    KIND = "act"
    withheld: tuple[int, int] | None = None

    def _send(self, kind: str, payload: Any) -> None:
        if self.withheld is None and kind == "answer":
            act = self.actions[payload["n"]]
            i = payload["i"]
            if i < len(act.theirs_proof) and act.theirs_proof[i] == -1 \
                    and act.theirs[i][0] == self.KIND:
                self.withheld = (act.n, i)
        if self.withheld is None:
            super()._send(kind, payload)


@pytest.mark.parametrize("kind", ["act", "collide", "collision_effects"])
def test_a_peer_silent_where_it_owes_an_unasked_answer_leaves_us_waiting_on_it(
        kind: str) -> None:
    """The answer never comes: our resolution waits on that very question, nothing
    refused, and the game stays ``busy`` with its exchange stalled (what
    net.lockstep_fog ``exchange_waiting`` reports, so that the LAN stack tells the
    player after twice the request timeout and lets them claim the win, as for any
    silent peer: tests/test_net_peer_fog.py); an unasked question is owed like an asked
    one."""
    rng = random.Random(33)
    silent_kind = type("Silent", (FallsSilentAtAnImpliedAnswer,), {"KIND": kind})
    games = new_pair(conceal(standard_position(fog_options()), rng, 0.4),
                     {Side.WHITE: silent_kind}, seed=33)
    wire = Wire(games)
    wire.run()
    silent = games[Side.WHITE]
    play_actions(wire, rng, 200, lambda games: silent.withheld is not None)
    assert silent.withheld is not None, kind
    n, i = silent.withheld
    black = games[Side.BLACK]
    act = black.actions[n]
    assert act.mine.questions[i][0] == kind and len(act.mine.answers) == i
    assert act.outcome is None and black.busy and not wire.faults()[Side.BLACK]
    exchanged = black.exchanged
    black.prepare()  # nothing more comes, whatever our side does meanwhile
    assert black.settle().send == () and not any(wire.queues.values())
    assert black.exchanged == exchanged and black.busy and act.outcome is None
