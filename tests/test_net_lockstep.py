"""Lockstep play (issue 8 items 5 and 6): two real Lockstep objects play a scripted
game through the real message encoder; refusals, turn hashes and desync reports,
resign, takeback, chat, saving, resending after a lost link, and journal restore."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from wec.engine.encoding import public_state
from wec.engine.errors import IllegalIntent
from wec.engine.intents import EndTurn, Intent
from wec.engine.match import Match
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.net.desync import DesyncReport, diff_positions, write_report
from wec.net.lobby import StartBoard, build_start, stage1_options
from wec.net.lockstep import (
    ChatLine,
    Desynced,
    DesyncReportReady,
    GameOver,
    GameResult,
    IntentApplied,
    Lockstep,
    LockstepError,
    PeerRefused,
    Refused,
    SaveNow,
    Step,
    TakebackAnswered,
    TakebackRequested,
    TurnAgreed,
    TurnEnded,
)
from wec.net.messages import (
    Chat,
    GameClosed,
    IntentMessage,
    Message,
    Rejection,
    SaveNotice,
    TakebackAnswer,
    TakebackRequest,
    TurnHash,
    decode_message,
    encode_message,
)
from wec.storage.scenarios import load_scenario

GAME = bytes(range(32))
SEED = 22  # random legal play from king_hunt: White takes the King on turn 6, 21 intents
KING_HUNT = load_scenario("king_hunt")
START = build_start(StartBoard("king_hunt", KING_HUNT), stage1_options(KING_HUNT.options))


def scripted_game(seed: int = SEED) -> list[Intent]:
    """The intents of a random legal game from START, to its end."""
    rng = random.Random(seed)
    match, intents = START, []
    while match.current.result is None:
        intent = rng.choice(match.legal_intents())
        intents.append(intent)
        match = match.play(intent)
    return intents


INTENTS = scripted_game()
FINAL = START
for _intent in INTENTS:
    FINAL = FINAL.play(_intent)


class Table:
    """Black and White lockstep objects joined by the real encoder; messages wait in
    queues until delivered, so tests can reorder, drop or repeat them."""

    def __init__(self, start: Match = START, record: bool = False) -> None:
        self.journal: dict[Side, list[tuple[str, Any]]] = {Side.BLACK: [], Side.WHITE: []}
        self.sides = {
            side: Lockstep(GAME, start, side,
                           record=(lambda kind, item, s=side: self.journal[s].append(
                               (kind, item))) if record else None)
            for side in (Side.BLACK, Side.WHITE)}
        self.queues: dict[Side, list[Message]] = {Side.BLACK: [], Side.WHITE: []}
        self.events: dict[Side, list[Any]] = {Side.BLACK: [], Side.WHITE: []}

    @property
    def black(self) -> Lockstep:
        return self.sides[Side.BLACK]

    @property
    def white(self) -> Lockstep:
        return self.sides[Side.WHITE]

    def local(self, side: Side, step: Step) -> Step:
        for message in step.send:
            self.queues[side.other].append(decode_message(encode_message(message)))
        self.events[side] += step.events
        return step

    def deliver(self, side: Side, count: int | None = None) -> None:
        delivered = 0
        while self.queues[side] and (count is None or delivered < count):
            message = self.queues[side].pop(0)
            self.local(side, self.sides[side].receive(message))
            delivered += 1

    def flush(self) -> None:
        while self.queues[Side.BLACK] or self.queues[Side.WHITE]:
            self.deliver(Side.BLACK)
            self.deliver(Side.WHITE)

    def play(self, intents: list[Intent]) -> None:
        for intent in intents:
            mover = self.black if self.black.our_turn else self.white
            self.local(mover.our_side, mover.play(intent))
            self.flush()

    def take(self, side: Side, kind: type) -> list[Any]:
        return [e for e in self.events[side] if isinstance(e, kind)]


def first_turn() -> list[Intent]:
    end = next(i for i, intent in enumerate(INTENTS) if isinstance(intent, EndTurn))
    return INTENTS[:end + 1]


# ---------------------------------------------------------------- a whole game


def test_a_scripted_game_is_played_to_the_king_capture_on_both_sides() -> None:
    table = Table()
    table.play(INTENTS)
    assert len(INTENTS) == 21
    for side in (Side.BLACK, Side.WHITE):
        lockstep = table.sides[side]
        assert lockstep.match == FINAL
        assert lockstep.state_hash == FINAL.current_hash
        assert lockstep.result == GameResult(
            Side.WHITE, "R12.1: Black lost the King, taken at (8,7) ground by a Tank", "rules")
    black_intents = sum(1 for a in FINAL.actions if a.side is Side.BLACK)
    assert (table.black.intents_sent, table.white.peer_intents_applied) == (black_intents,) * 2
    assert (table.white.intents_sent, table.black.peer_intents_applied) == \
        (21 - black_intents,) * 2
    # every turn end is checked by the side that did not play it: 6 turns, 3 each
    assert [e.turn for e in table.take(Side.WHITE, TurnAgreed)] == [1, 3, 5]
    assert [e.turn for e in table.take(Side.BLACK, TurnAgreed)] == [2, 4, 6]
    assert table.take(Side.BLACK, GameOver) == table.take(Side.WHITE, GameOver) == [
        GameOver(table.black.result)]
    assert not table.take(Side.BLACK, Refused) and not table.take(Side.WHITE, Refused)


def test_intent_messages_carry_the_running_number_and_the_turn_hash_follows() -> None:
    table = Table()
    turn = first_turn()
    sent: list[Message] = []
    for intent in turn:
        sent += table.local(Side.BLACK, table.black.play(intent)).send
    after = START
    for intent in turn:
        after = after.play(intent)
    assert sent == [*[IntentMessage(1, index, intent) for index, intent in enumerate(turn)],
                    TurnHash(1, bytes.fromhex(after.current_hash))]
    assert table.take(Side.BLACK, IntentApplied)[0] == IntentApplied(
        True, Side.BLACK, 1, 0, turn[0], START.play(turn[0]).current_hash)
    table.flush()
    assert table.take(Side.WHITE, TurnAgreed) == [TurnAgreed(1, after.current_hash)]
    assert table.take(Side.BLACK, TurnEnded) == [TurnEnded(True, 1, after.current_hash)]
    assert table.take(Side.WHITE, TurnEnded) == [TurnEnded(False, 1, after.current_hash)]


# ---------------------------------------------------------------- refusals


def refused(step: Step) -> tuple[list[Message], list[Any]]:
    return step.send, [e for e in step.events if isinstance(e, Refused)]


def test_out_of_turn_duplicated_gapped_and_illegal_intents_are_refused_and_not_applied(
) -> None:
    table = Table()
    white, black = table.white, table.black
    reason = "R4.1: out of turn: it is Black's turn (turn 1)"
    assert refused(black.receive(IntentMessage(1, 0, INTENTS[0]))) == (
        [Rejection("intent", reason)], [Refused("intent", reason)])
    table.local(Side.BLACK, black.play(INTENTS[0]))
    table.flush()
    assert white.receive(IntentMessage(1, 0, INTENTS[0])).send == [Rejection(
        "intent", "intent #0 was already applied (a duplicate)")]
    assert white.receive(IntentMessage(1, 2, INTENTS[1])).send == [Rejection(
        "intent", "intent #2 arrived while #1 was expected (a gap)")]
    assert white.receive(IntentMessage(3, 1, INTENTS[1])).send == [Rejection(
        "intent", "R4.1: out of turn: an intent for turn 3 during turn 1")]
    illegal = EndTurn() if not black.match.current.actions.move else INTENTS[0]
    try:
        black.match.play(illegal)
        raise AssertionError("expected an illegal intent")
    except IllegalIntent as exc:
        expected = f"illegal intent: {exc}"
    assert white.receive(IntentMessage(1, 1, illegal)).send == [Rejection(
        "intent", expected[:200])]
    assert white.match == black.match == START.play(INTENTS[0])
    assert white.peer_intents_applied == 1


def test_local_commands_are_checked_before_anything_is_sent() -> None:
    table = Table()
    with pytest.raises(LockstepError, match=r"R4\.1: it is Black's turn \(turn 1\)"):
        table.white.play(INTENTS[0])
    with pytest.raises(IllegalIntent):
        table.black.play(EndTurn())  # R4.4: a Move first
    assert table.black.log == [] and table.black.intents_sent == 0
    with pytest.raises(LockstepError, match="a chat line has 1 to 500 printable"):
        table.black.chat("")


def test_the_turn_hash_must_follow_the_turn_ending_intent() -> None:
    table = Table()
    for intent in first_turn():
        table.local(Side.BLACK, table.black.play(intent))
    turn_hash = table.queues[Side.WHITE].pop()  # hold back black's turn hash
    table.deliver(Side.WHITE)
    assert table.white.receive(Chat("hi")).send == [Rejection(
        "chat", "the hash of turn 1 must come first")]
    table.queues[Side.WHITE].append(turn_hash)
    table.deliver(Side.WHITE)
    assert table.take(Side.WHITE, TurnAgreed)[0].turn == 1
    assert table.white.receive(TurnHash(1, bytes(32))).send == [Rejection(
        "turn_hash", "a hash of turn 1 that was not expected")]


# ---------------------------------------------------------------- desync


def test_a_hash_mismatch_stops_the_game_with_a_report_on_both_sides(tmp_path: Path) -> None:
    table = Table()
    turn = first_turn()
    for intent in turn[:-1]:
        table.local(Side.BLACK, table.black.play(intent))
    table.flush()
    # White's copy of the game differs (as if a rule had resolved differently there):
    # its Queen is stunned, and an XXX lies on Ground of square 55
    position = table.white.match.current
    ground = list(position.ground_articles)
    ground[55] = (ArticleKind.XXX,)
    table.white.match = Match.begin(position.evolve(pieces=tuple(
        replace(p, stunned_until=9) if p.kind is PieceKind.QUEEN and p.side is Side.WHITE
        else p for p in position.pieces), ground_articles=tuple(ground)))
    table.local(Side.BLACK, table.black.play(turn[-1]))
    table.flush()
    assert table.white.stopped and table.black.stopped
    [desync] = table.take(Side.WHITE, Desynced)
    report = desync.report
    assert (report.turn, report.our_side) == (1, "white")
    assert report.their_hash == table.black.match.current_hash
    assert report.our_hash == table.white.match.current_hash != report.their_hash
    [ready] = table.take(Side.WHITE, DesyncReportReady)
    assert ready.report is report and report.complete
    assert report.differences == diff_positions(report.our_public, report.their_public)
    # issue 21: only the public state travels and is reported, never a piece
    assert report.our_public == public_state(table.white.match.current)
    assert report.their_public == public_state(table.black.match.current)
    assert report.differences == ["public.articles[0]: ours {\"at\": [6, 6], \"kind\": "
                                  "\"xxx\"}, theirs missing"]
    assert all(line.startswith("public.") and ": ours " in line and ", theirs " in line
               for line in report.differences)
    assert "pieces" not in report.to_dict()["our_public"]
    black_report = table.take(Side.BLACK, DesyncReportReady)[0].report
    assert (black_report.our_hash, black_report.their_hash) == \
        (report.their_hash, report.our_hash)
    with pytest.raises(LockstepError, match="the game stopped after a desync at turn 1"):
        table.white.play(INTENTS[4])
    written = json.loads(write_report(tmp_path, report).read_text())
    assert written["turn"] == 1 and written["our_hash"] == report.our_hash
    assert written["differences"] == report.differences
    assert (tmp_path / f"desync-{GAME.hex()[:16]}-turn1.json").exists()


def test_position_differences_are_listed_by_field() -> None:
    ours = {"turn": 3, "pieces": [{"at": [2, 3]}, {"at": [5, 5]}], "result": None}
    theirs = {"turn": 3, "pieces": [{"at": [2, 4]}], "extra": 1, "result": None}
    assert diff_positions(ours, theirs) == [
        "public.extra: ours missing, theirs 1",
        "public.pieces[0].at[1]: ours 3, theirs 4",
        "public.pieces[1]: ours {\"at\": [5, 5]}, theirs missing"]
    report = DesyncReport("ab" * 16, 3, "black", "11", "22", ours)
    assert not report.complete
    report.add_theirs("22", theirs)
    assert report.complete and len(report.differences) == 3


# ---------------------------------------------------------------- resign, takeback, chat


def test_resign_ends_the_game_for_both_and_later_intents_are_refused() -> None:
    table = Table()
    table.local(Side.WHITE, table.white.resign())
    table.flush()
    expected = GameResult(Side.BLACK, "White resigned", "resign")
    assert table.white.result == table.black.result == expected
    with pytest.raises(LockstepError, match=r"the game is over \(White resigned\)"):
        table.black.play(INTENTS[0])
    assert table.white.receive(IntentMessage(1, 0, INTENTS[0])).send == [Rejection(
        "intent", "the game is over (White resigned)")]


def test_both_resigning_at_once_ends_without_a_winner_on_both_sides() -> None:
    table = Table()
    table.local(Side.WHITE, table.white.resign())
    table.local(Side.BLACK, table.black.resign())
    table.flush()
    both = GameResult(None, "both players resigned at once", "resign")
    assert table.white.result == table.black.result == both


def test_an_approved_takeback_goes_back_to_the_start_of_the_turn_on_both_sides() -> None:
    table = Table()
    turn = first_turn()
    table.play(turn)
    step = table.local(Side.BLACK, table.black.request_takeback())
    assert step.send == [TakebackRequest(1)]
    with pytest.raises(LockstepError, match="cannot ask for a takeback while your takeback "
                                            "request waits for an answer"):
        table.black.request_takeback()
    table.flush()
    assert table.take(Side.WHITE, TakebackRequested) == [TakebackRequested(False, 1)]
    table.local(Side.WHITE, table.white.answer_takeback(True))
    table.flush()
    assert table.black.match == table.white.match == START
    assert table.take(Side.BLACK, TakebackAnswered) == [
        TakebackAnswered(False, 1, True, START.start_hash)]
    # numbering goes on (a repeat stays a repeat), and play resumes in lockstep
    assert (table.black.intents_sent, table.white.peer_intents_applied) == (len(turn),) * 2
    table.play(INTENTS)
    assert table.black.match == table.white.match == FINAL
    assert table.take(Side.WHITE, TurnAgreed)[-1].turn == 5


def test_a_refused_takeback_changes_nothing() -> None:
    table = Table()
    table.play(first_turn())
    table.local(Side.BLACK, table.black.request_takeback(1))
    table.flush()
    table.local(Side.WHITE, table.white.answer_takeback(False))
    table.flush()
    assert table.black.match == table.white.match != START
    assert table.black.our_takeback is None


def test_takebacks_need_a_non_competitive_game() -> None:
    table = Table(START.go_competitive())
    table.play(first_turn())
    with pytest.raises(LockstepError, match=r"R14\.3: no takeback in competitive mode"):
        table.black.request_takeback()
    assert table.white.receive(TakebackRequest(1)).send == [Rejection(
        "takeback_request", "R14.3: no takeback in competitive mode")]
    assert table.black.receive(TakebackRequest(9)).send[0].reason.startswith(
        "R14.3")


def test_chat_lines_reach_the_other_side() -> None:
    table = Table()
    table.local(Side.BLACK, table.black.chat("good luck"))
    table.local(Side.WHITE, table.white.chat("you too"))
    table.flush()
    assert table.take(Side.WHITE, ChatLine) == [ChatLine(True, "you too"),
                                                ChatLine(False, "good luck")]
    assert table.take(Side.BLACK, ChatLine) == [ChatLine(True, "good luck"),
                                                ChatLine(False, "you too")]


# ---------------------------------------------------------------- saving


def test_both_machines_save_the_same_match_even_with_an_intent_in_flight() -> None:
    """The asker saves at once; the peer saves the same first actions when the notice
    arrives, even after an intent of its own crossed it."""
    table = Table()
    table.play(INTENTS[:2])
    step = table.local(Side.WHITE, table.white.save())
    assert step.send == [SaveNotice(2)]
    table.local(Side.BLACK, table.black.play(INTENTS[2]))  # crosses the notice
    table.flush()
    black_save = table.take(Side.BLACK, SaveNow)
    white_save = table.take(Side.WHITE, SaveNow)
    assert [e.asked_by_us for e in black_save] == [False]
    assert [e.asked_by_us for e in white_save] == [True]
    assert black_save[0].match == white_save[0].match == START.play(INTENTS[0]).play(
        INTENTS[1])
    assert table.black.match == table.white.match == white_save[0].match.play(INTENTS[2])


def test_saving_never_waits_for_the_peer() -> None:
    """Issue 20 hole 3: an unanswered save no longer blocks the asker (a silent peer
    used to stall the game); saves are refused only while our takeback waits."""
    table = Table()
    table.local(Side.BLACK, table.black.save())
    table.local(Side.BLACK, table.black.play(INTENTS[0]))  # at once, nothing pending
    table.local(Side.BLACK, table.black.save())
    assert table.black.save_pending is None
    table.flush()
    saves = table.take(Side.WHITE, SaveNow)
    assert [len(e.match.actions) for e in saves] == [0, 1]
    assert table.white.receive(SaveNotice(5)).send == [Rejection(
        "save", "a save after 5 actions, but the game has 1")]


# ---------------------------------------------------------------- resuming after a lost link


def test_messages_lost_with_the_link_are_resent_without_loss_or_repeat() -> None:
    table = Table()
    for intent in first_turn():
        table.local(Side.BLACK, table.black.play(intent))
    lost = list(table.queues[Side.WHITE])
    assert len(lost) == len(first_turn()) + 1  # the intents and the turn hash
    table.queues[Side.WHITE] = lost[:1]  # the link drops after one of them got through
    table.deliver(Side.WHITE)
    # reconnection: White says how many of Black's messages it processed
    resend = table.black.resend_from(table.white.peer_processed)
    assert resend == [m for m in table.black.log[table.white.peer_processed:]]
    assert resend == lost[1:]
    for message in resend:
        table.local(Side.WHITE, table.white.receive(decode_message(encode_message(message))))
    assert table.white.match == table.black.match
    assert not table.take(Side.WHITE, Refused)
    assert table.take(Side.WHITE, TurnAgreed)[0].turn == 1
    # a message repeated by the network is refused, never applied twice
    assert table.white.receive(lost[-2]).send == [Rejection(
        "intent", f"intent #{len(first_turn()) - 1} was already applied (a duplicate)")]
    with pytest.raises(LockstepError, match="processed 99 of our messages, but we sent only"):
        table.black.resend_from(99)


def test_rejections_from_the_peer_are_shown() -> None:
    table = Table()
    assert table.black.receive(Rejection("intent", "no")).events == [
        PeerRefused("intent", "no")]
    assert table.black.peer_processed == 0


# ---------------------------------------------------------------- journal and endings


def test_a_journal_restores_the_same_state() -> None:
    table = Table(record=True)
    table.play(first_turn())
    table.local(Side.BLACK, table.black.request_takeback())
    table.flush()
    table.local(Side.WHITE, table.white.answer_takeback(True))
    table.local(Side.WHITE, table.white.chat("again"))
    table.flush()
    table.play(INTENTS[:7])
    table.local(Side.WHITE, table.white.save())
    table.flush()
    for side in (Side.BLACK, Side.WHITE):
        original = table.sides[side]
        records = [(kind, decode_message(encode_message(item)) if kind in ("in", "out")
                    else item) for kind, item in table.journal[side]]
        restored = Lockstep.restore(GAME, START, side, records)
        assert restored.match == original.match
        assert restored.log == original.log
        assert (restored.peer_processed, restored.intents_sent,
                restored.peer_intents_applied) == \
            (original.peer_processed, original.intents_sent, original.peer_intents_applied)


def test_a_claimed_win_and_a_game_closed_by_the_peer() -> None:
    table = Table(record=True)
    table.local(Side.BLACK, table.black.claim_win("White was gone for more than 120 s"))
    assert table.black.result == GameResult(Side.BLACK, "White was gone for more than 120 s",
                                            "forfeit")
    assert table.journal[Side.BLACK] == [("claim", "White was gone for more than 120 s")]
    with pytest.raises(LockstepError, match="already over"):
        table.black.claim_win("again")
    closed = GameClosed(GAME, "black", "Black claimed the win: White was gone")
    table.white.close_by_peer(closed)
    assert table.white.result == GameResult(Side.BLACK, "Black claimed the win: White was "
                                                        "gone", "closed")
    restored = Lockstep.restore(GAME, START, Side.BLACK, table.journal[Side.BLACK])
    assert restored.result == table.black.result
    assert isinstance(SaveNotice(3), Message)


# ---------------------------------------------------------------- untrusted input


def random_field(rng: random.Random, spec: Any, match: Match) -> Any:
    """A value of the Python type the message field holds, valid or at its edges."""
    from wec.engine.options import Options
    from wec.net import messages as m
    from wec.net.lobby import encode_position

    if isinstance(spec, m.Int):
        return rng.choice([spec.low, spec.high, rng.randint(spec.low, min(spec.high,
                                                                         spec.low + 6))])
    if isinstance(spec, m.Flag):
        return rng.random() < 0.5
    if isinstance(spec, m.Text):
        return rng.choice(spec.choices) if spec.choices else rng.choice(
            ["x", "gg", "a" * max(spec.min_length, 1)])[:spec.max_length] or "x"
    if isinstance(spec, m.Blob):
        if spec.max_size >= 1000 and rng.random() < 0.5:
            return encode_position(match.current)
        return rng.randbytes(rng.randint(spec.min_size, min(spec.max_size, 40)))
    if isinstance(spec, m.DisplayName):
        return "Eve"
    if isinstance(spec, m.FileName):
        return "x.wecsave"
    if isinstance(spec, m.IntentSpec):
        legal = match.legal_intents()
        return rng.choice(legal if legal and rng.random() < 0.7 else INTENTS)
    if isinstance(spec, m.OptionsSpec):
        return Options(stealth_invisibility=False, submersion_invisibility=False)
    raise AssertionError(f"no generator for {spec!r}")


def random_message(rng: random.Random, match: Match) -> Message:
    from wec.net.messages import field_specs, message_types

    types = message_types()
    tag = rng.choice(sorted(types))
    values = {name: random_field(rng, spec, match) for name, spec in field_specs(tag)}
    return types[tag](**values)


def test_random_peer_messages_never_crash_and_refused_ones_change_nothing() -> None:
    rng = random.Random(8)
    table = Table()
    accepted = refused_count = 0
    for number in range(3000):
        if table.black.result or table.black.stopped or table.white.result or \
                table.white.stopped or number % 400 == 0:
            table = Table()
        side = rng.choice([Side.BLACK, Side.WHITE])
        lockstep = table.sides[side]
        message = decode_message(encode_message(random_message(rng, lockstep.match)))
        before = (lockstep.match, list(lockstep.log), lockstep.peer_intents_applied,
                  lockstep.result, lockstep.our_takeback, lockstep.peer_takeback)
        step = lockstep.receive(message)  # never raises
        if any(isinstance(e, Refused) for e in step.events):
            refused_count += 1
            assert (lockstep.match, lockstep.log, lockstep.peer_intents_applied,
                    lockstep.result, lockstep.our_takeback, lockstep.peer_takeback) == before
            assert [type(m) for m in step.send] == [Rejection]
        else:
            accepted += 1
        mover = table.black if table.black.our_turn else table.white
        if mover.our_turn and mover.our_takeback is None and rng.random() < 0.3:
            table.local(mover.our_side, mover.play(rng.choice(mover.match.legal_intents())))
            table.flush()
    assert refused_count > 1000 and accepted > 100



def test_desync_details_are_taken_only_after_a_mismatch_computed_here() -> None:
    """Issue 20 hole 5: an unprompted DesyncDetail stopped the game and pulled our full
    state. Now the mover takes one only about the turn it hashed last, and only with a
    hash that really differs from its own; anything else is refused and changes nothing."""
    from wec.net.messages import DesyncDetail

    table = Table()
    turn = first_turn()
    table.play(turn)  # Black ended turn 1 and sent its hash; White agreed
    black = table.black
    ours = black.match.current_hash
    for detail, reason in (
            (DesyncDetail(2, bytes(32), b""),
             "desync details of turn 2, whose hash we did not send last: there is no "
             "mismatch to report"),
            (DesyncDetail(1, bytes.fromhex(ours), b""),
             "our hash of turn 1 is the same as the peer's: there is no desync")):
        step = black.receive(detail)
        assert step.send == [Rejection("desync", reason)]
        assert step.events == [Refused("desync", reason)]
    assert black.desync is None and not black.stopped
    assert table.white.receive(DesyncDetail(1, bytes(32), b"")).send == [Rejection(
        "desync", "desync details of turn 1, whose hash we did not send last: there is "
        "no mismatch to report")]
    table.play(INTENTS[len(turn):len(turn) + 3])  # the game goes on
    assert black.match == table.white.match


# ---------------------------------------------------------------- a silent peer (issue 20)


def test_resign_works_while_a_takeback_request_waits() -> None:
    """Issue 20 hole 3: "cannot resign while your takeback request waits for an
    answer" let a silent peer hold the game; resigning is always possible."""
    table = Table()
    table.play(first_turn())
    table.local(Side.BLACK, table.black.request_takeback())
    table.local(Side.BLACK, table.black.resign())  # the request is never answered
    table.flush()
    assert table.black.result == table.white.result == GameResult(
        Side.WHITE, "Black resigned", "resign")
    # an answer that crossed the resignation is refused: the game is over
    assert table.black.receive(TakebackAnswer(1, True)).send == [Rejection(
        "takeback_answer", "the game is over (Black resigned)")]


