"""A Doze over the wire is judged without either side telling its Ground pieces
(R8.8.4-5, issue 21; net.doze_judge).

Before, the acting side's Doze question carried its Ground summary of the squares the
shift reads, hidden (stealthy) pieces included: the other side learnt how many of the
actor's pieces stood there. These tests check the private judgement: it gives the verdict
the rules give, for every summary; the other side receives the same messages whether or
not a hidden piece of the actor's stands on the Doze's squares; and the end-of-game
audit catches an actor that misstates its pieces or the verdict.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest
from halves import collect, half_bytes, in_stealth_only
from rules_helpers import WHITE_TURN, black, white
from test_leakage import _same_for
from test_net_audit import TampersOnce, tampering
from test_net_fog import KEYS, Wire, new_pair
from test_net_fog_leakage import _enemy_view_of, _fixed, _received

from wec.engine import board, sides
from wec.engine.board import GROUND
from wec.engine.censor import events_for
from wec.engine.errors import IllegalIntent
from wec.engine.events import Dozed
from wec.engine.formats import position_from_dict
from wec.engine.game import apply
from wec.engine.intents import Doze
from wec.engine.knowledge import project
from wec.engine.pieces import PieceKind as K
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.engine.questions import DozeQuestion
from wec.engine.setup import standard_position
from wec.engine.sides import doze_squares, side_ground_summary
from wec.engine.visibility import settle
from wec.net import fog_codec as codec
from wec.net import ot
from wec.net.doze_judge import (
    NO_SQUARE,
    DozeJudgeError,
    asker_values,
    foiled_in_clear,
    hidden_tables,
    owner_tables,
    tie_of,
    verdict_with_hidden,
)
from wec.net.evidence import verify_record
from wec.net.fog_game import FogGame

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def _random_question(rng: random.Random) -> tuple[DozeQuestion, dict[Side, tuple]]:
    sq = rng.randrange(board.SQUARES)
    near = [d for d in DIRECTIONS if board.offset(sq, d) is not None]
    selected = tuple(sorted(board.offset(sq, d) for d in rng.sample(near, rng.randint(
        0, len(near)))))  # type: ignore[type-var]
    direction = rng.choice(DIRECTIONS)
    question = DozeQuestion(sq, selected, direction, rng.choice(list(Side)), ())  # type: ignore[arg-type]
    ground: dict[Side, dict[int, tuple[int, bool]]] = {s: {} for s in Side}
    for square in doze_squares(Doze(sq, selected, direction)):  # type: ignore[arg-type]
        if rng.random() < 0.55:
            ground[rng.choice(list(Side))][square] = (rng.randint(1, 2), rng.random() < 0.5)
    return question, {s: tuple((q, *v) for q, v in sorted(ground[s].items())) for s in Side}


def _plain_labels(question: DozeQuestion, actor: tuple, owner: tuple, options: Any,
                  secret: bytes) -> tuple[list[bytes], list[bytes]]:
    """The entries the actor's transfers read of the owner's tables (in the clear), and
    the hidden squares' entries when no square is left out."""
    tables = owner_tables(question, owner, options, secret, tie_of(secret))
    found = [tables[m][v] for m, v in enumerate(asker_values(question, actor))]
    no_square = [table[NO_SQUARE] for table in hidden_tables(
        {sq for sq, _, _ in owner}, secret[::-1], tie_of(secret))]
    return found, no_square


def test_a_foiled_doze_does_not_tell_the_actor_which_square_foiled_it() -> None:
    """Entries are shares (XOR the tie) where a condition holds and fresh noise where it
    does not: the entries an actor gets for a foiled Doze are not the shares of the
    squares that hold (otherwise XORing a subset would show which square failed)."""
    question = DozeQuestion(44, (45,), (0, 1), Side.WHITE, ())
    actor = ((44, 2, True), (45, 1, False))
    blocked = ((46, 1, False),)  # the owner's hidden piece where the shift goes
    clear: tuple[tuple[int, int, bool], ...] = ()
    options = standard_position().options
    secret = bytes(range(32))
    got, hidden = _plain_labels(question, actor, blocked, options, secret)
    shares, hidden_clear = _plain_labels(question, actor, clear, options, secret)
    assert verdict_with_hidden(question, got, hidden)
    assert not verdict_with_hidden(question, shares, hidden_clear)
    # the square 44 -> 45 holds in both; 45 -> 46 holds only without the owner's piece
    assert got[0] == shares[0]
    assert got[1] != shares[1]


