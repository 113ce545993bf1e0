"""The End of turn's round trips (issue 21, speed). The side that did not end the turn
finishes its resolution only after it has answered the questions the ending side is
sure to ask still, its transport phase and the detection after it (net.fog_game
``FogGame._finish_waits`` and ``settle``): its finish (state hash, commitment of the
new turn, reach query, signatures: 1-3 ms live) used to hold those questions up. And
the ending side sends the transport question with its projectile step's detection when
nothing was hit (``expect``). These tests pin the orders, that the same game comes out
whether or not the I/O layer settles at once, and that restores and journals make the
finish at the same point.

Since ``wec-fog/20`` an End asks no transport phase when the side whose turn starts has
no transport step due, as both sides know (engine.transit_schedule ``bound_after``). So
most of these tests play with a bound that never runs out (``ALWAYS_TRANSPORT``): every
End asks it, as every End did before; the last ones play with the true bounds."""

from __future__ import annotations

import random
from typing import Any

import msgpack  # type: ignore[import-untyped]
import pytest
from test_net_fog import (
    ALWAYS_TRANSPORT,
    KEYS,
    Wire,
    finish_and_audit,
    fog_options,
    new_pair,
    play_turn,
    random_intent,
)

from wec.engine import half_resolution
from wec.engine.events import ProjectileRemoved
from wec.engine.intents import EndTurn
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.engine.setup import standard_position
from wec.engine.transit_schedule import step_due
from wec.net import fog_codec as codec
from wec.net.evidence import verify_record
from wec.net.fog_game import PRE_RUN, Applied, Fault, FogGame
from wec.net.lockstep import LockstepError
from wec.net.lockstep_fog import FogLockstep
from wec.net.messages import Message, decode_message, encode_message

TURNS = 8


class _SureOfTheTransport(FogGame):
    """A game that knows the peer's bound of its transport schedule never runs out
    (``ALWAYS_TRANSPORT``): the peer's every End is sure to ask its transport phase, so
    its finish of those Ends waits for it (FogGame ``_transport_sure``; a true game
    knows it when its own schedule has a step due)."""

    def _transport_sure(self, act: Any) -> bool:
        return True


def _pair() -> dict[Side, FogGame]:
    """Two games from the standard start whose every End asks the transport phase, each
    sure that it comes."""
    return new_pair(standard_position(fog_options()),
                    {side: _SureOfTheTransport for side in Side}, bounds=ALWAYS_TRANSPORT)


def _played(wire: Wire, seed: int = 4) -> Position:
    full = standard_position(fog_options())
    wire.run()
    rng = random.Random(seed)
    for _ in range(TURNS):
        full = play_turn(wire, full, rng)
        if full.result is not None:
            break
    return full


def _sent_in(wire: Wire, side: Side, n: int) -> list[str]:
    """What ``side`` sent in action ``n``, in order: ``done``, ``answer:<question>``
    (the peer's question it answers), or the message's kind."""
    game = wire.games[side]
    found = []
    for m in wire.received[side.other]:
        payload = codec.unpack(m.body)
        if not isinstance(payload, dict) or payload.get("n") != n:
            continue
        if m.kind == "answer":
            found.append("answer:" + game.actions[n].theirs[payload["i"]][0])
        else:
            found.append(m.kind)
    return found


def _record_inputs(game: FogGame) -> list[Any]:
    inputs: list[Any] = msgpack.unpackb(game.record(), raw=False)["inputs"]
    return inputs


def test_the_side_not_ending_the_turn_answers_its_transport_question_before_its_done(
        ) -> None:
    wire = Wire(_pair())
    _played(wire)
    ends = 0
    for side in Side:
        game = wire.games[side]
        for act in game.actions:
            if act.actor is side or not isinstance(act.form, EndTurn) \
                    or act.outcome is None or act.outcome.position.result is not None:
                continue
            ends += 1
            sent = _sent_in(wire, side, act.n)
            assert "answer:transport_phase" in sent and "done" in sent, sent
            # after its answer to the transport phase and to the detection after it, the
            # last question of the peer's resolution
            last = len(sent) - 1 - sent[::-1].index("answer:detect")
            assert last > sent.index("answer:transport_phase"), (act.n, sent)
            assert sent.index("done") > last, (act.n, sent)
    assert ends >= TURNS - 1
    # in some our resolution was over before the question came (in most the question
    # now comes with the detection before it: below): the finish waited, and the I/O
    # layer's settle() made it (an input of the record)
    settles = sum(inputs == ["settle"] for side in Side
                  for inputs in _record_inputs(wire.games[side]))
    assert settles >= 1, (settles, ends)


