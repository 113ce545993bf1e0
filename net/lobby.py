"""The lobby: invitation, colours, rules negotiation and the rules check (issue 8 item 4).

Sans-IO: a :class:`Lobby` is fed the peer's messages (:meth:`Lobby.receive`) and the local
player's commands (``invite``, ``accept``, ``choose_colour``, ``propose_options``, ...).
Each call returns a :class:`~net.steps.Step`: the messages to send to the peer, in order,
and the events to show (net.steps holds what the lobby shares with net.lockstep).
Nothing here touches a socket, a clock or a file, so every exchange is tested with exact
values. A local command the protocol does not allow raises
:class:`LobbyError` (its ``reason`` is for the player) and changes nothing; a peer
message that is not allowed is answered with a :class:`~net.messages.Rejection` and never
applied.

The flow, as the manual describes it::

    IDLE --invite--> INVITING --Accept--> SETUP --SetupDone--> HASHING --RulesHash--> STARTED
    IDLE <--Invite-- INVITED  --accept--> SETUP                (a resumed save skips SETUP)

- **Invitation**: one side invites (optionally to resume a saved game, named by the
  SHA-256 of the save file, which both machines must hold), the other accepts or
  declines. Crossing invitations with the same intent start the setup on both sides;
  otherwise the invitation of the session initiator stands.
- **Colours**: each player chooses white, black or either, once. Different wishes are
  granted; equal ones are decided by a fair coin: both sides commit to a random bit
  (SHA-256 of the author's identity key, a nonce and the bit), reveal only after the
  other's commitment arrived, and the XOR of the bits decides (a reveal that does not
  open its commitment is a cheat: the setup stops). A commitment equal to ours is
  refused: binding each to its author means a copy could not be opened anyway (issue 20
  hole 6: copying the other side's commitment and then its reveal made the XOR 0).
  Bit 1 gives the contested colour (white when both said either) to the session
  initiator.
- **Options and start board**: a proposal (a complete option set, or a start board
  with its options) is approved or rejected by the other side. One proposal at a time
  in all (a side proposes only when nothing is pending); when two cross, the
  initiator's stands and the other is withdrawn, the same way on both sides. A
  proposal's government fields are ignored: R11.1, each player picks its own government
  (:meth:`Lobby.choose_government`) without approval. View settings (R14.5: display
  only) are local and never sent. The time limit per move (issue 20 hole 3; 0, none,
  by default) is agreed like the options: it comes with each option proposal and is in
  the rules hash.
- **Fog of war** (issue 21): O15 and O16 are on by default, as R13 says, when this
  machine plays fog-of-war games over the wire (``fog``: the fog protocol,
  net.fog_game, is installed; otherwise stage 1 holds: both forced off, proposals and
  resumptions with either on refused with :data:`STAGE1_REASON`). In a game with either
  on, each machine keeps only its own **half state** (engine.knowledge): the start is
  agreed on its public part (:func:`engine.encoding.public_state_hash` in the rules
  hash), never on the pieces. The standard setup (R15) is public knowledge, so each side
  builds it and keeps its half. A start board with pieces hidden from the start (the
  editor's boards, scenarios) can be proposed only once the colours are decided: the
  proposal then carries the *receiver's* half state (its own pieces, the proposer's
  pieces it sees, the public part, with the identifiers both halves share), never the
  proposer's hidden pieces, which its side commits to when the game starts; such a board
  is proposed with its final options (a later option proposal is refused: propose the
  board again). A board without hidden pieces travels whole, as before. O21 reveal on
  fire stays on with fog of war (net.game_fog ``fog_problem``: a Fire travels whole, so
  with O21 off a hidden firer would show): proposals with it off are refused, ours
  before they go, the peer's with a rejection that says why.
- **Chat**: a short line (1 to :data:`~net.messages.MAX_CHAT` printable characters,
  the size the message format enforces on receipt too) in any phase, to talk while
  negotiating; it changes nothing else. In a game, chat goes through the game
  (net.lockstep) instead, which journals it.
- **End of setup**: either side ends the setup (when the colours are decided and its own
  proposal is answered); an unanswered proposal of the other side lapses. Both then send
  a hash of the rules (the rules version of engine.version and the intent format,
  options with governments, start position, who plays which colour); equal hashes start
  the game (:class:`RulesAgreed` carries the :class:`GameSetup`), different ones go back
  to the setup with a message. Different rules versions are named in that message (both
  numbers): the engines would resolve the same intents differently, so they do not play.
  Different releases with the same rules version do play.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import secrets
from collections.abc import Callable
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, ClassVar

import msgpack  # type: ignore[import-untyped]

from wec.engine.editor import check_start
from wec.engine.encoding import public_state_hash
from wec.engine.errors import FormatError, WecError
from wec.engine.formats import INTENT_FORMAT, position_from_dict, position_to_dict
from wec.engine.knowledge import project
from wec.engine.loading import load_position
from wec.engine.match import Match
from wec.engine.options import Options, options_to_dict
from wec.engine.pieces import Government, Side
from wec.engine.position import Position
from wec.engine.setup import standard_position
from wec.engine.version import RULES_VERSION
from wec.net.errors import MessageError, NetError
from wec.net.game_fog import (
    FOG_NOTICE,
    fog_available,
    fog_board_problem,
    fog_on,
    fog_problem,
    fog_protocol,
)
from wec.net.messages import (
    COIN_NONCE_SIZE,
    MAX_CHAT,
    MAX_MOVE_TIME,
    MAX_POSITION_BYTES,
    Accept,
    Chat,
    CoinCommit,
    CoinReveal,
    ColourChoice,
    Decline,
    GovernmentChoice,
    Invite,
    Message,
    OptionApprove,
    OptionProposal,
    OptionReject,
    Rejection,
    RulesHash,
    SetupDone,
    StartProposal,
    coin_commitment,
    coin_result,
    reveal_matches,
    unpack_untrusted,
)
from wec.net.steps import ChatLine, LobbyEvent, LobbyStep, PeerRefused, Refusal, Refused

Step = LobbyStep  # what every call returns: messages for the peer and lobby events


def _engine_version() -> str:
    try:
        package = importlib.metadata.version("wec")
    except importlib.metadata.PackageNotFoundError:
        package = "unknown"
    return f"{package}+{INTENT_FORMAT}"[:32]


# The release this machine runs (the package version and the intent format): shown to the
# peer, not compared. What both peers must share is the rules version (engine.version)
# and the intent format, both in the rules hash.
ENGINE_VERSION = _engine_version()
STAGE1_REASON = ("O15 stealth invisibility and O16 submersion invisibility stay off in LAN "
                 "play for now: every piece is visible to both players, so nothing has to be "
                 "hidden from the other machine. Games with hidden pieces come with a later "
                 "version of wec.")
STANDARD_TITLE = "standard"
_RULES_LABEL = "wec-net rules v1"


class LobbyError(NetError):
    """A local lobby command that is not allowed now; ``reason`` is for the player."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Phase(Enum):
    IDLE = "idle"
    INVITING = "inviting"  # we invited, waiting for the answer
    INVITED = "invited"  # the peer invited us, waiting for our answer
    SETUP = "setup"
    HASHING = "hashing"  # setup ended, waiting for the peer's rules hash
    STARTED = "started"


