"""Lockstep play of an open-information game (issue 8 items 5 and 6).

Sans-IO, like net.lobby: local commands (``play``, ``resign``, ``request_takeback``,
``answer_takeback``, ``chat``, ``save``, ``claim_win``) and the peer's messages
(:meth:`Lockstep.receive`) each return a :class:`~net.steps.Step` of messages to send and
events to show. Stage 1 has nothing hidden, so both machines hold the full state:

- **Intents**: each side sends only its own intents, numbered by a running ``index``
  (the sender's intents in this game). The receiver checks the number (a repeat or a gap
  is refused), the turn and the side to act (R4.1), then resolves the intent with the
  engine on its full state (``Match.play``; an illegal intent is refused with the rule it
  breaks) and applies it. Nothing refused is ever applied.
- **Turn hashes**: after an intent that ends a turn (or the game), the mover sends the
  state hash of the new position; it must be the very next message, and the receiver
  compares it with its own. A mismatch stops the game: both sides exchange their
  public state (DesyncDetail: no piece, issue 21) and a
  :class:`~net.desync.DesyncReport` names the differing fields. The mover takes the
  peer's DesyncDetail only about the turn it hashed last, and only when the hash in it
  really differs from its own: a mismatch it computed itself.
- **Resign** (always, whatever waits for an answer), **takeback** (by request, approved
  by the opponent, R14.2 non-competitive games only, back to the start of a turn with
  ``Match.undo_to``; the asker may cancel it, and the peer then declines it),
  **chat**.
- **Time claims** (issue 20 hole 3): a side that owes the other something for too long
  (its turn, beyond the per-move time agreed in the lobby or the idle limit, or an
  answer to a takeback request) can be claimed against (TimeClaim). The clock is the
  Peer's (net.game_clock), never this module's: the Peer checks the time on its own
  clock before a claim goes out or is taken, this module only what the rules decide.
- **Saving**: each machine writes its own save from its own data and names the file
  itself; only the number of actions to save crosses the wire (SaveNotice). The asker
  writes at once, the peer when the notice arrives, from the same first actions of the
  game (both hold them: actions are only ever taken back by an answered takeback, and
  no one asks to save while its own takeback request waits), so both write the same
  match and nobody waits for anybody (issue 20 holes 3 and 4).
- **Resume**: every lockstep message a side sends is kept in its ``log``; the receiver
  counts the peer's messages it processed (``peer_processed``). After a reconnection each
  side tells the other its count (net.messages.Resume) and the other resends the rest of
  its log (:meth:`Lockstep.resend_from`): no intent is lost or applied twice.
- **Journal**: ``record(kind, item)`` is called with every input *before* it takes effect
  (``"out"``: a message from a local command; ``"in"``: a peer message; ``"claim"`` and
  ``"closed"``: local endings; ``"skip"``: how many refused peer messages came since the
  last record, which only counted). :meth:`Lockstep.restore` replays such a record into the
  same state, so a restarted process resumes where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import msgpack  # type: ignore[import-untyped]

from wec.engine.encoding import public_state
from wec.engine.errors import IllegalIntent, MatchError, WecError
from wec.engine.intents import Intent
from wec.engine.match import Match
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.net.desync import DesyncReport
from wec.net.errors import MessageError, NetError
from wec.net.messages import (
    MAX_CHAT,
    MAX_POSITION_BYTES,
    Chat,
    DesyncDetail,
    FogPart,
    FogReveal,
    FogWire,
    GameClosed,
    IntentMessage,
    Message,
    Rejection,
    Resign,
    SaveNotice,
    TakebackAnswer,
    TakebackCancel,
    TakebackRequest,
    TimeClaim,
    TurnHash,
    unpack_untrusted,
)
from wec.net.steps import ChatLine as ChatLine  # "as": re-exported for the callers
from wec.net.steps import GameEvent as GameEvent
from wec.net.steps import GameStep, Refusal
from wec.net.steps import PeerRefused as PeerRefused
from wec.net.steps import Refused as Refused

Step = GameStep  # what every call returns: messages for the peer and game events

RecordKind = str  # "out", "in", "skip", "claim", "closed"
Recorder = Callable[[RecordKind, Any], None]
Commit = Callable[[], Step]  # the change a checked peer message makes, run after its record


class LockstepError(NetError):
    """A local command that is not allowed now; ``reason`` is for the player."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class GameResult:
    """How the game ended: ``winner`` None when nobody won (both resigned at once);
    ``how`` is rules (R12), resign, forfeit (a win claimed after the grace period), time
    (a win claimed on a player who did not move or answer in time) or closed (the peer
    closed the game while we were away)."""

    winner: Side | None
    reason: str
    how: str


# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class IntentApplied(GameEvent):
    """An intent was applied (ours when ``by_us``); ``state_hash`` is the state after it."""

    kind: ClassVar[str] = "intent"
    by_us: bool
    side: Side
    turn: int
    index: int
    intent: Intent
    state_hash: str


@dataclass(frozen=True)
class TurnEnded(GameEvent):
    kind: ClassVar[str] = "turn_end"
    by_us: bool
    turn: int
    state_hash: str


@dataclass(frozen=True)
class TurnAgreed(GameEvent):
    """The peer's hash of a turn end equals ours."""

    kind: ClassVar[str] = "turn_agreed"
    turn: int
    state_hash: str


@dataclass(frozen=True)
class GameOver(GameEvent):
    kind: ClassVar[str] = "result"
    result: GameResult


@dataclass(frozen=True)
class TakebackRequested(GameEvent):
    kind: ClassVar[str] = "takeback_request"
    by_us: bool
    turn: int


@dataclass(frozen=True)
class TakebackAnswered(GameEvent):
    """A takeback request was answered (``by_us``: we answered the peer's)."""

    kind: ClassVar[str] = "takeback"
    by_us: bool
    turn: int
    accepted: bool
    state_hash: str


@dataclass(frozen=True)
class TakebackCancelled(GameEvent):
    """A takeback request was withdrawn (``by_us``: ours); its decline follows."""

    kind: ClassVar[str] = "takeback_cancel"
    by_us: bool
    turn: int


@dataclass(frozen=True)
class SaveNow(GameEvent):
    """Write a save of ``match`` now (``asked_by_us``: we asked)."""

    kind: ClassVar[str] = "save"
    match: Match
    asked_by_us: bool


@dataclass(frozen=True)
class Desynced(GameEvent):
    """The turn hashes differ: the game stopped. ``report`` is completed when the peer's
    state arrives (then DesyncReportReady follows)."""

    kind: ClassVar[str] = "desync"
    report: DesyncReport


@dataclass(frozen=True)
class DesyncReportReady(GameEvent):
    kind: ClassVar[str] = "desync_report"
    report: DesyncReport


LOCKSTEP_MESSAGES: tuple[type[Message], ...] = (
    IntentMessage, TurnHash, Resign, TakebackRequest, TakebackAnswer, TakebackCancel,
    TimeClaim, Chat, SaveNotice, DesyncDetail, FogWire, FogPart, FogReveal)


def digest_of(state_hash: str) -> bytes:
    """engine.state_hash (hex) as the 32 bytes a TurnHash carries."""
    return bytes.fromhex(state_hash)


# ---------------------------------------------------------------- lockstep