class _LateSettlingWire(Wire):
    """A host slow to call ``settle()``: only once nothing is in flight (a message that
    comes first makes what is due before it, ``receive``)."""

    settling = False

    def run(self) -> None:
        while True:
            super().run()
            went_on = False
            for side in Side:
                step = self.games[side].settle()
                self.events[side].extend(step.events)
                self.send(side, step.send)
                went_on |= bool(step.send)
            if not went_on:
                return


def test_the_same_game_comes_out_whether_the_finish_is_settled_at_once_or_later() -> None:
    """With ``settle()`` called late, what waited for it (a finish, or since session 39
    our resolution's step after our owner side's answer) is made at the start of the
    next message received (``receive``), before it, or when the host settles at last:
    the same messages in the same order, the same game, fewer settle inputs."""
    settled = Wire(_pair())
    late = _LateSettlingWire(_pair())
    full = _played(settled)
    assert _played(late) == full
    for side in Side:
        assert [m.kind for m in late.received[side]] == [m.kind for m in settled.received[side]]
        assert [m.body for m in late.received[side]] == [m.body for m in settled.received[side]]
        assert late.games[side].public_hash == settled.games[side].public_hash
        assert late.games[side].half == settled.games[side].half
        settles = [sum(i == ["settle"] for i in _record_inputs(wire.games[side]))
                   for wire in (late, settled)]
        assert settles[0] < settles[1], settles
        assert [e.index for e in late.events[side] if isinstance(e, Applied)] \
            == [e.index for e in settled.events[side] if isinstance(e, Applied)]


def _an_end_under_way(seed: int = 6) -> tuple[Wire, Side, Side]:
    """A game some turns in, its actor's Move made and its End played, nothing of the
    End delivered yet (each delivery without settle()): (wire, actor, other side)."""
    wire = Wire(_pair())
    wire.settling = False
    full = _played(wire, seed=seed)
    assert full.result is None
    actor, other = full.side_to_act, full.side_to_act.other
    rng = random.Random(2)
    while not wire.games[actor].half.actions.move:  # the Move first (R4.4)
        intent = random_intent(wire.games[actor].half, rng, 0)
        if not isinstance(intent, EndTurn):
            wire.play(actor, intent)
    assert wire.games[actor].half.result is None
    wire.send(actor, wire.games[actor].play(EndTurn()).send)
    return wire, actor, other


def _deliver_until(wire: Wire, actor: Side, other: Side, done: Any) -> None:
    """The End's messages one at a time (the other side's first) until ``done()``."""
    while not done():
        side = other if wire.queues[other] else actor
        assert wire.queues[side], "it never came"
        wire.deliver(side)


def test_a_game_restored_while_its_finish_is_due_makes_the_same_finish() -> None:
    wire, actor, other = _an_end_under_way()
    game = wire.games[other]
    # until the side that did not end the turn has a finish due (its answer to the
    # detection after the transport question out)
    _deliver_until(wire, actor, other, lambda: game.finish_due)
    back = _SureOfTheTransport.restore(game.record(), KEYS[other])
    assert back.finish_due
    made, again = game.settle(), back.settle()
    assert [m.kind for m in made.send] == ["done"]
    assert [(m.kind, m.body, m.entry) for m in again.send] == \
        [(m.kind, m.body, m.entry) for m in made.send]
    assert [type(e) for e in again.events] == [type(e) for e in made.events]
    assert any(isinstance(e, Applied) for e in made.events)
    assert not game.finish_due and not back.finish_due
    assert back.settle().send == ()  # nothing left (and not recorded again)
    assert _record_inputs(back) == _record_inputs(game)