# ---------------------------------------------------------------- data


@dataclass(frozen=True)
class StartBoard:
    """The start of the game: ``position`` None means the standard setup of R15 built from
    the agreed options (governments and O29-O31 shape it); otherwise a board, whose own
    options are replaced by the agreed ones."""

    title: str = STANDARD_TITLE
    position: Position | None = None
    # with fog of war, a board with pieces hidden from the start (issue 21): agreed with
    # its options; ``position`` is the full board for its proposer, the receiver's half
    # state for the receiver
    hidden: bool = False


@dataclass(frozen=True)
class SavedGame:
    """A save this machine holds for a resume: the match and the side we played; for a
    fog-of-war game (issue 21) ``match`` is None and ``fog`` is the half-state save
    (net.game_fog.FogSave: our half state and our record of the exchange)."""

    match: Match | None
    our_side: Side
    fog: Any = None

    @property
    def options(self) -> Options:
        if self.match is not None:
            return self.match.current.options
        return self.fog.options  # type: ignore[no-any-return]

    @property
    def state(self) -> str:
        """What both machines hold alike: the full-state hash of an open game, the
        public hash of a fog-of-war game."""
        if self.match is not None:
            return self.match.current_hash
        return self.fog.public_hash  # type: ignore[no-any-return]

    @property
    def steps(self) -> int:
        if self.match is not None:
            return len(self.match.actions)
        return self.fog.steps  # type: ignore[no-any-return]


@dataclass(frozen=True)
class GameSetup:
    """Everything both sides agreed: the game starts from ``match`` (an open game), or,
    with fog of war (O15 or O16 on, issue 21), from ``half``: our half state of the start
    (``match`` is then None: no machine holds the whole game)."""

    match: Match | None
    our_side: Side
    options: Options
    start_title: str
    rules_hash: bytes
    resume_game: bytes | None = None
    move_time: int = 0  # seconds per move (0: no limit)
    half: Position | None = None
    saved: SavedGame | None = None  # the save a resumed game continues

    @property
    def fog(self) -> bool:
        return self.half is not None or (self.saved is not None
                                         and self.saved.match is None)

    @property
    def state_hash(self) -> str:
        """The hash both machines hold alike at the start (full state of an open game,
        public state of a fog-of-war game)."""
        if self.match is not None:
            return self.match.current_hash
        if self.half is not None:
            return public_state_hash(self.half)
        assert self.saved is not None
        return self.saved.state


# ---------------------------------------------------------------- events


@dataclass(frozen=True)
class Notice(LobbyEvent):
    kind: ClassVar[str] = "notice"
    text: str


@dataclass(frozen=True)
class Invited(LobbyEvent):
    """The peer invites us (``resume_game``: the save it wants to continue)."""

    kind: ClassVar[str] = "invited"
    invitation: int
    resume_game: bytes | None


@dataclass(frozen=True)
class InvitationDeclined(LobbyEvent):
    kind: ClassVar[str] = "declined"
    by_us: bool
    reason: str


@dataclass(frozen=True)
class SetupStarted(LobbyEvent):
    kind: ClassVar[str] = "setup"
    resume: bool


@dataclass(frozen=True)
class ColourChosen(LobbyEvent):
    kind: ClassVar[str] = "colour_chosen"
    by_us: bool
    colour: str


@dataclass(frozen=True)
class CoinFlipStarted(LobbyEvent):
    """Both wanted the same: a coin flip decides (commit-and-reveal)."""

    kind: ClassVar[str] = "coin_flip"
    contested: str


@dataclass(frozen=True)
class ColoursDecided(LobbyEvent):
    kind: ClassVar[str] = "colours"
    our_side: Side
    by_coin: bool


@dataclass(frozen=True)
class ProposalReceived(LobbyEvent):
    """The peer proposes options (``title`` empty) or a start board (``title`` set)."""

    kind: ClassVar[str] = "proposal"
    proposal: int
    options: Options
    title: str = ""
    move_time: int = 0  # the time limit per move it proposes (0: none)


@dataclass(frozen=True)
class ProposalAnswered(LobbyEvent):
    """A proposal was approved or rejected; ``ours`` tells whose proposal it was."""

    kind: ClassVar[str] = "proposal_answered"
    proposal: int
    ours: bool
    approved: bool
    reason: str = ""


@dataclass(frozen=True)
class RulesChanged(LobbyEvent):
    """The agreed options or start board changed (a proposal was approved)."""

    kind: ClassVar[str] = "rules"
    options: Options
    start_title: str
    move_time: int = 0


@dataclass(frozen=True)
class GovernmentChosen(LobbyEvent):
    kind: ClassVar[str] = "government"
    by_us: bool
    government: Government


@dataclass(frozen=True)
class ViewSettingChanged(LobbyEvent):
    """R14.5: a display-only setting, local to this machine."""

    kind: ClassVar[str] = "view_setting"
    name: str
    value: object


@dataclass(frozen=True)
class SetupEnded(LobbyEvent):
    kind: ClassVar[str] = "setup_done"
    by_us: bool


