"""A lock acquired in an Exchange the other side does not see names no square (R9.4(b);
issue 21, ``wec-fog/9``; net.lock_judge).

Until session 19 the detection after such an Exchange carried the acquiring holder's
square, and every detect question named the holders of the asker's locks. Now the
question names no holder, and the hidden Exchange's acquisitions go by two 1-out-of-128
transfers keyed by square: the owner sends its table of lock targets, the acquiring
side reads its holder's square and tells the target. These tests check that the lock
is the rules' lock, that the other side never receives a square or a holder, that it
receives the same whatever the Exchange moved and wherever the holder stands, and that
lies through the path are caught.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from halves import collect, half_bytes, in_stealth_only
from test_net_audit import (
    Liar,
    TampersOnce,
    _lie,
    audit_names_the_liar,
    refused_at_once,
    tampering,
)
from test_net_fog import Wire, new_pair
from test_net_fog_leakage import _fixed

from wec.engine.errors import IllegalIntent
from wec.engine.game import apply
from wec.engine.half_referee import OwnerConversation
from wec.engine.intents import Exchange
from wec.engine.knowledge import project
from wec.engine.outcome import Outcome
from wec.engine.pieces import ArticleKind, Side
from wec.engine.position import Position
from wec.engine.questions import Sight
from wec.engine.visibility import settle
from wec.net import fog_codec as codec
from wec.net.fog_game import ActionLog, FogGame
from wec.net.lock_judge import (
    LOCK_LABELS,
    LOCK_SLOTS,
    NO_SQUARE,
    lock_table,
    lock_values,
    public_sight,
    square_for,
    target_of,
)

AS = ArticleKind.ANTI_STEALTH


def _hidden(before: Position, intent: Exchange) -> bool:
    actor = before.side_to_act
    return codec.public_form(intent, project(before, actor))[1]


def _new_locks(before: Position, out: Outcome) -> set[Any]:
    return set(out.position.locks) - set(before.locks)


def _with_anti_stealth(before: Position, intent: Exchange) -> tuple[Position, Exchange] | None:
    """``before`` with the article ``intent`` gives turned into an idle Anti-Stealth
    instance of the giver's (settled), and the Exchange giving it instead."""
    giver = next((p for p in before.pieces if p.cell == intent.frm
                  and intent.kind in (None, p.kind) and intent.hand in (None, p.hand)
                  and intent.give in p.articles and p.side is before.side_to_act), None)
    if giver is None or intent.give is AS:
        return None
    at = giver.articles.index(intent.give)
    articles = (*giver.articles[:at], AS, *giver.articles[at + 1:])
    pieces = tuple(p.but(articles=articles) if p is giver else p for p in before.pieces)
    try:
        changed = settle(before.evolve(pieces=pieces))
    except (ValueError, IllegalIntent):
        return None
    return changed, replace(intent, give=AS)


def _unseen(before: Position, intent: Exchange) -> bool:
    """Whether the other side sees neither piece of ``intent`` (nor any at their cells)."""
    actor = before.side_to_act
    seen = {p.pid for p in project(before, actor.other).pieces if p.side is actor}
    return not any(p.pid in seen for p in before.pieces if p.cell in (intent.frm, intent.to))


def _shown(position: Position, observer: Side) -> str:
    """The acting side's pieces ``observer`` sees, with their articles."""
    return repr(sorted((p.pid, p.cell, p.articles) for p in project(position, observer).pieces
                       if p.side is observer.other))


# each case's Exchange as the game played it, by the case's intent's id
PLAIN: dict[int, tuple[Position, Exchange]] = {}


