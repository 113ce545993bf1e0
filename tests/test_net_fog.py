"""Fog of war over the wire (issue 21): two ``FogGame``s, one per side, each holding only
its half state, play whole games through their signed messages (real Ed25519, X25519
PSI, Merkle commitments), in process. Beside them the full state plays the same
intents: after every action each side's half equals the projection of the truth, and
the turn hashes of both sides agree. The helpers here (``Wire``, ``new_pair``,
``random_intent``) are shared by the other tests/test_net_fog*.py and
tests/test_net_audit*.py modules.
"""

from __future__ import annotations

import random
import threading
from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from halves import conceal, half_key

from wec.engine.encoding import public_state_hash
from wec.engine.game import apply
from wec.engine.half_referee import start_slots
from wec.engine.half_resolution import resolve
from wec.engine.intents import EndTurn, Intent
from wec.engine.knowledge import project
from wec.engine.movement import Plan, move_of
from wec.engine.options import Options
from wec.engine.pieces import Side
from wec.engine.playout import MAX_EXTRA_ACTIONS, random_choice
from wec.engine.position import Position
from wec.engine.setup import standard_position
from wec.engine.transit_schedule import Travel, travels_at_start
from wec.net import fog_codec as codec
from wec.net import fog_game, ot, psi
from wec.net import private_sight as ps
from wec.net.commitment import Commitment
from wec.net.fog_codec import FIRST_HIT_SHAPE
from wec.net.fog_game import (
    AHEAD_RUNS,
    ASKER_AHEAD,
    FIRST_HIT_OWNER,
    OWNER_AHEAD,
    PADS_AHEAD,
    PRE_RUN,
    Applied,
    Fault,
    FogGame,
    FogMessage,
    Refused,
    TurnHash,
    _Foreseen,
)
from wec.net.identity import Identity
from wec.net.psi import FirstHitAsker, FirstHitOwner

GAME_ID = bytes(range(16))
KEYS = {Side.BLACK: Identity.generate(), Side.WHITE: Identity.generate()}


# a bound of each side's transport schedule that never runs out: every End asks the
# transport phase (as before wec-fog/20), for the tests of what goes on around it
ALWAYS_TRANSPORT = {s: (Travel(-1, 1 << 30, True, 1 << 30),) for s in Side}


def new_pair(full: Position, cls: dict[Side, type[FogGame]] | None = None,
             seed: int = 0, bounds: dict[Side, tuple[Travel, ...]] | None = None
             ) -> dict[Side, FogGame]:
    """Two FogGames on the halves of ``full`` (``cls`` may make one of them a liar);
    ``bounds``: each side's bound of the other's transport schedule (by default what
    the pieces of ``full`` in transit keep, engine.transit_schedule)."""
    rng = random.Random(seed)
    games = {}
    if bounds is None:
        bounds = {side: travels_at_start(full, side.other) for side in Side}
    for side in Side:
        kind = (cls or {}).get(side, FogGame)
        games[side] = kind(game_id=GAME_ID, side=side, half=project(full, side),
                           identity=KEYS[side], peer_key=KEYS[side.other].public_key,
                           seed=rng.randbytes(32), start_bounds=bounds)
    return games


class Wire:
    """Delivers each side's messages to the other in order (FIFO per direction), and
    keeps what each side received and every event."""

    # whether each delivery is followed by ``settle()`` (a finish that waited for the
    # question just answered, FogGame._finish_waits), as the I/O layer does
    settling = True

    def __init__(self, games: dict[Side, FogGame]) -> None:
        self.games = games
        self.queues: dict[Side, deque[FogMessage]] = {s: deque() for s in Side}  # to s
        self.received: dict[Side, list[FogMessage]] = {s: [] for s in Side}
        self.events: dict[Side, list[Any]] = {s: [] for s in Side}
        for side in Side:
            for m in games[side].opening():
                self.queues[side.other].append(m)

    def send(self, side: Side, messages: tuple[FogMessage, ...] | list[FogMessage]) -> None:
        for m in messages:
            self.queues[side.other].append(m)

    def run(self) -> None:
        """Deliver until nothing is in flight (alternating sides)."""
        while any(self.queues.values()):
            for side in Side:
                if self.queues[side]:
                    self.deliver(side)
                self.between()

    def deliver(self, side: Side) -> None:
        """The next message in flight to ``side``, received."""
        m = self.queues[side].popleft()
        self.delivering(side, m)
        self.received[side].append(m)
        step = self.games[side].receive(m)
        self.events[side].extend(step.events)
        self.send(side, step.send)
        if self.settling:  # as net.game_host does once a step's messages are out
            settled = self.games[side].settle()
            self.events[side].extend(settled.events)
            self.send(side, settled.send)

    def delivering(self, side: Side, message: FogMessage) -> None:
        """Called before each delivery (a subclass watches there)."""

    def between(self) -> None:
        """Called between deliveries (a subclass runs idle work there)."""

    def play(self, side: Side, intent: Intent) -> list[Any]:
        step = self.games[side].play(intent)
        self.events[side].extend(step.events)
        self.send(side, step.send)
        self.run()
        return list(step.events)

    def twin(self, games: dict[Side, FogGame]) -> Wire:
        """A Wire over ``games`` (restored ones) with the messages now in flight here,
        nothing received yet, to run beside this one."""
        twin = Wire.__new__(Wire)
        twin.games = games
        twin.queues = {s: deque(self.queues[s]) for s in Side}
        twin.received = {s: [] for s in Side}
        twin.events = {s: [] for s in Side}
        return twin

    def faults(self) -> dict[Side, list[Fault]]:
        return {s: [e for e in self.events[s] if isinstance(e, Fault)] for s in Side}


def random_intent(half: Position, rng: random.Random, step: int) -> Intent:
    """An intent of the side to act chosen on its half state (as engine.playout does)."""
    choice = (random_choice(half, rng, moves_only=step == MAX_EXTRA_ACTIONS)
              if step <= MAX_EXTRA_ACTIONS else None)
    if choice is None or (half.actions.move and rng.random() < 0.3):
        return EndTurn()
    return move_of(half, choice) if isinstance(choice, Plan) else choice


def play_turn(wire: Wire, full: Position, rng: random.Random,
              history: list[Intent] | None = None) -> Position:
    """One turn through the wire, checked against the full state after every action."""
    games = wire.games
    actor = full.side_to_act
    for step in range(MAX_EXTRA_ACTIONS + 2):
        if full.result is not None:
            break
        intent = random_intent(games[actor].half, rng, step)
        events = wire.play(actor, intent)
        if any(isinstance(e, Refused) for e in events):
            intent = EndTurn() if full.actions.move else intent
            if isinstance(intent, EndTurn):
                events = wire.play(actor, intent)
            assert not any(isinstance(e, Refused) for e in events), events
        outcome = apply(full, intent)
        full = outcome.position
        if history is not None:
            history.append(intent)
        assert not any(wire.faults().values()), wire.faults()
        for side in Side:
            g = games[side]
            assert not g.busy, (side, intent)
            assert half_key(g.half) == half_key(project(full, side)), (side, intent, full.turn)
            assert public_state_hash(g.half) == public_state_hash(full)
        assert games[Side.BLACK].public_hash == games[Side.WHITE].public_hash != ""
        if isinstance(intent, EndTurn):
            break
    return full


def fog_options() -> Options:
    return Options()  # O15, O16, O17 on: the R13 defaults