def test_labels_that_are_not_one_share_per_transfer_are_refused() -> None:
    """A reply with a transfer missing, or an entry of another size, is no verdict."""
    question = DozeQuestion(44, (45,), (0, 1), Side.WHITE, ())
    found, hidden = _plain_labels(question, ((44, 2, True),), (),
                                  standard_position().options, bytes(32))
    for labels, squares in ((found[:-1], hidden), (found, hidden[:-1]),
                            ([*found[:-1], found[-1] + b"x"], hidden)):
        with pytest.raises(DozeJudgeError, match="not one share per transfer"):
            verdict_with_hidden(question, labels, squares)


def hidden_from_peer(before: Position, intent: Doze) -> bool:
    """Whether the other side may see none of the pieces ``intent`` moves (each can hide:
    net.fog_codec ``surely_seen``): the Doze then travels as a hidden Move
    (net.fog_codec ``public_form``)."""
    actor = before.side_to_act
    return codec.public_form(intent, project(before, actor))[1]


def _dozes(seed: int, count: int, hidden: bool = False) -> list[tuple[Position, Doze, object]]:
    """The Dozes of random games sent whole (``hidden``: those sent as a hidden Move)."""
    return [(b, i, o) for b, i, o in collect(seed, count, conceal_share=0.5)
            if isinstance(i, Doze) and hidden_from_peer(b, i) is hidden]


def _moved_onto_doze(before: Position, intent: Doze, rng: random.Random) -> Position | None:
    """``before`` with one of the actor's pieces hidden from the other side moved at
    Ground onto, or off, a free square the Doze reads (its Ground summary there changes;
    what the other side sees does not)."""
    actor = before.side_to_act
    squares = set(doze_squares(intent))
    used = {p.sq for p in before.pieces if p.level is GROUND}
    hidden = [p for p in before.pieces if p.side is actor and p.hidden and p.level is GROUND
              and p.transit is None and p.sq != intent.sq]
    rng.shuffle(hidden)
    for piece in hidden:
        if piece.sq in squares:
            free = [sq for sq in range(board.SQUARES) if sq not in used and sq not in squares]
        else:
            free = [sq for sq in sorted(squares) if sq not in used]
        if free:
            moved = piece.but(sq=rng.choice(free), revealed=None)
            return before.evolve(pieces=tuple(moved if p is piece else p
                                              for p in before.pieces))
    return None


def test_the_other_side_receives_the_same_whatever_hidden_pieces_stand_on_the_doze() -> None:
    """Dozes of random games (many pieces stealthy): a hidden piece of the actor's moved
    onto or off the squares the shift reads, where the other side's view and outcome stay
    the same: the other side receives the same message kinds, sizes and fields (but for
    the blinded query and the table), and never a Ground summary of the actor's."""
    rng = random.Random(5)
    compared = 0
    for before, intent, full in _dozes(4242, 1600):
        observer = before.side_to_act.other
        perturbed = _moved_onto_doze(before, intent, rng)
        if perturbed is None:
            continue
        if half_bytes(project(perturbed, observer)) != half_bytes(project(before, observer)):
            continue
        try:
            fake = apply(perturbed, intent)
        except IllegalIntent:
            continue
        if not _same_for(observer, full, fake) or _enemy_view_of(
                fake.position, observer) != _enemy_view_of(full.position, observer):  # type: ignore[attr-defined]
            continue
        squares = doze_squares(intent)
        assert side_ground_summary(before, before.side_to_act, squares) != \
            side_ground_summary(perturbed, before.side_to_act, squares)
        real = _received(before, intent, observer)
        other = _received(perturbed, intent, observer)
        assert [(m.kind, len(m.body), len(m.entry)) for m in real] == \
            [(m.kind, len(m.body), len(m.entry)) for m in other]
        for a, b in zip(real, other, strict=True):
            assert _fixed(a) == _fixed(b), (intent, a.kind)
        asks = [codec.unpack(m.body)["q"] for m in real if m.kind == "ask"]
        judged = [q for q in asks if q[0] == "doze_ot"]  # the reach in play: a transfer
        assert len(judged) == 1 and not any(q[0] == "doze" for q in asks)
        assert codec.from_wire(judged[0][1]).asker_ground == ()
        assert any(m.kind == "judged" for m in real)
        compared += 1
        if compared >= 6:
            break
    assert compared >= 6


