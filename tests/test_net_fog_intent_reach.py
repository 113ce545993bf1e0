"""The detection queries a PickUp or an Exchange carries (issue 21, ``wec-fog/21``).

A private detection goes in two messages when the owner of the pieces sent its queries
(net.private_sight ``OwnerRun.queries``) ahead of the asker's ``detect`` question: the
question then carries the asker's masked tables, and the answer the garbled material.
Asked back, it takes four, and the owner garbles on the path with nothing made ahead.

The queries go ahead with the owner's answer to the question before, or for an action's
first question with its ``done`` of the action before. A PickUp or an Exchange (R7) asks
nothing before the other side's detect (engine.half_resolution ``detect_first``), and the
action before it was often the acting side's own, whose ``done`` carries no queries: that
detect was asked back every time. Now the acting side's intent carries them, made on its
pieces as the intent leaves them (engine.half_referee ``acted_conversation``), and its
owner side garbles the run in the idle time until the question comes.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from halves import conceal
from test_net_audit import KEYS
from test_net_fog import Wire, finish_and_audit, fog_options, new_pair, random_intent

from wec.engine.article_actions import legal_exchanges, legal_pickups
from wec.engine.half_resolution import detect_first
from wec.engine.intents import Drop, EndTurn, Exchange, Fire, Intent, Move, PickUp
from wec.engine.pieces import ArticleKind, Side
from wec.engine.playout import MAX_EXTRA_ACTIONS
from wec.engine.position import Position
from wec.engine.setup import standard_position
from wec.net import fog_codec as codec
from wec.net.evidence import verify_record
from wec.net.fog_game import PRE_RUN, SIGHT_QUERIES, FogGame, Refused

A = ArticleKind


def article_intent(half: Position, rng: random.Random, step: int) -> Intent:
    """Mostly a PickUp or an Exchange when the side to act has one (random play makes
    few of them), else a random intent."""
    if step >= MAX_EXTRA_ACTIONS:  # a Move (R4.4), then the End
        return random_intent(half, rng, MAX_EXTRA_ACTIONS if not half.actions.move else step)
    found = [*legal_pickups(half), *legal_exchanges(half)]
    if found and rng.random() < 0.8:
        choice = rng.choice(found)
        assert isinstance(choice, PickUp | Exchange)
        return choice
    return random_intent(half, rng, step)


def play_actions(wire: Wire, rng: random.Random, actions: int, until: Any = None) -> None:
    """``actions`` actions of random play, picking up and exchanging often, until a
    fault, the game's end or ``until()``."""
    games = wire.games
    for _ in range(actions):
        g = games[games[Side.BLACK].half.side_to_act]
        if any(wire.faults().values()) or g.result is not None \
                or (until is not None and until()):
            return
        step = min(len(g.half.actions.actors), MAX_EXTRA_ACTIONS + 1)
        events = wire.play(g.side, article_intent(g.half, rng, step))
        if events and isinstance(events[0], Refused) and g.half.actions.move:
            wire.play(g.side, EndTurn())


def received(wire: Wire, side: Side, kind: str) -> list[dict[str, Any]]:
    """The payloads of every ``kind`` message ``side`` received."""
    return [codec.unpack(m.body) for m in wire.received[side] if m.kind == kind]


def test_which_intents_send_detection_queries() -> None:
    """Only a PickUp and an Exchange: a Drop asks the dropped article's readiness first
    (its answer carries the queries), a Move its stop, a Fire its strength or its steps,
    an End its new turn."""
    assert detect_first(PickUp(34, A.STEALTH))
    assert detect_first(Exchange(34, 37, A.STEALTH, None))
    for other in (Drop(34, A.STEALTH), Move(34, 44), Fire(34, A.FLAME, (0, 1)), EndTurn()):
        assert not detect_first(other)


@pytest.mark.parametrize("seed", [41, 42])
def test_a_pickup_or_exchange_sends_its_detection_queries_with_its_intent(seed: int) -> None:
    """Random games with many pieces concealed, picking up and exchanging often: every
    PickUp and Exchange intent carries the acting side's detection queries, the other
    side's detect (its first question) carries its tables for them, and nothing of the
    action is asked back; no other intent carries queries. Both sides agree and the
    audits are clean (each checks that the peer's queries were made of its true slots)."""
    rng = random.Random(seed)
    full = conceal(standard_position(fog_options()), rng, 0.4)
    wire = Wire(new_pair(full, seed=seed))
    wire.run()
    play_actions(wire, rng, 150)
    assert not any(wire.faults().values()), wire.faults()
    games = wire.games
    articles = 0
    for side in Side:
        intents = {p["n"]: p for p in received(wire, side, "intent")}
        # the acting side's detection runs asked back of this side
        backs = {p["n"] for p in received(wire, side, "back") if p["q"][0] == "reach"}
        for act in games[side].actions:
            if act.actor is side:
                continue
            sent = intents[act.n]
            if not detect_first(act.form):
                assert "reach" not in sent, act.form
                continue
            articles += 1
            assert [len(q) for q in sent["reach"]] == list(SIGHT_QUERIES)
            assert act.mine.questions[0][0] == "detect"
            assert PRE_RUN in act.their_reach  # our tables went with the question
            assert act.n not in backs  # nothing asked back
    assert articles >= 12, articles
    verdicts = finish_and_audit(wire)
    assert all(v.clean for v in verdicts.values()), {s: v.report() for s, v in verdicts.items()}


class IntentReachTamperer(FogGame):
    """Honest but for the queries of its first intent where ``how`` says: "left out" (a
    PickUp or an Exchange without them) or "where none is due" (another intent with
    them)."""

    how = "left out"
    done = False

    def _flush(self) -> Any:
        for k, (kind, payload) in enumerate(self._out):
            if kind != "intent" or self.done:
                continue
            due = detect_first(codec.from_wire(payload["form"]))
            if self.how == "left out" and due:
                payload = {key: v for key, v in payload.items() if key != "reach"}
                self.done = True
            elif self.how == "where none is due" and not due:
                payload = {**payload, "reach": [bytes(n) for n in SIGHT_QUERIES]}
                self.done = True
            self._out[k] = (kind, payload)
        return super()._flush()


@pytest.mark.parametrize("how, words", [
    ("left out", "an intent message without the detection queries it sends ahead"),
    ("where none is due", "a reach query sent ahead with an intent whose first question is "
                          "not a detect")])
def test_an_intent_with_its_queries_out_of_rule_is_refused_at_once(how: str, words: str
                                                                    ) -> None:
    """Which intents carry detection queries is a public fact of the form: White leaves
    them out of a PickUp or an Exchange, or sends them with another intent; Black stops
    the game at once, naming the signed intent, and its record verifies."""
    rng = random.Random(43)
    full = conceal(standard_position(fog_options()), rng, 0.4)
    games = new_pair(full, {Side.WHITE: IntentReachTamperer}, seed=43)
    tamperer = games[Side.WHITE]
    assert isinstance(tamperer, IntentReachTamperer)
    tamperer.how = how
    wire = Wire(games)
    wire.run()
    play_actions(wire, rng, 80, until=lambda: tamperer.done)
    assert tamperer.done
    wire.run()
    faults = wire.faults()[Side.BLACK]
    assert faults and words in faults[0].reason and faults[0].proof, faults
    assert verify_record(games[Side.BLACK].log.record(), KEYS[Side.WHITE].public_key,
                         KEYS[Side.BLACK].public_key).ok
