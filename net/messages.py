"""The session's message types: small frozen dataclasses with strict msgpack encoding.

On the wire a message is one msgpack map: ``{"t": TAG, field: value, ...}``. Decoding is
strict: a known tag, exactly the declared fields (optional ones may be absent), every
value of the declared type and inside its range; anything else is a
:class:`MalformedMessage` or :class:`UnknownMessageType`, never another exception. The
msgpack reader itself runs with ``raw=False``, ``strict_map_key``, size limits, no
extension types and no duplicate map keys (a duplicate key is how two readers can be made
to disagree about one message).

Each field's rule is written next to it as ``Annotated[type, Spec]``; the same spec
checks outgoing messages, so we never send what the peer would refuse.

Extending: later protocol stages (hidden information, reconnect) add message types with
the :func:`register` decorator in their own modules; tags are unique and short.
"""

from __future__ import annotations

import hashlib
import logging
import re
import typing
from dataclasses import dataclass, fields
from typing import Annotated, Any, ClassVar, TypeVar

import msgpack  # type: ignore[import-untyped]

from wec import engine
from wec.engine.options import Options, options_from_dict, options_to_dict
from wec.engine.pieces import Government
from wec.net.errors import MalformedMessage, UnknownMessageType
from wec.net.identity import display_name_problem

log = logging.getLogger("wec.net.messages")

TAG_FIELD = "t"
MAX_MESSAGE_BYTES = 65536
MAX_TEXT = 200  # reasons, notes
MAX_CHAT = 500  # R-less UI limit: a chat line, not a letter
MAX_FILE_NAME = 128
MAX_MOVE_TIME = 24 * 3600  # seconds: the longest per-move time limit
MAX_TURN = 2 ** 31 - 1
MAX_COUNT = 2 ** 63 - 1
MAX_ID = 2 ** 32 - 1
DIGEST_SIZE = 32
COIN_NONCE_SIZE = 32
COLOURS = ("white", "black", "either")
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._ -]*")


# ---------------------------------------------------------------- field specs


class Spec:
    """How one field is checked when read (``load``) and written (``dump``)."""

    optional: bool = False

    def load(self, value: Any, where: str) -> Any:
        raise NotImplementedError

    def dump(self, value: Any) -> Any:
        return value


def _refuse(where: str, expected: str, value: Any) -> MalformedMessage:
    shown = repr(value)
    if len(shown) > 60:
        shown = shown[:57] + "..."
    return MalformedMessage(f"{where}: expected {expected} (got {shown})")


@dataclass(frozen=True)
class Int(Spec):
    """A whole number in ``low..high`` (booleans are not numbers here)."""

    low: int
    high: int
    optional: bool = False

    def load(self, value: Any, where: str) -> Any:
        if type(value) is not int or not self.low <= value <= self.high:
            raise _refuse(where, f"a whole number {self.low}..{self.high}", value)
        return value


@dataclass(frozen=True)
class Flag(Spec):
    """true or false."""

    optional: bool = False

    def load(self, value: Any, where: str) -> Any:
        if type(value) is not bool:
            raise _refuse(where, "true or false", value)
        return value


@dataclass(frozen=True)
class Text(Spec):
    """Printable text of ``min_length..max_length`` characters, or one of ``choices``."""

    max_length: int
    min_length: int = 0
    choices: tuple[str, ...] = ()
    optional: bool = False

    def load(self, value: Any, where: str) -> Any:
        if self.choices:
            if value not in self.choices:
                raise _refuse(where, f"one of {', '.join(self.choices)}", value)
            return value
        if not isinstance(value, str) or not self.min_length <= len(value) <= self.max_length:
            raise _refuse(where, f"text of {self.min_length}..{self.max_length} characters",
                          value)
        if not value.isprintable():
            raise _refuse(where, "text without control characters", value)
        return value


@dataclass(frozen=True)
class Blob(Spec):
    """Binary data of ``min_size..max_size`` bytes."""

    min_size: int
    max_size: int
    optional: bool = False

    def load(self, value: Any, where: str) -> Any:
        if type(value) is not bytes or not self.min_size <= len(value) <= self.max_size:
            size = (f"{self.min_size}" if self.min_size == self.max_size
                    else f"{self.min_size}..{self.max_size}")
            raise _refuse(where, f"{size} bytes", value)
        return value