@dataclass(frozen=True)
class RulesAgreed(LobbyEvent):
    kind: ClassVar[str] = "rules_agreed"
    setup: GameSetup


@dataclass(frozen=True)
class RulesMismatch(LobbyEvent):
    """The two sides hold different rules: back to the setup (or, for a resume, to idle)."""

    kind: ClassVar[str] = "rules_mismatch"
    reason: str


# ---------------------------------------------------------------- helpers


def stage1_options(options: Options) -> Options:
    """``options`` with O15 and O16 off (stage 1 plays open-information games only)."""
    return replace(options, stealth_invisibility=False, submersion_invisibility=False)


def stage1_problem(options: Options) -> str | None:
    """Why stage 1 refuses ``options`` (None when it accepts them)."""
    if options.stealth_invisibility or options.submersion_invisibility:
        return STAGE1_REASON
    return None


def encode_position(position: Position) -> bytes:
    """A position as message bytes: msgpack of engine.position_to_dict (a half state with
    the identifiers both halves share)."""
    data = position_to_dict(position, handles=position.viewer is not None)
    return msgpack.packb(data, use_bin_type=True)  # type: ignore[no-any-return]


def hidden_at_start(position: Position) -> bool:
    """True when some piece of ``position`` (a full start, settled under its options) is
    hidden from its enemy: with fog of war, the board cannot travel whole."""
    return any(p.hidden for p in position.pieces)


def decode_position(data: bytes, settled: bool = False) -> Position:
    """A position from untrusted message bytes; FormatError names any problem.
    ``settled``: a position to play from (a start board), settled as every position
    read is (engine.loading); otherwise kept as sent (a peer's state in a desync
    report)."""
    try:
        value = unpack_untrusted(data, MAX_POSITION_BYTES)
    except MessageError as exc:
        raise FormatError(f"position: {exc.reason}") from None
    try:
        if settled and not (isinstance(value, dict) and "viewer" in value):
            return load_position(value)
        return position_from_dict(value)  # a half state is read as it is
    except FormatError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        raise FormatError(f"position: not a readable position ({type(exc).__name__})") from None


def start_board_problem(position: Position) -> str | None:
    """Why ``position`` cannot start a LAN game (R14.4 start checks), or None."""
    if position.viewer is not None:
        return "a start board is the full state, not one side's view"
    if position.result is not None:
        return "a start board must not be a finished game (R12)"
    if position.options.competitive:
        position = position.evolve(options=replace(position.options, competitive=False))
    problems = check_start(position)
    return str(problems[0]) if problems else None


def build_start(board: StartBoard, options: Options) -> Match:
    """The match both sides start from: the board (or the standard setup) under
    ``options``; O32 is applied last (R14.3, one-way). Raises WecError when the board
    does not hold under these options."""
    casual = replace(options, competitive=False)
    if board.position is None:
        match = Match.begin(standard_position(casual))
    else:
        position = board.position
        if position.options.competitive:
            position = position.evolve(options=replace(position.options, competitive=False))
        match = Match.begin(position).with_options(casual)
    return match.go_competitive() if options.competitive else match


def rules_digest(fields: dict[str, Any]) -> bytes:
    """SHA-256 of the canonical msgpack of the rules fields (sorted keys)."""
    ordered = {key: fields[key] for key in sorted(fields)}
    packed = msgpack.packb([_RULES_LABEL, ordered], use_bin_type=True)
    return hashlib.sha256(packed).digest()


def _side_of(colour: str) -> Side:
    return Side.WHITE if colour == "white" else Side.BLACK


# ---------------------------------------------------------------- the lobby

# a pending proposal: its number, the options, the start board (None: unchanged) and
# the time limit per move it brings
Proposal = tuple[int, Options, StartBoard | None, int]


@dataclass
class _Coin:
    nonce: bytes
    bit: int
    commitment: bytes
    commit_sent: bool = False
    reveal_sent: bool = False
    peer_commit: CoinCommit | None = None
    peer_reveal: CoinReveal | None = None