def test_a_takeback_request_can_be_cancelled_and_the_peer_declines_it() -> None:
    from wec.net.lockstep import TakebackCancelled
    from wec.net.messages import TakebackCancel

    table = Table()
    table.play(first_turn())
    table.local(Side.BLACK, table.black.request_takeback())
    step = table.local(Side.BLACK, table.black.cancel_takeback())
    assert step.send == [TakebackCancel(1)]
    with pytest.raises(LockstepError, match="being cancelled"):
        table.black.cancel_takeback()
    table.flush()
    assert table.take(Side.WHITE, TakebackCancelled) == [TakebackCancelled(False, 1)]
    assert table.take(Side.BLACK, TakebackAnswered) == [
        TakebackAnswered(False, 1, False, table.black.state_hash)]
    assert table.black.our_takeback is None and not table.black.takeback_cancelled
    table.play(INTENTS[len(first_turn()):])  # and the game goes on
    assert table.black.match == table.white.match == FINAL


def test_a_cancel_that_crosses_the_answer_lets_the_answer_stand() -> None:
    table = Table()
    table.play(first_turn())
    table.local(Side.BLACK, table.black.request_takeback())
    table.flush()
    table.local(Side.WHITE, table.white.answer_takeback(True))  # on its way...
    table.local(Side.BLACK, table.black.cancel_takeback())  # ...when Black cancels
    table.flush()
    assert table.black.match == table.white.match == START
    assert not table.take(Side.WHITE, Refused) and not table.take(Side.BLACK, Refused)
    from wec.net.messages import TakebackCancel

    assert table.white.receive(TakebackCancel(1)).send == [Rejection(
        "takeback_cancel", "no takeback request of turn 1 waits for our answer")]


