"""An End of turn's questions that both sides know before they are asked (issue 21,
``wec-fog/23``), and the finish that no longer waits for a question that cannot come.

* Both sides' resolutions of an End begin with the notice of the new turn (R4.11,
  engine.half_resolution ``opens_with_new_turn``): it never travels, each side records
  the peer's as its question 0.
* While projectiles fly and none homes, both sides' first collide of an End (R6.8.4,
  R6.8.5) asks about the projectiles after their step, which both see (R9.1,
  ``collide_implied``): each side answers the other's unasked, as a Fire's.
* After any collide, the asking side's ``collision_effects`` (one per cell of the other
  side's pieces hit, in cell order, ``collision_effects_asked``) are known to the side
  that answered the collide: it answers them unasked, one round trip per cell off the
  asker's chain.
* The side that does not end the turn waits with its ``done`` for the peer's transport
  question only when that question is sure to come (its own schedule has a step due).
  Until session 34 it waited whenever the transport phase might be asked, and when it
  was not, its done waited for the peer's: one message more on most Ends' paths.

* In such an End every later collide is implied as well (``wec-fog/24``): both sides
  ask the same first collide, so each knows both answers once it has the other's and gave
  its own, and with them the next collide of the settling (R6.8.5, until nothing
  changes: ``next_settle_collide``), the same on both sides. Each answers the other's
  unasked, one round trip per collide after the first.

A peer that asks an implied question all the same is stopped at once.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from halves import conceal
from test_net_fog import Wire, finish_and_audit, fog_options, new_pair
from test_net_fog_implied import black_stopped, play_actions, questions_received

from wec.engine.half_resolution import (
    collide_implied,
    collision_effects_asked,
    next_settle_collide,
    opens_with_new_turn,
)
from wec.engine.intents import EndTurn, Fire, Move
from wec.engine.pieces import ArticleKind, Side
from wec.engine.position import Projectile
from wec.engine.setup import standard_position
from wec.engine.transit_schedule import step_due
from wec.net import fog_codec as codec
from wec.net import fog_game
from wec.net.fog_game import FogGame


def _concealed(seed: int, cls: dict[Side, type[FogGame]] | None = None,
               actions: int = 120) -> tuple[Wire, dict[Side, Any]]:
    """A random game from the standard start with 40% of the pieces concealed, firing
    projectiles often, played over the wire (``cls``: the sides' programs)."""
    rng = random.Random(seed)
    full = conceal(standard_position(fog_options()), rng, 0.4)
    games = new_pair(full, cls, seed=seed)
    wire = Wire(games)
    wire.run()
    play_actions(wire, rng, actions)
    return wire, games


def test_which_ends_imply_their_notice_and_first_collide() -> None:
    """The notice opens every End and nothing else; the first collide is implied while a
    projectile flies, none homes and one stays on the board after its step (R6.8.4);
    each cell of the other side's pieces hit is asked its effects, in cell order, at the
    operation after the collide's."""
    flying = (Projectile("rocket", Side.WHITE, 44, 3, (0, 1)),)
    leaving = (Projectile("rocket", Side.WHITE, 9, 3, (0, 1)),)  # (9 + 1 is off the board)
    homing = (Projectile("rocket", Side.WHITE, 54, 3, (0, 1), 7),)
    assert opens_with_new_turn(EndTurn())
    assert not opens_with_new_turn(Move(33, 43))
    assert collide_implied(EndTurn(), flying)
    assert collide_implied(EndTurn(), (*flying, *leaving))
    assert not collide_implied(EndTurn(), ())
    assert not collide_implied(EndTurn(), leaving)
    assert not collide_implied(EndTurn(), (*flying, *homing))
    assert not collide_implied(Move(33, 43), flying)
    assert collide_implied(Fire(34, ArticleKind.ROCKET_LAUNCHER, (0, 1)), flying)
    assert collision_effects_asked(6, {130, 41, 88}) == [(7, 41, 41), (7, 88, 88),
                                                         (7, 130, 130)]
    assert collision_effects_asked(6, set()) == []


def test_an_ends_notice_and_first_collide_go_unasked() -> None:
    """Random concealed games: no side ever receives a new-turn notice; each End's
    question 0 is the notice on both sides, recorded as the peer's with no message its
    proof; where its first collide is implied it is question 1 on both sides, recorded
    the same way, and the collide received in that End (if any) is a later one. The
    answers agree and the audits are clean."""
    ends = implied = 0
    for seed in (33, 34):
        wire, games = _concealed(seed)
        assert not any(wire.faults().values()), wire.faults()
        for side in Side:
            assert not [q for q in questions_received(wire, side) if q[1][0] == "new_turn"]
        for black_act in games[Side.BLACK].actions:
            if not isinstance(black_act.form, EndTurn):
                continue
            ends += 1
            turn = black_act.start.turn + 1
            acts = {side: games[side].actions[black_act.n] for side in Side}
            for act in acts.values():
                assert act.mine.questions[0] == act.theirs[0] == ["new_turn", turn]
                assert act.theirs_proof[0] == -1
            if not collide_implied(black_act.form, black_act.start.projectiles):
                continue
            implied += 1
            for side, act in acts.items():
                peer = acts[side.other]
                assert act.mine.questions[1][0] == "collide"
                assert act.mine.questions[1] == peer.theirs[1]
                assert peer.theirs_proof[1] == -1
                assert codec.to_wire(act.mine.answers[1]) == peer.answered[1]
                received = [i for i, q in ((p["i"], p["q"]) for p in (
                    codec.unpack(m.body) for m in wire.received[side.other]
                    if m.kind == "ask") if p["n"] == act.n) if q[0] == "collide"]
                assert 1 not in received, received
        verdicts = finish_and_audit(wire)
        assert all(v.clean for v in verdicts.values()), (seed, verdicts)
    assert ends >= 50 and implied >= 50, (ends, implied)


def test_collision_effects_go_unasked() -> None:
    """Random concealed games: no side ever receives a ``collision_effects`` question;
    each one a resolution asks is the one its collide's answer implies, recorded by the
    side that answered as the peer's question with no message its proof, and answered
    unasked with the answer the asker took. The audits are clean."""
    effects = 0
    for seed in (33, 35):
        wire, games = _concealed(seed)
        assert not any(wire.faults().values()), wire.faults()
        for side in Side:
            assert not [q for q in questions_received(wire, side)
                        if q[1][0] == "collision_effects"]
            for act in games[side].actions:
                peer = games[side.other].actions[act.n]
                for i, q in enumerate(act.mine.questions):
                    if q[0] != "collision_effects":
                        continue
                    effects += 1
                    assert peer.theirs[i] == q and peer.theirs_proof[i] == -1
                    assert codec.to_wire(act.mine.answers[i]) == peer.answered[i]
                    j = max(k for k in range(i) if act.mine.questions[k][0] == "collide")
                    op = act.mine.questions[j][1]
                    hit = act.mine.answers[j]
                    assert [tuple(x[1:]) for x in act.mine.questions[j + 1:j + 1 + len(hit)]] \
                        == collision_effects_asked(op, hit)
        verdicts = finish_and_audit(wire)
        assert all(v.clean for v in verdicts.values()), (seed, verdicts)
    assert effects >= 10, effects


class RecordsItsFinish(FogGame):
    """Notes, as it finishes each of the peer's Ends, whether the peer's done had come,
    whether its own schedule had a transport step due, and whether it had waited: its
    resolution was over before this step (``resolved`` kept, ``_finish_waits``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.finished: list[tuple[bool, bool, bool]] = []
        self.over_before: set[int] = set()

    def receive(self, message: Any) -> Any:
        self.over_before = {act.n for act in self.actions if act.resolved is not None}
        return super().receive(message)

    def settle(self) -> Any:
        self.over_before = {act.n for act in self.actions if act.resolved is not None}
        return super().settle()

    def _finish(self, act: Any) -> None:
        if act.actor is not self.side and isinstance(act.form, EndTurn):
            self.finished.append((act.peer_hash is not None, step_due(act.travels),
                                  act.n in self.over_before))
        super()._finish(act)


def test_the_side_not_ending_the_turn_does_not_wait_for_a_transport_question_not_due(
        ) -> None:
    """With the true schedules (no piece in transit), every End the peer makes is
    finished as soon as its resolution is over, in the same step: nothing more is sure
    to be asked. Nearly all before the peer's done comes (since wec-fog/27 an End whose
    projectile hit only the ending side's pieces may have that side's detection over
    first, as the other side asks its queries back). (Until session 34 each waited for
    the peer's done.)"""
    wire, games = _concealed(36, {side: RecordsItsFinish for side in Side})
    assert not any(wire.faults().values()), wire.faults()
    finished = [f for side in Side for f in games[side].finished]
    assert len(finished) >= 20, len(finished)
    assert [(due, waited) for _, due, waited in finished] == [(False, False)] * len(finished)
    assert sum(done_first for done_first, _, _ in finished) <= 2, finished
    verdicts = finish_and_audit(wire)
    assert all(v.clean for v in verdicts.values()), verdicts


class SendsTheNotice(FogGame):
    """Sends the notice of the new turn with its End's intent, as ``wec-fog/22`` did."""

    def _begin(self, act: Any) -> None:
        super()._begin(act)
        if act.actor is self.side and isinstance(act.form, EndTurn):
            self._send("ask", {"n": act.n, "i": 0, "q": ["new_turn", act.start.turn + 1]})


def test_a_peer_that_sends_an_ends_notice_is_stopped_at_once() -> None:
    """Black's log holds White's notice already (implied), and its implied first
    collide when projectiles fly: the question comes where question 1 or 2 is due, and
    Black stops the game at it, naming the signed message; its record verifies."""
    wire, games = _concealed(37, {Side.WHITE: SendsTheNotice}, actions=40)
    faults = wire.faults()[Side.BLACK]
    assert faults, "not stopped"
    act = games[Side.BLACK].actions[faults[0].index]
    assert isinstance(act.form, EndTurn) and act.actor is Side.WHITE
    due = 1 + collide_implied(act.form, act.start.projectiles)
    black_stopped(wire, games, f"question 0 where {due} was due")


def test_a_peer_that_asks_implied_collision_effects_is_stopped_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """White's resolution sends its collision_effects all the same, after Black's answer
    to its collide (Black's log holds them implied already): Black stops the game at
    once, naming the signed message, and its record verifies."""
    implied = fog_game._implied_effects
    white: list[FogGame] = []

    def white_asks(questions: Any, answers: Any, i: int) -> Any:
        if any(questions is act.mine.questions for act in white[0].actions):
            return None
        return implied(questions, answers, i)

    monkeypatch.setattr(fog_game, "_implied_effects", white_asks)

    class AsksTheEffects(FogGame):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            white.append(self)

    wire, games = _concealed(33, {Side.WHITE: AsksTheEffects})
    sent = [q for q in questions_received(wire, Side.BLACK) if q[1][0] == "collision_effects"]
    assert len(sent) == 1, sent  # the first one stopped the game
    faults = wire.faults()[Side.BLACK]
    found = re.search(r"question (\d+) where (\d+) was due", faults[0].reason if faults else "")
    assert found and int(found[2]) > int(found[1]), faults
    black_stopped(wire, games, found[0])


def test_which_collide_follows_a_hit_in_settling() -> None:
    """R6.8.5 settles until nothing changes: after a collide that hit, the next asks about
    the projectiles at the other cells of the squares it hit (a hit changes pieces on its
    own square alone: since wec-fog/27; until then at every other cell), three operations
    on (the effects', the homing check's, its own); when nothing was hit or nothing is
    left there, the settling is over."""
    rocket = Projectile("rocket", Side.WHITE, 44, 3, (0, 1))
    torpedo = Projectile("torpedo", Side.BLACK, 45, 2, (0, -1))
    sam = Projectile("sam", Side.BLACK, 44, 2, (1, 0))
    flying = (rocket, torpedo, sam)
    assert rocket.cell == 133 and torpedo.cell == 137 and sam.cell == 132
    assert next_settle_collide(3, flying, {133}) == (6, (sam,))
    assert next_settle_collide(3, flying, {136}) == (6, (torpedo,))
    assert next_settle_collide(3, flying, {133, 136}) == (6, (torpedo, sam))
    assert next_settle_collide(6, flying, {133, 132}) is None
    assert next_settle_collide(3, flying, {139}) is None  # (a square with no projectile)
    assert next_settle_collide(3, flying, set()) is None
    assert next_settle_collide(3, flying, {132, 133, 137}) is None


def _collides_of(questions: list[Any]) -> list[int]:
    return [i for i, q in enumerate(questions) if q[0] == "collide"]


def test_an_ends_later_collides_go_unasked() -> None:
    """Random concealed games: in an End whose first collide is implied, no collide is
    ever received. Each side's collides are the peer's, one for one, in order, each
    recorded by the peer with no message its proof; each later one is the collide that
    both sides' answers to the one before imply, and the answers agree. At least three
    Ends ask a second collide (since wec-fog/27 only about a projectile on a square the
    collide before hit, sharing it with another at another level: games picked that
    have one); the audits are clean. (Until session 35 every collide after the first was
    asked and answered in turn.)"""
    later = 0
    for seed in (31, 43, 48):
        wire, games = _concealed(seed)
        assert not any(wire.faults().values()), wire.faults()
        for side in Side:
            received = questions_received(wire, side)
            for act in games[side].actions:
                if not (isinstance(act.form, EndTurn)
                        and collide_implied(act.form, act.start.projectiles)):
                    continue
                assert not [q for n, q in received if n == act.n and q[0] == "collide"]
                peer = games[side.other].actions[act.n]
                ours, theirs = _collides_of(act.mine.questions), _collides_of(peer.theirs)
                assert [act.mine.questions[i] for i in ours] == [peer.theirs[i] for i in theirs]
                assert [peer.theirs_proof[i] for i in theirs] == [-1] * len(theirs)
                assert [codec.to_wire(act.mine.answers[i]) for i in ours] \
                    == [peer.answered[i] for i in theirs]
                mine_back = _collides_of(peer.mine.questions)
                for rank in range(1, len(ours)):
                    later += side is Side.WHITE
                    before, now = ours[rank - 1], act.mine.questions[ours[rank]]
                    op, projectiles = codec.from_wire(now[1]), codec.from_wire(now[2])
                    hit = act.mine.answers[before] | peer.mine.answers[mine_back[rank - 1]]
                    assert next_settle_collide(codec.from_wire(act.mine.questions[before][1]),
                                               codec.from_wire(act.mine.questions[before][2]),
                                               hit) == (op, tuple(projectiles))
        verdicts = finish_and_audit(wire)
        assert all(v.clean for v in verdicts.values()), (seed, verdicts)
    assert later >= 3, later


def test_a_peer_that_asks_an_ends_later_collide_is_stopped_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """White's resolution sends its collides after an End's first all the same (as
    ``wec-fog/23`` did): Black stops the game at the first, naming the signed message
    (it comes where Black's record holds the implied collide, or before Black could
    record it, as a collide where none may be sent), and its record verifies."""
    implied = fog_game._later_collide_implied
    white: list[FogGame] = []

    def white_asks(act: Any, questions: Any) -> bool:
        if any(act is mine for mine in white[0].actions):
            return False
        return implied(act, questions)

    monkeypatch.setattr(fog_game, "_later_collide_implied", white_asks)

    class AsksTheCollides(FogGame):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            white.append(self)

    wire, games = _concealed(31, {Side.WHITE: AsksTheCollides})  # an End asks a later one
    acts = games[Side.BLACK].actions
    sent = [(n, q) for n, q in questions_received(wire, Side.BLACK) if q[0] == "collide"
            and isinstance(acts[n].form, EndTurn)
            and collide_implied(acts[n].form, acts[n].start.projectiles)]
    assert len(sent) == 1, sent  # the first one stopped the game
    faults = wire.faults()[Side.BLACK]
    reason = faults[0].reason if faults else ""
    found = re.search(r"question (\d+)(, a collide, in an End of turn whose collides are "
                      r"all implied| where (\d+) was due)", reason)
    assert found, faults
    black_stopped(wire, games, found[0])


class SendsACollide(FogGame):
    """Asks its first collide of each End again as question 2, as soon as it has asked
    it: a collide where none is ever sent."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sent: set[int] = set()

    def _run_mine(self, act: Any) -> None:
        super()._run_mine(act)
        if act.actor is self.side and act.n not in self.sent \
                and isinstance(act.form, EndTurn) and len(act.mine.questions) > 1 \
                and act.mine.questions[1][0] == "collide":
            self.sent.add(act.n)
            self._send("ask", {"n": act.n, "i": 2, "q": act.mine.questions[1]})


def test_a_peer_that_asks_a_collide_in_an_end_whose_collides_are_implied_is_stopped(
        ) -> None:
    """A collide the peer sends in an End whose collides are implied, where nothing is
    recorded yet (no later collide follows the first's answers), is refused as such at
    once, naming the signed message; the honest record verifies."""
    wire, games = _concealed(37, {Side.WHITE: SendsACollide})
    black_stopped(wire, games, "question 2, a collide, in an End of turn whose collides "
                               "are all implied")
