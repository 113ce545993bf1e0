"""The lobby state machine (issue 8 item 4): invitation, colours and the fair coin, option
and start-board proposals, governments, view settings, the end of the setup and the rules
hash. Two real Lobby objects talk through the real message encoder and decoder."""

from __future__ import annotations

import hashlib
from dataclasses import replace

import msgpack
import pytest

from wec.engine.match import Match
from wec.engine.options import Options, options_to_dict
from wec.engine.pieces import Government, Side
from wec.engine.setup import standard_position
from wec.engine.version import RULES_VERSION
from wec.net.errors import MalformedMessage
from wec.net.lobby import (
    STAGE1_REASON,
    ChatLine,
    CoinFlipStarted,
    ColourChosen,
    ColoursDecided,
    GovernmentChosen,
    InvitationDeclined,
    Invited,
    Lobby,
    LobbyError,
    LobbyEvent,
    Notice,
    Phase,
    ProposalAnswered,
    ProposalReceived,
    Refused,
    RulesAgreed,
    RulesChanged,
    RulesMismatch,
    SavedGame,
    SetupEnded,
    SetupStarted,
    StartBoard,
    Step,
    ViewSettingChanged,
    build_start,
    encode_position,
    rules_digest,
)
from wec.net.messages import (
    MAX_CHAT,
    Accept,
    Chat,
    CoinCommit,
    CoinReveal,
    ColourChoice,
    Decline,
    Invite,
    Message,
    OptionProposal,
    OptionReject,
    Rejection,
    RulesHash,
    SetupDone,
    StartProposal,
    coin_commitment,
    decode_message,
    encode_message,
    reveal_matches,
)
from wec.storage.scenarios import load_scenario

KEY_A = bytes([0xA1]) * 32
KEY_B = bytes([0xB2]) * 32
NONCE_A = bytes(range(32))
NONCE_B = bytes(range(32, 64))


def coin_source(nonce: bytes, bit: int):
    def random_bytes(size: int) -> bytes:
        assert size == 33
        return nonce + bytes([bit])
    return random_bytes


class Wire:
    """Two lobbies joined by the real encoder: every message is encoded and decoded."""

    def __init__(self, a: Lobby, b: Lobby) -> None:
        self.lobbies = {"a": a, "b": b}
        self.queues: dict[str, list[Message]] = {"a": [], "b": []}  # to be read by side
        self.events: dict[str, list[LobbyEvent]] = {"a": [], "b": []}
        self.sent: dict[str, list[Message]] = {"a": [], "b": []}

    def local(self, side: str, step: Step) -> Step:
        other = "b" if side == "a" else "a"
        for message in step.send:
            self.sent[side].append(message)
            self.queues[other].append(decode_message(encode_message(message)))
        self.events[side] += step.events
        return step

    def deliver_one(self, side: str) -> Step:
        message = self.queues[side].pop(0)
        return self.local(side, self.lobbies[side].receive(message))

    def flush(self) -> None:
        while self.queues["a"] or self.queues["b"]:
            for side in ("a", "b"):
                if self.queues[side]:
                    self.deliver_one(side)

    def forget_sent(self) -> None:
        self.sent = {"a": [], "b": []}

    def take(self, side: str) -> list[LobbyEvent]:
        events, self.events[side] = self.events[side], []
        return events


def lobbies(bit_a: int = 1, bit_b: int = 0, **kwargs) -> tuple[Lobby, Lobby, Wire]:
    kwargs.setdefault("fog", False)  # stage 1 here; fog of war: test_net_lobby_fog.py
    a = Lobby(KEY_A, KEY_B, initiator=True, random_bytes=coin_source(NONCE_A, bit_a),
              **kwargs)
    b = Lobby(KEY_B, KEY_A, initiator=False, random_bytes=coin_source(NONCE_B, bit_b),
              **kwargs)
    return a, b, Wire(a, b)


def in_setup(**kwargs) -> tuple[Lobby, Lobby, Wire]:
    a, b, wire = lobbies(**kwargs)
    wire.local("a", a.invite())
    wire.flush()
    wire.local("b", b.accept())
    wire.flush()
    wire.take("a"), wire.take("b")
    wire.forget_sent()
    return a, b, wire


