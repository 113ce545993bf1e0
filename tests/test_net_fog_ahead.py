"""A later collide asked only where it can hit, and the detection queries it carried sent
apart (issue 21, ``wec-fog/27``).

* R6.8.5 settles until nothing changes, and a hit changes pieces on its own square alone
  (R6.4; R7.3: a passenger or a stunned flyer falls to that square's Ground). So after a
  collide that hit, the next asks only about the projectiles on the squares it hit
  (engine.half_resolution ``settle_candidates``), and none is asked when none is left
  there: until ``wec-fog/27`` a round trip on the path of most actions whose projectile
  hit (tests/test_split_resolution.py checks the rule against the full state).
* That later collide's answer carried the answering side's detection queries for the
  acting side's detect, where both sides' first collides are one implied question (an
  End's, a named projectile Fire's) and the collide hit the acting side's pieces alone.
  The other side now sends them in an ``ahead`` message of their own, as soon as the
  acting side's answer to its own first collide tells it they are due; its answer to
  the acting side's collide still goes at once, without them.

A peer that sends them where they are not due is stopped at once.
"""

from __future__ import annotations

from typing import Any

import msgpack
from test_net_audit import ProbesReach
from test_net_fog import KEYS, finish_and_audit
from test_net_fog_end_implied import _concealed
from test_net_fog_implied import black_stopped

from wec.engine.half_resolution import collide_implied, launches_projectile
from wec.engine.intents import EndTurn, Fire
from wec.engine.pieces import Side
from wec.engine.questions import ActAnswer
from wec.net import fog_codec as codec
from wec.net import fog_game
from wec.net.evidence import verify_record
from wec.net.fog_game import FogGame


def _received(wire: Any, side: Side, kind: str) -> list[dict[str, Any]]:
    return [codec.unpack(m.body) for m in wire.received[side] if m.kind == kind]


def _cells(answer: Any) -> frozenset[int]:
    return answer if isinstance(answer, frozenset) else codec.from_wire(answer)


def _first_collides_one(act: Any) -> bool:
    """Whether both sides' first collides of ``act`` (the acting side's record) are one
    implied question: an End's while projectiles fly and none homes, or a projectile
    Fire's whose firer the acting side named with its strength (its first answer)."""
    if not collide_implied(act.form, act.start.projectiles):
        return False
    if isinstance(act.form, EndTurn):
        return True
    strength = codec.from_wire(act.answered[0]) if act.answered else None
    return isinstance(act.form, Fire) and launches_projectile(act.form) \
        and isinstance(strength, ActAnswer) and strength.shown is not None


def test_the_queries_for_the_acting_sides_detect_come_apart_where_they_are_due() -> None:
    """Random concealed games: an ``ahead`` message comes to the acting side exactly in
    the Ends and projectile Fires whose first collides are one, which the other side
    answered empty while they hit the acting side's pieces, with no later collide; it
    serves the acting side's next question, its detect, which then carries its tables
    (the other side never asks those queries back). Twenty-four such actions in these games;
    the audits are clean."""
    served = []
    for seed in (31, 33, 43, 48):
        wire, games = _concealed(seed)
        assert not any(wire.faults().values()), wire.faults()
        for side in Side:
            game, peer = games[side], games[side.other]
            ahead = [(p["n"], p["i"]) for p in _received(wire, side, "ahead")]
            backs = {(act.n, q[3]) for act in peer.actions for q in act.backs.questions
                     if q[0] == "sight" and q[4] < fog_game.PRE_RUN}
            due = []
            for act in game.actions:
                mine = act.mine.questions
                collides = [i for i, q in enumerate(mine) if q[0] == "collide"]
                theirs = [i for i, q in enumerate(act.theirs) if q[0] == "collide"]
                if act.actor is side and len(collides) == 1 and theirs \
                        and _first_collides_one(act) \
                        and not _cells(act.mine.answers[collides[0]]) \
                        and _cells(act.answered[theirs[0]]) \
                        and collides[0] + 1 < len(mine) and mine[collides[0] + 1][0] == "detect":
                    due.append((act.n, collides[0] + 1))
            assert ahead == due, (seed, side, ahead, due)
            for n, i in due:
                assert (n, i) not in backs and i in game.actions[n].pre_theirs, (seed, n)
            served += due
        verdicts = finish_and_audit(wire)
        assert all(v.clean for v in verdicts.values()), (seed, verdicts)
    assert len(served) == 24, served