@pytest.mark.parametrize("options", ["defaults", "stealth only"])
def test_a_doze_over_the_wire_is_made_or_foiled_as_on_the_full_state_and_audits_clean(
        options: str) -> None:
    """Every Doze of a few random games, over the wire from both halves, by oblivious
    transfer, in the defaults and with stealth only (O16 and O18 off): each side's half
    state and events agree with the full state (the private verdict is the rules'), and
    both audits come out clean."""
    seen = {True: 0, False: 0}
    cases = _dozes(4343, 1200)[:14]
    for before, intent, full in cases if options == "defaults" else in_stealth_only(cases):
        games = new_pair(before, seed=3)
        wire = Wire(games)
        wire.run()
        wire.play(before.side_to_act, intent)
        assert not any(wire.faults().values())
        asked = [codec.unpack(m.body)["q"][0] for m in wire.received[before.side_to_act.other]
                 if m.kind == "ask"]
        assert "doze_ot" in asked or (hidden_from_peer(before, intent)
                                      and "first_hit_psi" in asked)
        for side in Side:
            assert half_bytes(games[side].half) == half_bytes(
                project(full.position, side))  # type: ignore[attr-defined]
            assert games[side].actions[-1].outcome.events == events_for(
                side, full)  # type: ignore[arg-type]
        foiled = any(type(e).__name__ == "DozeFoiled" for e in full.events)  # type: ignore[attr-defined]
        seen[foiled] += 1
        reveals = {side: games[side].reveal() for side in Side}
        for side in Side:
            assert games[side].audit(reveals[side.other]).clean
    assert seen[False] >= 3


# White's Dozer on b3 (2,3) dozes east; Black's Stealth Pawn on i4 (9,4) holds a lock
# (R9.4) on one of White's stealthy pieces, so Black sees that piece wherever it goes,
# though White cannot know it (a lock is the holder's business): White's public form of
# the Doze leaves the piece's square out, or says nothing of it.
_LOCKED_DOZES = {
    # the locked Stealth Pawn on a selected square: the form selects no square
    "on a selected square": ([white("dozer", 2, 3), white("sub", 2, 3),
                              white("stealth_pawn", 3, 4)], 2, ((3, 4),),
                             [("dozer", 37, 40), ("sub", 37, 40), ("stealth_pawn", 70, 73)]),
    # the locked Stealth Pawn is the coincident of a stealthy Dozer: the form has no
    # Dozer square, only the Flame Pawn's square
    "the coincident": ([white("dozer", 2, 3, articles=["stealth"]), white("stealth_pawn", 2, 3),
                        white("flame_pawn", 3, 4)], 1, ((3, 4),),
                       [("stealth_pawn", 37, 40), ("flame_pawn", 70, 73)]),
    # the same with nothing selected: the Doze travels as a hidden Move
    "the coincident of a hidden Doze": ([white("dozer", 2, 3, articles=["stealth"]),
                                         white("stealth_pawn", 2, 3)], 1, (),
                                        [("stealth_pawn", 37, 40)]),
}


@pytest.mark.parametrize("where", list(_LOCKED_DOZES))
def test_a_dozed_piece_the_other_side_sees_through_its_lock_is_in_its_dozed_event(
        where: str) -> None:
    """R8.8.3, R9.4, R14.3: the side that does not act is shown every dozed piece it sees
    before and after, here one it sees only through its lock, which the dozing side does
    not know of. Until wec-fog/20 its Dozed left that piece out (it built the event from
    the form's squares) and its audit came out unclean for an honest game."""
    own, target, selected, shown = _LOCKED_DOZES[where]
    pieces = [*own, white("king", 1, 5), black("king", 10, 6), black("stealth_pawn", 9, 4)]
    before = settle(position_from_dict({
        "format": "wec-position/1", "turn": WHITE_TURN, "pieces": pieces,
        "locks": [{"holder": len(pieces) - 1, "instance": 0, "target": target}]}))
    intent = Doze(board.square(2, 3), tuple(board.square(*rc) for rc in selected), (0, 1))
    full = apply(before, intent)
    wire = Wire(new_pair(before))
    wire.run()
    wire.play(Side.WHITE, intent)
    assert not any(wire.faults().values())
    events = {side: wire.games[side].actions[-1].outcome.events for side in Side}
    assert events[Side.BLACK] == (Dozed(Side.WHITE, (0, 1), tuple(
        (Side.WHITE, K(kind), frm, to) for kind, frm, to in shown)),)
    for side in Side:
        assert events[side] == events_for(side, full)
    reveals = {side: wire.games[side].reveal() for side in Side}
    for side in Side:
        assert wire.games[side].audit(reveals[side.other]).clean