def with_colours(colour_a: str = "white", colour_b: str = "black", **kwargs):
    a, b, wire = in_setup(**kwargs)
    wire.local("a", a.choose_colour(colour_a))
    wire.local("b", b.choose_colour(colour_b))
    wire.flush()
    wire.take("a"), wire.take("b")
    return a, b, wire


# ---------------------------------------------------------------- start and invitation


def test_a_new_lobby_keeps_o15_and_o16_off_and_says_why() -> None:
    lobby = Lobby(KEY_A, KEY_B, initiator=True, fog=False)
    assert lobby.options == replace(Options(), stealth_invisibility=False,
                                    submersion_invisibility=False)
    assert lobby.opening_notice().events == [Notice(STAGE1_REASON)]
    assert "O15 stealth invisibility and O16 submersion invisibility stay off" in STAGE1_REASON
    assert lobby.phase is Phase.IDLE


def test_invite_then_accept_starts_the_setup_on_both_sides() -> None:
    a, b, wire = lobbies()
    assert wire.local("a", a.invite()).send == [Invite(0, None)]
    assert a.phase is Phase.INVITING
    wire.flush()
    assert wire.take("b") == [Invited(0, None)]
    assert b.phase is Phase.INVITED
    assert wire.local("b", b.accept()).send == [Accept(0)]
    wire.flush()
    assert (a.phase, b.phase) == (Phase.SETUP, Phase.SETUP)
    assert wire.take("a") == [SetupStarted(resume=False)]
    assert wire.take("b") == [SetupStarted(resume=False)]


def test_a_declined_invitation_returns_both_to_idle_with_the_reason() -> None:
    a, b, wire = lobbies()
    wire.local("a", a.invite())
    wire.flush()
    wire.take("b")
    assert wire.local("b", b.decline("busy")).send == [Decline(0, "busy")]
    wire.flush()
    assert wire.take("a") == [InvitationDeclined(by_us=False, reason="busy")]
    assert wire.take("b") == [InvitationDeclined(by_us=True, reason="busy")]
    assert (a.phase, b.phase) == (Phase.IDLE, Phase.IDLE)
    assert wire.local("a", a.invite()).send == [Invite(1, None)]  # a fresh number


def test_crossing_invitations_start_the_setup_without_an_answer() -> None:
    a, b, wire = lobbies()
    wire.local("a", a.invite())
    wire.local("b", b.invite())
    wire.flush()
    assert (a.phase, b.phase) == (Phase.SETUP, Phase.SETUP)
    assert wire.sent["a"] == [Invite(0, None)] and wire.sent["b"] == [Invite(0, None)]


def test_local_commands_out_of_phase_are_refused_and_change_nothing() -> None:
    a, _, _ = lobbies()
    with pytest.raises(LobbyError, match="cannot accept an invitation now: the lobby is idle"):
        a.accept()
    with pytest.raises(LobbyError, match="cannot choose a colour now: the lobby is idle"):
        a.choose_colour("white")
    with pytest.raises(LobbyError, match="cannot end the setup now: the lobby is idle"):
        a.end_setup()
    assert a.phase is Phase.IDLE


def test_unexpected_peer_messages_are_refused_with_a_reason_and_not_applied() -> None:
    a, _, _ = lobbies()
    step = a.receive(Accept(0))
    reason = "an acceptance is not expected while the lobby is idle"
    assert step.send == [Rejection("accept", reason)]
    assert step.events == [Refused("accept", reason)]
    assert a.phase is Phase.IDLE
    step = a.receive(SetupDone())
    assert step.send == [Rejection("setup_done", "the end of the setup is not expected "
                                                 "while the lobby is idle")]
    assert a.receive(Invite(5)).events == [Invited(5, None)]
    assert a.receive(Invite(6)).send == [Rejection(
        "invite", "an invitation is not expected while the lobby is invited")]


# ---------------------------------------------------------------- colours and the coin


@pytest.mark.parametrize(("colour_a", "colour_b", "side_a"), [
    ("white", "black", Side.WHITE), ("black", "white", Side.BLACK),
    ("either", "black", Side.WHITE), ("either", "white", Side.BLACK),
    ("white", "either", Side.WHITE), ("black", "either", Side.BLACK)])