class SendsAheadAlways(FogGame):
    """Sends its detection queries apart after every empty answer to the peer's first
    collide, due or not."""

    def _send_ahead(self, act: Any, conv: Any, k: int) -> None:
        if act.actor is self.side or k != fog_game._collides(act.theirs)[0] \
                or _cells(act.answered[k]):
            return
        queries = self._reach_ahead(act, k + 1, conv.detection_slots())
        self._send("ahead", {"n": act.n, "i": k + 1, "reach": queries})


def test_a_peer_that_sends_queries_apart_where_none_are_due_is_stopped_at_once() -> None:
    """White sends its queries apart after its empty answers to Black's first collides
    whatever Black's answer to its own: Black stops the game at the first that is not
    due, naming the signed message, and its record verifies."""
    wire, games = _concealed(31, {Side.WHITE: SendsAheadAlways})
    black_stopped(wire, games, "where none are due (wec-fog/27")


class SendsAheadTwice(FogGame):
    """Sends each of its ``ahead`` messages twice."""

    def _send(self, kind: str, payload: Any) -> None:
        super()._send(kind, payload)
        if kind == "ahead":
            super()._send(kind, dict(payload))


def test_a_peer_that_sends_its_queries_apart_twice_is_stopped_at_the_copy() -> None:
    """White's ``ahead`` comes where it is due, then again: Black takes the first and
    stops the game at the copy, naming the signed message; its record verifies."""
    wire, games = _concealed(33, {Side.WHITE: SendsAheadTwice})
    black_stopped(wire, games, "a second time (wec-fog/27: once)")


class ProbesAhead(ProbesReach):
    """Lies in its ``ahead`` messages alone: the detection queries it sends apart ask
    the peer's detector reach at squares where it has no piece, in their padding
    positions (it would probe where the peer's hidden detectors reach; the peer's masks
    hide what it reads, but the query is not the protocol's)."""

    lie_from = 0

    def _send(self, kind: str, payload: Any) -> None:
        if kind == "ahead" and self.ready():
            query = self._probe(payload["n"], fog_game.PRE_RUN + payload["i"])
            if query is not None:
                self.lied = payload["n"]
                payload = {**payload, "reach": [query, payload["reach"][1]]}
        FogGame._send(self, kind, payload)  # not ProbesReach's: it would lie elsewhere too


def test_a_reach_probe_sent_apart_is_caught_by_the_audit() -> None:
    """White probes through its ``ahead`` queries alone; the game goes on (Black's masks
    hid what White read, and the query's squares are White's secret until the end), and
    Black's audit names White, the reach, the action and the signed ``ahead`` message;
    Black's record verifies. In each of the four games."""
    caught = []
    for seed in (31, 33, 43, 48):  # each has ``ahead`` messages of White's (above)
        wire, games = _concealed(seed, {Side.WHITE: ProbesAhead})
        liar, honest = games[Side.WHITE], games[Side.BLACK]
        assert liar.lied is not None, seed
        assert not any(wire.faults().values()), wire.faults()
        verdict = honest.audit(liar.reveal())
        assert not verdict.clean and verdict.culprit == Side.WHITE.value, verdict.report()
        assert "reach query is not made of the squares of its pieces" in verdict.reason, \
            verdict.reason
        assert verdict.action == liar.lied, (verdict.action, liar.lied)
        record = honest.log.record()
        named = [msgpack.unpackb(record.entries[i][1]) for i in verdict.proof]
        assert [kind for kind, _ in named] == ["ahead"], named
        assert all(record.entries[i][0].sender == Side.WHITE.value for i in verdict.proof)
        assert codec.unpack(named[0][1])["n"] == liar.lied
        assert verify_record(record, KEYS[Side.WHITE].public_key,
                             KEYS[Side.BLACK].public_key).ok
        caught.append(seed)
    assert caught == [31, 33, 43, 48], caught