def test_a_finish_that_is_next_has_its_done_query_made_first_in_idle_time() -> None:
    """The query the ``done`` sends ahead (the reach run of the next action's first
    question) is on the finish's path when the peer acts next: when the answer our
    resolution waits for is its last (our End's detection after the transport phase),
    idle time makes it first. The side whose finish waits for the peer's question at
    the peer's End acts next, so its ``done`` sends no query (``wec-fog/13``: its own
    intent may change which of its pieces can hide) and none is made."""
    wire, actor, other = _an_end_under_way()
    waiting = wire.games[other]
    _deliver_until(wire, actor, other,
                   lambda: waiting.actions[-1].resolved is not None or waiting.finish_due)
    act = waiting.actions[-1]
    assert act.resolved is not None and not waiting.finish_due  # it waits for the question
    assert ("sight owner", act.n + 1, PRE_RUN) not in waiting._runs_due(act)
    ending = wire.games[actor]
    mine = ending.actions[-1].mine

    def last_detect_asked() -> bool:
        return bool(mine.questions) and mine.questions[-1][0] == "detect" \
            and any(q[0] == "transport_phase" for q in mine.questions) \
            and len(mine.answers) == len(mine.questions) - 1
    _deliver_until(wire, actor, other, last_detect_asked)
    act = ending.actions[-1]
    assert act.outcome is None and act.resolved is None
    assert ending._runs_due(act)[0] == ("sight owner", act.n + 1, PRE_RUN)
    wire.settling = True
    wire.run()
    assert not any(wire.faults().values())
    assert all(not g.busy for g in wire.games.values())


class _Table:
    """Two FogLocksteps over real FogGames, messages through their wire encoding, each
    delivery followed by ``settle()`` as net.game_host does; both journals kept."""

    def __init__(self) -> None:
        games = _pair()
        self.journal: dict[Side, list[tuple[str, Any]]] = {s: [] for s in Side}
        self.sides = {s: FogLockstep(bytes(32), games[s], s, record=(
            lambda kind, item, s=s: self.journal[s].append((kind, item)))) for s in Side}
        self.queues: dict[Side, list[Message]] = {s: [] for s in Side}
        for side in Side:
            self.local(side, self.sides[side].open())
        self.flush()

    def local(self, side: Side, step: Any) -> None:
        for message in step.send:
            self.queues[side.other].append(decode_message(encode_message(message)))

    def play_turn(self, rng: random.Random) -> None:
        """One turn of random play from the half state of the side to act, each intent
        delivered and settled."""
        mover = next(lockstep for lockstep in self.sides.values() if lockstep.our_turn)
        step = 0
        while True:
            intent = random_intent(mover.current, rng, step)
            try:
                self.local(mover.our_side, mover.play(intent))
            except LockstepError:  # refused on our half: the End instead
                if isinstance(intent, EndTurn) or not mover.current.actions.move:
                    continue
                intent = EndTurn()
                self.local(mover.our_side, mover.play(intent))
            self.flush()
            step += 1
            if isinstance(intent, EndTurn) or mover.result is not None:
                return

    def flush(self) -> None:
        while any(self.queues.values()):
            for side in Side:
                while self.queues[side]:
                    lockstep = self.sides[side]
                    self.local(side, lockstep.receive(self.queues[side].pop(0)))
                    if lockstep.settle_due:
                        self.local(side, lockstep.settle())


def test_a_journal_with_a_settled_finish_replays_into_the_same_lockstep() -> None:
    table = _Table()
    rng = random.Random(4)
    for _ in range(40):
        table.play_turn(rng)
        if any(kind == "settle" for side in Side for kind, _ in table.journal[side]):
            break
    assert any(kind == "settle" for side in Side for kind, _ in table.journal[side])
    for side in Side:
        lockstep = table.sides[side]
        fresh = _pair()[side]
        again = FogLockstep.restore_fog(bytes(32), fresh, side, table.journal[side],
                                        opened=True)
        assert again.log == lockstep.log
        assert again.steps == lockstep.steps and again.state_hash == lockstep.state_hash
        assert fresh.record() == lockstep.game.record()