def _cases(count: int, unseen: bool = False) -> list[tuple[Position, Exchange, Outcome]]:
    """Hidden Exchanges of random games that hand over an Anti-Stealth instance which
    locks a piece of the other side's (the given article turned into one; ``unseen``:
    the other side sees neither piece)."""
    out: list[tuple[Position, Exchange, Outcome]] = []
    for seed in range(1, 30, 2):
        for before, intent, plain in collect(seed, 2000, conceal_share=0.9):
            if not isinstance(intent, Exchange) or not _hidden(before, intent) \
                    or (unseen and not _unseen(before, intent)):
                continue
            made = _with_anti_stealth(before, intent)
            if made is None or not _hidden(*made):
                continue
            try:
                full = apply(*made)
            except IllegalIntent:
                continue
            observer = before.side_to_act.other
            if unseen and (_shown(full.position, observer) != _shown(plain.position, observer)
                           or _shown(made[0], observer) != _shown(before, observer)):
                continue  # a piece shown (its Stealth given away, R9.2)
            if _new_locks(made[0], full):
                PLAIN[id(made[1])] = (before, intent)
                out.append((*made, full))
            if len(out) >= count:
                return out
    return out


CASES = _cases(8)
UNSEEN = _cases(12, unseen=True)


def _play(before: Position, intent: Any, cls: dict[Side, type[FogGame]] | None = None,
          seed: int = 3) -> tuple[Wire, dict[Side, FogGame]]:
    games = new_pair(before, cls, seed=seed)
    wire = Wire(games)
    wire.run()
    wire.play(before.side_to_act, intent)
    return wire, games


def test_there_are_hidden_exchanges_that_lock() -> None:
    assert len(CASES) >= 8


def test_the_lock_table_gives_what_detect_locks_from_each_square() -> None:
    """For each case's other side (the owner), a lock acquired at any square locks the
    entry of that square in ``lock_targets`` (R9.4(b)), and from ``square_for`` of that
    entry detect locks the same piece; the second slot's table leaves the first target
    out."""
    rng = random.Random(19)
    checked = 0
    for before, _, _ in CASES:
        owner = before.side_to_act.other
        half = project(before, owner)
        for _ in range(6):
            sq = rng.randrange(100)
            sight = Sight((), ((0, 0, sq),), 0, 0, (), ())
            conv = OwnerConversation(half, Exchange(0, 0, AS), None)  # type: ignore[arg-type]
            targets = conv.lock_targets(replace(sight, acquiring=()))
            got = conv.detect(sight).acquired
            assert got == (targets[sq],)
            if targets[sq] is not None:
                rep = square_for(targets, targets[sq])
                again = OwnerConversation(half, Exchange(0, 0, AS), None)  # type: ignore[arg-type]
                assert again.detect(replace(sight, acquiring=((0, 0, rep),))).acquired == got
                second = conv.lock_targets(replace(sight, acquiring=()), [targets[sq]])
                assert targets[sq] not in second
                checked += 1
    assert checked >= 10


def test_lock_tables_and_entries() -> None:
    """An entry is the target plus one (0: none); squares from 100 up read no target;
    the values are the holders' squares, padded with no square."""
    table = lock_table([None, 7, *([0] * 98)])
    assert len(table) == LOCK_LABELS.entries == 128
    assert [target_of(e) for e in table[:3]] == [None, 7, 0]
    assert all(target_of(e) is None for e in table[100:])
    sight = Sight((), ((4, 1, 37),), 0, 0, (), ())
    assert lock_values(sight) == (37, NO_SQUARE) and LOCK_SLOTS == 2
    shown = public_sight(replace(sight, stealth_reach=5, sub_reach=3))
    assert (shown.acquiring, shown.stealth_reach, shown.sub_reach) == ((), 0, 0)