def test_a_dozer_that_leaves_a_seen_piece_out_of_its_entries_is_named_by_the_audit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """White's program logs no Dozed for its Stealth Pawn dozed on a left-out square
    (R8.8.3, R14.3), hoping Black's lock (R9.4) misses the move: Black's detection shows
    it no such event, the game goes on, and Black's audit, remaking White's side of the
    detection from its revealed seed and true pieces, names White."""
    shove = sides.shove

    def quiet_shove(w: Any, intent: Doze, movers: Any, actor: Side) -> None:
        before = len(w.log.entries)
        shove(w, intent, movers, actor)
        if w.side is Side.WHITE:
            w.log.entries[before:] = [e for e in w.log.entries[before:]
                                      if e.event.moved[0][1] is not K.STEALTH_PAWN]

    own, target, _, _ = _LOCKED_DOZES["on a selected square"]
    pieces = [*own, white("king", 1, 5), black("king", 10, 6), black("stealth_pawn", 9, 4)]
    before = settle(position_from_dict({
        "format": "wec-position/1", "turn": WHITE_TURN, "pieces": pieces,
        "locks": [{"holder": len(pieces) - 1, "instance": 0, "target": target}]}))
    monkeypatch.setattr(sides, "shove", quiet_shove)
    wire = Wire(new_pair(before))
    wire.run()
    wire.play(Side.WHITE, Doze(board.square(2, 3), (board.square(3, 4),), (0, 1)))
    assert not any(wire.faults().values())
    [dozed] = wire.games[Side.BLACK].actions[-1].outcome.events
    assert [k for _, k, _, _ in dozed.moved] == [K.DOZER, K.SUB]  # the pawn's move kept back
    monkeypatch.undo()  # the audit replays White's side by the rules
    reveals = {side: wire.games[side].reveal() for side in Side}
    verdict = wire.games[Side.BLACK].audit(reveals[Side.WHITE])
    assert not verdict.clean and verdict.culprit == "white", verdict.reason
    assert verdict.reason.startswith(
        "action 0: the peer's answer to our detect question was false"), verdict.reason
    assert verdict.proof and all(i >= 0 for i in verdict.proof)


class _Hostile(TampersOnce):
    """A Dozer's messages at the wrong time or about the wrong Doze."""

    asked: dict[str, Any] | None = None  # "twice": the judgement, asked again later

    def tamper(self, kind: str, payload: dict[str, Any]) -> list[tuple[str, Any]] | None:
        q = payload.get("q")
        if kind == "ask" and q and q[0] == "doze_ot":
            if self.how == "other squares":
                # the same run about a Doze one square over: a probe of the other side's
                # Ground pieces there
                question = codec.from_wire(q[1])
                moved = replace(question, sq=question.sq + (1 if question.sq % 10 < 9 else -1))
                return [(kind, {**payload, "q": [q[0], codec.to_wire(moved), *q[2:]]})]
            if self.how == "twice":
                self.asked = payload  # asked again once the verdict is told
            elif self.how == "judged early":
                return [("judged", {"n": payload["n"], "i": payload["i"], "foiled": False}),
                        (kind, payload)]
            elif self.how == "short query":  # one byte short, signed
                return [(kind, {**payload, "q": [*q[:2], q[2][:-1], *q[3:]]})]
            elif self.how == "labelled PSI":  # the kind games without transfers used
                return [(kind, {**payload, "q": ["doze_psi", *q[1:]]})]
        elif kind == "judged" and self.how == "twice" and self.asked is not None:
            # the same judgement again, under the next number
            return [(kind, payload), ("ask", {**self.asked, "i": self.asked["i"] + 1})]
        elif kind == "judged" and self.how == "judged twice":
            return [(kind, payload), (kind, payload)]
        return None


@pytest.mark.parametrize("how,reason", [
    ("other squares", "another Doze than the peer's intent"),
    ("twice", "a second Doze judgement"),
    ("judged twice", "a Doze verdict for no Doze judgement"),
    ("judged early", "a Doze verdict for no Doze judgement"),
    ("short query", "the Doze query: a label query has 896 bytes"),
    ("labelled PSI", "not a question of engine.questions")])