def test_a_journal_cut_before_a_due_settle_makes_it_when_restored() -> None:
    """A process killed after a message's answer went out but before the settle that
    was due (our resolution's step, since session 39, or a waiting finish): restored from
    its journal, the lockstep makes that settle at once, journalled, and its log holds
    the messages the process would have sent (the peer's Resume asks them again; it may
    wait on them with nothing to send)."""
    table = _Table()
    rng = random.Random(4)
    cuts = 0
    for _ in range(12):
        table.play_turn(rng)
    for side in Side:
        journal = table.journal[side]
        settles = [k for k, (kind, _) in enumerate(journal) if kind == "settle"][:6]
        for k in settles:
            went_on = FogLockstep.restore_fog(bytes(32), _pair()[side], side, journal[:k + 1],
                                              opened=True)
            noted: list[str] = []
            cut = FogLockstep.restore_fog(bytes(32), _pair()[side], side, journal[:k],
                                          opened=True,
                                          record=lambda kind, _, n=noted: n.append(kind))
            assert noted == ["settle"] and not cut.settle_due, (side, k, noted)
            assert cut.log == went_on.log
            assert cut.game.record() == went_on.game.record()
            cuts += 1
    assert cuts >= 5, cuts


class _GroupWire(Wire):
    """A Wire that keeps which messages each side sent together (one step's)."""

    def __init__(self, games: dict[Side, FogGame]) -> None:
        self.groups: dict[Side, list[list[Any]]] = {s: [] for s in Side}
        super().__init__(games)

    def send(self, side: Side, messages: tuple[Any, ...] | list[Any]) -> None:
        if messages:
            self.groups[side].append([(m.kind, codec.unpack(m.body)) for m in messages])
        super().send(side, messages)


def test_at_an_end_with_nothing_hit_no_detection_comes_before_the_transport_question(
        ) -> None:
    """The ending side's resolution asks the peer's transport phase after its projectile
    step. When no projectile hit anything (public: projectiles are seen by both), no
    piece changed, so nothing is detected after that step (engine.half_resolution,
    ``wec-fog/19``): the transport question is the next after the collisions, one
    detection less per End. After a hit the step's detection comes first, as before."""
    quiet = hit = 0
    for seed in (4, 11):  # seed 11 has an End whose projectile step hit a piece
        wire = _GroupWire(_pair())
        _played(wire, seed=seed)
        for was_hit, detections in _detections_before_the_transport_question(wire):
            assert detections == (1 if was_hit else 0), (seed, was_hit, detections)
            hit += was_hit
            quiet += not was_hit
    assert quiet >= 3 and hit >= 1, (quiet, hit)


def test_a_peer_that_still_detects_after_a_quiet_projectile_phase_is_named_by_the_audit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """White's program keeps the old rule (``wec-fog/18``): at its End it asks ``detect``
    after a projectile phase that hit nothing, a valid question at a time the rules do
    not ask it (it would learn nothing new, but it probes). Black answers, the game goes
    on, and Black's audit names White for the question its true resolution does not
    ask, with the signed message that carried it."""
    end_step = half_resolution._Resolution._end_step

    def old_rule(self: Any, final_judge: bool = True, still: bool = False,
                 shown: Any = ()) -> None:
        # an End's step only (a quiet Fire's is wec-fog/26's, tested apart)
        end_step(self, final_judge, still and (self.side is not Side.WHITE or bool(shown)
                                               or not isinstance(self.intent, EndTurn)),
                 shown)

    monkeypatch.setattr(half_resolution._Resolution, "_end_step", old_rule)
    wire = _GroupWire(_pair())
    _played(wire, seed=4)
    assert not any(wire.faults().values()), wire.faults()
    probed = [found for found in _detections_before_the_transport_question(wire, Side.WHITE)
              if not found[0]]
    assert probed and all(detections == 1 for _, detections in probed), probed
    monkeypatch.undo()  # the audit replays White's resolution by the rule
    verdict = finish_and_audit(wire)[Side.BLACK]
    assert not verdict.clean and verdict.culprit == "white"
    assert "the peer asked detect other than its true resolution asks (transport_phase" \
        in verdict.reason, verdict.reason
    assert verdict.proof and all(i >= 0 for i in verdict.proof)