@dataclass(frozen=True)
class DisplayName(Spec):
    """A player's display name (net.identity.display_name_problem)."""

    optional: bool = False

    def load(self, value: Any, where: str) -> Any:
        problem = display_name_problem(value)
        if problem is not None:
            raise MalformedMessage(f"{where}: {problem}")
        return value


@dataclass(frozen=True)
class FileName(Spec):
    """A bare save file name: no folders, no hidden files, a safe character set."""

    optional: bool = False

    def load(self, value: Any, where: str) -> Any:
        if (not isinstance(value, str) or not 1 <= len(value) <= MAX_FILE_NAME
                or not _FILE_NAME.fullmatch(value) or ".." in value):
            raise _refuse(where, f"a file name (letters, digits, '.', '_', '-', space; at "
                                 f"most {MAX_FILE_NAME} characters; no folders)", value)
        return value


@dataclass(frozen=True)
class IntentSpec(Spec):
    """An engine intent: engine.intent_to_dict data, read with engine.intent_from_dict."""

    optional: bool = False

    def load(self, value: Any, where: str) -> Any:
        try:
            return engine.intent_from_dict(value)
        except engine.FormatError as exc:
            raise MalformedMessage(f"{where}: {exc}") from None
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            # engine.intent_from_dict promises FormatError; anything else is an engine bug
            # that must not crash the session.
            log.error("engine.intent_from_dict raised %s on %r", type(exc).__name__, value)
            raise MalformedMessage(f"{where}: not a readable intent ({type(exc).__name__})") \
                from None

    def dump(self, value: Any) -> Any:
        return engine.intent_to_dict(value)


@dataclass(frozen=True)
class OptionsSpec(Spec):
    """A complete option set (R13) in the position-format shape."""

    optional: bool = False

    def load(self, value: Any, where: str) -> Any:
        try:
            return options_from_dict(value, where)
        except engine.FormatError as exc:
            raise MalformedMessage(str(exc)) from None
        except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
            log.error("engine options_from_dict raised %s on %r", type(exc).__name__, value)
            raise MalformedMessage(f"{where}: not a readable option set "
                                   f"({type(exc).__name__})") from None

    def dump(self, value: Any) -> Any:
        return options_to_dict(value)


TURN = Int(0, MAX_TURN)
IDENTIFIER = Int(0, MAX_ID)
COUNT = Int(0, MAX_COUNT)
DIGEST = Blob(DIGEST_SIZE, DIGEST_SIZE)
REASON = Text(MAX_TEXT)
ENGINE_VERSION = Text(32, min_length=1)


# ---------------------------------------------------------------- registry


class Message:
    """Base of every message; subclasses are frozen dataclasses registered with a TAG."""

    TAG: ClassVar[str] = ""


M = TypeVar("M", bound=type[Message])

# tag -> (class, ((field name, spec), ...))
_REGISTRY: dict[str, tuple[type[Message], tuple[tuple[str, Spec], ...]]] = {}


def register(cls: M) -> M:
    """Make a frozen dataclass a wire message under its ``TAG`` (unique)."""
    tag = cls.TAG
    if not tag or len(tag) > 32 or tag in _REGISTRY:
        raise ValueError(f"message tag {tag!r} is empty, too long or already registered")
    hints = typing.get_type_hints(cls, include_extras=True)
    specs: list[tuple[str, Spec]] = []
    for item in fields(cls):  # type: ignore[arg-type]
        found = [m for m in getattr(hints[item.name], "__metadata__", ()) if isinstance(m, Spec)]
        if len(found) != 1:
            raise TypeError(f"{cls.__name__}.{item.name}: annotate with exactly one Spec")
        if item.name == TAG_FIELD:
            raise TypeError(f"{cls.__name__}: the field name {TAG_FIELD!r} is reserved")
        specs.append((item.name, found[0]))
    _REGISTRY[tag] = (cls, tuple(specs))
    return cls


def message_types() -> dict[str, type[Message]]:
    """Every registered message class by tag (for tests and fuzzing)."""
    return {tag: entry[0] for tag, entry in sorted(_REGISTRY.items())}


def field_specs(tag: str) -> tuple[tuple[str, Spec], ...]:
    """The (field name, Spec) pairs of the message type ``tag`` (for generators)."""
    return _REGISTRY[tag][1]


# ---------------------------------------------------------------- encode / decode