def test_different_colour_wishes_are_granted(colour_a: str, colour_b: str,
                                             side_a: Side) -> None:
    a, b, wire = in_setup()
    wire.local("a", a.choose_colour(colour_a))
    wire.local("b", b.choose_colour(colour_b))
    wire.flush()
    assert (a.our_side, b.our_side) == (side_a, side_a.other)
    assert wire.take("a") == [ColourChosen(True, colour_a), ColourChosen(False, colour_b),
                              ColoursDecided(side_a, by_coin=False)]
    assert not any(isinstance(m, CoinCommit) for m in wire.sent["a"] + wire.sent["b"])


def test_equal_wishes_are_decided_by_commit_and_reveal() -> None:
    a, b, wire = in_setup(bit_a=1, bit_b=0)
    wire.local("a", a.choose_colour("white"))
    wire.local("b", b.choose_colour("white"))
    wire.flush()
    commit_a = CoinCommit(coin_commitment(NONCE_A, 1, KEY_A))
    commit_b = CoinCommit(coin_commitment(NONCE_B, 0, KEY_B))
    assert commit_a.commitment == hashlib.sha256(
        b"wec-net coin v2" + b"\x00\x20" + KEY_A + NONCE_A + b"\x01").digest()
    # each side commits first and reveals only after the other's commitment arrived
    assert wire.sent["a"] == [ColourChoice("white"), commit_a, CoinReveal(NONCE_A, 1)]
    assert wire.sent["b"] == [ColourChoice("white"), commit_b, CoinReveal(NONCE_B, 0)]
    # 1 XOR 0 = 1: the contested colour goes to the session initiator (a)
    assert (a.our_side, b.our_side) == (Side.WHITE, Side.BLACK)
    assert wire.take("a")[-2:] == [CoinFlipStarted("white"), ColoursDecided(Side.WHITE, True)]


@pytest.mark.parametrize(("bit_a", "bit_b", "side_a"), [
    (0, 0, Side.BLACK), (1, 1, Side.BLACK), (1, 0, Side.WHITE), (0, 1, Side.WHITE)])
def test_both_either_gives_white_to_the_initiator_when_the_bits_differ(
        bit_a: int, bit_b: int, side_a: Side) -> None:
    a, b, wire = in_setup(bit_a=bit_a, bit_b=bit_b)
    wire.local("a", a.choose_colour("either"))
    wire.local("b", b.choose_colour("either"))
    wire.flush()
    assert (a.our_side, b.our_side) == (side_a, side_a.other)


def test_both_black_contests_black() -> None:
    a, b, wire = in_setup(bit_a=0, bit_b=0)  # XOR 0: the responder gets black
    wire.local("a", a.choose_colour("black"))
    wire.local("b", b.choose_colour("black"))
    wire.flush()
    assert (a.our_side, b.our_side) == (Side.WHITE, Side.BLACK)


def test_a_reveal_that_does_not_open_its_commitment_stops_the_setup() -> None:
    a, b, wire = in_setup(bit_a=1, bit_b=0)
    wire.local("a", a.choose_colour("white"))
    wire.local("b", b.choose_colour("white"))
    wire.deliver_one("a")  # b's colour: a commits
    wire.deliver_one("b")  # a's colour: b commits
    wire.deliver_one("a")  # b's commitment: a reveals
    wire.deliver_one("b")  # a's commitment: b would reveal; we swap in a cheat
    wire.queues["a"] = [CoinReveal(NONCE_B, 1)]  # b "changes its mind" to bit 1
    step = wire.deliver_one("a")
    reason = ("the peer's coin reveal does not open its commitment: the coin flip was not "
              "fair, so the setup stops")
    assert step.send == [Rejection("coin_reveal", reason)]
    assert step.events == [Refused("coin_reveal", reason), RulesMismatch(reason)]
    assert a.phase is Phase.IDLE and a.our_side is None


