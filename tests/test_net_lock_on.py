"""A lock acquired in an Exchange the other side does not see: the holder's square stays
secret (R9.4(b); issue 21; ``wec-fog/16``, net.private_sight).

Such an Exchange travels as nothing (R4.9, net.fog_codec ``public_form``), so the holder
of an Anti-Stealth instance it hands over stands where the other side must not learn.
Until session 28 its detections went by lock tables (one 1-out-of-128 transfer per slot,
net.lock_judge): the owner then needed the acting side's reach itself, and its detect
question carried the Sight's seen, asked and locked pieces, so the owner learnt which
of its pieces the enemy sees. Now those detections are private like every other: the
acting side's distances from up to two holders to each of the owner's positions come
masked in the reach transfer's wide table, and the garbled circuit orders the
candidates by (distance, tie rank). These tests check that the lock is the rules' lock,
that the other side receives the same whatever the Exchange moved and wherever the
holder stands, that it never receives a square, a holder or a piece of the acting
side's sight, and that lies through the path are caught.
"""

from __future__ import annotations

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
from wec.engine.intents import Exchange
from wec.engine.knowledge import project
from wec.engine.outcome import Outcome
from wec.engine.pieces import ArticleKind, Side
from wec.engine.position import Position
from wec.engine.questions import Sight
from wec.engine.visibility import settle
from wec.net import fog_codec as codec
from wec.net import ot
from wec.net import private_sight as ps
from wec.net.fog_game import HIDDEN_SIGHT_REPLIES, SIGHT_REPLIES, ActionLog, FogGame

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


def _detect_tables(got: list[tuple[str, Any]]) -> list[tuple[Any, list[bytes]]]:
    """Each detect question received with the acting side's tables for it (with the
    question, or asked back)."""
    found = []
    for k, body in got:
        if k == "ask" and body["q"][0] == "detect":
            found.append((body["q"], body.get("reach")))
        elif k == "back_answer" and isinstance(body["a"], list) and found \
                and found[-1][1] is None:
            found[-1] = (found[-1][0], body["a"])
    return found


@pytest.mark.parametrize("options", ["defaults", "stealth only"])
def test_a_hidden_exchanges_lock_is_the_rules_lock_and_its_detections_name_nothing(
        options: str) -> None:
    """Each case over the wire, in the defaults and with stealth only (O16 and O18 off):
    the other side's detect questions name no square, no holder and nothing of the
    acting side's sight, and come with its masked tables and distances (the sizes of
    ``HIDDEN_SIGHT_REPLIES``); no lock table or target travels; the acting side's half
    state (its new lock included) and the other side's equal the full state's, and both
    audits come out clean. Before ``wec-fog/16`` the question carried the seen, asked
    and locked pieces and the reach went unmasked."""
    cases = CASES if options == "defaults" else in_stealth_only(
        CASES, lambda b, i, full: _hidden(b, i) and bool(_new_locks(b, full)))
    assert len(cases) >= 6, len(cases)
    for before, intent, full in cases:
        actor = before.side_to_act
        wire, games = _play(before, intent)
        assert not any(wire.faults().values()), wire.faults()
        got = [(m.kind, codec.unpack(m.body)) for m in wire.received[actor.other]]
        detects = _detect_tables(got)
        assert detects
        for q, tables in detects:
            assert len(q) == 2 and codec.from_wire(q[1]) == Sight((), (), 0, 0, (), ())
            assert [len(t) for t in tables] == list(HIDDEN_SIGHT_REPLIES)
        assert not any(k == "back" and b["q"][0] == "lock" for k, b in
                       ((m.kind, codec.unpack(m.body)) for m in wire.received[actor]))
        for side in Side:
            assert half_bytes(games[side].half) == half_bytes(project(full.position, side))
        reveals = {side: games[side].reveal() for side in Side}
        for side in Side:
            assert games[side].audit(reveals[side.other]).clean