class Lobby:
    """The lobby with one peer (see the module docstring).

    ``our_key`` and ``peer_key`` are the identity keys (the rules hash names who plays
    which colour by key); ``initiator`` is our role in the session (it breaks ties);
    ``rules_version`` is engine.version.RULES_VERSION (tests vary it);
    ``find_save`` looks up a save by its SHA-256 for a resume; ``random_bytes`` makes the
    coin (tests pass a fixed source); ``fog``: this machine plays fog-of-war games
    (default: when the fog protocol is installed; False keeps stage 1's lock).
    """

    def __init__(self, our_key: bytes, peer_key: bytes, *, initiator: bool,
                 engine_version: str = ENGINE_VERSION,
                 rules_version: int = RULES_VERSION,
                 find_save: Callable[[bytes], SavedGame | None] | None = None,
                 random_bytes: Callable[[int], bytes] = secrets.token_bytes,
                 options: Options | None = None, start: StartBoard | None = None,
                 fog: bool | None = None) -> None:
        self.our_key = our_key
        self.peer_key = peer_key
        self.initiator = initiator
        self.engine_version = engine_version
        self.rules_version = rules_version
        self._find_save = find_save or (lambda digest: None)
        self._random_bytes = random_bytes
        self.phase = Phase.IDLE
        self.fog = fog_available() if fog is None else fog
        self.options = self._allowed(options or Options())
        self.start = start or StartBoard()
        self.our_government = Government.MONARCHY
        self.peer_government = Government.MONARCHY
        self.view_settings: dict[str, object] = {}
        self.move_time = 0  # the agreed time limit per move, seconds (0: none)
        self.setup: GameSetup | None = None
        self._next_invitation = 0
        self._next_proposal = 0
        self._reset_round()

    def _reset_round(self) -> None:
        """Forget one invitation's state (back to IDLE keeps the agreed options)."""
        self._our_invitation: Invite | None = None
        self._peer_invitation: Invite | None = None
        self.resume_game: bytes | None = None
        self._saved: SavedGame | None = None
        self.our_colour: str | None = None
        self.peer_colour: str | None = None
        self.our_side: Side | None = None
        self._coin: _Coin | None = None
        self._our_proposal: Proposal | None = None
        self._peer_proposal: Proposal | None = None
        self._withdrawn: int | None = None
        self._setup_done_sent = False
        self._hash_sent: bytes | None = None
        self._pending_setup: GameSetup | None = None

    # ------------------------------------------------------------ reading

    @property
    def colours_decided(self) -> bool:
        return self.our_side is not None

    def final_options(self) -> Options:
        """The agreed options with each player's government on its side (R11.1)."""
        if self.our_side is None:
            raise LobbyError("the colours are not decided yet")
        ours, theirs = self.our_government, self.peer_government
        black, white = (ours, theirs) if self.our_side is Side.BLACK else (theirs, ours)
        return replace(self.options, government_black=black, government_white=white)

    def opening_notice(self) -> Step:
        """The message every lobby shows first: fog of war is on by default (or, in stage
        1, why O15 and O16 are off)."""
        return Step(events=[Notice(FOG_NOTICE if self.fog else STAGE1_REASON)])

    def _allowed(self, options: Options) -> Options:
        """``options`` as this lobby may play them (stage 1: O15 and O16 forced off)."""
        return options if self.fog else stage1_options(options)

    def _problem(self, options: Options) -> str | None:
        """Why this lobby cannot play ``options`` (stage 1's lock; with fog of war, O21
        off: net.game_fog ``fog_problem``), or None."""
        return fog_problem(options) if self.fog else stage1_problem(options)

    def _save_problem(self, saved: SavedGame) -> str | None:
        if saved.match is None and not self.fog:
            return STAGE1_REASON
        return self._problem(saved.options)

    # ------------------------------------------------------------ invitation

    def invite(self, resume_game: bytes | None = None) -> Step:
        """Invite the peer to a new game, or to resume the save whose SHA-256 is
        ``resume_game`` (this machine must hold it)."""
        self._require(Phase.IDLE, "invite")
        saved = None
        if resume_game is not None:
            saved = self._find_save(resume_game)
            if saved is None:
                raise LobbyError("there is no saved game with this fingerprint here")
            problem = self._save_problem(saved)
            if problem:
                raise LobbyError(problem)
        invitation = Invite(self._take_invitation_number(), resume_game)
        self._our_invitation = invitation
        self._saved = saved
        self.phase = Phase.INVITING
        return Step(send=[invitation])

    def accept(self) -> Step:
        """Accept the peer's invitation."""
        self._require(Phase.INVITED, "accept an invitation")
        invitation = self._peer_invitation
        assert invitation is not None
        step = Step(send=[Accept(invitation.invitation)])
        return step.extend(self._begin(invitation.resume_game))

    def decline(self, reason: str = "") -> Step:
        """Decline the peer's invitation (``reason`` is shown to the peer)."""
        self._require(Phase.INVITED, "decline an invitation")
        invitation = self._peer_invitation
        assert invitation is not None
        self._back_to_idle()
        return Step(send=[Decline(invitation.invitation, reason[:200])],
                    events=[InvitationDeclined(by_us=True, reason=reason)])

    def _take_invitation_number(self) -> int:
        number = self._next_invitation
        self._next_invitation += 1
        return number

    def _begin(self, resume_game: bytes | None) -> Step:
        """Both agreed to play: the setup starts (or, for a resume, the rules check)."""
        self.resume_game = resume_game
        if resume_game is None:
            self.phase = Phase.SETUP
            step = Step(events=[SetupStarted(resume=False)])
            if self.our_government is not Government.MONARCHY:  # chosen before the setup
                step.send.append(GovernmentChoice(self.our_government.value))
            return step
        saved = self._saved or self._find_save(resume_game)
        if saved is None:  # checked when invited/inviting; a vanished file lands here
            self._back_to_idle()
            return Step(events=[RulesMismatch("the saved game is no longer on this machine")])
        problem = self._save_problem(saved)
        if problem:  # checked before too; a file replaced meanwhile lands here
            self._back_to_idle()
            return Step(events=[RulesMismatch(problem)])
        self._saved = saved
        self.our_side = saved.our_side
        step = Step(events=[SetupStarted(resume=True)])
        return step.extend(self._send_rules_hash())

    def _back_to_idle(self) -> None:
        self._reset_round()
        self.phase = Phase.IDLE

    # ------------------------------------------------------------ colours and coin

    def choose_colour(self, colour: str) -> Step:
        """Ask for white, black or either (once per setup)."""
        self._require(Phase.SETUP, "choose a colour")
        if colour not in ("white", "black", "either"):
            raise LobbyError(f"a colour is white, black or either (got {colour!r})")
        if self.our_colour is not None:
            raise LobbyError(f"you already asked for {self.our_colour}")
        self.our_colour = colour
        step = Step(send=[ColourChoice(colour)], events=[ColourChosen(True, colour)])
        return step.extend(self._decide_colours())

    def _decide_colours(self) -> Step:
        ours, theirs = self.our_colour, self.peer_colour
        if ours is None or theirs is None or self.our_side is not None or self._coin:
            return Step()
        if ours != theirs and "either" in (ours, theirs):
            wanted = theirs if ours == "either" else ours
            side = _side_of(wanted) if ours != "either" else _side_of(wanted).other
            return self._colours_decided(side, by_coin=False)
        if ours != theirs:
            return self._colours_decided(_side_of(ours), by_coin=False)
        entropy = self._random_bytes(COIN_NONCE_SIZE + 1)
        if len(entropy) != COIN_NONCE_SIZE + 1:
            raise ValueError("random_bytes returned the wrong number of bytes")
        nonce, bit = entropy[:COIN_NONCE_SIZE], entropy[-1] & 1
        self._coin = _Coin(nonce, bit, coin_commitment(nonce, bit, self.our_key))
        self._coin.commit_sent = True
        step = Step(send=[CoinCommit(self._coin.commitment)],
                    events=[CoinFlipStarted(contested="white" if ours == "either" else ours)])
        return step.extend(self._advance_coin())

    def _advance_coin(self) -> Step:
        coin = self._coin
        step = Step()
        if coin is None:
            return step
        if coin.peer_commit is not None and coin.commit_sent and not coin.reveal_sent:
            coin.reveal_sent = True
            step.send.append(CoinReveal(coin.nonce, coin.bit))
        if coin.reveal_sent and coin.peer_reveal is not None:
            bit = coin_result(CoinReveal(coin.nonce, coin.bit), coin.peer_reveal)
            contested = "white" if self.our_colour == "either" else str(self.our_colour)
            initiator_gets_it = bit == 1
            we_get_it = initiator_gets_it == self.initiator
            side = _side_of(contested) if we_get_it else _side_of(contested).other
            step.extend(self._colours_decided(side, by_coin=True))
        return step

    def _colours_decided(self, our_side: Side, by_coin: bool) -> Step:
        self.our_side = our_side
        return Step(events=[ColoursDecided(our_side, by_coin)])

    # ------------------------------------------------------------ proposals

    def propose_options(self, options: Options, move_time: int | None = None) -> Step:
        """Propose a complete option set (governments in it are ignored, R11.1) with the
        time limit per move in seconds (0: none; None: the one agreed now)."""
        self._require(Phase.SETUP, "propose options")
        problem = self._problem(options) or self._options_problem(options, self.start)
        if problem:
            raise LobbyError(problem)
        seconds = self.move_time if move_time is None else move_time
        if not 0 <= seconds <= MAX_MOVE_TIME:
            raise LobbyError(f"a time limit per move is 0 (none) to {MAX_MOVE_TIME} "
                             f"seconds (got {seconds})")
        self._check_can_propose()
        number = self._take_proposal_number()
        return self._propose(OptionProposal(number, options, seconds), number, options,
                             None, seconds)

    def propose_move_time(self, seconds: int) -> Step:
        """Propose a time limit per move (0: none), the options staying as agreed."""
        return self.propose_options(self.options, seconds)

    def propose_start(self, board: StartBoard) -> Step:
        """Propose a start board (its options come with it; O15 and O16 forced off in
        stage 1). With fog of war, a board with pieces hidden from the start is sent as
        the other side's half state (the colours must be decided first): our hidden
        pieces never leave this machine (issue 21)."""
        self._require(Phase.SETUP, "propose a start board")
        if board.position is None:
            raise LobbyError("propose the standard setup with options instead")
        problem = start_board_problem(board.position)
        options = self._allowed(board.position.options)
        problem = problem or self._problem(options) \
            or self._options_problem(options, replace(board, hidden=False))
        if problem is None and self.fog and fog_on(options):
            problem = fog_board_problem(board.position)
        if problem:
            raise LobbyError(problem)
        title = board.title[:64]
        if not title or not title.isprintable():
            raise LobbyError("a start board needs a printable title of 1 to 64 characters")
        self._check_can_propose()
        # the board as the peer reads it back, so that both number its pieces alike
        position = decode_position(encode_position(board.position.evolve(options=options)),
                                   settled=True)
        ours = StartBoard(title, position)
        sent = position
        if fog_on(options) and hidden_at_start(build_start(ours, options).current):
            if self.our_side is None:
                raise LobbyError("this board has pieces hidden from the start: decide the "
                                 "colours first, so that only the other player's own "
                                 "pieces and what it sees are sent")
            sent = project(build_start(ours, options).current, self.our_side.other)
            ours = replace(ours, hidden=True)
        number = self._take_proposal_number()
        return self._propose(StartProposal(number, title, encode_position(sent)),
                             number, options, ours, self.move_time)

    def needs_colours(self, board: StartBoard) -> bool:
        """True when ``board`` can be proposed only once the colours are decided (fog of
        war, pieces hidden from the start: only the other side's half is sent)."""
        if board.position is None or not self.fog:
            return False
        options = board.position.options
        try:
            return fog_on(options) and hidden_at_start(build_start(board, options).current)
        except WecError:
            return False

    def _propose(self, message: Message, number: int, options: Options,
                 board: StartBoard | None, move_time: int) -> Step:
        self._our_proposal = (number, options, board, move_time)
        return Step(send=[message])

    def _check_can_propose(self) -> None:
        """One proposal at a time in all: so two proposals can only cross when both were
        made with nothing pending, and both sides then resolve the crossing alike."""
        if self._our_proposal is not None:
            raise LobbyError("wait for the answer to your previous proposal")
        if self._peer_proposal is not None:
            raise LobbyError("answer the other player's proposal first")

    def _take_proposal_number(self) -> int:
        number = self._next_proposal
        self._next_proposal += 1
        return number

    def approve(self) -> Step:
        """Approve the peer's pending proposal: the rules change at once."""
        self._require(Phase.SETUP, "approve a proposal")
        pending = self._peer_proposal
        if pending is None:
            raise LobbyError("there is no proposal to approve")
        self._peer_proposal = None
        number, options, board, move_time = pending
        step = Step(send=[OptionApprove(number)],
                    events=[ProposalAnswered(number, ours=False, approved=True)])
        return step.extend(self._adopt(options, board, move_time))

    def reject(self, reason: str = "") -> Step:
        """Reject the peer's pending proposal (``reason`` is shown to the peer)."""
        self._require(Phase.SETUP, "reject a proposal")
        pending = self._peer_proposal
        if pending is None:
            raise LobbyError("there is no proposal to reject")
        self._peer_proposal = None
        return Step(send=[OptionReject(pending[0], reason[:200])],
                    events=[ProposalAnswered(pending[0], ours=False, approved=False,
                                             reason=reason)])

    def _adopt(self, options: Options, board: StartBoard | None, move_time: int) -> Step:
        self.options = options
        self.move_time = move_time
        if board is not None:
            self.start = board
        return Step(events=[RulesChanged(self.options, self.start.title, self.move_time)])

    def _options_problem(self, options: Options, board: StartBoard) -> str | None:
        """Why ``options`` cannot go with ``board`` (the board must hold under them)."""
        if board.position is None:
            return None
        if board.hidden:
            return ("the start board has pieces hidden from the start and was agreed with "
                    "its options: propose the board again to change them")
        try:
            build_start(board, self._allowed(options))
        except WecError as exc:
            return f"the start board does not hold under these options: {exc}"
        return None

    # ------------------------------------------------------------ governments, view

    def choose_government(self, government: Government) -> Step:
        """R11.1: pick our own government; the peer is told, no approval needed."""
        if self.phase not in (Phase.SETUP, Phase.IDLE, Phase.INVITING, Phase.INVITED):
            raise LobbyError(f"the government is chosen before the game starts (now: "
                             f"{self.phase.value})")
        self.our_government = government
        send: list[Message] = [GovernmentChoice(government.value)] \
            if self.phase is Phase.SETUP else []
        return Step(send=send, events=[GovernmentChosen(True, government)])

    def set_view_setting(self, name: str, value: object) -> Step:
        """R14.5: a display-only setting; it has no rules effect and stays here."""
        self.view_settings[name] = value
        return Step(events=[ViewSettingChanged(name, value)])

    # ------------------------------------------------------------ chat

    def chat(self, text: str) -> Step:
        """Say one line to the peer (any phase; it changes nothing else)."""
        if not 1 <= len(text) <= MAX_CHAT or not text.isprintable():
            raise LobbyError(f"a chat line has 1 to {MAX_CHAT} printable characters "
                             f"(this one has {len(text)})")
        return Step(send=[Chat(text)], events=[ChatLine(True, text)])

    def _on_chat(self, message: Chat) -> Step:
        return Step(events=[ChatLine(False, message.text)])

    # ------------------------------------------------------------ end of setup

    def end_setup(self) -> Step:
        """End the setup (either side may): both sides then compare the rules hash."""
        self._require(Phase.SETUP, "end the setup")
        if self.our_side is None:
            raise LobbyError("the colours are not decided yet: choose a colour (and wait "
                             "for the coin flip, if there is one)")
        if self._our_proposal is not None:
            raise LobbyError("wait for the answer to your proposal before ending the setup")
        step = Step(send=[SetupDone()], events=[SetupEnded(by_us=True)])
        self._setup_done_sent = True
        step.extend(self._lapse_peer_proposal("you ended the setup"))
        return step.extend(self._send_rules_hash())

    def _lapse_peer_proposal(self, why: str) -> Step:
        pending, self._peer_proposal = self._peer_proposal, None
        if pending is None:
            return Step()
        return Step(events=[ProposalAnswered(pending[0], ours=False, approved=False,
                                             reason=why)])

    def _rules_fields(self) -> tuple[dict[str, Any], GameSetup]:
        """The rules both sides must hold alike, and the setup they start. With fog of
        war only the public part of the start is compared (issue 21): each side holds
        its own half state, and its hidden part is committed when the game starts."""
        assert self.our_side is not None
        white, black = ((self.our_key, self.peer_key) if self.our_side is Side.WHITE
                        else (self.peer_key, self.our_key))
        fields: dict[str, Any] = {"rules": self.rules_version, "intents": INTENT_FORMAT,
                                  "white": white, "black": black,
                                  "move_time": self.move_time}
        title = self.start.title
        if self.resume_game is not None:
            saved = self._saved
            assert saved is not None
            fields.update(kind="resume", save=self.resume_game, state=saved.state,
                          steps=saved.steps, fog=saved.match is None)
            if saved.match is None:
                fields.update(protocol=fog_protocol())
            return fields, GameSetup(saved.match, self.our_side, saved.options, "saved game",
                                     b"", self.resume_game, self.move_time, saved=saved)
        options = self.final_options()
        if not fog_on(options):
            if self.start.hidden:
                raise FormatError("the start board was agreed as one side's view for a "
                                  "game with fog of war; propose it again")
            match = build_start(self.start, options)
            fields.update(kind="new", options=options_to_dict(options),
                          start=match.start_hash, title=title)
            return fields, GameSetup(match, self.our_side, options, title, b"",
                                     move_time=self.move_time)
        position = self.start.position
        if self.start.hidden and position is not None and position.viewer is not None:
            half = position.evolve(options=options)
        else:
            half = project(build_start(self.start, options).current, self.our_side)
        fields.update(kind="new", fog=True, protocol=fog_protocol(),
                      options=options_to_dict(options), start=public_state_hash(half),
                      title=title)
        return fields, GameSetup(None, self.our_side, options, title, b"",
                                 move_time=self.move_time, half=half)

    def _send_rules_hash(self) -> Step:
        """Send our rules hash and wait for the peer's. When the start cannot be built
        a zero hash goes out, so the peer, too, learns that the rules do not match."""
        self.phase = Phase.HASHING
        try:
            fields, setup = self._rules_fields()
        except WecError as exc:
            self._hash_sent = None
            self._pending_setup = None
            return Step(send=[RulesHash(bytes(32), self.engine_version, self.rules_version)],
                        events=[Notice(f"the start cannot be built from these rules: {exc}")])
        digest = rules_digest(fields)
        self._hash_sent = digest
        self._pending_setup = replace(setup, rules_hash=digest)
        return Step(send=[RulesHash(digest, self.engine_version, self.rules_version)])

    def _compare_hashes(self, theirs: RulesHash) -> Step:
        ours = self._hash_sent
        if ours is None:
            return self._mismatch("the start cannot be built from these rules")
        if theirs.rules_version != self.rules_version:
            there = ("a wec without a rules version" if theirs.rules_version is None
                     else f"rules version {theirs.rules_version}")
            return self._mismatch(f"the two machines play different rules: here rules "
                                  f"version {self.rules_version} (wec "
                                  f"{self.engine_version}), there {there} (wec "
                                  f"{theirs.engine_version}); both players need a wec with "
                                  "the same rules version")
        if theirs.digest != ours:
            what = ("the two saved games differ" if self.resume_game is not None else
                    "the two machines hold different rules; check the options and end "
                    "the setup again")
            return self._mismatch(what)
        setup = self._pending_setup
        assert setup is not None
        self.setup = setup
        self.phase = Phase.STARTED
        return Step(events=[RulesAgreed(setup)])

    def _mismatch(self, reason: str) -> Step:
        if self.resume_game is not None:
            self._back_to_idle()
        else:
            self.phase = Phase.SETUP
            self._setup_done_sent = False
            self._hash_sent = None
            self._pending_setup = None
        return Step(events=[RulesMismatch(reason)])

    # ------------------------------------------------------------ the peer's messages

    def receive(self, message: Message) -> Step:
        """Handle one message from the peer; an unexpected one is refused with a reason
        (a Rejection for the peer and a Refused event) and changes nothing."""
        handler = _HANDLERS.get(type(message))
        if handler is None:
            return self._refuse(message, "not a lobby message")
        try:
            return handler(self, message)
        except Refusal as refusal:
            return self._refuse(message, refusal.reason)

    def _refuse(self, message: Message, reason: str) -> Step:
        return Step(send=[Rejection(message.TAG[:32], reason[:200])],
                    events=[Refused(message.TAG, reason)])

    def _on_invite(self, message: Invite) -> Step:
        if self.phase is Phase.INVITING:
            return self._crossing_invites(message)
        self._expect(Phase.IDLE, "an invitation")
        saved = None
        if message.resume_game is not None:
            saved, reason = self._resumable(message.resume_game)
            if saved is None:
                return Step(send=[Decline(message.invitation, reason[:200])],
                            events=[InvitationDeclined(by_us=True, reason=reason)])
        self._peer_invitation = message
        self._saved = saved
        self.phase = Phase.INVITED
        return Step(events=[Invited(message.invitation, message.resume_game)])

    def _crossing_invites(self, message: Invite) -> Step:
        """Both invited at once: the same intent starts the game; otherwise the session
        initiator's invitation stands and the other one is withdrawn."""
        ours = self._our_invitation
        assert ours is not None
        if ours.resume_game == message.resume_game:
            return self._begin(ours.resume_game)
        if self.initiator:
            return Step()  # ours stands; the peer withdraws its own
        saved = None
        if message.resume_game is not None:
            saved, reason = self._resumable(message.resume_game)
            if saved is None:
                self._back_to_idle()
                return Step(send=[Decline(message.invitation, reason[:200])],
                            events=[InvitationDeclined(by_us=True, reason=reason)])
        self._our_invitation = None
        self._peer_invitation = message
        self._saved = saved
        self.phase = Phase.INVITED
        return Step(events=[Invited(message.invitation, message.resume_game)])

    def _resumable(self, digest: bytes) -> tuple[SavedGame | None, str]:
        """The save the peer invites us to resume, or None and why not: it must be here,
        and its options must keep O15 and O16 off like a new game's (issue 20 hole 10:
        a resumed save bypassed the lock)."""
        saved = self._find_save(digest)
        if saved is None:
            return None, "there is no saved game with this fingerprint on this machine"
        problem = self._save_problem(saved)
        if problem:
            return None, problem
        return saved, ""

    def _on_accept(self, message: Accept) -> Step:
        self._expect(Phase.INVITING, "an acceptance")
        ours = self._our_invitation
        assert ours is not None
        if message.invitation != ours.invitation:
            raise Refusal(f"acceptance of invitation {message.invitation}, but ours is "
                           f"{ours.invitation}")
        return self._begin(ours.resume_game)

    def _on_decline(self, message: Decline) -> Step:
        self._expect(Phase.INVITING, "a refusal")
        ours = self._our_invitation
        assert ours is not None
        if message.invitation != ours.invitation:
            raise Refusal(f"refusal of invitation {message.invitation}, but ours is "
                           f"{ours.invitation}")
        self._back_to_idle()
        return Step(events=[InvitationDeclined(by_us=False, reason=message.reason)])

    def _on_colour(self, message: ColourChoice) -> Step:
        self._expect(Phase.SETUP, "a colour choice")
        if self.peer_colour is not None:
            raise Refusal(f"the colour was already chosen ({self.peer_colour})")
        self.peer_colour = message.colour
        step = Step(events=[ColourChosen(False, message.colour)])
        return step.extend(self._decide_colours())

    def _on_coin_commit(self, message: CoinCommit) -> Step:
        self._expect(Phase.SETUP, "a coin commitment")
        coin = self._coin
        if coin is None:
            raise Refusal("no coin flip is under way (the colours are not both chosen, "
                           "or they differ)")
        if coin.peer_commit is not None:
            raise Refusal("the coin commitment was already received")
        if message.commitment == coin.commitment:
            raise Refusal("this coin commitment is a copy of ours: each side commits to "
                           "its own coin")
        coin.peer_commit = message
        return self._advance_coin()

    def _on_coin_reveal(self, message: CoinReveal) -> Step:
        self._expect(Phase.SETUP, "a coin reveal")
        coin = self._coin
        if coin is None or coin.peer_commit is None:
            raise Refusal("a coin reveal before its commitment")
        if coin.peer_reveal is not None:
            raise Refusal("the coin was already revealed")
        if not reveal_matches(coin.peer_commit, message, self.peer_key):
            self._back_to_idle()
            reason = ("the peer's coin reveal does not open its commitment: the coin flip "
                      "was not fair, so the setup stops")
            return Step(send=[Rejection(message.TAG, reason)],
                        events=[Refused(message.TAG, reason), RulesMismatch(reason)])
        coin.peer_reveal = message
        return self._advance_coin()

    def _on_proposal(self, message: OptionProposal | StartProposal) -> Step:
        self._expect(Phase.SETUP, "a proposal")
        if self._peer_proposal is not None:
            raise Refusal("one proposal at a time: the previous one is not answered yet")
        board: StartBoard | None = None
        if isinstance(message, StartProposal):
            try:
                position = decode_position(message.position, settled=True)
            except FormatError as exc:
                return self._auto_reject(message.proposal, f"unreadable start board: {exc}")
            if position.viewer is not None:  # our half state of a board with hidden pieces
                problem = self._half_board_problem(position)
                board = StartBoard(message.title, position, hidden=True)
                options = position.options
            else:
                problem = start_board_problem(position)
                board = StartBoard(message.title, position)
                options = self._allowed(position.options)
            problem = problem or self._problem(options)
            if problem is None and self.fog and fog_on(options):
                problem = fog_board_problem(position)
            if problem is None and position.viewer is None and fog_on(options) \
                    and hidden_at_start(build_start(board, options).current):
                problem = "pieces hidden from the start were sent whole"
            if problem:
                return self._auto_reject(message.proposal, f"not a valid start board: "
                                                           f"{problem}")
            move_time = self.move_time
        else:
            options = message.options
            move_time = message.move_time or 0
            problem = self._problem(options)
            if problem:
                return self._auto_reject(message.proposal, problem)
        problem = (None if board is not None and board.hidden
                   else self._options_problem(options, board or self.start))
        if problem:
            return self._auto_reject(message.proposal, problem)
        step = Step()
        if self._our_proposal is not None:
            if self.initiator:
                return self._auto_reject(message.proposal, "crossing proposals: the other "
                                         "player's proposal is answered first")
            withdrawn, self._our_proposal = self._our_proposal, None
            step.events.append(ProposalAnswered(withdrawn[0], ours=True, approved=False,
                                                reason="withdrawn: the other player's "
                                                "proposal crossed it and goes first"))
            self._withdrawn = withdrawn[0]
        self._peer_proposal = (message.proposal, options, board, move_time)
        title = board.title if board is not None else ""
        step.events.append(ProposalReceived(message.proposal, options, title, move_time))
        return step

    def _half_board_problem(self, half: Position) -> str | None:
        """Why a start board sent as our half state cannot be taken, or None."""
        if not self.fog:
            return STAGE1_REASON
        if self.our_side is None or half.viewer is not self.our_side:
            return ("a start board sent as one side's view must be our side's, once the "
                    "colours are decided")
        if not fog_on(half.options):
            return "a start board sent as one side's view needs O15 or O16 on"
        if half.result is not None:
            return "a start board must not be a finished game (R12)"
        return None

    def _auto_reject(self, proposal: int, reason: str) -> Step:
        return Step(send=[OptionReject(proposal, reason[:200])],
                    events=[ProposalAnswered(proposal, ours=False, approved=False,
                                             reason=reason)])

    def _on_answer(self, message: OptionApprove | OptionReject) -> Step:
        if self.phase is Phase.SETUP and self._our_proposal is None \
                and self._withdrawn == message.proposal:
            self._withdrawn = None  # the expected refusal of a withdrawn proposal
            return Step()
        self._expect(Phase.SETUP, "an answer to a proposal")
        pending = self._our_proposal
        if pending is None or pending[0] != message.proposal:
            raise Refusal(f"an answer to proposal {message.proposal}, which is not pending")
        self._our_proposal = None
        if isinstance(message, OptionReject):
            return Step(events=[ProposalAnswered(message.proposal, ours=True, approved=False,
                                                 reason=message.reason)])
        step = Step(events=[ProposalAnswered(message.proposal, ours=True, approved=True)])
        return step.extend(self._adopt(pending[1], pending[2], pending[3]))

    def _on_government(self, message: GovernmentChoice) -> Step:
        self._expect(Phase.SETUP, "a government choice")
        self.peer_government = Government(message.government)
        return Step(events=[GovernmentChosen(False, self.peer_government)])

    def _on_setup_done(self, message: SetupDone) -> Step:
        if self.phase is Phase.HASHING and self._setup_done_sent:
            return Step(events=[SetupEnded(by_us=False)])  # both ended it at once
        self._expect(Phase.SETUP, "the end of the setup")
        if self.our_side is None:
            raise Refusal("the setup cannot end before the colours are decided")
        step = Step(events=[SetupEnded(by_us=False)])
        ours, self._our_proposal = self._our_proposal, None
        if ours is not None:
            step.events.append(ProposalAnswered(ours[0], ours=True, approved=False,
                                                reason="the other player ended the setup "
                                                "without answering"))
        step.extend(self._lapse_peer_proposal("the setup ended"))
        self._setup_done_sent = True
        return step.extend(self._send_rules_hash())

    def _on_rules_hash(self, message: RulesHash) -> Step:
        # The peer's SetupDone (or Accept, for a resume) always comes before its hash, so
        # by then we are hashing too.
        self._expect(Phase.HASHING, "a rules hash")
        return self._compare_hashes(message)

    def _on_rejection(self, message: Rejection) -> Step:
        return Step(events=[PeerRefused(message.refused, message.reason)])

    # ------------------------------------------------------------ checks

    def _require(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            raise LobbyError(f"cannot {what} now: the lobby is {self.phase.value}")

    def _expect(self, phase: Phase, what: str) -> None:
        if self.phase is not phase:
            raise Refusal(f"{what} is not expected while the lobby is {self.phase.value}")


_HANDLERS: dict[type[Message], Callable[[Lobby, Any], Step]] = {
    Invite: Lobby._on_invite,
    Accept: Lobby._on_accept,
    Decline: Lobby._on_decline,
    ColourChoice: Lobby._on_colour,
    CoinCommit: Lobby._on_coin_commit,
    CoinReveal: Lobby._on_coin_reveal,
    OptionProposal: Lobby._on_proposal,
    StartProposal: Lobby._on_proposal,
    OptionApprove: Lobby._on_answer,
    OptionReject: Lobby._on_answer,
    GovernmentChoice: Lobby._on_government,
    SetupDone: Lobby._on_setup_done,
    RulesHash: Lobby._on_rules_hash,
    Chat: Lobby._on_chat,
    Rejection: Lobby._on_rejection,
}

LOBBY_MESSAGES = tuple(_HANDLERS)

__all__ = [
    "ENGINE_VERSION", "LOBBY_MESSAGES", "STAGE1_REASON", "ChatLine", "CoinFlipStarted",
    "ColourChosen",
    "ColoursDecided", "GameSetup", "GovernmentChosen", "InvitationDeclined", "Invited",
    "Lobby", "LobbyError", "LobbyEvent", "Notice", "PeerRefused", "Phase",
    "ProposalAnswered", "ProposalReceived", "Refused", "RulesAgreed", "RulesChanged",
    "RulesMismatch", "SavedGame", "SetupEnded", "SetupStarted", "StartBoard", "Step",
    "ViewSettingChanged", "build_start", "decode_position", "encode_position",
    "hidden_at_start",
    "rules_digest", "stage1_options", "stage1_problem", "start_board_problem",
]