def test_a_hostile_dozers_messages_are_refused_at_once(how: str, reason: str) -> None:
    """Valid, signed messages at the wrong time or about the wrong squares: the other
    side stops the game at once, naming the message, before it answers a probe; its
    record stays intact."""
    refused = 0
    for before, intent, _out in _dozes(4242, 800):
        actor = before.side_to_act
        games = new_pair(before, {actor: tampering(_Hostile, how)}, seed=refused)
        wire = Wire(games)
        wire.run()
        wire.play(actor, intent)
        fault = wire.faults()[actor.other]
        assert fault and reason in fault[0].reason, (how, fault)
        assert fault[0].proof
        honest = games[actor.other]
        # no Doze table left the honest side for the hostile question
        tables = [m for m in wire.received[actor] if m.kind == "answer"
                  and isinstance(a := codec.unpack(m.body)["a"], list)
                  and len(a[0]) == ot.LABEL_REPLY_SIZE]  # a table by transfer (the default)
        assert len(tables) == {"other squares": 0, "twice": 1, "short query": 0}.get(
            how, len(tables))
        assert verify_record(honest.log.record(), KEYS[Side.WHITE].public_key,
                             KEYS[Side.BLACK].public_key).ok
        refused += 1
        if refused >= 3:
            break
    assert refused >= 3


class _ShortTable(FogGame):
    """The other side of a Doze, answering its transfer with a table one byte short
    (signed, at the right time)."""

    def _send(self, kind: str, payload: Any) -> None:
        if kind == "answer" and self.actions and isinstance(payload.get("a"), list):
            act = self.actions[payload["n"]]
            if act.theirs[payload["i"]][0] == "doze_ot":
                table, hidden = payload["a"]
                payload = {**payload, "a": [table[:-1], hidden]}
        super()._send(kind, payload)


def test_a_doze_table_that_does_not_fit_stops_the_dozer_at_once() -> None:
    """The Dozer refuses a table of the wrong size with a fault naming the answer; no
    verdict is told, and its record stays intact."""
    stopped = 0
    for before, intent, _ in _dozes(4242, 800):
        actor = before.side_to_act
        games = new_pair(before, {actor.other: _ShortTable}, seed=stopped)
        wire = Wire(games)
        wire.run()
        wire.play(actor, intent)
        fault = wire.faults()[actor]
        assert fault and fault[0].reason == "the Doze table: a label reply has 2560 bytes", \
            fault
        assert fault[0].proof
        assert not any(m.kind == "judged" for m in wire.received[actor.other])
        assert verify_record(games[actor].log.record(), KEYS[Side.WHITE].public_key,
                             KEYS[Side.BLACK].public_key).ok
        stopped += 1
        if stopped >= 3:
            break
    assert stopped >= 3


@pytest.mark.parametrize("options", ["defaults", "stealth only"])
def test_a_misstated_ground_summary_is_caught_by_the_audit(options: str) -> None:
    """An actor that judges its Doze with a query made from a Ground summary without its
    pieces beside the Dozer (test_net_audit's liar), in the defaults and with stealth
    only: the honest side's audit is not clean and names the actor, the Doze's action and proof
    (the misstated query; or first what follows from the verdict it got: its own pieces
    then differ from the truth, and its next reach query shows it)."""
    from test_net_audit import MisstatesDozeGround, _lie

    caught = 0
    cases = _dozes(4343, 1200)
    for before, intent, _ in cases if options == "defaults" else in_stealth_only(cases):
        actor = before.side_to_act
        wire, liar = _lie(MisstatesDozeGround, before, intent, actor)
        if liar.lied is None:
            continue  # nothing of the actor's beside the Dozer: nothing to misstate
        asked = [codec.unpack(m.body)["q"][0] for m in wire.received[actor.other]
                 if m.kind == "ask"]
        assert "doze_ot" in asked
        verdict = wire.games[actor.other].audit(liar.reveal())
        assert not verdict.clean and verdict.culprit == actor.value, verdict.reason
        assert (verdict.reason or "").startswith(f"action {liar.lied}:"), verdict.reason
        assert verdict.proof
        caught += 1
        if caught >= 2:
            break
    assert caught >= 2