def test_the_side_that_does_not_act_sends_the_usual_tables() -> None:
    """In the same actions the acting side's owner side answers the other's detections
    as in any action: their tables are of the usual sizes (its holders' squares, if it
    acquires, are public: R9.4(a))."""
    for before, intent, _ in CASES[:4]:
        actor = before.side_to_act
        wire, _ = _play(before, intent)
        got = [(m.kind, codec.unpack(m.body)) for m in wire.received[actor]]
        detects = _detect_tables(got)
        assert detects and all([len(t) for t in tables] == list(SIGHT_REPLIES)
                               for _, tables in detects)


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
    for the blinded queries and the masked tables."""
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
    the same message kinds and sizes and the same fields but for the blinded queries,
    the masked tables and the garbled answers. It does not learn that its piece is now
    locked (the lock table path told it the target)."""
    compared = 0
    for before, intent, _ in UNSEEN:
        plain_before, plain = PLAIN[id(intent)]
        observer = before.side_to_act.other
        a = _play(plain_before, plain)[0].received[observer]
        b = _play(before, intent)[0].received[observer]
        assert [(m.kind, len(m.body)) for m in a] == [(m.kind, len(m.body)) for m in b]
        assert [_fixed(m) for m in a] == [_fixed(m) for m in b]
        compared += 1
    assert compared >= 3


# ---------------------------------------------------------------- lies through the path


class ClaimsAnotherHolderSquare(Liar):
    """The acting side: its distance table puts its acquiring holder on another square
    (the lock then falls on another of the owner's pieces than the rules' target: a
    probe of where they stand)."""

    def _claimed(self, act: ActionLog, j: int, sight: Any) -> Any:
        claimed = super()._claimed(act, j, sight)
        if claimed.acquiring and ps.holders_hidden(act.form, act.hidden, act.actor, self.side) \
                and (self.ready() or self.lied == act.n):
            self.lied = act.n
            claimed = replace(claimed, acquiring=tuple(
                (pid, instance, (sq + 55) % 100) for pid, instance, sq in claimed.acquiring))
        return claimed


class HidesFromTheLock(Liar):
    """The other side: garbles its pieces as if none were stealthy, so that the acting
    side's new instance locks nothing (its pieces stay hidden from a lock the rules
    give)."""

    def _answer_detect(self, act: ActionLog, conv: Any, k: int, sight: Any) -> Any:
        if ps.holders_hidden(act.form, act.hidden, act.actor, self.side.other) \
                and (self.ready() or self.lied == act.n):
            self.lied = act.n
            conv = _NoneStealthy(conv)
        return super()._answer_detect(act, conv, k, sight)


class _NoneStealthy:
    def __init__(self, conv: Any) -> None:
        self.conv = conv

    def __getattr__(self, name: str) -> Any:
        return getattr(self.conv, name)

    def detection_parts(self, *args: Any) -> Any:
        parts = self.conv.detection_parts(*args)
        return replace(parts, slots=tuple(replace(s, stealthy=False) for s in parts.slots))


def _caught(liar: type[Liar], side: Side, before: Position, intent: Exchange, reason: str,
            seed: int) -> bool:
    wire, lying = _lie(liar, before, intent, side, seed=seed)
    if lying.lied is None:
        return False
    assert not wire.faults()[side.other], wire.faults()
    audit_names_the_liar(wire, lying, side, reason)
    return True


@pytest.mark.parametrize("liar,reason", [
    (ClaimsAnotherHolderSquare, "the peer's detector reach, locks, sight or holders' "
                                "distances told at our pieces"),
    (HidesFromTheLock, "the peer's answer to our detect question was false")],
    ids=["ClaimsAnotherHolderSquare", "HidesFromTheLock"])