def message_to_wire(message: Message) -> dict[str, Any]:
    """The message as a msgpack-ready map, checked with the same rules the receiver uses
    (ValueError when a field is out of range: we refuse to send what the peer refuses)."""
    entry = _REGISTRY.get(message.TAG)
    if entry is None or entry[0] is not type(message):
        raise ValueError(f"{type(message).__name__} is not a registered message")
    out: dict[str, Any] = {TAG_FIELD: message.TAG}
    for name, spec in entry[1]:
        value = getattr(message, name)
        if value is None and spec.optional:
            continue
        wire = spec.dump(value)
        try:
            spec.load(wire, f"{message.TAG}.{name}")
        except MalformedMessage as exc:
            raise ValueError(f"refusing to send an invalid message: {exc.reason}") from None
        out[name] = wire
    return out


def encode_message(message: Message) -> bytes:
    """The message as msgpack bytes (the plaintext of one frame)."""
    return msgpack.packb(message_to_wire(message), use_bin_type=True)  # type: ignore[no-any-return]


def message_from_wire(data: Any) -> Message:
    """Validate an already unpacked msgpack value as a message."""
    if not isinstance(data, dict):
        raise _refuse("message", "a map with a type tag", data)
    tag = data.get(TAG_FIELD)
    if not isinstance(tag, str):
        raise _refuse(f"message.{TAG_FIELD}", "a message type tag", tag)
    entry = _REGISTRY.get(tag)
    if entry is None:
        shown = tag if len(tag) <= 32 and tag.isprintable() else repr(tag[:32])
        raise UnknownMessageType(f"unknown message type {shown!r}")
    cls, specs = entry
    known = {name for name, _ in specs}
    for key in data:
        if key != TAG_FIELD and key not in known:
            raise MalformedMessage(f"{tag}: unknown field {str(key)[:32]!r} (fields: "
                                   f"{', '.join(sorted(known)) or 'none'})")
    values: dict[str, Any] = {}
    for name, spec in specs:
        where = f"{tag}.{name}"
        if name not in data:
            if not spec.optional:
                raise MalformedMessage(f"{where}: required field is missing")
            values[name] = None
        elif data[name] is None and spec.optional:
            values[name] = None
        else:
            values[name] = spec.load(data[name], where)
    return cls(**values)