def test_a_copied_coin_commitment_is_refused_and_cannot_bias_the_flip() -> None:
    """Issue 20 hole 6: the responder copied the initiator's commitment and then its
    reveal, so the XOR was always 0 and the contested colour always the responder's.
    A copy is refused, and a commitment opens only with its author's key."""
    a, b, wire = in_setup(bit_a=1, bit_b=0)
    wire.local("a", a.choose_colour("white"))
    wire.local("b", b.choose_colour("white"))
    wire.deliver_one("b")  # a's colour: b commits (its commitment waits in a's queue)
    wire.deliver_one("a")  # b's colour: a commits
    copy = wire.queues["b"].pop(0)  # Mallory (b) takes a's commitment off the wire...
    assert isinstance(copy, CoinCommit)
    wire.queues["a"][0] = copy  # ...and sends it back as its own
    reason = "this coin commitment is a copy of ours: each side commits to its own coin"
    step = wire.deliver_one("a")
    assert step.send == [Rejection("coin_commit", reason)]
    assert step.events == [Refused("coin_commit", reason)]
    assert a._coin is not None and a._coin.peer_commit is None and a.our_side is None
    # a's own commitment, opened by its reveal, does not open under b's key either
    reveal = CoinReveal(NONCE_A, 1)
    assert reveal_matches(copy, reveal, KEY_A) and not reveal_matches(copy, reveal, KEY_B)
    # an honest commitment then flips fairly
    wire.queues["b"].insert(0, copy)
    wire.queues["a"].insert(0, CoinCommit(coin_commitment(NONCE_B, 0, KEY_B)))
    wire.flush()
    assert (a.our_side, b.our_side) == (Side.WHITE, Side.BLACK)


def test_a_second_colour_choice_and_a_stray_coin_are_refused() -> None:
    a, _b, _wire = with_colours("white", "black")
    with pytest.raises(LobbyError, match="you already asked for white"):
        a.choose_colour("black")
    assert a.receive(ColourChoice("white")).events == [
        Refused("colour", "the colour was already chosen (black)")]
    assert a.receive(CoinReveal(NONCE_B, 1)).events == [
        Refused("coin_reveal", "a coin reveal before its commitment")]
    assert a.our_side is Side.WHITE


# ---------------------------------------------------------------- proposals


def test_an_approved_option_proposal_changes_the_rules_on_both_sides() -> None:
    a, b, wire = with_colours()
    proposed = replace(a.options, tank_range=8, stun_duration=5)
    assert wire.local("a", a.propose_options(proposed)).send == [
        OptionProposal(0, proposed, 0)]
    wire.flush()
    assert wire.take("b") == [ProposalReceived(0, proposed, "")]
    assert a.options.tank_range == 7  # nothing changes before the answer
    wire.local("b", b.approve())
    wire.flush()
    assert a.options == b.options == proposed
    assert wire.take("a") == [ProposalAnswered(0, ours=True, approved=True),
                              RulesChanged(proposed, "standard")]
    assert wire.take("b") == [ProposalAnswered(0, ours=False, approved=True),
                              RulesChanged(proposed, "standard")]


def test_a_rejected_proposal_changes_nothing_and_carries_the_reason() -> None:
    a, b, wire = with_colours()
    before = a.options
    wire.local("b", b.propose_options(replace(before, flame_range=3)))
    wire.flush()
    assert wire.local("a", a.reject("too hot")).send == [OptionReject(0, "too hot")]
    wire.flush()
    assert a.options == b.options == before
    assert wire.take("b")[-1] == ProposalAnswered(0, ours=True, approved=False,
                                                  reason="too hot")


def test_o15_and_o16_cannot_be_proposed_in_stage_1() -> None:
    a, b, _wire = with_colours()
    with pytest.raises(LobbyError) as refused:
        a.propose_options(replace(a.options, stealth_invisibility=True))
    assert refused.value.reason == STAGE1_REASON
    # a peer that sends one anyway gets an automatic rejection with the reason
    crafted = OptionProposal(7, replace(Options(), submersion_invisibility=False))
    step = b.receive(crafted)
    assert step.send == [OptionReject(7, STAGE1_REASON[:200])]
    assert step.events == [ProposalAnswered(7, ours=False, approved=False,
                                            reason=STAGE1_REASON)]
    assert b.options.stealth_invisibility is False