def _detections_before_the_transport_question(wire: _GroupWire, ender: Side | None = None
                                              ) -> list[tuple[bool, int]]:
    """For each End with a projectile step (the game going on) of the game played on
    ``wire`` (by ``ender``, or either side): whether a projectile hit pieces, and how
    many detect questions the ending side sent before its transport question (its first
    collide is implied, never sent, since wec-fog/23: its questions as recorded tell
    whether there was a projectile step)."""
    found = []
    for side in Side if ender is None else (ender,):
        for act in wire.games[side].actions:
            if act.actor is not side or not isinstance(act.form, EndTurn) \
                    or act.outcome is None or act.outcome.position.result is not None:
                continue
            if "collide" not in [q[0] for q in act.mine.questions]:
                continue  # no projectile in flight: no projectile step
            asked = [payload["q"][0] for group in wire.groups[side]
                     for kind, payload in group if kind == "ask" and payload.get("n") == act.n]
            hit = any(isinstance(e, ProjectileRemoved) and e.why == "hit"
                      for e in act.outcome.events)
            found.append((hit, asked[:asked.index("transport_phase")].count("detect")))
    return found


def _waiting_for_the_last_question(wire: Wire, actor: Side, other: Side) -> FogGame:
    """The End under way delivered until the side that did not end the turn is over
    with its own resolution and has answered the transport question, so that its finish
    waits for the detection after it; that side's game."""
    game = wire.games[other]

    def waiting() -> bool:
        act = game.actions[-1]
        return (act.actor is actor and act.resolved is not None
                and len(act.answered) == len(act.theirs)
                and [q[0] for q in act.theirs][-1:] == ["transport_phase"])
    _deliver_until(wire, actor, other, waiting)
    return game


def test_a_peer_silent_before_its_last_question_leaves_our_finish_waiting() -> None:
    """Silence: the ending side says nothing after our answer to its transport question.
    Our finish waits, nothing is shown and the action stays under way (``busy``; the
    count of the exchange, which the stall claim times, stands still), however long
    idle work runs; when the peer goes on, the action ends on both sides as usual."""
    wire, actor, other = _an_end_under_way()
    game = _waiting_for_the_last_question(wire, actor, other)
    act = game.actions[-1]
    while wire.queues[actor]:  # our answers reach the peer; what it says next is held
        wire.deliver(actor)
    held = list(wire.queues[other])
    assert [codec.unpack(m.body)["q"][0] for m in held if m.kind == "ask"] == ["detect"]
    wire.queues[other].clear()
    exchanged = game.exchanged
    for _ in range(3):
        game.prepare()
        assert game.settle().send == ()
    assert game.busy and not game.finish_due and act.outcome is None
    assert game.exchanged == exchanged
    assert not any(isinstance(e, Applied) and e.index == act.n for e in wire.events[other])
    wire.queues[other].extend(held)  # the peer goes on
    wire.settling = True
    wire.run()
    assert not any(wire.faults().values())
    assert act.outcome is not None and not game.busy
    assert any(isinstance(e, Applied) and e.index == act.n for e in wire.events[other])
    assert game.public_hash == wire.games[actor].public_hash != ""


def test_a_copy_of_the_peers_transport_question_is_refused_at_once() -> None:
    """A copy: the ending side's transport question comes a second time while our finish
    waits. The game stops at once with a fault naming the signed message, and our
    record of the exchange stays intact."""
    wire, actor, other = _an_end_under_way()
    game = _waiting_for_the_last_question(wire, actor, other)
    [copy] = [m for m in wire.received[other] if m.kind == "ask"
              and codec.unpack(m.body)["q"][0] == "transport_phase"
              and codec.unpack(m.body)["n"] == game.actions[-1].n]
    step = game.receive(copy)
    [fault] = [e for e in step.events if isinstance(e, Fault)]
    assert "repeated or reordered" in fault.reason and fault.proof, fault
    assert not any(isinstance(e, Applied) for e in step.events)
    assert verify_record(game.log.record(), KEYS[Side.WHITE].public_key,
                         KEYS[Side.BLACK].public_key).ok