def test_the_doze_table_fits_the_label_transfers() -> None:
    """One transfer per moving square and one for the dozed count; every value of a
    slot (25) and every count (0..16) has an entry; the entries are the shares."""
    from wec.net import doze_judge

    assert doze_judge.SLOTS + 1 == ot.LABEL_TRANSFERS == 10
    assert doze_judge.PAIRS == 25 <= ot.LABEL_ENTRIES == 32
    assert doze_judge.MOST_DOZED == 16 < ot.LABEL_ENTRIES
    assert doze_judge.SHARE_SIZE == 16 and doze_judge.ENTRY_SIZE == ot.LABEL_SIZE == 8


def test_the_judgement_by_transfer_gives_the_rules_verdict_for_any_pieces() -> None:
    """2,000 random Dozes and Ground summaries of both sides (O24 on and off), through the
    real oblivious transfer for the first 30: the XOR of the labels of the Doze's slots
    and its count (the dummy transfers skipped) is the hidden squares' XOR (the tie; no
    square left out) exactly when R8.8.4-5 lets the Doze be made."""
    rng = random.Random(89)
    options = standard_position().options
    replies = ot.base_replies(b"r" * 32, b"g" * 16, ot.base_queries(b"s" * 32, b"g" * 16))
    chosen = ot.base_finish(b"s" * 32, b"g" * 16, replies)
    pairs, s = ot.seed_pairs(b"r" * 32, b"g" * 16), ot.choice_bits(b"s" * 32, b"g" * 16)
    made = foiled = 0
    for n in range(2000):
        question, ground = _random_question(rng)
        opts = options if n % 2 else replace(options, enemy_dozing=False)
        actor, owner = question.dozer_side, question.dozer_side.other
        values = asker_values(question, ground[actor])
        secret = rng.randbytes(32)
        tables = owner_tables(question, ground[owner], opts, secret, tie_of(secret))
        # no square left out: the hidden squares' entries are their shares, XOR the tie
        no_square = [table[NO_SQUARE] for table in hidden_tables(
            {sq for sq, _, _ in ground[owner]}, rng.randbytes(32), tie_of(secret))]
        if n < 30:
            receiver = ot.LabelReceiver(pairs, b"doze %d" % n)
            query = receiver.query(values)
            found = receiver.finish(ot.LabelSender(s, chosen, b"doze %d" % n).reply(
                query, tables))
        else:
            found = [tables[m][v] for m, v in enumerate(values)]
        truth = foiled_in_clear(question, ground[actor], ground[owner], opts)
        assert verdict_with_hidden(question, found, no_square) is truth, (question, ground)
        foiled += truth
        made += not truth
    assert made > 200 and foiled > 200


def restored_goes_on_alike(wire: Wire) -> None:
    """Both sides restored from their records now: the restored pair goes on to the
    same messages and halves as the original, and both audits come out clean."""
    restored = {s: FogGame.restore(wire.games[s].record(), KEYS[s]) for s in Side}
    twin = wire.twin(restored)
    split = {s: len(wire.received[s]) for s in Side}
    wire.run()
    twin.run()
    assert not any(wire.faults().values()) and not any(twin.faults().values())
    for side in Side:
        assert [m.to_wire() for m in twin.received[side]] == \
            [m.to_wire() for m in wire.received[side][split[side]:]]
        assert half_bytes(restored[side].half) == half_bytes(wire.games[side].half)
    reveals = {side: restored[side].reveal() for side in Side}
    assert all(restored[side].audit(reveals[side.other]).clean for side in Side)


def test_a_game_restored_while_its_doze_transfer_is_out_goes_on_with_the_same_bytes() -> None:
    """A Dozer restored from its record after its ``doze_ot`` query went out and before
    the table came (its receiver lived in memory only): the table's finish remakes it from
    the seeds, and both sides go on to the same messages, verdict and clean audits as
    without the restore."""
    from test_net_fog import _deliver_one

    tried = 0
    for before, intent, _ in _dozes(4343, 1200)[:10]:
        actor = before.side_to_act
        wire = Wire(new_pair(before, seed=3))
        wire.run()
        step = wire.games[actor].play(intent)
        wire.send(actor, step.send)
        while not any(m.kind == "ask" and codec.unpack(m.body)["q"][0] == "doze_ot"
                      for m in wire.queues[actor.other]):
            assert _deliver_one(wire)
        restored_goes_on_alike(wire)
        tried += 1
        if tried >= 3:
            break
    assert tried >= 3