class Lockstep:
    """One game in lockstep with one peer (see the module docstring)."""

    def __init__(self, game_id: bytes, match: Match, our_side: Side, *,
                 record: Recorder | None = None, move_time: int = 0) -> None:
        self.game_id = game_id
        self.move_time = move_time  # seconds per turn agreed in the lobby (0: no limit)
        self.match = match
        self.our_side = our_side
        self.peer_side = our_side.other
        self.log: list[Message] = []
        self.peer_processed = 0
        self.intents_sent = 0
        self.peer_intents_applied = 0
        self.our_takeback: int | None = None
        self.peer_takeback: int | None = None
        self.takeback_cancelled = False  # we asked the peer to decline our request
        self.takebacks = 0  # accepted takebacks so far (a turn taken back starts anew)
        self._answered_takeback: int | None = None  # the turn of our latest answer
        self.desync: DesyncReport | None = None
        self._record = record
        self._skipped = 0  # refused peer inputs not journalled yet (see _journal)
        self._awaiting_hash: tuple[int, str] | None = None
        self._hash_sent: int | None = None  # the turn of the last TurnHash we sent
        self._turn_ends: dict[int, int] = {}  # turn -> number of actions when it ended
        self._resigned = False
        ended = match.current.result
        self.result: GameResult | None = (GameResult(ended.winner, ended.reason, "rules")
                                          if ended is not None else None)

    # ------------------------------------------------------------ reading

    fog = False  # a game with fog of war (net.lockstep_fog.FogLockstep)

    @property
    def current(self) -> Position:
        """The position this machine holds now (a fog-of-war game: our half state)."""
        return self.match.current

    @property
    def steps(self) -> int:
        """How many actions were played (what a SaveNotice counts)."""
        return len(self.match.actions)

    @property
    def our_turn(self) -> bool:
        """True when we may play an intent now."""
        return (self.current.side_to_act is self.our_side and self.result is None
                and self.desync is None)

    @property
    def state_hash(self) -> str:
        return self.match.current_hash

    @property
    def stopped(self) -> bool:
        return self.desync is not None

    # ------------------------------------------------------------ local commands

    def play(self, intent: Intent) -> Step:
        """Play one of our intents: checked with the engine (IllegalIntent names the rule),
        applied here and sent."""
        self._check_can_change("play")
        current = self.current
        if current.side_to_act is not self.our_side:
            raise LockstepError(f"R4.1: it is {current.side_to_act.title}'s turn "
                                f"(turn {current.turn})")
        return self._own(IntentMessage(current.turn, self.intents_sent, intent))

    def resign(self) -> Step:
        """Resign: always possible while the game runs, whatever waits for an answer
        (issue 20 hole 3: a silent peer must not keep us from ending the game)."""
        self._check_running_here("resign")
        return self._own(Resign())

    def request_takeback(self, turn: int | None = None) -> Step:
        """Ask to take back everything from the start of ``turn`` (default: the latest
        turn in which we acted). R14.2: non-competitive games only."""
        self._check_can_change("ask for a takeback")
        if turn is None:
            turn = self._latest_turn_of(self.our_side)
        problem = self._takeback_problem(turn)
        if problem:
            raise LockstepError(problem)
        return self._own(TakebackRequest(turn))

    def answer_takeback(self, accept: bool) -> Step:
        """Answer the peer's takeback request (also while ours waits: two crossing
        requests are both answered; undoing to the earlier turn wins either way)."""
        self._check_running_here("answer a takeback request")
        if self.peer_takeback is None:
            raise LockstepError("there is no takeback request to answer")
        return self._own(TakebackAnswer(self.peer_takeback, accept))

    def cancel_takeback(self) -> Step:
        """Withdraw our takeback request: the peer declines it as soon as the cancel
        arrives (if its answer is already on the way, that answer stands)."""
        self._check_running_here("cancel a takeback request")
        if self.our_takeback is None:
            raise LockstepError("there is no takeback request of yours to cancel")
        if self.takeback_cancelled:
            raise LockstepError("the takeback request is being cancelled; the answer "
                                "comes with the other machine's next message")
        return self._own(TakebackCancel(self.our_takeback))

    @property
    def exchange_waiting(self) -> int | None:
        """None, or how far the game's exchange has gone while it waits for the other
        machine (a fog-of-war game's protocol, net.lockstep_fog): the number grows with
        every step, so a clock can time a stall (net.game_clock). An open game has no
        such exchange: intents are applied as they come."""
        return None

    def claim_time(self, kind: str, seconds: int) -> Step:
        """Claim the win because the peer owes us something for too long (``kind``: its
        turn beyond the move time or the idle limit, the answer to our takeback request,
        or the next message of the game's exchange, ``protocol``); the Peer checks the
        time on its clock first. Always possible while the game runs, whatever waits."""
        self._check_running_here("claim the win")
        current = self.current
        if kind in ("move_time", "idle"):
            if current.side_to_act is not self.peer_side:
                raise LockstepError("it is your turn: there is no move to wait for")
            if kind == "move_time" and not self.move_time:
                raise LockstepError("this game has no time limit per move")
        elif kind == "answer":
            if self.our_takeback is None:
                raise LockstepError("no takeback request of yours waits for an answer")
        elif kind == "protocol":
            if self.exchange_waiting is None:
                raise LockstepError("nothing of the game's exchange waits for the other "
                                    "machine")
        else:
            raise LockstepError(f"no such claim: {kind!r}")
        return self._own(TimeClaim(kind, current.turn, max(0, int(seconds))))

    def chat(self, text: str) -> Step:
        if not 1 <= len(text) <= MAX_CHAT or not text.isprintable():
            raise LockstepError(f"a chat line has 1 to {MAX_CHAT} printable characters")
        return self._own(Chat(text))

    @property
    def save_pending(self) -> None:
        """Always None: a save no longer waits for the peer (kept for readers of
        snapshots)."""
        return None

    def save(self) -> Step:
        """Save the game on both machines (each names its own file): now here, when
        the notice arrives there."""
        if self.our_takeback is not None:
            raise LockstepError("cannot save while your takeback request waits for an "
                                "answer")
        return self._own(SaveNotice(self.steps))

    def claim_win(self, reason: str) -> Step:
        """The peer stayed away longer than the grace period: we win by forfeit."""
        if self.result is not None:
            raise LockstepError("the game is already over")
        self._journal("claim", reason)
        return self._end(GameResult(self.our_side, reason, "forfeit"))

    def close_by_peer(self, message: GameClosed) -> Step:
        """The peer closed this game while we were away (e.g. it claimed the win)."""
        self._journal("closed", message)
        if self.result is not None:
            return Step()
        winner = None if message.winner == "none" else Side(message.winner)
        return self._end(GameResult(winner, message.reason, "closed"))

    def resend_from(self, count: int) -> list[Message]:
        """Our log messages from ``count`` on (the peer processed the first ``count``)."""
        if count > len(self.log):
            raise LockstepError(f"the peer says it processed {count} of our messages, but "
                                f"we sent only {len(self.log)}")
        return self.log[count:]

    # ------------------------------------------------------------ our own messages

    def _check_running_here(self, what: str) -> None:
        if self.desync is not None:
            raise LockstepError(f"cannot {what}: the game stopped after a desync at turn "
                                f"{self.desync.turn}")
        if self.result is not None:
            raise LockstepError(f"cannot {what}: the game is over ({self.result.reason})")

    def _check_can_change(self, what: str) -> None:
        if self.desync is not None:
            raise LockstepError(f"cannot {what}: the game stopped after a desync at turn "
                                f"{self.desync.turn}")
        if self.result is not None:
            raise LockstepError(f"cannot {what}: the game is over ({self.result.reason})")
        if self.our_takeback is not None:
            raise LockstepError(f"cannot {what} while your takeback request waits for an "
                                "answer")

    def _own(self, message: Message, record: bool = True) -> Step:
        """Apply one of our messages (checked before anything changes), log it, journal
        it (``record``: a local command, not a reaction) and return it to send."""
        apply: Callable[[Message], Callable[[], Step]] = getattr(
            self, _OWN_EFFECTS[type(message)])
        commit = apply(message)  # raises before any change
        if record:
            self._journal("out", message)
        self.log.append(message)
        step = Step(send=[message])
        logged = len(self.log)
        extra = commit()
        already = self.log[logged:]  # follow-ups the commit logged itself
        for follow in extra.send:
            if not any(follow is m for m in already):
                self.log.append(follow)
        step.send += extra.send
        step.events += extra.events
        return step

    def _own_intent(self, message: IntentMessage) -> Callable[[], Step]:
        before = self.match.current
        if message.turn != before.turn or before.side_to_act is not self.our_side:
            raise LockstepError(f"R4.1: not our turn (turn {before.turn}, "
                                f"{before.side_to_act.title} to act)")
        after = self.match.play(message.intent)  # IllegalIntent names the rule

        def commit() -> Step:
            self.intents_sent += 1
            step = self._applied(after, message, by_us=True)
            ended = self._turn_end_of(before.turn, after)
            if ended is not None:
                step.send.append(TurnHash(before.turn, digest_of(ended)))
                self._hash_sent = before.turn
                step.events.append(TurnEnded(True, before.turn, ended))
            return step
        return commit

    def _own_resign(self, message: Resign) -> Callable[[], Step]:
        def commit() -> Step:
            self._resigned = True
            return self._end(GameResult(self.peer_side, f"{self.our_side.title} resigned",
                                        "resign"))
        return commit

    def _own_takeback_request(self, message: TakebackRequest) -> Callable[[], Step]:
        def commit() -> Step:
            self.our_takeback = message.turn
            return Step(events=[TakebackRequested(True, message.turn)])
        return commit

    def _own_takeback_answer(self, message: TakebackAnswer) -> Callable[[], Step]:
        if self.peer_takeback != message.turn:
            raise LockstepError("there is no takeback request for this turn")

        def commit() -> Step:
            self.peer_takeback = None
            self._answered_takeback = message.turn
            if message.accepted:
                self._undo(message.turn)
            return Step(events=[TakebackAnswered(True, message.turn, message.accepted,
                                                 self.state_hash)])
        return commit

    def _own_takeback_cancel(self, message: TakebackCancel) -> Callable[[], Step]:
        def commit() -> Step:
            self.takeback_cancelled = True
            return Step(events=[TakebackCancelled(True, message.turn)])
        return commit

    def _own_time_claim(self, message: TimeClaim) -> Callable[[], Step]:
        return lambda: self._end(GameResult(self.our_side, self._claim_reason(
            message, self.peer_side), "time"))

    def _claim_reason(self, message: TimeClaim, loser: Side) -> str:
        winner = loser.other
        if message.kind == "answer":
            what = f"left a takeback request unanswered for {message.seconds} s"
        elif message.kind == "protocol":
            what = (f"stopped answering the game's questions for {message.seconds} s in turn "
                    f"{message.turn}")
        elif message.kind == "move_time":
            what = (f"did not finish turn {message.turn} within the {self.move_time} s "
                    "time limit")
        else:
            what = f"did not finish turn {message.turn} in {message.seconds} s"
        return f"{loser.title} {what}; {winner.title} claimed the win"

    def _own_chat(self, message: Chat) -> Callable[[], Step]:
        return lambda: Step(events=[ChatLine(True, message.text)])

    def _own_save(self, message: SaveNotice) -> Callable[[], Step]:
        return lambda: Step(events=[SaveNow(self.match, True)])

    # ------------------------------------------------------------ the peer's messages

    def receive(self, message: Message) -> Step:
        """Handle one peer lockstep message; a refused one is answered with a Rejection
        and a Refused event and never applied.

        Every game message is counted (``peer_processed``: the Resume count) and
        journalled before it takes effect: an accepted one in full, a refused one only
        as a count, written with the next record (``("skip", n)``), so a flood of
        refused input costs the journal nothing (issue 20 hole 2). The handlers check
        first and return the change to make, so nothing changes before the record."""
        if isinstance(message, Rejection):
            return Step(events=[PeerRefused(message.refused, message.reason)])
        name = _PEER_HANDLERS.get(type(message))
        if name is None:
            return self._refuse(message, "not a game message")
        handler: Callable[[Message], Commit] = getattr(self, name)
        try:
            if self._awaiting_hash is not None and not isinstance(message, TurnHash):
                raise Refusal(f"the hash of turn {self._awaiting_hash[0]} must come "
                               "first")
            commit = handler(message)
        except Refusal as refusal:
            return self.refuse(message, refusal.reason)
        self._journal("in", message)
        self.peer_processed += 1
        return commit()

    def refuse(self, message: Message, reason: str) -> Step:
        """Refuse one peer game message without looking at it (e.g. over a rate limit
        the Peer keeps): counted like any game message, journalled as a skip."""
        self._skipped += 1
        self.peer_processed += 1
        return self._refuse(message, reason)

    def _refuse(self, message: Message, reason: str) -> Step:
        return Step(send=[Rejection(message.TAG[:32], reason[:200])],
                    events=[Refused(message.TAG, reason)])

    def _journal(self, kind: RecordKind, item: Any) -> None:
        """Record one input before it takes effect, after the count of the refused peer
        messages since the last record (which only move ``peer_processed``). A crash
        that loses that count is harmless: the peer resends those messages after the
        restart, and they are refused again, since nothing was accepted since."""
        self.flush_journal()
        if self._record is not None:
            self._record(kind, item)

    def flush_journal(self) -> None:
        """Write the count of refused peer messages not journalled yet."""
        if self._record is not None and self._skipped:
            self._record("skip", self._skipped)
        self._skipped = 0

    def _check_running(self) -> None:
        if self.desync is not None:
            raise Refusal(f"the game stopped after a desync at turn {self.desync.turn}")
        if self.result is not None:
            raise Refusal(f"the game is over ({self.result.reason})")

    def _on_intent(self, message: IntentMessage) -> Commit:
        self._check_running()
        expected = self.peer_intents_applied
        if message.index < expected:
            raise Refusal(f"intent #{message.index} was already applied (a duplicate)")
        if message.index > expected:
            raise Refusal(f"intent #{message.index} arrived while #{expected} was expected "
                           "(a gap)")
        before = self.match.current
        if before.side_to_act is not self.peer_side:
            raise Refusal(f"R4.1: out of turn: it is {before.side_to_act.title}'s turn "
                           f"(turn {before.turn})")
        if message.turn != before.turn:
            raise Refusal(f"R4.1: out of turn: an intent for turn {message.turn} during "
                           f"turn {before.turn}")
        try:
            after = self.match.play(message.intent)
        except IllegalIntent as exc:
            raise Refusal(f"illegal intent: {exc}") from None
        except (WecError, ValueError, TypeError, KeyError, IndexError) as exc:
            raise Refusal(f"the engine refused the intent ({type(exc).__name__})") from None

        def commit() -> Step:
            self.peer_intents_applied += 1
            step = self._applied(after, message, by_us=False)
            ended = self._turn_end_of(before.turn, after)
            if ended is not None:
                self._awaiting_hash = (before.turn, ended)
                step.events.append(TurnEnded(False, before.turn, ended))
            return step
        return commit

    def _on_turn_hash(self, message: TurnHash) -> Commit:
        awaited = self._awaiting_hash
        if awaited is None:
            raise Refusal(f"a hash of turn {message.turn} that was not expected")
        turn, ours = awaited
        if message.turn != turn:
            raise Refusal(f"the hash of turn {message.turn} came where the hash of turn "
                           f"{turn} was expected")

        def commit() -> Step:
            self._awaiting_hash = None
            theirs = message.digest.hex()
            if theirs == ours:
                return Step(events=[TurnAgreed(turn, ours)])
            return self._desync(turn, ours, theirs)
        return commit

    def _on_resign(self, message: Resign) -> Commit:
        if self.result is not None and self._resigned and self.result.how == "resign":
            return lambda: self._end(GameResult(None, "both players resigned at once",
                                                "resign"), replace=True)
        self._check_running()
        return lambda: self._end(GameResult(self.our_side, f"{self.peer_side.title} "
                                                           "resigned", "resign"))

    def _on_takeback_request(self, message: TakebackRequest) -> Commit:
        self._check_running()
        if self.peer_takeback is not None:
            raise Refusal("a takeback request is already waiting for an answer")
        problem = self._takeback_problem(message.turn)
        if problem:
            raise Refusal(problem)

        def commit() -> Step:
            self.peer_takeback = message.turn
            return Step(events=[TakebackRequested(False, message.turn)])
        return commit

    def _on_takeback_answer(self, message: TakebackAnswer) -> Commit:
        self._check_running()
        if self.our_takeback is None or self.our_takeback != message.turn:
            raise Refusal(f"an answer to a takeback of turn {message.turn}, which we did "
                           "not ask for")

        def commit() -> Step:
            self.our_takeback = None
            self.takeback_cancelled = False
            if message.accepted:
                self._undo(message.turn)
            return Step(events=[TakebackAnswered(False, message.turn, message.accepted,
                                                 self.state_hash)])
        return commit

    def _on_takeback_cancel(self, message: TakebackCancel) -> Commit:
        self._check_running()
        if self.peer_takeback == message.turn:
            def decline() -> Step:
                self.peer_takeback = None
                self._answered_takeback = message.turn
                answer = TakebackAnswer(message.turn, False)
                self.log.append(answer)
                return Step(send=[answer], events=[
                    TakebackCancelled(False, message.turn),
                    TakebackAnswered(True, message.turn, False, self.state_hash)])
            return decline
        if self._answered_takeback == message.turn:  # it crossed our answer, which stands
            def crossed() -> Step:
                self._answered_takeback = None
                return Step()
            return crossed
        raise Refusal(f"no takeback request of turn {message.turn} waits for our answer")

    def _on_time_claim(self, message: TimeClaim) -> Commit:
        """The peer claims the win on time. What the rules decide is checked here (our
        turn, that turn, a time limit agreed; or an answer we owe); the time itself on
        our own clock by the Peer before (net.game_host), so that a replayed journal
        decides the same."""
        self._check_running()
        current = self.current
        if message.kind in ("move_time", "idle"):
            if current.side_to_act is not self.our_side or message.turn != current.turn:
                raise Refusal(f"a time claim about turn {message.turn}, but it is "
                               f"{current.side_to_act.title}'s turn {current.turn}")
            if message.kind == "move_time" and not self.move_time:
                raise Refusal("this game has no time limit per move")
        elif message.kind == "protocol":
            if self.exchange_waiting is None:
                raise Refusal("its machine owes no answer in the game's exchange")
        elif self.peer_takeback is None:
            raise Refusal("no takeback request of the peer waits for our answer")
        return lambda: self._end(GameResult(self.peer_side, self._claim_reason(
            message, self.our_side), "time"))

    def _on_fog(self, message: FogWire) -> Commit:
        raise Refusal("this game has no fog of war")

    def _on_fog_part(self, message: FogPart) -> Commit:
        raise Refusal("this game has no fog of war")

    def _on_fog_reveal(self, message: FogReveal) -> Commit:
        raise Refusal("this game has no fog of war")

    def _on_chat(self, message: Chat) -> Commit:
        return lambda: Step(events=[ChatLine(False, message.text)])

    def _on_save(self, message: SaveNotice) -> Commit:
        actions = len(self.match.actions)
        if message.actions > actions:
            raise Refusal(f"a save after {message.actions} actions, but the game has "
                           f"{actions}")
        saved = replace(self.match, actions=self.match.actions[:message.actions])
        return lambda: Step(events=[SaveNow(saved, False)])

    def _on_desync_detail(self, message: DesyncDetail) -> Commit:
        """The peer's state after a turn whose hashes differ. Taken only after a mismatch
        computed here (issue 20 hole 5: an unprompted report stopped the game and pulled
        our full state): when we found it (the report is ours), or when the peer disputes
        the hash we sent last and its own hash of that turn really differs from ours."""
        report = self.desync
        theirs = message.digest.hex()
        if report is not None:
            if report.complete:
                raise Refusal("the desync details were already received")
            if message.turn != report.turn:
                raise Refusal(f"desync details of turn {message.turn}, but the desync is "
                               f"at turn {report.turn}")
            return lambda: self._desync_details(message, Step())
        turn = message.turn
        if self._hash_sent != turn:
            raise Refusal(f"desync details of turn {turn}, whose hash we did not send "
                           "last: there is no mismatch to report")
        ours = self._hash_of(turn)
        if theirs == ours:
            raise Refusal(f"our hash of turn {turn} is the same as the peer's: there is "
                           "no desync")
        return lambda: self._desync_details(message, self._desync(turn, ours, theirs))

    def _desync_details(self, message: DesyncDetail, step: Step) -> Step:
        """Complete our desync report with the peer's public state."""
        found = self.desync
        assert found is not None
        try:
            public = unpack_untrusted(message.public, MAX_POSITION_BYTES)
            if not isinstance(public, dict):
                raise MessageError("not a map")
            found.add_theirs(message.digest.hex(), public)
        except MessageError as exc:
            found.add_theirs(message.digest.hex(), None,
                             note=f"the peer's public state could not be read: "
                                  f"{exc.reason}")
        step.events.append(DesyncReportReady(found))
        return step

    # ------------------------------------------------------------ shared effects

    def _applied(self, after: Match, message: IntentMessage, by_us: bool) -> Step:
        side = self.match.current.side_to_act
        self.match = after
        step = Step(events=[IntentApplied(by_us, side, message.turn, message.index,
                                          message.intent, after.current_hash)])
        outcome = after.current.result
        if outcome is not None and self.result is None:
            step.events += self._end(GameResult(outcome.winner, outcome.reason,
                                                "rules")).events
        return step

    def _turn_end_of(self, turn: int, after: Match) -> str | None:
        """The state hash when ``turn`` just ended (or the game did), else None."""
        current = after.current
        if current.turn == turn and current.result is None:
            return None
        self._turn_ends[turn] = len(after.actions)
        return after.current_hash

    def _end(self, result: GameResult, replace: bool = False) -> Step:
        if self.result is not None and not replace:
            return Step()
        self.result = result
        return Step(events=[GameOver(result)])

    def _desync(self, turn: int, ours: str, theirs: str) -> Step:
        public = self._public_at(turn)
        self.desync = DesyncReport(self.game_id.hex(), turn, self.our_side.value, ours,
                                   theirs, public)
        data = msgpack.packb(public, use_bin_type=True)
        detail = DesyncDetail(turn, digest_of(ours),
                              data if len(data) <= MAX_POSITION_BYTES else b"")
        self.log.append(detail)
        return Step(send=[detail], events=[Desynced(self.desync)])

    def _hash_of(self, turn: int) -> str:
        """Our turn hash of ``turn`` (the latest state when it has not ended)."""
        return self.match.hash_at(self._turn_ends.get(turn, len(self.match.actions)))

    def _public_at(self, turn: int) -> dict[str, Any]:
        """The public state (engine.encoding.public_state: no piece) when ``turn`` ended:
        all a desync report holds or sends (issue 21 item 8)."""
        index = self._turn_ends.get(turn, len(self.match.actions))
        return public_state(self.match.position_at(index))

    def _latest_turn_of(self, side: Side) -> int:
        for action in reversed(self.match.actions):
            if action.side is side:
                return action.turn
        raise LockstepError("there is nothing of yours to take back")

    def _takeback_problem(self, turn: int) -> str | None:
        if self.match.competitive:
            return "R14.3: no takeback in competitive mode"
        current = self.match.current.turn
        first = self.match.start.turn
        if not first <= turn <= current:
            return f"R14.2: a takeback goes back to a turn from {first} to {current} " \
                   f"(asked: {turn})"
        if self._actions_before(turn) == len(self.match.actions):
            return f"R14.2: nothing was played since the start of turn {turn}"
        return None

    def _actions_before(self, turn: int) -> int:
        return sum(1 for action in self.match.actions if action.turn < turn)

    def _undo(self, turn: int) -> None:
        self.takebacks += 1
        try:
            self.match = self.match.undo_to(self._actions_before(turn))
        except MatchError as exc:  # checked before; a refusal here is a bug
            raise LockstepError(str(exc)) from None
        self._turn_ends = {t: n for t, n in self._turn_ends.items() if t < turn}
        if self._hash_sent is not None and self._hash_sent >= turn:
            self._hash_sent = None

    # ------------------------------------------------------------ restore

    @classmethod
    def restore(cls, game_id: bytes, match: Match, our_side: Side,
                records: Iterable[tuple[RecordKind, Any]],
                record: Recorder | None = None, move_time: int = 0) -> Lockstep:
        """The lockstep state after replaying a journal (see the module docstring)."""
        lockstep = cls(game_id, match, our_side, move_time=move_time)
        for kind, item in records:
            lockstep._replay(kind, item)
        lockstep._record = record
        return lockstep

    def _replay(self, kind: RecordKind, item: Any) -> None:
        """Take one journal record again, as when it was first recorded (restore)."""
        if kind == "out":
            self._own(item)
        elif kind == "in":
            self.receive(item)
        elif kind == "skip":
            self.peer_processed += int(item)
        elif kind == "claim":
            if self.result is None:
                self.claim_win(str(item))
        elif kind == "closed":
            self.close_by_peer(item)
        else:
            raise ValueError(f"unknown journal record {kind!r}")


# the handlers by name, so that a subclass (net.lockstep_fog.FogLockstep) overrides them
_OWN_EFFECTS: dict[type[Message], str] = {
    IntentMessage: "_own_intent",
    Resign: "_own_resign",
    TakebackRequest: "_own_takeback_request",
    TakebackAnswer: "_own_takeback_answer",
    TakebackCancel: "_own_takeback_cancel",
    TimeClaim: "_own_time_claim",
    Chat: "_own_chat",
    SaveNotice: "_own_save",
}

_PEER_HANDLERS: dict[type[Message], str] = {
    IntentMessage: "_on_intent",
    TurnHash: "_on_turn_hash",
    Resign: "_on_resign",
    TakebackRequest: "_on_takeback_request",
    TakebackAnswer: "_on_takeback_answer",
    TakebackCancel: "_on_takeback_cancel",
    TimeClaim: "_on_time_claim",
    Chat: "_on_chat",
    SaveNotice: "_on_save",
    DesyncDetail: "_on_desync_detail",
    FogWire: "_on_fog",
    FogPart: "_on_fog_part",
    FogReveal: "_on_fog_reveal",
}