def test_an_end_with_no_transport_step_due_asks_no_transport_phase_and_no_detection(
        ) -> None:
    """wec-fog/20, R4.2(3), R8.4, R9.5: at an End, when the side whose turn starts has no
    transport step due (a public fact: each side keeps a bound of the other's schedule
    from the Fires it is shown, engine.transit_schedule ``bound_after``), its transport
    phase moves nothing, so the ending side asks neither the phase nor the detection
    after it; with a step due (a Bike Fire announced), it asks both, as before. In random
    games from the standard start, with the true bounds, both kinds of End come, each
    side's bound keeps every step of the other's schedule, and both audits are clean."""
    asked = {True: 0, False: 0}
    for seed in (4, 7, 11, 19):
        wire = Wire(new_pair(standard_position(fog_options()), seed=seed))
        wire.run()
        rng = random.Random(seed)
        full = standard_position(fog_options())
        for _ in range(TURNS * 2):
            full = play_turn(wire, full, rng)
            if full.result is not None:
                break
        assert not any(wire.faults().values()), wire.faults()
        for side in Side:
            game = wire.games[side]
            for act in game.actions:
                if act.actor is not side or not isinstance(act.form, EndTurn) \
                        or act.outcome is None or act.outcome.position.result is not None:
                    continue
                due = step_due(act.peer_bound)
                names = [q[0] for q in act.mine.questions]
                assert ("transport_phase" in names) is due, (act.n, due, names)
                if not due:  # a detection after a projectile step that hit, and no other
                    hit = any(isinstance(e, ProjectileRemoved) and e.why == "hit"
                              for e in act.outcome.events)
                    assert names.count("detect") == int(hit), (hit, names)
                    # the other side had nothing to move: its own End asked no presence
                    assert "presence" not in [q[0] for q in
                                              wire.games[side.other].actions[act.n].mine.questions]
                asked[due] += 1
            # the peer's true schedule never has a step the bound lacks
            peer = wire.games[side.other]
            assert not step_due(peer.travels) or step_due(game.peer_bound)
        assert all(v.clean for v in finish_and_audit(wire).values())
    assert asked[True] >= 2 and asked[False] >= 20, asked


class AlwaysAsksTheTransport(FogGame):
    """Keeps the old rule (before ``wec-fog/20``): its every End asks the peer's
    transport phase and the detection after it, a step due or not."""

    def _finish(self, act: Any) -> None:
        super()._finish(act)
        self.peer_bound = ALWAYS_TRANSPORT[self.side]


def test_a_peer_that_asks_a_transport_phase_with_no_step_due_is_named_by_the_audit(
        ) -> None:
    """White's program asks Black's transport phase at every End, and the detection
    after it, though Black has no transport step due (a public fact): valid questions at
    a time the rules do not ask them (the detection would learn nothing new, but it
    probes). Black answers, the game goes on, and Black's audit names White for the
    questions its true resolution does not ask, with the signed message that carried
    them."""
    wire = Wire(new_pair(standard_position(fog_options()),
                         {Side.WHITE: AlwaysAsksTheTransport}))
    _played(wire)
    assert not any(wire.faults().values()), wire.faults()
    # White's Ends (after its first action) asked Black's transport phase
    asked = [act.n for act in wire.games[Side.WHITE].actions if act.actor is Side.WHITE
             and isinstance(act.form, EndTurn)
             and "transport_phase" in [q[0] for q in act.mine.questions]]
    assert asked, "no probe"
    verdict = finish_and_audit(wire)[Side.BLACK]
    assert not verdict.clean and verdict.culprit == "white", verdict.reason
    assert verdict.reason.endswith(
        "the peer asked a question its resolution does not ask (transport_phase)"), \
        verdict.reason
    assert verdict.proof and all(i >= 0 for i in verdict.proof)