@pytest.mark.parametrize("options", ["defaults", "stealth only"])
def test_a_hidden_exchanges_lock_goes_by_transfer_and_is_the_rules_lock(options: str) -> None:
    """Each case over the wire, in the defaults and with stealth only (O16 and O18 off;
    before ``wec-fog/10`` the holder's square travelled there): the other side's detect
    question names no square and no holder and carries two lock queries, it sends two
    lock tables back and is told the targets; the acting side's half state (its new lock
    included) and the other side's equal the full state's, and both audits come out
    clean."""
    cases = CASES if options == "defaults" else in_stealth_only(
        CASES, lambda b, i, full: _hidden(b, i) and bool(_new_locks(b, full)))
    assert len(cases) >= 6, len(cases)
    for before, intent, full in cases:
        actor = before.side_to_act
        wire, games = _play(before, intent)
        assert not any(wire.faults().values()), wire.faults()
        got = [(m.kind, codec.unpack(m.body)) for m in wire.received[actor.other]]
        detects = [b["q"] for k, b in got if k == "ask" and b["q"][0] == "detect"]
        assert detects and all(len(q) == 2 + LOCK_SLOTS for q in detects)
        for q in detects:
            sight = codec.from_wire(q[1])
            assert sight.acquiring == () and all(lk.holder == 0 for lk in sight.locks)
            assert all(len(x) == LOCK_LABELS.query_size for x in q[2:])
        told = [b["a"] for k, b in got if k == "back_answer" and not isinstance(b["a"], list)]
        new = {lk.target for lk in _new_locks(before, full)}
        assert set(told) - {None} == new
        tables = [b for k, b in ((m.kind, codec.unpack(m.body)) for m in wire.received[actor])
                  if k == "back" and b["q"][0] == "lock"]
        assert len(tables) == LOCK_SLOTS * len(detects)
        for side in Side:
            assert half_bytes(games[side].half) == half_bytes(project(full.position, side))
        reveals = {side: games[side].reveal() for side in Side}
        for side in Side:
            assert games[side].audit(reveals[side.other]).clean


def _other_holder(before: Position, intent: Exchange, full: Outcome
                  ) -> tuple[Exchange, Outcome] | None:
    """The same Anti-Stealth handed to another of the actor's pieces the other side does
    not see, at another square, that locks the same piece (R9.4(b): the holder's square
    is all that differs)."""
    actor = before.side_to_act
    giver_cell = intent.frm
    target = {lk.target for lk in _new_locks(before, full)}
    taker_sq = intent.to // 3
    if not _unseen(before, intent):
        return None
    for p in before.pieces:
        if p.side is not actor or p.sq == taker_sq or p.cell == giver_cell:
            continue
        other = replace(intent, to=p.cell, to_kind=p.kind, to_hand=p.hand)
        try:
            out = apply(before, other)
        except IllegalIntent:
            continue
        observer = actor.other
        if _unseen(before, other) and _shown(out.position, observer) == _shown(
                full.position, observer) \
                and {lk.target for lk in _new_locks(before, out)} == target:
            return other, out
    return None


def test_the_other_side_receives_the_same_wherever_the_holder_stands() -> None:
    """From the same position, the Anti-Stealth handed to holders at two squares that lock
    the same piece: the other side receives the same message kinds, sizes and fields but
    for the blinded queries and sealed tables."""
    compared = 0
    for before, intent, full in UNSEEN:
        found = _other_holder(before, intent, full)
        if found is None:
            continue
        observer = before.side_to_act.other
        a, b = (_play(before, i)[0].received[observer] for i in (intent, found[0]))
        assert [(m.kind, len(m.body), len(m.entry)) for m in a] == \
            [(m.kind, len(m.body), len(m.entry)) for m in b]
        assert [_fixed(m) for m in a] == [_fixed(m) for m in b]
        compared += 1
    assert compared >= 2


def test_an_exchange_that_moves_no_anti_stealth_sends_the_same_messages() -> None:
    """Each case's Exchange as the random game played it (no Anti-Stealth moved) against
    the same Exchange of an Anti-Stealth instance that locks: the other side receives
    the same message kinds and sizes (two lock tables sent, two targets told), and the
    same fields but for the blinded queries, the sealed tables and the targets (it
    learns the target anyway: its piece is locked, and seen unless submerged)."""
    compared = 0
    for before, intent, _ in UNSEEN:
        plain_before, plain = PLAIN[id(intent)]
        observer = before.side_to_act.other
        a = _play(plain_before, plain)[0].received[observer]
        b = _play(before, intent)[0].received[observer]
        assert [(m.kind, len(m.body)) for m in a] == [(m.kind, len(m.body)) for m in b]
        fixed = [[_fixed(m) for m in x if m.kind != "back_answer"] for x in (a, b)]
        assert fixed[0] == fixed[1]
        told = [[codec.unpack(m.body)["a"] for m in x if m.kind == "back_answer"
                 and not isinstance(codec.unpack(m.body)["a"], list)] for x in (a, b)]
        assert told[0] == [None, None] and told[1][0] is not None
        compared += 1
    assert compared >= 3


