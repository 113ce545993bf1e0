"""A quiet Fire (issue 21, ``wec-fog/26``): a Fire that launches a projectile (R6.8.2),
by a firer the other side sees whatever its detectors (engine.visibility
``seen_whatever``: it cannot hide, or a reveal shows it), whose projectile hits nothing
(R6.8.5), changes no piece either side sees but the firer, which the other side sees
whole. Neither side asks ``detect`` after it (R9.5: what each sees cannot have
changed); the acting side names the firer with the strength its intent carries
(``ActAnswer.shown``) and the other side takes the firer's part from the intent
(engine.half_resolution ``_quiet_fire``). Most Fires of a game are such: they went from
about half a megabyte of messages (two private detections, and 16 KiB of detection
queries sent ahead with each answer) to under 20 KiB.

A peer that names a firer we do not see, another piece than the one we see fire, or one
that may hide, is stopped at once; one that withholds the name only makes both sides
detect, and the audit names its answer."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from halves import conceal
from test_net_audit import KEYS
from test_net_fog import Wire, finish_and_audit, fog_options, new_pair
from test_net_fog_implied import (
    STRENGTH,
    _concealed_game,
    black_stopped,
    play_actions,
    projectile_fires,
)

from wec.engine.events import ProjectileRemoved
from wec.engine.fire import plan_fire
from wec.engine.half_resolution import firer_shown, launches_projectile, move_collide_follows
from wec.engine.intents import Doze, Fire, Move
from wec.engine.movement import plan_move
from wec.engine.pieces import Side
from wec.engine.questions import ActAnswer
from wec.engine.setup import standard_position
from wec.engine.visibility import seen_whatever
from wec.net import fog_codec as codec
from wec.net.evidence import verify_record
from wec.net.fog_game import FogGame
from wec.net.fog_game import _ActorConversation as ActorConversation


def _hit(act: Any) -> bool:
    """Whether a projectile hit pieces in the action (R6.8.5; both sides see it)."""
    return any(isinstance(e, ProjectileRemoved) and e.why == "hit" for e in act.outcome.events)


def _bytes_of_action(wire: Wire, n: int) -> int:
    """The bytes of every message of action ``n``, both directions."""
    return sum(len(m.body) for side in Side for m in wire.received[side]
               if m.kind in ("intent", "ask", "answer", "done")
               and codec.unpack(m.body).get("n") == n)


def test_a_quiet_fire_asks_no_detection_on_either_side() -> None:
    """Random games with 40% of the pieces concealed: each projectile Fire asks no
    ``detect`` on either side exactly when its firer is seen whatever and nothing is hit;
    the strength answer names the firer exactly then; a quiet Fire's messages, both
    directions, are under 20 KiB: the next action's detection queries sent ahead with a
    ``done``, 16 KiB, and no others (``_reach_follows``), against more than 48 KiB for
    the others (a detection's answer alone fills that class); the halves agree with the
    full state and the audits are clean."""
    quiet = loud = 0
    for seed in (40, 41):
        wire, games = _concealed_game(seed)
        for black_act in projectile_fires(games[Side.BLACK]):
            n, actor = black_act.n, black_act.actor
            acting, other = games[actor].actions[n], games[actor.other].actions[n]
            firer = plan_fire(acting.start, black_act.form).piece
            shown = firer.pid if seen_whatever(firer, acting.start.options) else None
            assert other.mine.questions[0] == STRENGTH
            assert other.mine.answers[0].shown == shown, (n, firer)
            expected_quiet = shown is not None and not _hit(acting)
            for act in (acting, other):
                asked = [q[0] for q in act.mine.questions]
                assert ("detect" not in asked) is expected_quiet, (n, act.actor, asked)
            if expected_quiet:
                quiet += 1
                assert _bytes_of_action(wire, n) < 20 << 10, _bytes_of_action(wire, n)
            else:
                loud += 1
                assert _bytes_of_action(wire, n) > 48 << 10
        verdicts = finish_and_audit(wire)
        assert all(v.clean for v in verdicts.values()), verdicts
    assert quiet >= 20 and loud >= 10, (quiet, loud)


class Names(FogGame):
    """Names a firer of its own projectile Fires as ``name(act, true_answer)`` says."""

    name: Any = None

    def _answer(self, act: Any, conv: Any, k: int, q: list[Any]) -> Any:
        answer, extra = super()._answer(act, conv, k, q)
        if q == STRENGTH and isinstance(conv, ActorConversation) and k == len(act.answered):
            true = codec.from_wire(answer)
            named = type(self).name(act, true)
            if named != true.shown:
                answer = codec.to_wire(ActAnswer(strength=true.strength, target=true.target,
                                                 shown=named))
        return answer, extra


def _until_named(cls: type[FogGame], seed: int, share: float = 0.0
                 ) -> tuple[Wire, dict[Side, Any]]:
    """White plays ``cls``; random play, firing often, until a fault stops the game or
    200 actions went by."""
    rng = random.Random(seed)
    full = standard_position(fog_options())
    if share:
        full = conceal(full, rng, share)
    games = new_pair(full, {Side.WHITE: cls}, seed=seed)
    NamesWhereSeen.seen_by = games[Side.BLACK]
    wire = Wire(games)
    wire.run()
    play_actions(wire, rng, 200)
    return wire, games


class NamesEveryFirer(Names):
    """Names its firer whether or not the other side sees it whatever."""

    name = staticmethod(lambda act, true: plan_fire(act.start, act.form).piece.pid)


class NamesAnother(Names):
    """Names another of its pieces the other side sees whatever, not the firer."""

    name = staticmethod(lambda act, true: None if true.shown is None else next(
        p.pid for p in act.start.pieces if p.side is act.actor and p.pid != true.shown
        and seen_whatever(p, act.start.options)))


class Withholds(Names):
    """Never names its firer: the other side detects after every Fire of its."""

    name = staticmethod(lambda act, true: None)


class NamesWhereSeen(Names):
    """Names its firer where the other side happens to see it, though it may hide (the
    test peeks at that side's half: a program cannot, but a lucky guess is as good)."""

    seen_by: Any = None

    @staticmethod
    def name(act: Any, true: ActAnswer) -> int | None:
        if true.shown is not None:
            return true.shown
        firer = plan_fire(act.start, act.form).piece
        seen = {p.pid for p in NamesWhereSeen.seen_by.half.pieces}
        return firer.pid if firer.pid in seen else None


@pytest.mark.parametrize("liar, seed, share, reason", [
    (NamesEveryFirer, 3, 0.4, ", but we see no piece that fires at cell "),
    (NamesWhereSeen, 2, 0.0, ", a piece that may hide from us (R9.7): its Fire is not "
                             "shown whole"),
])
def test_a_peer_that_names_a_firer_that_may_hide_is_stopped_at_once(
        liar: type[Names], seed: int, share: float, reason: str) -> None:
    """White names its firer where it may hide from Black: Black stops the game at that
    answer, naming the signed message, whether it does not see the firer (a concealed
    game) or sees it for now (an AAA, stealthy by nature, R9.2, that Black sees at that
    moment), and its record verifies."""
    wire, games = _until_named(liar, seed, share)
    faults = wire.faults()[Side.BLACK]
    assert faults, "no fault"
    assert faults[0].reason.startswith("the peer names its firer ") \
        and reason in faults[0].reason, faults[0].reason
    black_stopped(wire, games, "the peer names its firer")


def test_a_peer_that_names_another_piece_than_its_firer_is_stopped_at_once() -> None:
    wire, games = _until_named(NamesAnother, 5)
    faults = wire.faults()[Side.BLACK]
    assert faults and ", but the piece we see fire is " in faults[0].reason, faults
    assert faults[0].reason.endswith("(R6.1.1)")
    black_stopped(wire, games, "the peer names its firer")


class NamesItsMover(FogGame):
    """Names its mover in its answer to a Move's ``act("move")``, where no rule names
    anything (as if the quiet Fire's name would make a Move quiet too)."""

    def _answer(self, act: Any, conv: Any, k: int, q: list[Any]) -> Any:
        answer, extra = super()._answer(act, conv, k, q)
        if q == ["act", "move"] and isinstance(conv, ActorConversation) \
                and k == len(act.answered):
            true = codec.from_wire(answer)
            mover = plan_move(act.start, act.intent).piece
            answer = codec.to_wire(ActAnswer(stop=true.stop, taken=true.taken,
                                             taker=true.taker, shown=mover.pid))
        return answer, extra


def test_a_name_in_a_moves_answer_is_refused_at_once() -> None:
    """A valid answer with a field no rule fills there: Black stops the game at White's
    first visible Move, naming the signed answer, and its record verifies."""
    wire, games = _until_named(NamesItsMover, 5)
    faults = wire.faults()[Side.BLACK]
    assert faults and faults[0].reason.startswith("the peer names its firer ") \
        and faults[0].reason.endswith(" in an answer about no projectile Fire (R6.8.2)"), \
        faults
    black_stopped(wire, games, "the peer names its firer")


def test_a_peer_that_withholds_the_firers_name_is_named_by_the_audit() -> None:
    """Withholding it costs both sides a detection the rules do not need: Black's
    resolution asks ``detect`` after White's quiet Fires (White's own resolution, by the
    rule, does not), the game goes on, and Black's audit names White's strength answer,
    which differs from its true resolution's (not the detection queries White sent for
    the detect it had Black ask: the false answer comes first, net.audit)."""
    wire, games = _until_named(Withholds, 5)
    assert not any(wire.faults().values()), wire.faults()
    fires = [a for a in projectile_fires(games[Side.BLACK], Side.WHITE)
             if firer_shown(a.form, plan_fire(games[Side.WHITE].actions[a.n].start,
                                               a.form).piece, a.start.options) is not None
             and not _hit(a)]
    assert fires
    for black_act in fires:
        assert "detect" in [q[0] for q in black_act.mine.questions]
        assert black_act.mine.answers[0].shown is None
    verdict = finish_and_audit(wire)[Side.BLACK]
    assert not verdict.clean and verdict.culprit == "white", verdict
    first = fires[0]
    named = plan_fire(games[Side.WHITE].actions[first.n].start, first.form).piece.pid
    assert verdict.reason.startswith(
        f"action {first.n}: the peer's answer to our act question was false (the truth "
        f"gives ActAnswer(stop=None, taken=(), taker=None, strength="), verdict.reason
    assert verdict.reason.endswith(f"shown={named}), it said ActAnswer(stop=None, taken=(), "
                                   f"taker=None, strength={first.mine.answers[0].strength}, "
                                   "target=None, ready=None, shown=None))"), verdict.reason
    assert verdict.proof
    assert verify_record(games[Side.BLACK].log.record(), KEYS[Side.WHITE].public_key,
                         KEYS[Side.BLACK].public_key).ok


def test_a_fires_strength_answer_names_its_firer_only_when_it_is_seen_whatever() -> None:
    """``firer_shown``: a projectile Fire's firer that cannot hide is named; a Flame's,
    whose Fire launches nothing, is not; one given a Stealth article (R9.2) may hide and
    is not, unless a fire reveal shows it (R9.8)."""
    full = standard_position(fog_options())
    fires = [(p, Fire(p.cell, w, (1, 0) if p.side is Side.WHITE else (-1, 0)))
             for p in full.pieces for w in p.abilities() if w.value in (
                 "rocket_launcher", "sam_launcher", "torpedo_launcher", "flame")]
    assert fires
    for piece, fire in fires:
        expected = piece.pid if fire.weapon.value != "flame" and seen_whatever(
            piece, full.options) else None
        assert firer_shown(fire, piece, full.options) == expected


def test_answers_carry_detection_queries_only_where_a_detect_may_follow() -> None:
    """``FogGame._reach_follows``: in random concealed games no answer to a projectile
    Fire's strength, to a Move's ``act("move")`` followed by its implied collide, or to a
    collide that hit the owner's pieces carries the owner's detection queries (the next
    question is never a detect); every other answer to a Move's or a Doze's collide that
    hit nothing does (a detect follows); the detections asked back for want of queries
    sent ahead stay rare; the audits are clean."""
    kinds: Counter[str] = Counter()
    backs = detects = 0
    for seed in (42, 43):
        wire, games = _concealed_game(seed)
        for side in Side:
            for m in wire.received[side]:
                payload = codec.unpack(m.body)
                if m.kind == "back" and payload["q"][0] == "reach":
                    backs += 1
                if m.kind == "ask" and payload["q"][0] == "detect":
                    detects += 1
                if m.kind != "answer":
                    continue
                act = games[side].actions[payload["n"]]
                question = act.mine.questions[payload["i"]]
                answer = act.mine.answers[payload["i"]]
                carries = payload.get("reach") is not None
                form = act.form
                if question == STRENGTH and launches_projectile(form):
                    kinds["strength"] += 1
                    assert not carries
                elif question == ["act", "move"] and move_collide_follows(
                        form, act.start.projectiles, answer, act.actor):
                    kinds["move then collide"] += 1
                    assert not carries
                elif question[0] == "collide" and answer:
                    kinds["collide that hit"] += 1
                    assert not carries
                elif question[0] == "collide" and isinstance(form, Move | Doze):
                    kinds["move's collide, no hit"] += 1
                    assert carries
        assert all(v.clean for v in finish_and_audit(wire).values())
    assert min(kinds.values()) >= 3 and len(kinds) == 4, kinds
    assert backs * 20 <= detects, (backs, detects)