def test_one_proposal_at_a_time_and_crossing_proposals_resolve_alike() -> None:
    a, b, wire = with_colours()
    first = replace(a.options, tank_range=6)
    wire.local("a", a.propose_options(first))
    with pytest.raises(LobbyError, match="wait for the answer to your previous proposal"):
        a.propose_options(first)
    wire.local("b", b.propose_options(replace(b.options, tank_range=8)))  # crosses
    wire.flush()
    # the initiator's (a's) proposal stands on both sides, b's is withdrawn
    assert wire.take("b") == [
        ProposalAnswered(0, ours=True, approved=False,
                         reason="withdrawn: the other player's proposal crossed it and "
                                "goes first"),
        ProposalReceived(0, first, "")]
    wire.local("b", b.approve())
    wire.flush()
    assert a.options == b.options == first
    assert not any(isinstance(e, Refused) for e in wire.take("a") + wire.take("b"))


def test_a_start_board_proposal_brings_its_options_with_o15_and_o16_off() -> None:
    a, b, wire = with_colours()
    king_hunt = load_scenario("king_hunt")
    wire.local("a", a.propose_start(StartBoard("king_hunt", king_hunt)))
    wire.flush()
    expected = replace(king_hunt.options, stealth_invisibility=False,
                       submersion_invisibility=False)
    assert wire.take("b") == [ProposalReceived(0, expected, "king_hunt")]
    wire.local("b", b.approve())
    wire.flush()
    assert a.start.title == b.start.title == "king_hunt"
    assert a.options == b.options == expected
    assert expected.reinforcements == "none"


def test_unreadable_or_invalid_start_boards_are_rejected_automatically() -> None:
    _, b, _ = with_colours()
    step = b.receive(StartProposal(3, "junk", b"\xc1"))
    assert step.send[0].proposal == 3 and isinstance(step.send[0], OptionReject)
    assert step.send[0].reason.startswith("unreadable start board: position: not a valid "
                                          "msgpack message")
    white_only = standard_position()
    white_only = white_only.evolve(pieces=tuple(p for p in white_only.pieces
                                                if p.side is Side.WHITE))
    step = b.receive(StartProposal(4, "white only", encode_position(white_only)))
    assert step.send == [OptionReject(4, "not a valid start board: R14.4(d): Black has no "
                                         "legal Move")]
    assert b.start.title == "standard"


def test_governments_need_no_approval_and_go_on_each_players_side() -> None:
    a, b, wire = with_colours("black", "white")
    wire.local("a", a.choose_government(Government.DEMOCRACY))
    wire.local("b", b.choose_government(Government.THEOCRACY))
    wire.flush()
    assert wire.take("b") == [GovernmentChosen(True, Government.THEOCRACY),
                              GovernmentChosen(False, Government.DEMOCRACY)]
    for lobby in (a, b):
        options = lobby.final_options()
        assert (options.government_black, options.government_white) == \
            (Government.DEMOCRACY, Government.THEOCRACY)


def test_view_settings_stay_on_this_machine() -> None:
    a, _, wire = with_colours()
    step = wire.local("a", a.set_view_setting("last_seen_markers", False))
    assert step.send == []
    assert step.events == [ViewSettingChanged("last_seen_markers", False)]
    assert a.view_settings == {"last_seen_markers": False}


# ---------------------------------------------------------------- end of setup and hash


def test_the_setup_needs_decided_colours_and_an_answered_proposal() -> None:
    a, b, wire = in_setup()
    with pytest.raises(LobbyError, match="the colours are not decided yet"):
        a.end_setup()
    assert b.receive(SetupDone()).events == [
        Refused("setup_done", "the setup cannot end before the colours are decided")]
    wire.local("a", a.choose_colour("white"))
    wire.local("b", b.choose_colour("black"))
    wire.flush()
    wire.local("a", a.propose_options(replace(a.options, tank_range=8)))
    with pytest.raises(LobbyError, match="wait for the answer to your proposal"):
        a.end_setup()