def test_crossing_takeback_requests_are_both_answered() -> None:
    table = Table()
    table.play(INTENTS[:9])
    table.local(Side.BLACK, table.black.request_takeback(3))
    table.local(Side.WHITE, table.white.request_takeback(2))
    table.flush()
    table.local(Side.WHITE, table.white.answer_takeback(True))
    table.local(Side.BLACK, table.black.answer_takeback(True))
    table.flush()
    assert table.black.match == table.white.match
    assert table.black.match.current.turn == 2


def test_time_claims_end_the_game_only_when_the_rules_allow_them() -> None:
    """The Lockstep checks what the rules decide (whose turn, which turn, a time limit
    agreed, an answer owed); the Peer checks the time on its clock (net.game_clock)."""
    from wec.net.messages import TimeClaim

    table = Table()
    table.play(first_turn())  # White to act in turn 2
    with pytest.raises(LockstepError, match="it is your turn"):
        table.white.claim_time("idle", 900)
    with pytest.raises(LockstepError, match="no time limit per move"):
        table.black.claim_time("move_time", 60)
    assert table.black.receive(TimeClaim("idle", 2, 900)).send == [Rejection(
        "time_claim", "a time claim about turn 2, but it is White's turn 2")]
    assert table.white.receive(TimeClaim("answer", 2, 240)).send == [Rejection(
        "time_claim", "no takeback request of the peer waits for our answer")]
    table.local(Side.BLACK, table.black.claim_time("idle", 901))
    table.flush()
    reason = "White did not finish turn 2 in 901 s; Black claimed the win"
    assert table.black.result == table.white.result == GameResult(Side.BLACK, reason,
                                                                   "time")
    timed = Table(record=True)
    timed.sides = {side: Lockstep(GAME, START, side, move_time=60,
                                  record=lambda kind, item, s=side: timed.journal[s].append(
                                      (kind, item)))
                   for side in (Side.BLACK, Side.WHITE)}
    timed.local(Side.WHITE, timed.white.claim_time("move_time", 61))
    timed.flush()
    assert timed.black.result == GameResult(
        Side.WHITE, "Black did not finish turn 1 within the 60 s time limit; White claimed "
        "the win", "time")
    restored = Lockstep.restore(GAME, START, Side.BLACK, timed.journal[Side.BLACK],
                                move_time=60)
    assert restored.result == timed.black.result  # the journal replays without a clock