def test_two_fog_games_play_standard_turns_and_agree_with_the_full_state() -> None:
    rng = random.Random(21)
    full = standard_position(fog_options())
    games = new_pair(full)
    wire = Wire(games)
    wire.run()
    assert games[Side.BLACK].public_hash == games[Side.WHITE].public_hash != ""
    for _ in range(30):
        full = play_turn(wire, full, rng)
        if full.result is not None:
            break
    applied = [e for e in wire.events[Side.BLACK] if isinstance(e, Applied)]
    assert applied and any(e.hidden for e in applied)
    assert any(isinstance(e, TurnHash) for e in wire.events[Side.WHITE])


def test_an_illegal_intent_is_refused_before_anything_is_sent() -> None:
    full = standard_position(fog_options())
    games = new_pair(full)
    wire = Wire(games)
    wire.run()
    actor = full.side_to_act
    step = games[actor].play(EndTurn())  # R4.4: the Move first
    assert not step.send and isinstance(step.events[0], Refused)
    assert step.events[0].rule == "R4.4"
    step = games[actor.other].play(EndTurn())
    assert not step.send and step.events[0].rule == "R4.1"


class PlaysOnTheCommitment(FogGame):
    """A modified program that plays as soon as the peer's commitment is in, before the
    base transfers (the order a delaying link gave the program of session 26)."""

    @property
    def bases_done(self) -> bool:
        return self.peer_opened


def test_no_side_plays_before_both_base_transfers_are_done() -> None:
    """The side to act has the peer's commitment but not yet its base queries (they
    come in the next frame; a delaying proxy made this gap in the end-to-end runs): its
    intent is refused until it has replied to them and had the peer's reply to its own.
    Before, it played at once, and the peer, whose answers then came before its base
    reply, faulted in that action ("an input transfer before the base transfers", in 8
    of 8 seeds here). A program that still plays that early is refused at once, its
    intent named."""
    for seed in range(3):
        rng = random.Random(seed)
        full = standard_position(fog_options())
        games = new_pair(full, seed=seed)
        wire = Wire(games)
        actor = full.side_to_act
        wire.deliver(actor)  # the peer's commitment alone
        assert [m.kind for m in wire.received[actor]] == ["commit"]
        step = games[actor].play(random_intent(games[actor].half, rng, 0))
        assert not step.send and step.events == (Refused(
            "busy", "the game is still opening: the base transfers with the peer are "
                    "under way"),)
        wire.run()
        assert games[actor].bases_done and games[actor.other].bases_done
        for _ in range(3):
            full = play_turn(wire, full, rng)  # no fault (checked there)

    full = standard_position(fog_options())
    actor = full.side_to_act
    games = new_pair(full, {actor: PlaysOnTheCommitment})
    wire = Wire(games)
    wire.deliver(actor)
    wire.play(actor, random_intent(games[actor].half, random.Random(0), 0))
    [fault] = wire.faults()[actor.other]
    assert fault.reason == ("an intent before the base transfers of the game were done (a "
                            "side plays only once it replied to the peer's base queries and "
                            "has the peer's reply to its own)")
    intent = next(m for m in wire.received[actor.other] if m.kind == "intent")
    [proof] = fault.proof
    assert games[actor.other].log.record().entries[proof][1] == intent.signed()


def play_in_any_order(seed: int, actions: int, restarts: float) -> int:
    """Two fog games driven in a random order of everything the I/O layer may do next:
    deliver one message (each direction in order, as a session keeps it), settle a
    finish that waited, run one slice of a side's idle work, restart a side from its
    record (``restarts``: how often), or play, when the side to act is free (the CLI
    and the client ask ``our_turn``). The truth is played beside; at the end both
    halves are its projections, and every action was applied on both sides. Returns
    the actions played (fewer when the game ended)."""
    rng = random.Random(seed)
    full = standard_position(fog_options())
    games = new_pair(full, seed=seed)
    wire = Wire(games)
    wire.settling = False  # a finish is one of the choices
    idle: dict[Side, Iterator[None] | None] = {s: None for s in Side}
    played = in_turn = 0
    while True:
        assert not any(wire.faults().values()), (seed, played, wire.faults())
        choices = [("deliver", s) for s in Side if wire.queues[s]]
        choices += [("settle", s) for s in Side if games[s].finish_due]
        choices += [("idle", s) for s in Side]
        if rng.random() < restarts:
            choices += [("restart", s) for s in Side]
        actor = full.side_to_act
        if played < actions and full.result is None and not games[actor].busy:
            choices.append(("play", actor))
        elif not any(wire.queues.values()) and not any(g.finish_due for g in games.values()):
            assert played >= actions or full.result is not None, (seed, played, "stalled")
            break
        what, side = rng.choice(choices)
        game = games[side]
        if what == "idle":
            if idle[side] is None:
                idle[side] = game.preparing()
            next(idle[side], None)
            continue
        idle[side] = None  # the I/O layer starts its idle work afresh after each step
        if what == "deliver":
            wire.deliver(side)
        elif what == "restart":
            games[side] = FogGame.restore(game.record(), KEYS[side])
        elif what == "settle":
            step = game.settle()
            wire.events[side].extend(step.events)
            wire.send(side, step.send)
        else:
            intent = random_intent(game.half, rng, in_turn)
            step = game.play(intent)
            if any(isinstance(e, Refused) for e in step.events):
                if not full.actions.move:
                    continue  # another intent next time
                intent = EndTurn()
                step = game.play(intent)
                assert not any(isinstance(e, Refused) for e in step.events), step.events
            wire.events[side].extend(step.events)
            wire.send(side, step.send)
            turn = full.turn
            full = apply(full, intent).position
            played += 1
            in_turn = 0 if full.turn != turn else min(in_turn + 1, MAX_EXTRA_ACTIONS + 1)
    for side in Side:
        assert half_key(games[side].half) == half_key(project(full, side)), (seed, side)
        assert public_state_hash(games[side].half) == public_state_hash(full)
        assert sum(isinstance(e, Applied) for e in wire.events[side]) == played
    return played


@pytest.mark.parametrize("seed", range(6))
def test_any_order_of_deliveries_idle_work_finishes_plays_and_restarts_keeps_the_game(
        seed: int) -> None:
    """The I/O layer's steps in random orders (each link direction in order): no fault,
    no stall, both halves the truth's. Session 26's order tests never let a side play
    before the peer's opening was all in, and a side that did made the peer fault: 4 of
    these 6 orders faulted on that code, in the first action ("an input transfer before
    the base transfers", "a Doze transfer before the base transfers of the game")."""
    assert play_in_any_order(seed, 30, restarts=0.02) >= 10


def test_a_game_restores_from_its_record_byte_for_byte() -> None:
    rng = random.Random(5)
    full = standard_position(fog_options())
    games = new_pair(full)
    wire = Wire(games)
    wire.run()
    for _ in range(4):
        full = play_turn(wire, full, rng)
    for side in Side:
        g = games[side]
        back = FogGame.restore(g.record(), KEYS[side])
        assert half_key(back.half) == half_key(g.half)
        assert back.public_hash == g.public_hash
        assert back.log.record().to_bytes() == g.log.record().to_bytes()
    _ = replace  # kept for the lying-peer tests' imports