def test_ending_the_setup_compares_the_rules_and_starts_the_same_game() -> None:
    a, b, wire = with_colours("black", "white")
    wire.local("a", a.choose_government(Government.DICTATORSHIP))
    wire.flush()
    wire.take("a"), wire.take("b")
    step = wire.local("b", b.end_setup())
    assert isinstance(step.send[0], SetupDone) and isinstance(step.send[1], RulesHash)
    wire.flush()
    assert (a.phase, b.phase) == (Phase.STARTED, Phase.STARTED)
    assert a.setup is not None and b.setup is not None
    assert a.setup.rules_hash == b.setup.rules_hash
    assert (a.setup.our_side, b.setup.our_side) == (Side.BLACK, Side.WHITE)
    assert a.setup.match.start_hash == b.setup.match.start_hash
    options = replace(Options(), stealth_invisibility=False, submersion_invisibility=False,
                      government_black=Government.DICTATORSHIP)
    assert a.setup.options == options
    assert a.setup.match.start_hash == Match.begin(standard_position(options)).start_hash
    expected_hash = rules_digest({
        "rules": RULES_VERSION, "intents": "wec-intent/1", "white": KEY_B, "black": KEY_A,
        "move_time": 0,
        "kind": "new",
        "options": options_to_dict(options),
        "start": a.setup.match.start_hash, "title": "standard"})
    assert a.setup.rules_hash == expected_hash
    assert wire.take("a") == [SetupEnded(by_us=False), RulesAgreed(a.setup)]
    assert wire.take("b") == [SetupEnded(by_us=True), RulesAgreed(b.setup)]


def test_both_ending_the_setup_at_once_still_starts() -> None:
    a, b, wire = with_colours()
    wire.local("a", a.end_setup())
    wire.local("b", b.end_setup())
    wire.flush()
    assert (a.phase, b.phase) == (Phase.STARTED, Phase.STARTED)


def test_an_unanswered_proposal_lapses_when_the_other_side_ends_the_setup() -> None:
    a, b, wire = with_colours()
    wire.local("b", b.propose_options(replace(b.options, tank_range=6)))
    wire.flush()
    wire.take("a"), wire.take("b")
    wire.local("a", a.end_setup())
    wire.flush()
    assert wire.take("b")[:2] == [
        SetupEnded(by_us=False),
        ProposalAnswered(0, ours=True, approved=False,
                         reason="the other player ended the setup without answering")]
    assert a.setup is not None and b.setup is not None
    assert a.setup.options.tank_range == b.setup.options.tank_range == 7


def set_up_and_end(a: Lobby, b: Lobby) -> Wire:
    """Invitation, colours (a White, b Black) and a's end of the setup."""
    wire = Wire(a, b)
    wire.local("a", a.invite())
    wire.flush()
    wire.local("b", b.accept())
    wire.flush()
    wire.local("a", a.choose_colour("white"))
    wire.local("b", b.choose_colour("black"))
    wire.flush()
    wire.take("a"), wire.take("b")
    wire.local("a", a.end_setup())
    wire.flush()
    return wire


def test_different_rules_versions_refuse_to_play_and_name_both_versions() -> None:
    """engine.version.RULES_VERSION: engines that resolve intents differently must not
    play each other; each side is told both versions."""
    assert RULES_VERSION == 1
    a = Lobby(KEY_A, KEY_B, initiator=True, engine_version="0.1.0", rules_version=1,
              fog=False)
    b = Lobby(KEY_B, KEY_A, initiator=False, engine_version="0.2.0", rules_version=2,
              fog=False)
    wire = set_up_and_end(a, b)
    assert (a.phase, b.phase) == (Phase.SETUP, Phase.SETUP)  # back to the setup
    assert a.setup is None and b.setup is None
    assert wire.take("a")[-1] == RulesMismatch(
        "the two machines play different rules: here rules version 1 (wec 0.1.0), there "
        "rules version 2 (wec 0.2.0); both players need a wec with the same rules version")
    assert wire.take("b")[-1] == RulesMismatch(
        "the two machines play different rules: here rules version 2 (wec 0.2.0), there "
        "rules version 1 (wec 0.1.0); both players need a wec with the same rules version")


def test_a_peer_without_a_rules_version_is_named_as_such() -> None:
    a = Lobby(KEY_A, KEY_B, initiator=True, fog=False)
    a.receive(Invite(0))
    a.accept()
    a.choose_colour("white")
    a.receive(ColourChoice("black"))
    a.end_setup()
    step = a.receive(RulesHash(bytes(32), "0.0.9+wec-intent/1"))
    assert step.events == [RulesMismatch(
        f"the two machines play different rules: here rules version 1 (wec "
        f"{a.engine_version}), there a wec without a rules version (wec 0.0.9+wec-intent/1); "
        "both players need a wec with the same rules version")]