def _unique_string_keys(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if not isinstance(key, str):
            raise MalformedMessage(f"map keys must be text (got {type(key).__name__})")
        if key in out:
            raise MalformedMessage(f"duplicate map key {key[:32]!r}")
        out[key] = value
    return out


def unpack_untrusted(data: bytes, max_bytes: int = MAX_MESSAGE_BYTES) -> Any:
    """Unpack untrusted msgpack bytes with every safety limit; MalformedMessage on any
    problem."""
    if len(data) > max_bytes:
        raise MalformedMessage(f"message of {len(data)} bytes exceeds {max_bytes}")
    try:
        return msgpack.unpackb(
            data, raw=False, strict_map_key=True, use_list=True,
            object_pairs_hook=_unique_string_keys, max_str_len=max_bytes,
            max_bin_len=max_bytes, max_array_len=4096, max_map_len=256, max_ext_len=0)
    except MalformedMessage:
        raise
    except (ValueError, OverflowError, RecursionError) as exc:
        raise MalformedMessage(f"not a valid msgpack message ({type(exc).__name__}: "
                               f"{str(exc)[:80]})") from None


def decode_message(data: bytes) -> Message:
    """Bytes from the peer -> a validated Message; MalformedMessage or
    UnknownMessageType otherwise."""
    return message_from_wire(unpack_untrusted(data))


# ---------------------------------------------------------------- stage 1 messages


@register
@dataclass(frozen=True)
class Hello(Message):
    """First message after the handshake: who we are, which engine we run and the port
    we listen on (so a peer that accepted our connection can dial us again after a drop:
    our address is the connection's, the port is this one)."""

    TAG: ClassVar[str] = "hello"
    protocol: Annotated[int, Int(1, 65535)]
    engine_version: Annotated[str, ENGINE_VERSION]
    name: Annotated[str, DisplayName()]
    port: Annotated[int | None, Int(1, 65535, optional=True)] = None


@register
@dataclass(frozen=True)
class PairingResult(Message):
    """The player's answer to the SAS comparison (both must confirm before pinning)."""

    TAG: ClassVar[str] = "pairing"
    confirmed: Annotated[bool, Flag()]


@register
@dataclass(frozen=True)
class Invite(Message):
    """An invitation to a game; ``resume_game`` names a saved game to continue."""

    TAG: ClassVar[str] = "invite"
    invitation: Annotated[int, IDENTIFIER]
    resume_game: Annotated[bytes | None, Blob(DIGEST_SIZE, DIGEST_SIZE, optional=True)] = None


@register
@dataclass(frozen=True)
class Accept(Message):
    TAG: ClassVar[str] = "accept"
    invitation: Annotated[int, IDENTIFIER]


@register
@dataclass(frozen=True)
class Decline(Message):
    TAG: ClassVar[str] = "decline"
    invitation: Annotated[int, IDENTIFIER]
    reason: Annotated[str, REASON] = ""


@register
@dataclass(frozen=True)
class ColourChoice(Message):
    """The colour a player wants: white, black or either."""

    TAG: ClassVar[str] = "colour"
    colour: Annotated[str, Text(8, choices=COLOURS)]


@register
@dataclass(frozen=True)
class CoinCommit(Message):
    """Coin flip, step 1: SHA-256 of the author's key, a nonce and the choice (see
    :func:`coin_commitment`)."""

    TAG: ClassVar[str] = "coin_commit"
    commitment: Annotated[bytes, DIGEST]


@register
@dataclass(frozen=True)
class CoinReveal(Message):
    """Coin flip, step 2: the nonce and the bit committed to."""

    TAG: ClassVar[str] = "coin_reveal"
    nonce: Annotated[bytes, Blob(COIN_NONCE_SIZE, COIN_NONCE_SIZE)]
    choice: Annotated[int, Int(0, 1)]


@register
@dataclass(frozen=True)
class GovernmentChoice(Message):
    """R11.1: each player picks its own government; no approval needed."""

    TAG: ClassVar[str] = "government"
    government: Annotated[str, Text(16, choices=tuple(g.value for g in Government))]


@register
@dataclass(frozen=True)
class OptionProposal(Message):
    """A proposed complete option set (the other side approves or rejects)."""

    TAG: ClassVar[str] = "propose"
    proposal: Annotated[int, IDENTIFIER]
    options: Annotated[Options, OptionsSpec()]
    # the per-move time limit in seconds (issue 20 hole 3), 0 or absent: none
    move_time: Annotated[int | None, Int(0, MAX_MOVE_TIME, optional=True)] = None


@register
@dataclass(frozen=True)
class OptionApprove(Message):
    TAG: ClassVar[str] = "approve"
    proposal: Annotated[int, IDENTIFIER]


@register
@dataclass(frozen=True)
class OptionReject(Message):
    TAG: ClassVar[str] = "reject"
    proposal: Annotated[int, IDENTIFIER]
    reason: Annotated[str, REASON] = ""


@register
@dataclass(frozen=True)
class SetupDone(Message):
    """Either side ends the setup."""

    TAG: ClassVar[str] = "setup_done"


@register
@dataclass(frozen=True)
class RulesHash(Message):
    """Hash of the rules version, options, start position and colours: both must hold
    the same. ``engine_version`` names the sender's release (shown, not compared);
    ``rules_version`` is its engine.version.RULES_VERSION (named when they differ)."""

    TAG: ClassVar[str] = "rules_hash"
    digest: Annotated[bytes, DIGEST]
    engine_version: Annotated[str, ENGINE_VERSION]
    rules_version: Annotated[int | None, Int(0, MAX_ID, optional=True)] = None


@register
@dataclass(frozen=True)
class IntentMessage(Message):
    """One intent of the sender's turn; ``index`` counts the sender's intents in the game
    (so a resumed link can tell a repeat from a new one)."""

    TAG: ClassVar[str] = "intent"
    turn: Annotated[int, TURN]
    index: Annotated[int, COUNT]
    intent: Annotated[engine.Intent, IntentSpec()]


@register
@dataclass(frozen=True)
class TurnHash(Message):
    """engine.state_hash after ``turn``, compared every turn (lockstep)."""

    TAG: ClassVar[str] = "turn_hash"
    turn: Annotated[int, TURN]
    digest: Annotated[bytes, DIGEST]


@register
@dataclass(frozen=True)
class Resign(Message):
    TAG: ClassVar[str] = "resign"


@register
@dataclass(frozen=True)
class TakebackRequest(Message):
    TAG: ClassVar[str] = "takeback_request"
    turn: Annotated[int, TURN]


@register
@dataclass(frozen=True)
class TakebackAnswer(Message):
    TAG: ClassVar[str] = "takeback_answer"
    turn: Annotated[int, TURN]
    accepted: Annotated[bool, Flag()]


@register
@dataclass(frozen=True)
class TakebackCancel(Message):
    """The sender withdraws its takeback request of ``turn``: the other side declines it
    at once (an answer already on its way stands)."""

    TAG: ClassVar[str] = "takeback_cancel"
    turn: Annotated[int, TURN]


CLAIM_KINDS = ("move_time", "idle", "answer", "protocol")


@register
@dataclass(frozen=True)
class TimeClaim(Message):
    """The sender claims the win because the other side owes it something for too long:
    its turn ``turn`` beyond the agreed move time (``move_time``) or the idle limit
    (``idle``), the answer to the sender's takeback request (``answer``), or the next
    message of a fog-of-war game's exchange (``protocol``, issue 21); ``seconds``
    is how long, on the sender's clock. The receiver checks it on its own clock."""

    TAG: ClassVar[str] = "time_claim"
    kind: Annotated[str, Text(9, choices=CLAIM_KINDS)]
    turn: Annotated[int, TURN]
    seconds: Annotated[int, Int(0, MAX_ID)]


@register
@dataclass(frozen=True)
class Chat(Message):
    TAG: ClassVar[str] = "chat"
    text: Annotated[str, Text(MAX_CHAT, min_length=1)]


@register
@dataclass(frozen=True)
class SaveNotice(Message):
    """The sender saves the game after its first ``actions`` actions; each side writes its
    own file from its own data and names it itself (issue 20 hole 4: no file name
    crosses the wire)."""

    TAG: ClassVar[str] = "save"
    actions: Annotated[int, COUNT]


@register
@dataclass(frozen=True)
class Resume(Message):
    """After a reconnect: which link (an earlier session id) continues, and how many
    application messages the sender received on it, so the peer resends the rest."""

    TAG: ClassVar[str] = "resume"
    link: Annotated[bytes, Blob(16, 32)]
    received: Annotated[int, COUNT]


@register
@dataclass(frozen=True)
class Rejection(Message):
    """Tells the peer that one of its messages was refused, and why (shown to its player)."""

    TAG: ClassVar[str] = "rejected"
    refused: Annotated[str, Text(32)]
    reason: Annotated[str, REASON]


@register
@dataclass(frozen=True)
class Heartbeat(Message):
    """Sent every heartbeat interval; ``received`` = application messages received so far
    in this session (the peer learns how far we got). Handled inside the session."""

    TAG: ClassVar[str] = "heartbeat"
    received: Annotated[int, COUNT]


@register
@dataclass(frozen=True)
class Bye(Message):
    """Orderly close with a reason shown to the other player. Handled inside the session."""

    TAG: ClassVar[str] = "bye"
    reason: Annotated[str, REASON] = ""


# ---------------------------------------------------------------- stage 1 additions
# (lobby, lockstep and resume: net.lobby, net.lockstep, net.peer)

MAX_POSITION_BYTES = 60000  # msgpack of engine.position_to_dict; a start board is ~6 KB
LINK_ID = Blob(16, 32)
WINNERS = ("white", "black", "none")


@register
@dataclass(frozen=True)
class PairingState(Message):
    """Sent right after Hello: whether the sender already has the peer's key pinned. When
    either side has not, both screens show the code and both players confirm
    (PairingResult); otherwise the peers go straight on."""

    TAG: ClassVar[str] = "pairing_state"
    pinned: Annotated[bool, Flag()]


@register
@dataclass(frozen=True)
class StartProposal(Message):
    """A proposed start board (approved or rejected like an option proposal, sharing its
    proposal numbers): ``position`` is the msgpack of engine.position_to_dict, checked by
    the receiver with the position reader and the editor's start checks (R14.4)."""

    TAG: ClassVar[str] = "propose_start"
    proposal: Annotated[int, IDENTIFIER]
    title: Annotated[str, Text(64, min_length=1)]
    position: Annotated[bytes, Blob(1, MAX_POSITION_BYTES)]


@register
@dataclass(frozen=True)
class DesyncDetail(Message):
    """After a turn hash mismatch only: the sender's hash and the **public** state after
    ``turn`` (msgpack of engine.encoding.public_state: turn, options, ground articles,
    projectiles, action counts, waiting reinforcements' squares, result; no piece) for
    the desync report. Issue 21: a full state never crosses the wire; with fog of war
    the end-of-game audit settles the rest."""

    TAG: ClassVar[str] = "desync"
    turn: Annotated[int, TURN]
    digest: Annotated[bytes, DIGEST]
    public: Annotated[bytes, Blob(0, MAX_POSITION_BYTES)]


MAX_FOG_BYTES = 63000  # msgpack of one fog protocol message (a first-hit reply ~54 KB)


@register
@dataclass(frozen=True)
class FogWire(Message):
    """One message of the fog-of-war protocol (issue 21; net.fog_game: questions,
    answers, commitments, private set intersection), as msgpack of its map, carried,
    counted, journalled and resent like every lockstep message."""

    TAG: ClassVar[str] = "fog"
    body: Annotated[bytes, Blob(1, MAX_FOG_BYTES)]


@register
@dataclass(frozen=True)
class FogPart(Message):
    """A leading part of a fog protocol message too large for one frame (a first-hit
    reply is ~54 KB before its signature): the receiver joins the parts to the next
    FogWire's body. Carried, counted, journalled and resent like every lockstep
    message."""

    TAG: ClassVar[str] = "fog_part"
    body: Annotated[bytes, Blob(1, MAX_FOG_BYTES)]


@register
@dataclass(frozen=True)
class FogReveal(Message):
    """At the end of a fog-of-war game (any way it ends): the sender's reveal (its game
    seed, its hidden intents; net.fog_game), msgpack of its map, for the audit."""

    TAG: ClassVar[str] = "fog_reveal"
    body: Annotated[bytes, Blob(1, MAX_MESSAGE_BYTES - 1024)]


@register
@dataclass(frozen=True)
class GameClosed(Message):
    """Answer to a Resume for a game the sender will not continue (unknown to it, or
    ended while the link was down, e.g. a win claimed after the grace period)."""

    TAG: ClassVar[str] = "game_closed"
    link: Annotated[bytes, LINK_ID]
    winner: Annotated[str, Text(8, choices=WINNERS)]
    reason: Annotated[str, REASON]


# ---------------------------------------------------------------- coin flip helpers


COIN_LABEL = b"wec-net coin v2"


def coin_commitment(nonce: bytes, choice: int, author: bytes) -> bytes:
    """SHA-256(label + author's identity key + nonce + choice byte): what CoinCommit
    carries before CoinReveal. Bound to its author (issue 20 hole 6): a peer that copies
    our commitment cannot open it as its own, so it cannot make the coin land on the
    colour it wants."""
    if len(nonce) != COIN_NONCE_SIZE or choice not in (0, 1) or not author:
        raise ValueError(f"a coin commitment takes a {COIN_NONCE_SIZE}-byte nonce, 0 or 1 "
                         "and its author's key")
    return hashlib.sha256(COIN_LABEL + len(author).to_bytes(2, "big") + author + nonce
                          + bytes([choice])).digest()


def reveal_matches(commit: CoinCommit, reveal: CoinReveal, author: bytes) -> bool:
    """True when the reveal opens the commitment made by ``author`` (a mismatch means the
    peer cheated)."""
    return coin_commitment(reveal.nonce, reveal.choice, author) == commit.commitment


def coin_result(first: CoinReveal, second: CoinReveal) -> int:
    """The fair coin: XOR of both revealed bits."""
    return first.choice ^ second.choice


__all__ = [
    "Accept", "Blob", "Bye", "Chat", "CoinCommit", "CoinReveal", "ColourChoice", "Decline",
    "DesyncDetail", "DisplayName", "FileName", "Flag", "FogPart", "FogReveal", "FogWire",
    "GameClosed", "GovernmentChoice",
    "Heartbeat", "Hello", "Int", "IntentMessage", "IntentSpec", "Invite", "Message",
    "OptionApprove", "OptionProposal", "OptionReject", "OptionsSpec", "PairingResult",
    "PairingState", "Rejection", "Resign", "Resume", "RulesHash", "SaveNotice", "SetupDone",
    "Spec", "StartProposal", "TakebackAnswer", "TakebackCancel", "TakebackRequest", "Text",
    "TimeClaim", "TurnHash",
    "coin_commitment", "coin_result", "decode_message", "encode_message", "field_specs",
    "message_from_wire", "message_to_wire", "message_types", "register", "reveal_matches",
    "unpack_untrusted",
]