def test_lies_through_a_secret_holder_are_caught_with_proof(liar: type[Liar], reason: str
                                                            ) -> None:
    """The acting side that tells distances from another square than its holder's, the
    other side that garbles its pieces as if none could be locked: the honest side's
    audit names the liar, the turn, the lie and the signed messages, and its record
    stays intact."""
    caught = 0
    for n, (before, intent, _) in enumerate(CASES):
        side = before.side_to_act.other if liar is HidesFromTheLock else before.side_to_act
        caught += _caught(liar, side, before, intent, reason, seed=n)
        if caught >= 3:
            break
    assert caught >= 3


class _Hostile(TampersOnce):
    """Detect questions of the wrong shape in a hidden Exchange."""

    def tamper(self, kind: str, payload: dict[str, Any]) -> list[tuple[str, Any]] | None:
        q = payload.get("q")
        if kind == "ask" and q and q[0] == "detect" and self.how == "names its holder":
            sight = Sight((), ((0, 0, 55),), 0, 0, (), ())
            return [(kind, {**payload, "q": [q[0], codec.to_wire(sight)]})]
        if kind == "back_answer" and self.how == "usual tables" \
                and isinstance(payload.get("a"), list) and len(payload["a"]) == 5:
            return [(kind, {**payload, "a": payload["a"][:3]})]
        if kind == "ask" and self.how == "distances outside its Exchange" and q \
                and q[0] == "detect" and isinstance(payload.get("reach"), list) \
                and len(payload["reach"]) == 3:
            # (since wec-fog/21 the Exchange's intent carries the queries, and the tables
            # go with the detect question)
            extra = [bytes(ot.WIDE_REPLY_SIZE), bytes(ps.DIST_LABELS.query_size)]
            return [(kind, {**payload, "reach": [*payload["reach"], *extra]})]
        return None


@pytest.mark.parametrize("how,reason", [
    ("names its holder", "a detect question that names more than its acquiring holders' "
                         "squares"),
    ("usual tables", "a detection run's reply is not its tables"),
    ("distances outside its Exchange", "a detect question without its tables for our "
                                       "detection queries sent ahead, of the sizes")])
def test_a_hostile_detection_in_a_hidden_exchange_is_refused_at_once(how: str, reason: str
                                                                      ) -> None:
    """A hidden Exchange's detect question that names a holder's square, or tables for
    it without the distances; and tables with distances from the side that does not act
    (its holders are public): the other side stops the game at once, naming the
    message; its record stays intact."""
    before, intent, _ = CASES[0]
    side = before.side_to_act
    if how == "distances outside its Exchange":
        side = side.other
    wire, _ = _play(before, intent, {side: tampering(_Hostile, how)})
    refused_at_once(wire, side.other, reason)


def _queued(wire: Wire, side: Side, kind: str) -> bool:
    """Whether ``side``'s queue holds a detect question (``ask``) or a detection's
    answer (``answer`` with the garbled parts)."""
    for m in wire.queues[side]:
        if m.kind != kind:
            continue
        body = codec.unpack(m.body)
        if kind == "ask" and body["q"][0] == "detect":
            return True
        if kind == "answer" and isinstance(body["a"], list) and len(body["a"]) == 4:
            return True
    return False


@pytest.mark.parametrize("point", ["question out", "answer out"])
def test_a_game_restored_mid_detection_goes_on_with_the_same_bytes(point: str) -> None:
    """Both sides restored from their records while the acting side's detect question
    (with its distances) is on its way, or the answer (with the distance labels) on its
    way back: both go on to the same messages, the same halves and clean audits as
    without the restore."""
    from test_net_doze import restored_goes_on_alike
    from test_net_fog import _deliver_one

    for before, intent, _ in CASES[:3]:
        actor = before.side_to_act
        wire = Wire(new_pair(before, seed=3))
        wire.run()
        wire.send(actor, wire.games[actor].play(intent).send)
        # the queues hold what each side is yet to receive
        side, kind = (actor.other, "ask") if point == "question out" else (actor, "answer")
        while not _queued(wire, side, kind):
            assert _deliver_one(wire)
        restored_goes_on_alike(wire)
