"""Lockstep play of a game with fog of war (issue 21): each machine holds only its half.

:class:`FogLockstep` is the :class:`~net.lockstep.Lockstep` of a game with O15 or O16
on. Everything that does not depend on the pieces stays as it is (resign, chat, time
claims, saves, resume, the journal, counting and refusing the peer's messages); what
does is played by the fog protocol (``net.fog_game.FogGame``, sans-IO), whose messages
travel inside :class:`~net.messages.FogWire` lockstep messages, so they are counted,
journalled and resent after a drop like any other:

- **Intents**: :meth:`FogLockstep.play` hands our intent to the FogGame, which starts its
  resolution over the wire; the peer never receives an intent it may not know (a hidden
  mover's intent stays here). An intent is applied, on each side's half state, when the
  FogGame says so (:class:`FogApplied`, with this side's own events only).
- **Turn hashes**: the public hash (engine.encoding.public_state_hash plus both sides'
  signed commitments) replaces the full-state hash. The side whose turn ended sends it
  (TurnHash); each side compares it with its own as soon as it has both, so a hash never
  has to wait for the protocol's last answer. A mismatch stops the game with a desync
  report of the public state only.
- **Takebacks** are refused: undoing would need both machines to unwind their
  commitments and answers (R14.2 undo stays a hotseat feature; see docs/network.md).
- **Saves**: our half state and our record of the exchange (FogGame.record), never the
  peer's pieces (:class:`FogSaveNow`; wec.storage.fog_saves).
- **The end**: however the game ends (rules, resign, time, agreed, forfeit), each side
  sends its reveal once (:class:`~net.messages.FogReveal`); with both, each audits the
  whole game (FogGame.audit) and reports the verdict (:class:`Audited`).

The journal records our intents as ``("play", intent)``, the peer's messages as
``("in", message)`` and each finish the I/O layer settled as ``("settle", None)``
(:meth:`FogLockstep.settle`): the FogGame is deterministic from its seed and these
inputs, so a restarted process replays it into the same state
(:meth:`FogLockstep.restore`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

import msgpack  # type: ignore[import-untyped]

from wec.engine.encoding import full_state_hash, public_state
from wec.engine.errors import MatchError
from wec.engine.formats import intent_from_dict, intent_to_dict
from wec.engine.game import legal_intents
from wec.engine.intents import Intent
from wec.engine.match import Action, Match
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.net.errors import MessageError
from wec.net.fog_game import Applied, Fault, FogError, FogMessage
from wec.net.fog_game import Refused as FogRefused
from wec.net.fog_game import TurnHash as FogTurnHash
from wec.net.frames import HEADER_SIZE, TAG_SIZE, padded_size
from wec.net.lockstep import (
    Commit,
    GameEvent,
    GameResult,
    Lockstep,
    LockstepError,
    Recorder,
    RecordKind,
    Refused,
    Step,
    TurnAgreed,
    TurnEnded,
)
from wec.net.messages import (
    MAX_MESSAGE_BYTES,
    FogPart,
    FogReveal,
    FogWire,
    IntentMessage,
    Message,
    SaveNotice,
    TurnHash,
    encode_message,
    unpack_untrusted,
)
from wec.net.steps import Refusal


class FogGameLike(Protocol):
    """What the lockstep needs of net.fog_game.FogGame (one machine's side, sans-IO)."""

    @property
    def half(self) -> Position: ...

    @property
    def public_hash(self) -> str: ...

    @property
    def busy(self) -> bool: ...

    @property
    def exchanged(self) -> int: ...

    def opening(self) -> list[Any]: ...

    def play(self, intent: Intent) -> Any: ...

    def receive(self, message: Any) -> Any: ...

    def reveal(self) -> Any: ...

    @property
    def finish_due(self) -> bool: ...

    def settle(self) -> Any: ...

    def audit(self, their_reveal: Any, peer_stopped: bool = False) -> Any: ...

    def unrevealed(self) -> Any: ...

    def close(self) -> None: ...

    def record(self) -> Any: ...


# ---------------------------------------------------------------- our half, as a match


@dataclass(frozen=True, slots=True)
class HalfMatch(Match):
    """The game as this machine knows it with fog of war: a Match whose positions are
    our half states (never the full state) and whose actions carry our own events
    (R14.3), so that what reads a match (the play screen, the move list, the computer
    seat) reads ours. It is never played on: the FogGame resolves every intent."""

    @classmethod
    def of_half(cls, half: Position) -> HalfMatch:
        return cls(half, full_state_hash(half))

    def view(self, side: Side) -> Position:
        current = self.current
        if side is not current.viewer:
            raise ValueError(f"with fog of war this machine holds only "
                             f"{current.viewer.value if current.viewer else '?'}'s view")
        return current

    def legal_intents(self, side_view: bool = True) -> list[Intent]:
        return legal_intents(self.current)

    def play(self, intent: Intent) -> Match:
        raise MatchError("R4.13", "with fog of war an intent is resolved with the other "
                                  "machine (net.fog_game)")

    def applied(self, intent: Intent, side: Side, turn: int, position: Position,
                events: tuple[Any, ...]) -> HalfMatch:
        """This match with one more action (our half after it, our events). Its
        "state hash" names the step (the start's hash and the action's number): a
        HalfMatch only grows, and hashing a half state per action costs a millisecond
        of every action's time for nothing."""
        ours = position.viewer
        seen = (events, ()) if ours is Side.BLACK else ((), events)
        action = Action(intent, side, turn, position, events,
                        f"{self.start_hash[:32]}-{len(self.actions) + 1}", seen)
        return HalfMatch(self.start, self.start_hash, (*self.actions, action))


# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class FogApplied(GameEvent):
    """An intent was applied on our half state (ours when ``by_us``; ``intent`` is None
    for a peer's intent we may not know); ``events`` are this side's own (R14.3)."""

    kind: ClassVar[str] = "intent"
    by_us: bool
    side: Side
    turn: int
    intent: Intent | None
    events: tuple[Any, ...]
    public_hash: str  # the turn hash of the turn we are in ("" until both committed)
    index: int = 0  # the action's number in the game (the same on both machines)
    wire_bytes: int = 0  # what this side sent for it: frames, padded and sealed


@dataclass(frozen=True)
class IntentSent(GameEvent):
    """Our intent went out (its resolution over the wire begins): action ``index``."""

    kind: ClassVar[str] = "intent_sent"
    index: int


@dataclass(frozen=True)
class Verified(GameEvent):
    """Answers about hidden pieces were checked at once against the peer's signed
    commitments (the client's small "verified" indicator)."""

    kind: ClassVar[str] = "verified"
    count: int


@dataclass(frozen=True)
class FogSaveNow(GameEvent):
    """Write a save of our half of the game now (``asked_by_us``: we asked)."""

    kind: ClassVar[str] = "save"
    save: dict[str, Any]
    asked_by_us: bool


@dataclass(frozen=True)
class Audited(GameEvent):
    """The end-of-game audit: ``clean``, or the first inconsistency (``turn``,
    ``action``, ``reason``) with the signed messages that prove it (``proof``);
    ``history`` is the audited full game (a Match, for Replays) when it could be
    rebuilt."""

    kind: ClassVar[str] = "audit"
    clean: bool
    summary: str
    turn: int | None = None
    action: int | None = None
    proof: Any = None
    history: Any = None


# ---------------------------------------------------------------- helpers


# the bytes of a FogPart or FogWire: one session frame each (a 48 KiB fog body and its
# evidence entry fit one; 48,000 until session 30)
PART_SIZE = 60_000
MAX_PARTS_BYTES = 1 << 20  # one fog protocol message in parts, at most
# the result when the peer's reveal comes while our game goes on
PEER_STOPPED = ("the game stopped: the peer ended it and revealed its record while it "
                "went on here (a fault its program met, or an end this machine did not "
                "share); the audit says whether either side broke the protocol")


def pack_fog(message: FogMessage, limit: int = MAX_PARTS_BYTES) -> bytes:
    """A FogMessage (net.fog_game) as the bytes FogWire (and FogPart) or FogReveal
    carry."""
    data: bytes = msgpack.packb(message.to_wire(), use_bin_type=True)
    if len(data) > limit:
        raise LockstepError(f"a fog protocol message of {len(data)} bytes is too large")
    return data


def wire_messages(data: bytes) -> list[Message]:
    """One packed fog protocol message as lockstep messages: FogParts, then a FogWire
    with the last part."""
    chunks = [data[at:at + PART_SIZE] for at in range(0, len(data), PART_SIZE)] or [data]
    return [*(FogPart(chunk) for chunk in chunks[:-1]), FogWire(chunks[-1])]


def unpack_fog(data: bytes, limit: int = MAX_PARTS_BYTES) -> FogMessage:
    """The FogMessage a FogWire carries; Refusal when it is not one."""
    try:
        return FogMessage.from_wire(unpack_untrusted(data, limit))
    except MessageError as exc:
        raise Refusal(f"unreadable fog protocol message: {exc.reason}") from None
    except FogError as exc:
        raise Refusal(f"unreadable fog protocol message: {exc.reason}") from None


# ---------------------------------------------------------------- the lockstep


class FogLockstep(Lockstep):
    """One game with fog of war in lockstep with one peer (see the module docstring)."""

    fog = True

    def __init__(self, game_id: bytes, game: FogGameLike, our_side: Side, *,
                 record: Recorder | None = None, move_time: int = 0,
                 auditor: Callable[[Any], Audited] | None = None) -> None:
        self.game = game
        self._auditor = auditor or audited_from
        # actions played so far: a FogGame restored from a save has them already
        self._steps = len(getattr(game, "actions", ()))
        self._our_hashes: dict[int, str] = {}  # turn -> our public hash when it ended
        self._their_hashes: dict[int, str] = {}  # turn -> the peer's, not compared yet
        self._publics: dict[int, dict[str, Any]] = {}  # turn -> public state at its end
        self._compared = 0  # the latest turn whose hashes were compared
        self._reveal_sent = False
        self._their_reveal: Any = None
        self._peer_stopped = False  # its reveal came while our game went on
        self.audit: Audited | None = None
        self.verified = 0
        self.fault: Fault | None = None
        self._parts: list[bytes] = []  # FogParts of the next fog protocol message
        self._wire_bytes = 0  # sent since the last action applied here (wec bench net)
        self._save_at: int | None = None  # the turn at whose start both sides save
        self._save_ours = False
        self._first_turn = game.half.turn
        self._applied_turn = game.half.turn
        self._init_common(game_id, our_side, record, move_time)
        self.match = HalfMatch.of_half(game.half)
        ended = game.half.result
        self.result = (GameResult(ended.winner, ended.reason, "rules")
                       if ended is not None else None)

    def _init_common(self, game_id: bytes, our_side: Side, record: Recorder | None,
                     move_time: int) -> None:
        self.game_id = game_id
        self.move_time = move_time
        self.our_side = our_side
        self.peer_side = our_side.other
        self.log: list[Message] = []
        self.peer_processed = 0
        self.intents_sent = 0
        self.peer_intents_applied = 0
        self.our_takeback: int | None = None
        self.peer_takeback: int | None = None
        self.takeback_cancelled = False
        self.takebacks = 0
        self._answered_takeback: int | None = None
        self.desync = None
        self._record = record
        self._skipped = 0
        self._awaiting_hash = None
        self._hash_sent = None
        self._turn_ends = {}
        self._resigned = False

    # ------------------------------------------------------------ reading

    @property
    def current(self) -> Position:
        return self.game.half

    @property
    def steps(self) -> int:
        return self._steps

    @property
    def state_hash(self) -> str:
        return self.game.public_hash

    @property
    def our_turn(self) -> bool:
        return super().our_turn and not self.game.busy

    # ------------------------------------------------------------ local commands

    def open(self) -> Step:
        """The start: our signed commitment to our hidden part of the start board."""
        step = Step()
        for message in self.game.opening():
            for wire in wire_messages(pack_fog(message)):
                self._send(step, wire)
        return step

    def play(self, intent: Intent) -> Step:
        """Play one of our intents: the FogGame starts its resolution over the wire."""
        self._check_can_change("play")
        current = self.current
        if current.side_to_act is not self.our_side:
            raise LockstepError(f"R4.1: it is {current.side_to_act.title}'s turn "
                                f"(turn {current.turn})")
        if self.game.busy:
            raise LockstepError("the previous action is still being resolved with the "
                                "other machine")
        self._journal("play", intent_to_dict(intent))
        index = self._steps
        step = self._play(intent)
        step.events.insert(0, IntentSent(index))
        return step

    def _play(self, intent: Intent) -> Step:
        step = self._fog_step(self.game.play(intent), intent)
        refused = [e for e in step.events if isinstance(e, Refused)]
        if refused:
            raise LockstepError(refused[0].reason)
        return step

    def _latest_turn_of(self, side: Side) -> int:
        return self.current.turn

    def _takeback_problem(self, turn: int) -> str | None:
        return ("R14.2: no takeback in a game with fog of war over the network: each "
                "machine holds only its half, and its commitments and answers cannot be "
                "unwound")

    @property
    def exchange_waiting(self) -> int | None:
        """While the fog game waits for the peer (an action resolving, a commitment of the
        turn missing: ``FogGame.busy``; our side of it is computed at once), how far its
        exchange has gone (``FogGame.exchanged``). A peer that stays connected and stops
        answering mid-action, on our turn, owes no move: this is what it owes."""
        return self.game.exchanged if self.result is None and self.game.busy else None

    def claim_win(self, reason: str) -> Step:
        step = super().claim_win(reason)
        self._log_sends(step)
        return step

    def close_by_peer(self, message: Any) -> Step:
        step = super().close_by_peer(message)
        self._log_sends(step)
        return step

    # ------------------------------------------------------------ the peer's messages

    def receive(self, message: Message) -> Step:
        step = super().receive(message)
        self._log_sends(step)
        return step

    @property
    def settle_due(self) -> bool:
        """Whether the FogGame has a finish to make now (``FogGame.settle``): the I/O
        layer calls :meth:`settle` once the step's messages are written."""
        return self.game.finish_due

    def settle(self) -> Step:
        """The FogGame's finish that waited for the peer's question, after our answer
        went out (journalled, so that a restart makes it at the same point)."""
        if not self.game.finish_due:
            return Step()
        self._journal("settle", None)
        return self._fog_step(self.game.settle(), None)

    def prepare(self) -> None:
        """Idle work of the fog game (``FogGame.prepare``: PSI material made ahead),
        for the I/O layer to call once a step's messages are sent: it sends nothing and
        changes no byte of what is sent later. A game without it does nothing."""
        for _ in self.preparing():
            pass

    def preparing(self) -> Iterator[None]:
        """The same idle work in slices (``FogGame.preparing``), for an event loop to run
        one slice per turn so that the peer's messages are read in between."""
        preparing = getattr(self.game, "preparing", None)
        if callable(preparing):
            yield from preparing()

    def _log_sends(self, step: Step) -> None:
        """Log what a step sends that the base class does not log itself."""
        for message in step.send:
            if isinstance(message, FogReveal) and not any(message is m for m in self.log):
                self.log.append(message)

    def _on_intent(self, message: IntentMessage) -> Commit:
        raise Refusal("in a game with fog of war, intents travel inside the fog protocol")

    def _on_fog_part(self, message: FogPart) -> Commit:
        self._after_verdict()
        if sum(map(len, self._parts)) + len(message.body) > MAX_PARTS_BYTES:
            raise Refusal("a fog protocol message in parts is too large")

        def commit() -> Step:
            self._parts.append(message.body)
            return Step()
        return commit

    def _after_verdict(self) -> None:
        """Refusal for a fog protocol message once the audit gave its verdict: the game
        and its record are final (FogGame.receive takes nothing then either)."""
        if self.audit is not None:
            self._parts = []
            raise Refusal("a fog protocol message after the audit's verdict: the game is "
                          "over")

    def _on_fog(self, message: FogWire) -> Commit:
        self._after_verdict()
        parts, self._parts = self._parts, []  # whatever comes of it, the parts are used
        body = unpack_fog(b"".join(parts) + message.body)
        return lambda: self._fog_step(self.game.receive(body), None)

    def _on_fog_reveal(self, message: FogReveal) -> Commit:
        if self._their_reveal is not None:
            raise Refusal("the reveal was already received")
        body = unpack_fog(message.body, MAX_MESSAGE_BYTES)

        def commit() -> Step:
            self._their_reveal = body
            step = Step()
            if self.result is None:
                # the peer reveals once its game is over, after every message of it (an
                # end by the rules needs our ``done`` of the last action, a time claim
                # or a resignation comes first): its program stopped the game (a fault
                # it met, or a claim we refused), and we would otherwise wait for
                # answers that never come
                self._peer_stopped = True
                step.extend(self._end(GameResult(None, PEER_STOPPED, "fault")))
            return self._maybe_audit(step)
        return commit

    def _on_turn_hash(self, message: TurnHash) -> Commit:
        turn = message.turn
        if turn <= self._compared or turn in self._their_hashes:
            raise Refusal(f"the hash of turn {turn} was already received")
        if turn > self.current.turn + 1:
            raise Refusal(f"a hash of turn {turn} during turn {self.current.turn}")

        def commit() -> Step:
            self._their_hashes[turn] = message.digest.hex()
            return self._compare(turn)
        return commit

    def _on_save(self, message: SaveNotice) -> Commit:
        """The peer saves at the start of turn ``actions`` (the field counts a turn in a
        game with fog of war): so do we."""
        if message.actions in self._our_hashes:
            raise Refusal(f"a save at the start of turn {message.actions}, which began "
                          "here already")

        def commit() -> Step:
            self._save_at, self._save_ours = message.actions, False
            return Step()
        return commit

    # ------------------------------------------------------------ the FogGame's steps

    def _send(self, step: Step, message: Message) -> None:
        self.log.append(message)
        step.send.append(message)
        self._wire_bytes += HEADER_SIZE + padded_size(len(encode_message(message))) + TAG_SIZE

    def _fog_step(self, fog_step: Any, intent: Intent | None) -> Step:
        """Carry out one FogStep: its messages go out (logged), its events become ours."""
        step = Step()
        for message in getattr(fog_step, "send", ()):
            for wire in wire_messages(pack_fog(message)):
                self._send(step, wire)
        for event in getattr(fog_step, "events", ()):
            self._translate(event, intent, step)
        if self.result is None and self.game.half.result is not None:
            ended = self.game.half.result
            step.extend(self._end(GameResult(ended.winner, ended.reason, "rules")))
        return self._maybe_reveal(step)

    def _translate(self, event: Any, intent: Intent | None, step: Step) -> None:
        """One event of the FogGame as lockstep events (and a TurnHash to send)."""
        if isinstance(event, FogRefused):
            step.events.append(Refused("intent", f"{event.rule}: {event.text}"
                                       if event.rule[:1] == "R" else event.text))
        elif isinstance(event, FogTurnHash):
            self._turn_hashed(event.turn, event.public_hash, step)
        elif isinstance(event, Applied):
            by_us = event.side is self.our_side
            if by_us:
                self.intents_sent += 1
            else:
                self.peer_intents_applied += 1
            self._steps += 1
            turn = event.outcome.position.turn
            if event.outcome.position.result is None and turn > self._applied_turn:
                turn -= 1  # the action ended a turn: it belongs to the turn before
            self._applied_turn = event.outcome.position.turn
            self.verified = self.game.verified if hasattr(self.game, "verified") \
                else self.verified + 1
            events = tuple(event.outcome.events)
            sent, self._wire_bytes = self._wire_bytes, 0
            assert isinstance(self.match, HalfMatch)
            self.match = self.match.applied(event.intent, event.side, turn,
                                            event.outcome.position, events)
            step.events.append(FogApplied(
                by_us, event.side, turn, None if event.hidden and not by_us else event.intent,
                events, self._our_hashes.get(self.current.turn, ""), self._steps - 1, sent))
            step.events.append(Verified(self.verified))
        elif isinstance(event, Fault):
            self.fault = event
            step.extend(self._end(GameResult(None, f"the game stopped: {event.reason}",
                                             "fault")))

    def _turn_hashed(self, turn: int, digest: str, step: Step) -> None:
        """Both commitments of ``turn`` are in: its hash (public state and both
        commitments) goes to the peer, and the turn before ended."""
        self._our_hashes[turn] = digest
        self._publics[turn] = public_state(self.game.half)
        if turn > self._first_turn:
            ended = turn - 1
            by_us = (ended % 2 == 1) == (self.our_side is Side.BLACK)  # Black: odd turns
            step.events.append(TurnEnded(by_us, ended, digest))
        self._hash_sent = turn
        self._send(step, TurnHash(turn, bytes.fromhex(digest)))
        if self._save_at == turn:  # the save both sides agreed on: now, at this point
            step.events.append(FogSaveNow(self.save_data(), self._save_ours))
            self._save_at = None
        step.extend(self._compare(turn))

    def _compare(self, turn: int) -> Step:
        ours = self._our_hashes.get(turn)
        theirs = self._their_hashes.get(turn)
        if ours is None or theirs is None:
            return Step()
        del self._their_hashes[turn]
        self._compared = max(self._compared, turn)
        if ours == theirs:
            return Step(events=[TurnAgreed(turn, ours)])
        return self._desync(turn, ours, theirs)

    def _hash_of(self, turn: int) -> str:
        return self._our_hashes.get(turn, self.game.public_hash)

    def _public_at(self, turn: int) -> dict[str, Any]:
        return self._publics.get(turn) or public_state(self.game.half)

    # ------------------------------------------------------------ the end and the audit

    def _end(self, result: GameResult, replace: bool = False) -> Step:
        step = super()._end(result, replace)
        return self._maybe_reveal(step)

    def _maybe_reveal(self, step: Step) -> Step:
        """Once the game is over and our side of the last action settled (nothing more
        to answer: the reveal is the last message of our signed chain), send our reveal
        once; a peer that is gone (forfeit) or broke the protocol is not waited for."""
        result = self.result
        if result is None or self._reveal_sent:
            return step
        # a game ended on time may have ended a stalled exchange (a ``protocol`` claim):
        # its last answers will not come either
        if self.game.busy and result.how not in ("forfeit", "closed", "fault", "time"):
            return step
        self._reveal_sent = True
        reveal = FogReveal(pack_fog(self.game.reveal(), MAX_MESSAGE_BYTES - 1024))
        self.log.append(reveal)
        step.send.append(reveal)
        return self._maybe_audit(step)

    def _maybe_audit(self, step: Step) -> Step:
        if self.audit is not None or not self._reveal_sent or self._their_reveal is None:
            return step
        try:
            verdict = self.game.audit(self._their_reveal, peer_stopped=self._peer_stopped)
        except NotImplementedError:
            self.audit = Audited(False, "not audited: this wec cannot audit yet")
        else:
            self.audit = self._auditor(verdict)
        step.events.append(self.audit)
        return step

    @property
    def awaiting_reveal(self) -> bool:
        """Our reveal went out, the peer's has not come: the audit waits for it."""
        return self._reveal_sent and self._their_reveal is None and self.audit is None

    def reveal_overdue(self) -> Step:
        """The peer did not reveal within the time the Peer allows (net.game_host): it
        refuses the audit, and the verdict names it (FogGame.unrevealed)."""
        if not self.awaiting_reveal:
            return Step()
        self._journal("unrevealed", None)
        self.audit = self._auditor(self.game.unrevealed())
        return Step(events=[self.audit])

    # ------------------------------------------------------------ saves

    def save(self) -> Step:
        """Save on both machines at a point both records agree on: the start of the next
        turn (the SaveNotice names it), when both commitments of that turn are in and
        both sides' resolutions settled; every message of either side before that point
        is in both records, none after it. A finished game is saved at once."""
        if self.result is not None:
            return Step(events=[FogSaveNow(self.save_data(), True)])
        return self._own(SaveNotice(self.current.turn + 1))

    def _own_save(self, message: SaveNotice) -> Callable[[], Step]:
        def commit() -> Step:
            self._save_at, self._save_ours = message.actions, True
            return Step()
        return commit

    def save_data(self) -> dict[str, Any]:
        """Our half of the game as a save holds it (wec.storage.fog_saves): our side, the
        public hash, how many actions, our half state now and the FogGame's record."""
        return {"side": self.our_side.value, "game": self.game_id.hex(),
                "public_hash": self.game.public_hash, "steps": self._steps,
                "half": self.game.half, "record": self.game.record()}

    # ------------------------------------------------------------ restore

    @classmethod
    def restore_fog(cls, game_id: bytes, game: FogGameLike, our_side: Side,
                    records: Iterable[tuple[RecordKind, Any]], *, opened: bool,
                    record: Recorder | None = None, move_time: int = 0) -> FogLockstep:
        """The lockstep after replaying a journal onto a fresh FogGame (``opened``: the
        game started here, so its opening is replayed first). A settle the process did
        not live to make (the journal ends on a message whose answer went out while our
        resolution's step or our finish waited, :meth:`settle`) is made now, journalled:
        its messages join our log, which the peer's Resume asks again; the peer may be
        waiting on them, with nothing to send that would make them."""
        lockstep = cls(game_id, game, our_side, move_time=move_time)
        if opened:
            lockstep.open()
        for kind, item in records:
            lockstep._replay(kind, item)
        lockstep._record = record
        if lockstep.settle_due:
            lockstep.settle()
        return lockstep

    def _replay(self, kind: RecordKind, item: Any) -> None:
        """The fog journal's own records (our intents, an overdue reveal), then the
        lockstep's."""
        if kind == "play":
            with contextlib.suppress(LockstepError):  # refused then too
                self._play(intent_from_dict(item))
        elif kind == "unrevealed":
            self.reveal_overdue()
        elif kind == "settle":
            self.settle()
        else:
            super()._replay(kind, item)


def audited_from(verdict: Any) -> Audited:
    """The FogGame's AuditVerdict as an :class:`Audited` event."""
    if isinstance(verdict, Audited):
        return verdict
    clean = bool(getattr(verdict, "clean", False))
    reason = str(getattr(verdict, "reason", "") or "")
    summary = "audited: clean" if clean else f"audited: {reason or 'inconsistency'}"
    return Audited(clean, summary, getattr(verdict, "turn", None),
                   getattr(verdict, "action", None), verdict,
                   getattr(verdict, "history", None))


__all__ = [
    "Audited",
    "FogApplied",
    "FogGameLike",
    "FogLockstep",
    "FogSaveNow",
    "IntentSent",
    "Verified",
    "audited_from",
    "pack_fog",
    "unpack_fog",
]