# ---------------------------------------------------------------- lies through the path


class ProbesLockSquare(Liar):
    """Asks its lock transfer about square 0, not its holder's square (the target there
    tells where the other side's stealthy pieces are), reads that entry and tells no
    target (its lock forgone, so that nothing shows during the game)."""

    def _read_lock(self, act: ActionLog, j: int, reply: bytes) -> None:
        pending = len(act.mine.answers)
        if act.n != self.lied or act.locks_found.get(pending):
            super()._read_lock(act, j, reply)
            return
        receiver = _receiver(self, act.n, pending, 0)
        receiver.query([0])
        self.learned = target_of(receiver.finish(reply)[0])
        act.locks_found[pending] = [(None, self._last_index())]
        self._send("back_answer", {"n": act.n, "j": j, "a": None})

    def _send(self, kind: str, payload: Any) -> None:
        q = payload.get("q") if isinstance(payload, dict) else None
        if kind == "ask" and q and q[0] == "detect" and len(q) == 4 and self.ready():
            n, i = payload["n"], payload["i"]
            if self.actions[n].mine_args[i][1][0].acquiring:
                self.lied = n
                probe = _receiver(self, n, i, 0).query([0])
                payload = {**payload, "q": [*q[:2], probe, q[3]]}
        super()._send(kind, payload)


def _receiver(game: FogGame, n: int, i: int, slot: int) -> Any:
    from wec.net import ot
    return ot.LabelReceiver(game._ot_pairs, codec.lock_run_id(game.game_id, n, game.side, i,
                                                              slot), LOCK_LABELS)


class HidesLockTarget(Liar):
    """Tells no target where its holder's square reads one (the other side's piece then
    stays hidden to it as the rules have it locked and seen)."""

    def _send(self, kind: str, payload: Any) -> None:
        if kind == "back_answer" and isinstance(payload, dict) and payload.get("a") \
                is not None and self.ready():
            act = self.actions[payload["n"]]
            if act.locks_found:
                self.lied = act.n
                payload = {**payload, "a": None}
                for found in act.locks_found.values():  # its own lock goes too
                    found[:] = [(None, where) for _, where in found]
        super()._send(kind, payload)


class FalseLockTable(Liar):
    """The owner's side: its lock table names its farthest stealthy piece at every
    square."""

    def _lock_reply(self, act: ActionLog, k: int, slot: int, query: bytes,
                    targets: Any) -> bytes:
        real = [t for t in targets if t is not None]
        if real and self.ready() and len(set(real)) > 1:
            self.lied = act.n
            last = real[-1] if real[-1] != targets[0] else real[0]
            targets = [last] * 100
        return super()._lock_reply(act, k, slot, query, targets)


def _caught(liar: type[Liar], side: Side, before: Position, intent: Exchange, reason: str,
            seed: int) -> bool:
    wire, lying = _lie(liar, before, intent, side, seed=seed)
    if lying.lied is None:
        return False
    faults = wire.faults()[side.other]
    if faults:  # a probe reads garbage at its true square: refused at once, with proof
        assert "R9.4(b): the peer's lock target is no square's in our table" \
            in faults[0].reason and faults[0].proof, faults
        return True
    audit_names_the_liar(wire, lying, side, reason)
    return True


@pytest.mark.parametrize("liar,reason", [
    (ProbesLockSquare, "the peer asked detect other than its true resolution asks"),
    (HidesLockTarget, "the peer's lock target was false"),
    (FalseLockTable, "the peer's lock table was false")],
    ids=["ProbesLockSquare", "HidesLockTarget", "FalseLockTable"])
def test_lies_through_a_lock_transfer_are_caught_with_proof(liar: type[Liar], reason: str
                                                            ) -> None:
    """The acting side that probes another square or hides the target it read, the other
    side whose table names another piece: the honest side's audit names the liar, the
    turn, the lie and the signed messages, and its record stays intact."""
    caught = 0
    for n, (before, intent, _) in enumerate(CASES):
        side = before.side_to_act.other if liar is FalseLockTable else before.side_to_act
        caught += _caught(liar, side, before, intent, reason, seed=n)
        if caught >= 2:
            break
    assert caught >= 2