def test_each_side_runs_the_engine_once_per_action_however_many_messages(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A resolution waits for the peer's answers where it asked (net.resumable): the
    engine's ``resolve`` runs once per action on each side, not once per message."""
    calls: list[int] = []

    def counted(*args: Any) -> Any:
        calls.append(1)
        return resolve(*args)

    monkeypatch.setattr(fog_game, "resolve", counted)
    rng = random.Random(5)
    full = standard_position(fog_options())
    wire = Wire(new_pair(full))
    wire.run()
    for _ in range(6):
        full = play_turn(wire, full, rng)
    actions = len(wire.games[Side.WHITE].actions)
    messages = sum(len(r) for r in wire.received.values())
    assert actions > 20 and messages > 4 * actions
    assert len(calls) == 2 * actions


def _deliver_one(wire: Wire) -> bool:
    """One message delivered (the side with the longest queue first); False if none."""
    side = max(Side, key=lambda s: len(wire.queues[s]))
    if not wire.queues[side]:
        return False
    wire.deliver(side)
    return True


def restored_on_another_thread(wire: Wire) -> dict[Side, FogGame]:
    """Both games restored from their records on a thread of their own (as the client
    loads a save): their waiting computations cannot be resumed here."""
    restored: dict[Side, FogGame] = {}
    thread = threading.Thread(target=lambda: restored.update(
        {s: FogGame.restore(wire.games[s].record(), KEYS[s]) for s in Side}))
    thread.start()
    thread.join()
    return restored


def test_a_game_restored_mid_action_on_another_thread_goes_on_with_the_same_bytes() -> None:
    """A restore replays the record on a thread of its own (the client loads on one
    thread, the network plays on another): the resolutions waiting there cannot be
    resumed here, so they are run afresh from the answers kept, to the same messages."""
    rng = random.Random(5)
    full = standard_position(fog_options())
    wire = Wire(new_pair(full))
    wire.run()
    for _ in range(9):
        full = play_turn(wire, full, rng)
    actor = full.side_to_act
    assert not any(isinstance(e, Refused) for e in wire.play(
        actor, random_intent(wire.games[actor].half, rng, 0)))
    step = wire.games[actor].play(EndTurn())
    assert step.events == () and len(step.send) >= 2, step.events
    wire.send(actor, step.send)
    for _ in range(3):
        assert _deliver_one(wire)
    restored = restored_on_another_thread(wire)
    waiting = [g.actions[-1].mine_run for g in restored.values()
               if g.actions[-1].outcome is None]
    assert waiting and all(run is not None and not run.usable() for run in waiting)
    twin = wire.twin(restored)
    split = {s: len(wire.received[s]) for s in Side}
    wire.run()
    twin.run()
    for side in Side:
        went_on = [m.to_wire() for m in wire.received[side][split[side]:]]
        assert len(went_on) >= 4
        assert [m.to_wire() for m in twin.received[side]] == went_on
        assert twin.events[side] == wire.events[side][-len(twin.events[side]):]
        assert any(isinstance(e, Applied) for e in twin.events[side])
        assert half_key(restored[side].half) == half_key(wire.games[side].half)
        assert not restored[side].busy


class PreparingWire(Wire):
    """A Wire whose sides do their idle work (``FogGame.prepare``) after every step, as
    the real stack does once a step's messages are sent."""

    prepared = prepared_askers = 0

    def send(self, side: Side, messages: tuple[FogMessage, ...] | list[FogMessage]) -> None:
        super().send(side, messages)
        game = self.games[side]
        game.prepare()
        self.prepared += any(role == "sight asker" for role, _, _ in game._prepared)
        self.prepared_askers += any(role == "sight owner" for role, _, _ in game._prepared)


class SlicedWire(Wire):
    """A Wire whose sides do their idle work in slices (``FogGame.preparing``), one
    slice per side between deliveries, as the LAN stack runs one per turn of its event
    loop: the peer's messages come while the work is half done."""

    slices = superseded = 0

    def __init__(self, games: dict[Side, FogGame]) -> None:
        self.work: dict[Side, Iterator[None] | None] = {s: None for s in Side}
        super().__init__(games)

    def send(self, side: Side, messages: tuple[FogMessage, ...] | list[FogMessage]) -> None:
        super().send(side, messages)
        if self.work.get(side) is not None:
            self.superseded += 1
        self.work[side] = self.games[side].preparing()

    def between(self) -> None:
        for working in Side:
            work = self.work[working]
            if work is not None:
                try:
                    next(work)
                    self.slices += 1
                except StopIteration:
                    self.work[working] = None


def test_work_made_ahead_changes_no_byte_of_the_game() -> None:
    record = {}
    for kind in (Wire, PreparingWire, SlicedWire):
        rng = random.Random(8)
        full = standard_position(fog_options())
        wire = kind(new_pair(full))
        wire.run()
        for _ in range(6):
            full = play_turn(wire, full, rng)
        record[kind] = {side: [m.to_wire() for m in wire.received[side]] for side in Side}
        if isinstance(wire, PreparingWire):
            assert wire.prepared > 0  # a reach reply was made ahead
            assert wire.prepared_askers > 0  # and a reach query's blinding
        if isinstance(wire, SlicedWire):
            # the work ran in many slices, and messages came while some was undone
            assert wire.slices > 100 and wire.superseded > 10, (wire.slices, wire.superseded)
    assert record[Wire] == record[PreparingWire] == record[SlicedWire]


def test_the_idle_work_in_slices_makes_what_it_makes_at_once() -> None:
    """FogGame.preparing yields between slices of work; run to its end it has made every
    run due (the reach receiver's columns and keys, the sender's columns: net.ot), as
    prepare() does, one slice per part."""
    full = standard_position(fog_options())
    wire = Wire(new_pair(full))
    wire.run()
    rng = random.Random(3)
    mover = full.side_to_act
    step = wire.games[mover].play(random_intent(wire.games[mover].half, rng, 0))
    game = wire.games[mover.other]
    game.receive(step.send[0])  # the intent: its resolution under way
    assert game.log.unchecked == 1  # its signature is checked in idle time
    act = game.actions[-1]
    due = game._runs_due(act)
    # our next detect's table (our resolution needs it as soon as the answer comes),
    # our next answer's query sent ahead, a run asked back, the query our done sends
    # ahead for the next action and, last, our table for the peer's first first-hit run
    # (the peer acts next: a hidden Move's route may come with its intent)
    assert due == [("sight asker", act.n, PRE_RUN + 1), ("sight owner", act.n, PRE_RUN + 1),
                   ("sight owner", act.n, 0), ("sight owner", act.n + 1, PRE_RUN),
                   (FIRST_HIT_OWNER, 0, 0)]
    work = game.preparing()
    # during an action the tables' parts come first (the reach columns, the input query
    # of the private detection and its keys: net.private_sight), then the signatures
    next(work)
    first = game._prepared[due[0]]
    assert isinstance(first, ps.AskerRun)
    assert game.log.unchecked == 1 and first._reach._w is not None and not first.made
    next(work)
    assert game.log.unchecked == 1 and first._input_query is not None and not first.made
    next(work)
    assert game.log.unchecked == 1 and first._inputs.keys_made and not first.made
    next(work)
    assert game.log.unchecked == 1 and first.made
    next(work)
    assert game.log.unchecked == 0
    slices = 5 + sum(1 for _ in work)
    made = [game._prepared[key] for key in due[:-1]]
    table = game._prepared[due[-1]]
    assert isinstance(table, FirstHitOwner) and table._made == table.parts == 60
    for run in made:
        if isinstance(run, ps.OwnerTransfers):
            assert run.made and run.reach._keys is not None and len(run.reach._keys) == ot.OTS
        else:
            assert isinstance(run, ps.AskerRun) and run.made
    # one slice per part of each run, the intent's signature after the first, and last
    # our commitment of the next turn, in three (its salts, its leaves, its tree: since
    # session 36, one slice of 1.2-1.6 ms before)
    assert game.log.unchecked == 0
    assert slices == 1 + sum(len(run.parts()) for run in made) + table.parts + 3 == 77
    ahead = game._commit_ahead
    assert ahead is not None and ahead.turn == game.half.turn + 1
    assert ahead == Commitment.build(game.seed, ahead.turn,
                                     codec.own_contents(game.half.pieces, game.side))
    # made already: each slice skips (a first-hit table made whole takes none); no
    # signature is left to check; the commitment is the one kept, in one slice
    assert sum(1 for _ in game.preparing()) == slices - 1 - table.parts - 2
    assert game._commit_ahead is ahead  # nothing of ours changed: the same one kept


def test_the_keys_of_a_reach_query_sent_ahead_are_made_in_idle_time() -> None:
    """A reach query sent ahead (with an answer or a done) is made from its run's first
    part, and the run leaves the runs made ahead; the keys its table's finish needs are
    the idle work's next slices, not the finish's on the path of the peer's detect."""
    full = standard_position(fog_options())
    wire = Wire(new_pair(full))
    wire.run()
    rng = random.Random(3)
    mover = full.side_to_act
    made_in_idle = 0
    for k in range(6):
        side = wire.games[mover].half.side_to_act
        wire.send(side, wire.games[side].play(random_intent(wire.games[side].half, rng, k))
                  .send)
        while any(wire.queues.values()):
            for to in Side:
                if not wire.queues[to]:
                    continue
                wire.deliver(to)
                game = wire.games[to]
                waiting = [sent for sent in game._owner_runs_ahead.values() if not sent.made]
                if waiting:
                    made_in_idle += 1
                    for _ in game.preparing():
                        pass
                    assert all(sent.made for sent in waiting)
    assert made_in_idle >= 6
    assert not any(wire.faults().values())


def test_idle_time_garbles_only_the_detection_runs_a_question_can_still_use(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each answer sends the queries of a detection run ahead for the peer's next
    question, should it be a detect; once that question is answered as something else
    the run is void. The idle work garbles the live run (4-7 ms) and never a void one:
    until session 26 the void ones went first, and a third of the detections then found
    their own run not made yet and garbled it on the path. (Since session 38 the side
    the peer acts against garbles its first answer's run between actions: counted as
    the next action's, nothing answered.)"""
    full = standard_position(fog_options())
    wire = SlicedWire(new_pair(full))  # the peer's next question comes mid-work
    wire.run()
    made: list[tuple[int, int, int]] = []  # (action, question, answered by then)
    original = ps.OwnerRun._ahead_step

    def ahead_step(run: ps.OwnerRun) -> None:
        if run._steps is None and not run._steps_over:  # its garbling's first step
            for game in wire.games.values():
                for n in range(len(game.actions) + 1):
                    act = game.actions[n] if n < len(game.actions) else None
                    asked = len(act.theirs) if act is not None else 0
                    for k in range(asked + 2):
                        if game._sight_run_id(n, game.side, PRE_RUN + k) == run.run_id:
                            made.append((n, k, len(act.answered) if act is not None else 0))
        original(run)

    monkeypatch.setattr(ps.OwnerRun, "_ahead_step", ahead_step)
    rng = random.Random(5)
    for k in range(60):
        g = wire.games[wire.games[Side.BLACK].half.side_to_act]
        events = wire.play(g.side, random_intent(g.half, rng, k % 3))
        if events and isinstance(events[0], Refused):
            wire.play(g.side, EndTurn())
    assert not any(wire.faults().values())
    assert len(made) >= 8
    void = [(n, k, answered) for n, k, answered in made if k < answered]
    assert void == []


def test_between_actions_the_next_actions_first_reach_runs_are_made_and_used(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Once an action is finished on both sides, the idle work makes the next action's
    first AHEAD_RUNS reach runs of each role (every square blinded, every item derived),
    the labels and pads of our garbling for the peer's questions 1..PADS_AHEAD and our
    asker side of our questions 1..ASKER_AHEAD, and the next action's detections take
    them instead of making their own. Then the same for the action after it
    (since session 31), which takes them when it comes with no idle time before it (as
    the next side's first action does after an End of turn, played at once). The End
    asks its transport phase and the detection after it (``ALWAYS_TRANSPORT``)."""
    full = standard_position(fog_options())
    wire = Wire(new_pair(full, bounds=ALWAYS_TRANSPORT))
    wire.run()
    rng = random.Random(3)
    mover = full.side_to_act
    wire.play(mover, random_intent(wire.games[mover].half, rng, 0))
    for game in wire.games.values():
        game.prepare()
        n = len(game.actions)
        # both make their first-hit table for the peer's first hidden Move (its route
        # comes with the intent; kept until one comes), the side that acts next its route
        # query's scalars when the peer does not see one of its pieces (the Subs at the
        # start)
        sure = codec.surely_seen(game.half)
        unseen = [p for p in game.half.pieces if p.side is game.side and p.pid not in sure]
        assert unseen
        first_hit = {(FIRST_HIT_OWNER, 0, 0)} | (
            {("asker", n, 0)} if game.half.side_to_act is game.side else set())
        # our first answer's query sent ahead, the table of a first detect (when we act
        # next, the peer's query came with its done, wec-fog/13; when the peer acts, its
        # PickUp's or Exchange's intent brings one, wec-fog/21: since session 38), and the
        # runs asked back (and the pads of the first, since session 38); when we act
        # next, the run whose queries a PickUp or an Exchange of ours sends with its
        # intent (its transfers and pads, wec-fog/21)
        ahead = {("sight owner", n, PRE_RUN + k) for k in range(1, OWNER_AHEAD + 1)} | {
            ("sight asker", n, PRE_RUN)} | {
            ("sight pads", n, j) for j in range(AHEAD_RUNS)} | (
            {("sight owner", n, PRE_RUN), ("sight pads", n, PRE_RUN)}
            if game.half.side_to_act is game.side else set())
        detections = _detection_runs_ahead(n)
        if game.half.side_to_act is not game.side:
            # when the peer acts, our first answer's run itself on our slots as they
            # stand, in place of its transfers and pads (``_Foreseen``, since session 38)
            ahead = ahead - {("sight owner", n, PRE_RUN + 1)} | {("foreseen", n, PRE_RUN + 1)}
            detections = detections - {("sight pads", n, PRE_RUN + 1)}
        # of the action after it, the runs that hang on their ids alone, and the
        # transfers of the query our done of this action sends ahead (since session 38:
        # until then made on the path of the side that does not act, which has no idle
        # time during most actions)
        assert {key for key in game._prepared if key[1] == n + 1} == {
            *_detection_runs_ahead(n + 1), ("sight owner", n + 1, PRE_RUN + 1),
            ("sight owner", n + 1, PRE_RUN)}
        assert {key for key in game._prepared
                if key[1] == n or key[0] == FIRST_HIT_OWNER} == ahead | first_hit | detections
        for made in game._prepared.values():
            if isinstance(made, ps.OwnerTransfers):
                assert made.made and made.reach._keys is not None \
                    and len(made.reach._keys) == ot.OTS
            elif isinstance(made, FirstHitOwner):
                assert len(made._pads) == FIRST_HIT_SHAPE.max_cells
            elif isinstance(made, FirstHitAsker):
                assert len(made._made) == FIRST_HIT_SHAPE.slots
                assert all(k._inverse_key is not None for k in made._made.values())
            elif isinstance(made, ps.RunPads):
                assert made.made and len(made.pads) > ps.SLOTS * ps.INPUTS
            elif isinstance(made, _Foreseen):  # its queries, keys and whole material
                assert made.made and len(made.queries) == 2 and made.run._ahead is not None \
                    and made.run._ahead.built
            else:
                assert isinstance(made, ps.AskerRun) and made.made
    made = {n: {side: {(key[0], key[2]): run for key, run in game._prepared.items()
                       if key[1] == n}
                for side, game in wire.games.items()}
            for n in (len(wire.games[mover].actions), len(wire.games[mover].actions) + 1)}
    asker_runs: dict[tuple[Side, int, int], ps.AskerRun] = {}
    sight_reply = FogGame._sight_reply

    def replied(game: FogGame, act: Any, j: int, i: int, queries: Any, sight: Any) -> Any:
        reply = sight_reply(game, act, j, i, queries, sight)
        asker_runs[(game.side, act.n, j)] = game._sight_askers[(act.n, i)]
        return reply

    monkeypatch.setattr(FogGame, "_sight_reply", replied)
    owner_runs: dict[tuple[Side, int, int], ps.OwnerRun] = {}
    sight_owner = FogGame._sight_owner

    def kept(game: FogGame, n: int, j: int, slots: Any) -> ps.OwnerRun:
        owner_runs[(game.side, n, j)] = run = sight_owner(game, n, j, slots)
        return run

    monkeypatch.setattr(FogGame, "_sight_owner", kept)
    # the next action (the mover's End), then at once the other side's first (a Doze)
    wire.play(mover, random_intent(wire.games[mover].half, rng, 1))
    assert isinstance(wire.games[mover].actions[-1].intent, EndTurn)
    n = len(wire.games[mover].actions) - 1
    assert _took_the_runs_made_ahead(wire, mover, made[n], owner_runs, asker_runs) == (
        True, True, True)
    # the End's done sent the query for the other side's first question on the transfers
    # made between actions (since session 38; until then on the path)
    assert ("sight owner", n + 1, PRE_RUN) not in wire.games[mover]._prepared
    assert owner_runs[(mover, n + 1, PRE_RUN)]._reach \
        is made[n + 1][mover][("sight owner", PRE_RUN)].reach
    wire.play(mover.other, random_intent(wire.games[mover.other].half, rng, 0))
    assert _took_the_runs_made_ahead(wire, None, made[len(wire.games[mover].actions) - 1],
                                     owner_runs, asker_runs)[:2] == (True, True)


def _detection_runs_ahead(n: int) -> set[tuple[str, int, int]]:
    """The reach runs of each role, the pads, our asker sides and the transfers of our
    answers' queries made between actions for action ``n`` (the first reach runs and
    the later detections' runs)."""
    return {(role, n, j) for j in range(AHEAD_RUNS) for role in ("sight owner", "sight asker")
            } | {("sight pads", n, PRE_RUN + k) for k in range(1, PADS_AHEAD + 1)} | {
        ("sight asker", n, PRE_RUN + k) for k in range(1, ASKER_AHEAD + 1)} | {
        ("sight owner", n, PRE_RUN + k) for k in range(2, OWNER_AHEAD + 1)}


def _took_the_runs_made_ahead(wire: Wire, mover: Side | None,
                              made: dict[Side, dict[tuple[str, int], Any]],
                              owner_runs: dict[tuple[Side, int, int], ps.OwnerRun],
                              asker_runs: dict[tuple[Side, int, int], ps.AskerRun]
                              ) -> tuple[bool, bool, bool]:
    """The last action's detections went by the runs ``made`` ahead for it (by role and
    run number): the pads and transfers of our owner side's runs for the peer's questions
    1.., our asker side of our questions 1..; ``mover``: the side that acted, when the
    runs of its first detect are to be checked too (the table of a first detect is made
    by the side that acts: only its peer's done brought a query, wec-fog/13). Whether
    some detection took made-ahead pads, asker sides and transfers of a later answer
    (the side that did not act answers its first question 1 on its run made whole
    between actions, when one was: ``_Foreseen``, since session 38)."""
    sent_ahead = {"tables": 0, "finished": 0}
    with_pads = with_asker = with_transfers = 0
    for game in wire.games.values():
        act = game.actions[-1]
        # a run this action used is gone from the store; one it did not use is kept
        first_table = PRE_RUN in act.their_reach  # our first question detected
        if mover is not None:  # (made by both sides since session 38: the peer's done
            # brings the query when we act, its PickUp's or Exchange's intent when it acts)
            assert (("sight asker", act.n, PRE_RUN) in game._prepared) is not first_table
        foreseen = made[game.side].get(("foreseen", PRE_RUN + 1))
        assert (("sight owner", act.n, PRE_RUN + 1) in game._prepared) is (
            foreseen is None and 1 not in act.pre_mine)
        for j in act.their_reach:
            assert ("sight asker", act.n, j) not in game._prepared
        if mover is not None:  # every detection went by a query sent ahead
            assert all(j >= PRE_RUN for j in act.their_reach)
            assert not [q for q in act.backs.questions if q[3] not in act.pre_tables]
        # the runs of the peer's questions 1.. garbled on the pads made between actions
        for k in act.pre_mine:
            if k == 1 and foreseen is not None:  # no run made at the answer: the one
                # made between actions went, its queries made then
                assert ("foreseen", act.n, PRE_RUN + 1) not in game._prepared
                assert (game.side, act.n, PRE_RUN + 1) not in owner_runs
                assert act.pre_mine[1].queries is foreseen.queries
                continue
            assert ("sight pads", act.n, PRE_RUN + k) not in game._prepared
            run = owner_runs[(game.side, act.n, PRE_RUN + k)]
            assert run._pads is made[game.side][("sight pads", PRE_RUN + k)].pads
            with_pads += 1
            # and its queries on the transfers made between actions
            assert ("sight owner", act.n, PRE_RUN + k) not in game._prepared
            assert run._reach is made[game.side][("sight owner", PRE_RUN + k)].reach
            with_transfers += k > 1
        # our detect questions 1.. replied with the asker side made between actions
        for j in act.their_reach:
            if PRE_RUN < j <= PRE_RUN + ASKER_AHEAD:
                assert asker_runs[(game.side, act.n, j)] is made[game.side][("sight asker", j)]
                with_asker += 1
        sent_ahead["tables"] += len(act.their_reach)
        sent_ahead["finished"] += len(act.backs.questions)
    assert sent_ahead["tables"] == sent_ahead["finished"] >= 1
    return with_pads >= 1, with_asker >= 1, with_transfers >= 1


def ten_concealed_turns(kind: type[Wire]) -> Wire:
    """Ten turns through a ``kind`` wire from a start with many pieces hidden
    (halves.conceal), so that hidden Moves come."""
    rng = random.Random(21)
    full = conceal(standard_position(fog_options()), random.Random(5), 0.6)
    wire = kind(new_pair(full))
    wire.run()
    for _ in range(10):
        full = play_turn(wire, full, rng)
    return wire


def first_hit_runs(wire: Wire) -> int:
    """How many first-hit runs (hidden Moves' routes) went over ``wire``."""
    return sum(1 for side in Side for m in wire.received[side]
               if m.kind == "ask" and codec.unpack(m.body)["q"][0] == "first_hit_psi")


def test_first_hit_tables_made_ahead_change_no_byte_of_hidden_moves() -> None:
    """Many pieces hidden from the start (halves.conceal): hidden Moves come, and their
    first-hit tables were made while their mover chose; the messages are the same
    bytes as without any work made ahead, and as with it made in slices."""
    record = {}
    hidden_moves = {}
    for kind in (Wire, PreparingWire, SlicedWire):
        wire = ten_concealed_turns(kind)
        record[kind] = {side: [m.to_wire() for m in wire.received[side]] for side in Side}
        hidden_moves[kind] = first_hit_runs(wire)
    assert hidden_moves[Wire] >= 2
    assert record[Wire] == record[PreparingWire] == record[SlicedWire]


def test_one_first_hit_table_made_ahead_waits_for_the_next_hidden_move(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Our first-hit table is the one of the peer's k-th first-hit run of the game
    (FIRST_HIT_OWNER): made in idle time and kept until a hidden Move comes. Every hidden
    Move of ten turns finds its table made whole, and the tables made are one per hidden
    Move and one waiting per side, where one was begun for every action of the peer's
    until session 29 (210 X25519 calls each, nearly always for nothing)."""
    made: list[FirstHitOwner] = []
    whole: list[bool] = []
    make, reply = FirstHitOwner.__init__, FirstHitOwner.reply

    def noted(self: FirstHitOwner, *args: Any, **kwargs: Any) -> None:
        make(self, *args, **kwargs)
        made.append(self)

    def replied(self: FirstHitOwner, *args: Any, **kwargs: Any) -> Any:
        whole.append(self._made == self.parts)
        return reply(self, *args, **kwargs)

    monkeypatch.setattr(FirstHitOwner, "__init__", noted)
    monkeypatch.setattr(FirstHitOwner, "reply", replied)
    wire = ten_concealed_turns(PreparingWire)
    hidden_moves = first_hit_runs(wire)
    actions = len(wire.games[Side.WHITE].actions)
    assert hidden_moves >= 2 and actions >= 30
    assert whole == [True] * hidden_moves
    assert len(made) == hidden_moves + 2


def finish_and_audit(wire: Wire) -> dict[Side, Any]:
    """Both sides reveal; each audits the other's reveal."""
    reveals = {side: wire.games[side].reveal() for side in Side}
    return {side: wire.games[side].audit(reveals[side.other]) for side in Side}


def test_an_honest_game_audits_clean_on_both_sides_and_gives_the_full_history() -> None:
    rng = random.Random(77)
    start = standard_position(fog_options())
    full = start
    games = new_pair(full)
    wire = Wire(games)
    wire.run()
    history: list[Intent] = []
    for _ in range(12):
        full = play_turn(wire, full, rng, history)
    verdicts = finish_and_audit(wire)
    for side in Side:
        v = verdicts[side]
        assert v.clean, v.report()
        assert list(v.history) == history
        replay = v.start
        for intent in v.history:
            replay = apply(replay, intent).position
        assert public_state_hash(replay) == public_state_hash(full)


def test_hides_tells_the_moves_whose_route_goes_by_private_intersection() -> None:
    """``FogGame.hides`` (the benchmark's player picks hidden Moves with it): a Move of
    a piece that can hide is hidden (R5.2.4: its route is a PSI question), whether the
    peer's detectors find it or not (we are not told, wec-fog/14); a Move of a piece the
    peer sees whatever it has is not, nor is any other act; and playing one sends the
    ``hidden`` intent it announced."""
    from wec.engine.game import legal_intents
    from wec.engine.intents import Move
    from wec.engine.movement import plan_move

    full = conceal(standard_position(fog_options()), random.Random(5), 0.6)
    wire = Wire(new_pair(full))
    wire.run()
    game = wire.games[full.side_to_act]
    legal = legal_intents(game.half)
    hidden = [i for i in legal if game.hides(i)]
    moves = [i for i in legal if isinstance(i, Move)]
    assert hidden and all(isinstance(i, Move) for i in hidden)
    assert len(hidden) < len(moves)  # pieces the peer sees whatever it has move whole
    seen = codec.surely_seen(game.half)
    for intent in moves:
        mover = plan_move(game.half, intent).piece
        assert game.hides(intent) is (mover.pid not in seen), intent
    step = game.play(hidden[0])
    sent = [codec.unpack(m.body) for m in step.send if m.kind == "intent"]
    assert [body["hidden"] for body in sent] == [True]


def test_a_piece_that_can_hide_moves_hidden_even_where_the_peer_sees_it() -> None:
    """wec-fog/14: the acting side is told nothing of what the peer's detectors and locks
    find, so a piece that can hide moves as a hidden Move whether the peer sees it or not.
    The standard setup's Stealth Pawns are locked on each other (R15.3): the peer sees the
    pawn, and its Move still goes hidden; the peer sees it move all the same, as the rules
    show it (R9.7: its half follows the full state, its events are the full outcome's for
    its side, engine.censor ``events_for``)."""
    from wec.engine.censor import events_for
    from wec.engine.events import Moved
    from wec.engine.game import legal_intents
    from wec.engine.intents import Move
    from wec.engine.movement import plan_move
    from wec.engine.pieces import PieceKind

    full = standard_position(fog_options())
    wire = Wire(new_pair(full))
    wire.run()
    actor = full.side_to_act
    game, peer = wire.games[actor], wire.games[actor.other]
    pawn = next(p for p in game.half.pieces
                if p.side is actor and p.kind is PieceKind.STEALTH_PAWN)
    assert pawn.pid in {p.pid for p in peer.half.pieces}  # locked on: the peer sees it
    move = next(i for i in legal_intents(game.half)
                if isinstance(i, Move) and plan_move(game.half, i).piece.pid == pawn.pid)
    assert game.hides(move)
    wire.play(actor, move)
    outcome = apply(full, move)
    applied = [e for e in wire.events[actor.other] if isinstance(e, Applied)]
    assert [(a.hidden, a.intent) for a in applied] == [(True, codec.HIDDEN_MOVE)]
    assert applied[0].outcome.events == events_for(actor.other, outcome)
    assert [(e.kind, e.frm, e.to) for e in applied[0].outcome.events
            if isinstance(e, Moved)] == [(PieceKind.STEALTH_PAWN, move.frm, move.to)]
    assert half_key(peer.half) == half_key(project(outcome.position, actor.other))
    assert {p.pid: p.cell for p in peer.half.pieces}[pawn.pid] == move.to


@pytest.mark.parametrize("submersion", [True, False])
def test_presence_goes_by_oblivious_transfer_in_every_fog_game(submersion: bool) -> None:
    """R1.6 presence questions go by 1-out-of-512 oblivious transfer (``presence_ot``,
    net.ot) on the base transfers, which every fog game makes: with O16 on (the
    default) and with stealth only (O16 and O18 off; until ``wec-fog/10`` such a game
    asked by labelled PSI); both halves follow the full state and the game audits clean
    on both sides."""
    rng = random.Random(12)
    full = standard_position(replace(fog_options(), submersion_invisibility=submersion))
    assert not full.options.stealth_range_detection
    wire = Wire(new_pair(full))
    wire.run()
    for _ in range(16):
        full = play_turn(wire, full, rng)
    kinds = Counter(m.kind if m.kind not in ("ask", "back") else
                    codec.unpack(m.body)["q"][0]
                    for received in wire.received.values() for m in received)
    assert kinds["presence_ot"] >= 2 and kinds["presence_psi"] == 0, kinds
    assert (kinds["ot"], kinds["ot_reply"]) == (2, 2)  # both sides, once per game
    verdicts = finish_and_audit(wire)
    assert all(v.clean for v in verdicts.values()), verdicts


def test_the_runs_made_for_earlier_actions_are_let_go_one_a_slice() -> None:
    """Runs made ahead for an action that has passed are never used: the idle work lets
    them go, one a slice (freeing a run's labels and pads takes 0.25 ms; until session
    36 the 10-30 of an action were freed in one slice as the next run was made, and a
    peer's message coming meanwhile waited 1-4 ms behind it). The first-hit table, kept
    for the peer's next hidden Move whatever its action, stays."""
    full = standard_position(fog_options())
    wire = Wire(new_pair(full))  # the idle work between actions only (below)
    wire.run()
    rng = random.Random(4)
    dropped_in_a_slice: list[int] = []
    for k in range(12):
        g = wire.games[wire.games[Side.BLACK].half.side_to_act]
        events = wire.play(g.side, random_intent(g.half, rng, k % 3))
        if events and isinstance(events[0], Refused):
            wire.play(g.side, EndTurn())
        for game in wire.games.values():
            current = game.actions[-1].n

            def stale(game: FogGame = game, current: int = current) -> int:
                return sum(1 for key in game._prepared
                           if key[0] != FIRST_HIT_OWNER and key[1] < current)

            # the runs made after the action before (for the one just played, and the
            # one after it) wait to be let go
            work = game.preparing()
            before = stale()
            for _ in work:
                now = stale()
                if now < before:
                    dropped_in_a_slice.append(before - now)
                before = now
            assert stale() == 0
            assert any(key[0] == FIRST_HIT_OWNER for key in game._prepared)
    assert not any(wire.faults().values())
    assert len(dropped_in_a_slice) >= 40
    assert set(dropped_in_a_slice) == {1}



def _play_alike(wires: tuple[Wire, ...], rng: random.Random, k: int) -> None:
    """The same random intent (an End of turn where it is refused) played on each of
    ``wires``, whose games stand alike (``random_intent`` by step ``k``)."""
    g = wires[0].games[wires[0].games[Side.BLACK].half.side_to_act]
    intent = random_intent(g.half, rng, k % 3)
    for wire in wires:
        events = wire.play(g.side, intent)
        if events and isinstance(events[0], Refused):
            wire.play(g.side, EndTurn())


def test_a_finished_actions_waiting_owner_side_is_let_go_in_idle_time() -> None:
    """Once an action is over on both sides, its owner side (a resolution on a stack of
    its own, waiting for a question that no longer comes) is let go by the first slice
    of idle work, not as the next action begins (0.1-0.3 ms on both sides' paths until
    session 37). The game goes on to the same messages as one whose idle work never ran
    (a restore), which let them go at the next action's start."""
    full = standard_position(fog_options())
    idle, plain = Wire(new_pair(full)), Wire(new_pair(full))
    idle.run()
    plain.run()
    rng = random.Random(6)
    let_go = 0
    for k in range(10):
        _play_alike((idle, plain), rng, k)
        for game in idle.games.values():
            last = game.actions[-1]
            waiting = last.owner_run is not None
            work = game.preparing()
            next(work, None)
            if waiting:
                assert last.owner_run is None and last.mine_run is None
                let_go += 1
            for _ in work:
                pass
    assert let_go >= 10
    assert not any(idle.faults().values())
    for side in Side:
        assert [m.signed() for m in idle.received[side]] == \
            [m.signed() for m in plain.received[side]]

@pytest.mark.parametrize("changed", [False, True])
def test_the_side_that_does_not_act_answers_first_on_its_run_made_between_actions(
        changed: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between actions the side the peer acts against makes its first answer's detection
    run whole on its slots as they stand (``_Foreseen``: the queries, their transfers'
    keys and the material garbled on the parts a detection asked at once would have):
    the peer's action most often leaves its pieces as they are, and its answer then
    sends those queries and garbles nothing more (all of it was on the path of the side
    that does not act, which has no idle time in most actions, until session 38).
    ``changed``: each run is made as if one of our pieces had gone since (a slot less),
    and none is used. Either way the game's messages are the same bytes as a game's
    whose idle work never ran."""
    if changed:
        new_run = FogGame._new_run

        def gone(game: FogGame, role: str, n: int, j: int) -> Any:
            if role != "foreseen":
                return new_run(game, role, n, j)
            return _Foreseen(game._sight_owner(n, j, start_slots(game._half)[1:]))

        monkeypatch.setattr(FogGame, "_new_run", gone)
    full = standard_position(fog_options())
    idle, plain = Wire(new_pair(full)), Wire(new_pair(full))
    idle.run()
    plain.run()
    rng = random.Random(8)
    used = not_used = 0
    for k in range(24):
        g = idle.games[idle.games[Side.BLACK].half.side_to_act]
        other = idle.games[g.side.other]
        n = len(other.actions)
        foreseen = other._prepared.get(("foreseen", n, PRE_RUN + 1))
        assert (foreseen is not None) is (n > 0)  # (once the base transfers are done)
        _play_alike((idle, plain), rng, k)
        act = other.actions[n]
        if foreseen is not None and 1 in act.pre_mine:
            assert ("foreseen", n, PRE_RUN + 1) not in other._prepared
            if act.pre_mine[1].slots == foreseen.run.slots:
                assert act.pre_mine[1].queries is foreseen.queries
                assert foreseen.run._ahead is not None and foreseen.run._ahead.built
                used += 1
            else:  # made again at the answer, on the slots as they are
                assert act.pre_mine[1].queries != foreseen.queries
                not_used += 1
        for game in idle.games.values():
            for _ in game.preparing():
                pass
    if changed:
        assert used == 0 and not_used >= 8, not_used
    else:
        assert used >= 8 and not_used == 0, used
    assert not any(idle.faults().values())
    for side in Side:
        assert [m.signed() for m in idle.received[side]] == \
            [m.signed() for m in plain.received[side]]


def test_a_detection_run_asked_back_garbles_in_the_idle_time_until_its_tables_come(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A detect question that came without the asker's tables (its answer before sent no
    queries ahead: after a Doze's transfer, a Stunner's) has our queries asked back; our
    parts are known then, and the idle time until the tables come garbles them (since
    session 38; until then the whole garbling was on the path when they came, 3-5 ms),
    on pads made between actions for the first run asked back. The same bytes as a game
    whose idle work never ran (where nothing is made ahead)."""
    full = conceal(standard_position(fog_options()), random.Random(3), 0.3)
    idle, plain = PreparingWire(new_pair(full)), Wire(new_pair(full))
    ahead: dict[str, list[bool]] = {"idle": [], "plain": []}  # per run asked back
    garble = ps.OwnerRun.garble_masked

    def noted(run: ps.OwnerRun, parts: Any, *rest: Any) -> Any:
        for name, wire in (("idle", idle), ("plain", plain)):
            if any(run is back for game in wire.games.values()
                   for back in game._owner_runs_back.values()):
                ahead[name].append(run._garbled(parts, False) is not None)
        return garble(run, parts, *rest)

    monkeypatch.setattr(ps.OwnerRun, "garble_masked", noted)
    for wire in (idle, plain):
        wire.run()
    rng = random.Random(12)
    for k in range(40):
        _play_alike((idle, plain), rng, k)
    assert not any(idle.faults().values())
    assert len(ahead["idle"]) >= 2 and all(ahead["idle"]), ahead
    assert ahead["plain"] == [False] * len(ahead["idle"])
    for side in Side:
        assert [m.signed() for m in idle.received[side]] == \
            [m.signed() for m in plain.received[side]]


class _TablesHeldWire(PreparingWire):
    """A PreparingWire that holds a side's ``back_answer`` (the tables the other side
    asked back) and everything that side sends after it until :meth:`release`: it stays
    silent after the ask-back."""

    def __init__(self, games: dict[Side, FogGame]) -> None:
        self.held: list[tuple[Side, FogMessage]] = []
        super().__init__(games)

    def send(self, side: Side, messages: tuple[FogMessage, ...] | list[FogMessage]) -> None:
        sent = []
        for m in messages:
            if m.kind == "back_answer" or any(s is side for s, _ in self.held):
                self.held.append((side, m))
            else:
                sent.append(m)
        super().send(side, sent)

    def release(self) -> None:
        held, self.held = self.held, []
        for side, m in held:
            self.queues[side.other].append(m)
        self.run()


def test_a_run_asked_back_is_garbled_once_while_the_peer_is_silent_and_never_again() -> None:
    """The peer goes silent after we ask it back for its tables (session 38 garbles the
    run asked back in that idle time): the game waits, without a fault; the run is made
    whole once, and idle work that runs again makes nothing more of it. Its tables then
    come: the detection answers on the material made ahead and the action ends as it
    would have. A copy of the tables, sent again after they were used, is refused at
    once (its evidence entry repeats one already taken) and garbles nothing."""
    full = conceal(standard_position(fog_options()), random.Random(3), 0.3)
    wire = _TablesHeldWire(new_pair(full))
    wire.run()
    rng = random.Random(12)
    for k in range(40):
        _play_alike((wire,), rng, k)
        if not wire.held:
            continue
        side, tables = wire.held[0]
        asker = wire.games[side.other]  # it asked the tables back; ``side`` is silent
        act = asker.actions[-1]
        if act.backs.questions[-1][0] == "sight":
            break
        wire.release()  # a presence question asked back (R1.6): not this test's
    else:
        raise AssertionError("no detection asked back in 40 actions")
    run = next(iter(asker._owner_runs_back.values()))
    assert asker.busy and not any(wire.faults().values())
    assert run.made and run._ahead is not None and run._ahead.built
    ahead = run._ahead
    asker.prepare()  # idle work again: nothing more of it
    assert run._ahead is ahead and run.made
    wire.release()
    assert not any(wire.faults().values()) and not asker.busy
    assert act.outcome is not None and run._ahead is ahead
    wire.queues[asker.side].append(tables)  # the tables again, a copy
    wire.run()
    faults = wire.faults()[asker.side]
    assert len(faults) == 1 and faults[0].reason.startswith(
        f"evidence: {side.title}'s entry number") \
        and faults[0].reason.endswith("was due (repeated or reordered)"), faults
    assert run._ahead is ahead


def test_a_processs_first_idle_work_makes_its_runs_at_once() -> None:
    """The PSI's fixed points (300 cells, 7 digits, 56 dummies: net.psi) are one SHA-512
    each, from the counter their search stops at (net.psi ``fixed_element``), so a
    process's first game makes its runs ahead from its first slice of idle work on:
    until session 36 it hashed the points first, 363 slices of 0.2-1 ms, and the first
    actions' detections garbled on their path."""
    for cached in (psi.cell_element, psi.digit_element, psi.owner_dummy_element):
        cached.cache_clear()
    full = standard_position(fog_options())
    wire = Wire(new_pair(full))
    wire.run()
    game = wire.games[Side.WHITE]
    work = game.preparing()
    next(work)
    assert game._prepared  # a run begun in the first slice
    rest = 1 + sum(1 for _ in work)
    # the same runs again (the garbling pads and a first-hit table made take no slice
    # then)
    per_run = len(ps.RunPads(bytes(32), b"run", fog_options()).parts())  # labels, garbling
    assert per_run == ps._GARBLING_STEPS + 3
    pads = sum(per_run for key in game._prepared if key[0] == "sight pads")
    tables = sum(made.parts for made in game._prepared.values()
                 if isinstance(made, FirstHitOwner))
    assert pads and tables == 60
    # and our commitment of the next turn: three slices made afresh, one kept
    assert sum(1 for _ in game.preparing()) == rest - pads - tables - 2


def test_a_detections_answer_travels_in_one_session_frame() -> None:
    """Its body (41-43 KB: the input labels' reply, the garbled material, the clear
    part) fills the 48 KiB size class, whatever the detection shows, and with its
    evidence entry fits one FogWire (net.lockstep_fog ``PART_SIZE``). Until session 30
    it was padded to 64 KiB and went as a FogPart and a FogWire."""
    from wec.net.lockstep_fog import FogWire, pack_fog, wire_messages

    wire = ten_concealed_turns(Wire)
    answers = [m for side in Side for m in wire.received[side] if m.kind == "answer"
               and isinstance(codec.unpack(m.body)["a"], list)
               and len(codec.unpack(m.body)["a"]) == 3]  # labels, material, clear part
    assert len(answers) >= 20
    assert {len(m.body) for m in answers} == {48 << 10}
    for m in answers:
        assert [type(part) for part in wire_messages(pack_fog(m))] == [FogWire]


class StepsWire(Wire):
    """A Wire that keeps each step's messages, in the order sent: the sending side and
    their kinds, with the question's name for an ``ask``."""

    def __init__(self, games: dict[Side, FogGame]) -> None:
        self.steps: list[tuple[Side, list[str]]] = []
        super().__init__(games)

    def send(self, side: Side, messages: tuple[FogMessage, ...] | list[FogMessage]) -> None:
        if messages:
            self.steps.append((side, [f"ask {codec.unpack(m.body)['q'][0]}" if m.kind == "ask"
                                      else m.kind for m in messages]))
        super().send(side, messages)


def test_a_steps_answers_go_before_its_own_questions() -> None:
    """The peer's resolution waits on our answers: in each step an intent goes first,
    then our notices (the Doze's verdict, where a hidden Move took pieces) and our
    resolution's questions that the peer answers at once from its pieces (collide, act,
    homing: since session 35, lest they wait behind the peer's own resolution that our
    answers set going), then what our owner side sends
    (answers, a Doze transfer's reply, questions asked back), then our other questions,
    notices and done. Since session 39 a peer's message that lets both our owner side
    and our resolution go on has our owner side's answers sent alone, and our
    resolution's step (its next question, or its finish) in the step :meth:`settle`
    makes once they are written (in ten turns of random play with many pieces
    concealed, 7 times: a visible Move's actor answers the other side's questions on
    its route's first hit, then asks its detection; an End's side whose traveller
    stepped answers the transport question, then asks its detection). The streams
    still meet in one step where our resolution goes on without waiting (a
    projectile's Fire answers its strength with its intent)."""
    wire = ten_concealed_turns(StepsWire)
    assert isinstance(wire, StepsWire)
    rank = {"intent": 0, "judged": 1, "took": 1, "ask collide": 1, "ask act": 1,
            "ask homing": 1, "answer": 2, "doze_reply": 2, "back": 2}
    mixed = answers_first = 0
    for k, (side, kinds) in enumerate(wire.steps):
        ranks = [rank.get(kind, 3) for kind in kinds]
        assert ranks == sorted(ranks), kinds
        mixed += 2 in ranks and (1 in ranks or 3 in ranks)
        if set(ranks) == {2} and k + 1 < len(wire.steps) and wire.steps[k + 1][0] is side:
            answers_first += any(kind.startswith("ask ") for kind in wire.steps[k + 1][1])
    assert mixed >= 3 and answers_first >= 5, (mixed, answers_first)