def test_different_releases_with_the_same_rules_version_play() -> None:
    a = Lobby(KEY_A, KEY_B, initiator=True, engine_version="0.1.0", fog=False)
    b = Lobby(KEY_B, KEY_A, initiator=False, engine_version="0.2.0", fog=False)
    wire = set_up_and_end(a, b)
    assert (a.phase, b.phase) == (Phase.STARTED, Phase.STARTED)
    assert a.setup is not None and b.setup is not None
    assert a.setup.rules_hash == b.setup.rules_hash
    assert isinstance(wire.take("a")[-1], RulesAgreed)


def test_rules_that_differ_are_caught_by_the_hash() -> None:
    a, b, wire = with_colours()
    b.options = replace(b.options, tank_range=6)  # as if a message had been lost
    wire.local("a", a.end_setup())
    wire.flush()
    assert (a.phase, b.phase) == (Phase.SETUP, Phase.SETUP)
    reason = ("the two machines hold different rules; check the options and end the setup "
              "again")
    assert wire.take("a")[-1] == RulesMismatch(reason)
    assert wire.take("b")[-1] == RulesMismatch(reason)


# ---------------------------------------------------------------- resuming a save


def test_a_saved_game_is_resumed_when_both_hold_it() -> None:
    start = build_start(StartBoard(), replace(Options(), stealth_invisibility=False,
                                              submersion_invisibility=False))
    match = start.play(start.legal_intents()[0])
    digest = hashlib.sha256(b"the save file").digest()
    saves = {"a": SavedGame(match, Side.BLACK), "b": SavedGame(match, Side.WHITE)}
    a = Lobby(KEY_A, KEY_B, initiator=True,
              find_save=lambda d: saves["a"] if d == digest else None, fog=False)
    b = Lobby(KEY_B, KEY_A, initiator=False,
              find_save=lambda d: saves["b"] if d == digest else None, fog=False)
    wire = Wire(a, b)
    wire.local("a", a.invite(resume_game=digest))
    wire.flush()
    assert wire.take("b") == [Invited(0, digest)]
    wire.local("b", b.accept())
    wire.flush()
    assert (a.phase, b.phase) == (Phase.STARTED, Phase.STARTED)
    assert a.setup is not None and b.setup is not None
    assert a.setup.match == b.setup.match == match
    assert (a.setup.our_side, b.setup.our_side) == (Side.BLACK, Side.WHITE)
    assert a.setup.resume_game == digest


def test_a_resume_of_a_save_this_machine_lacks_is_declined() -> None:
    a, b, _wire = lobbies(find_save=lambda d: None)
    with pytest.raises(LobbyError, match="no saved game with this fingerprint here"):
        a.invite(resume_game=bytes(32))
    step = b.receive(Invite(0, bytes(32)))
    reason = "there is no saved game with this fingerprint on this machine"
    assert step.send == [Decline(0, reason)]
    assert b.phase is Phase.IDLE


def test_a_save_with_o15_or_o16_on_is_not_resumed() -> None:
    """Issue 20 hole 10: resuming a save bypassed the O15/O16 lock of stage 1; now a
    save with either on is refused like a new game with them: our own invitation raises,
    the peer's is declined with the lock's reason, nothing starts."""
    for hidden in ({"stealth_invisibility": True}, {"submersion_invisibility": True}):
        start = Match.begin(standard_position(replace(Options(), **hidden)))
        digest = hashlib.sha256(b"a hotseat save with hidden pieces").digest()
        saved = SavedGame(start, Side.BLACK)
        a, b, _wire = lobbies(find_save=lambda d, s=saved, w=digest: s if d == w else None)
        with pytest.raises(LobbyError) as refused:
            a.invite(resume_game=digest)
        assert refused.value.reason == STAGE1_REASON
        assert a.phase is Phase.IDLE
        step = b.receive(Invite(0, digest))
        assert step.send == [Decline(0, STAGE1_REASON[:200])]
        assert step.events == [InvitationDeclined(by_us=True, reason=STAGE1_REASON)]
        assert b.phase is Phase.IDLE and b.setup is None