class _Hostile(TampersOnce):
    """Messages of the wrong shape on the lock path."""

    def tamper(self, kind: str, payload: dict[str, Any]) -> list[tuple[str, Any]] | None:
        q = payload.get("q")
        if kind == "ask" and q and q[0] == "detect":
            if self.how == "no queries":
                return [(kind, {**payload, "q": q[:2]})]
            if self.how == "short":
                return [(kind, {**payload, "q": [*q[:3], q[3][:-1]]})]
            if self.how == "extra queries":  # the side not acting: its detections carry none
                extra = [bytes(LOCK_LABELS.query_size)] * LOCK_SLOTS
                return [(kind, {**payload, "q": [*q, *extra]})]
        if kind == "back_answer" and self.how == "foreign target" \
                and self.actions[payload["n"]].locks_found:
            return [(kind, {**payload, "a": 10_000})]
        return None


@pytest.mark.parametrize("how,reason", [
    ("no queries", "a hidden Exchange's detect question without its 2 lock transfer "
                   "queries of 128 bytes"),
    ("short", "a hidden Exchange's detect question without its 2 lock transfer queries"),
    ("extra queries", "a detect question with lock transfer queries outside a hidden "
                      "Exchange"),
    ("foreign target", "R9.4(b): the peer's lock target is no square's in our table")])
def test_a_hostile_lock_path_is_refused_at_once(how: str, reason: str) -> None:
    """A hidden Exchange's detection without its queries or with a short one, queries
    in the detection of the side that does not act, a target no square of the table
    names: the other side stops the game at once, naming the message; its record stays
    intact."""
    before, intent, _ = CASES[0]
    actor = before.side_to_act
    side = actor.other if how == "extra queries" else actor  # the one sending them
    wire, _ = _play(before, intent, {side: tampering(_Hostile, how)})
    refused_at_once(wire, side.other, reason)


def test_a_third_lock_table_is_refused() -> None:
    """The other side sends a third lock table for one detection (two slots): refused at
    once, before the acting side reads it."""
    before, intent, _ = CASES[0]
    actor = before.side_to_act

    class SendsThird(FogGame):
        sent = 0

        def _send(self, kind: str, payload: Any) -> None:
            super()._send(kind, payload)
            if kind == "back" and payload["q"][0] == "lock":
                self.sent += 1
                if self.sent == LOCK_SLOTS:
                    super()._send("back", {**payload, "j": payload["j"] + 1})

    wire, _ = _play(before, intent, {actor.other: SendsThird})
    refused_at_once(wire, actor, f"more than {LOCK_SLOTS} lock tables for one detection")


def _lock_message_queued(wire: Wire, side: Side, kind: str) -> bool:
    """Whether ``side``'s queue holds a lock table (``back``) or a target told
    (``back_answer`` that is not a detection run's tables)."""
    for m in wire.queues[side]:
        if m.kind != kind:
            continue
        body = codec.unpack(m.body)
        if kind == "back" and body["q"][0] == "lock":
            return True
        if kind == "back_answer" and not isinstance(body["a"], list):
            return True
    return False


@pytest.mark.parametrize("point", ["table out", "target out"])
def test_a_game_restored_mid_lock_transfer_goes_on_with_the_same_bytes(point: str) -> None:
    """Both sides restored from their records while a lock table is on its way to the
    acting side (its receiver lived in memory only) or its target on its way back: both
    go on to the same messages, the same halves and clean audits as without the
    restore."""
    from test_net_doze import restored_goes_on_alike
    from test_net_fog import _deliver_one

    for before, intent, _ in CASES[:3]:
        actor = before.side_to_act
        wire = Wire(new_pair(before, seed=3))
        wire.run()
        wire.send(actor, wire.games[actor].play(intent).send)
        side, kind = (actor, "back") if point == "table out" else (actor.other, "back_answer")
        while not _lock_message_queued(wire, side, kind):
            assert _deliver_one(wire)
        restored_goes_on_alike(wire)