def test_saves_that_disagree_about_the_colours_do_not_resume() -> None:
    start = build_start(StartBoard(), replace(Options(), stealth_invisibility=False,
                                              submersion_invisibility=False))
    digest = bytes(range(32))
    a = Lobby(KEY_A, KEY_B, initiator=True,
              find_save=lambda d: SavedGame(start, Side.BLACK))
    b = Lobby(KEY_B, KEY_A, initiator=False,
              find_save=lambda d: SavedGame(start, Side.BLACK))
    wire = Wire(a, b)
    wire.local("a", a.invite(resume_game=digest))
    wire.flush()
    wire.local("b", b.accept())
    wire.flush()
    assert (a.phase, b.phase) == (Phase.IDLE, Phase.IDLE)
    assert wire.take("a")[-1] == RulesMismatch("the two saved games differ")


# ---------------------------------------------------------------- chat


def test_chat_lines_travel_in_every_phase_and_change_nothing_else() -> None:
    a, b, wire = lobbies()
    assert wire.local("a", a.chat("hello, a game?")).send == [Chat("hello, a game?")]
    wire.flush()
    assert wire.take("b") == [ChatLine(False, "hello, a game?")]
    assert wire.take("a") == [ChatLine(True, "hello, a game?")]
    wire.local("a", a.invite())
    wire.flush()
    wire.local("b", b.chat("one moment"))  # invited, not answered yet
    wire.flush()
    assert wire.take("a") == [ChatLine(False, "one moment")]
    assert (a.phase, b.phase) == (Phase.INVITING, Phase.INVITED)
    wire.local("b", b.accept())
    wire.flush()
    before = (b.phase, b.options, b.our_colour, b.peer_colour)
    wire.local("a", a.chat("é" * MAX_CHAT))  # the longest line, in the setup
    wire.flush()
    assert wire.take("b")[-1] == ChatLine(False, "é" * MAX_CHAT)
    assert (b.phase, b.options, b.our_colour, b.peer_colour) == before


def test_chat_lines_too_long_empty_or_with_control_characters_are_refused() -> None:
    a, _, _ = lobbies()
    for text, length in (("", 0), ("x" * (MAX_CHAT + 1), MAX_CHAT + 1), ("a\nb", 3)):
        with pytest.raises(LobbyError, match=f"a chat line has 1 to {MAX_CHAT} printable "
                                             rf"characters \(this one has {length}\)"):
            a.chat(text)
    # the peer's own check: a longer line never reaches the lobby (net.messages)
    too_long = msgpack.packb({"t": "chat", "text": "x" * (MAX_CHAT + 1)})
    with pytest.raises(MalformedMessage, match=r"chat\.text: expected text of 1\.\.500"):
        decode_message(too_long)


# ---------------------------------------------------------------- untrusted input


def test_random_peer_messages_never_crash_the_lobby_and_refusals_change_nothing() -> None:
    import random as random_module

    from test_net_lockstep import random_field

    from wec.net.messages import field_specs, message_types

    rng = random_module.Random(11)
    types = message_types()
    start = build_start(StartBoard(), Options(stealth_invisibility=False,
                                              submersion_invisibility=False))
    refused = 0
    for number in range(1500):
        if number % 25 == 0:
            phase = number // 25 % 4
            a, b, _wire = (lobbies(find_save=lambda d: SavedGame(start, Side.BLACK))
                          if phase == 0 else in_setup() if phase == 1 else
                          with_colours("white", "white") if phase == 2 else with_colours())
        tag = rng.choice(sorted(types))
        message = types[tag](**{name: random_field(rng, spec, start)
                                for name, spec in field_specs(tag)})
        message = decode_message(encode_message(message))
        lobby = rng.choice([a, b])
        before = (lobby.phase, lobby.options, lobby.start, lobby.our_side)
        step = lobby.receive(message)  # never raises
        if any(isinstance(e, Refused) for e in step.events) and \
                not isinstance(message, CoinReveal):
            refused += 1
            assert (lobby.phase, lobby.options, lobby.start, lobby.our_side) == before
    assert refused > 500
