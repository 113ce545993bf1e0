"""The lobby with fog of war (issue 21 item 1): O15 and O16 on by default, each machine
ends the setup with only its own half state, agreed on the public part; a board with
pieces hidden from the start travels as the receiver's half state, never with the
proposer's hidden pieces."""

from __future__ import annotations

from dataclasses import replace

import msgpack
import pytest
from test_net_lobby import KEY_A, KEY_B, Wire, in_setup, with_colours

from wec.engine.encoding import public_state_hash
from wec.engine.knowledge import project
from wec.engine.options import Options
from wec.engine.pieces import Side
from wec.net.game_fog import FOG_NOTICE
from wec.net.lobby import (
    Lobby,
    LobbyError,
    Notice,
    ProposalAnswered,
    RulesAgreed,
    StartBoard,
    build_start,
    encode_position,
)
from wec.net.messages import OptionProposal, StartProposal
from wec.storage.scenarios import load_scenario


def fog_lobbies(**kwargs):
    return with_colours(fog=True, **kwargs)  # a plays White, b Black


def agree(a: Lobby, b: Lobby, wire: Wire):
    wire.local("a", a.end_setup())
    wire.flush()
    [agreed_a] = [e for e in wire.take("a") if isinstance(e, RulesAgreed)]
    [agreed_b] = [e for e in wire.take("b") if isinstance(e, RulesAgreed)]
    return agreed_a.setup, agreed_b.setup


def test_fog_of_war_is_on_by_default_and_each_side_keeps_its_half() -> None:
    a, b, wire = fog_lobbies()
    assert Lobby(KEY_A, KEY_B, initiator=True, fog=True).opening_notice().events == [
        Notice(FOG_NOTICE)]
    assert a.options.stealth_invisibility and a.options.submersion_invisibility
    white, black = agree(a, b, wire)
    assert white.match is None and black.match is None and white.fog and black.fog
    full = build_start(StartBoard(), a.final_options()).current
    assert white.half == project(full, Side.WHITE)
    assert black.half == project(full, Side.BLACK)
    assert white.rules_hash == black.rules_hash
    assert white.state_hash == black.state_hash == public_state_hash(full)
    # the standard start hides the AAAs: no half holds the enemy's
    for setup in (white, black):
        assert setup.half is not None
        assert not [p for p in setup.half.pieces if p.side is not setup.our_side
                    and p.kind.value == "aaa"]


def test_two_wecs_with_different_fog_protocols_refuse_the_game_at_its_setup(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The fog protocol's version is part of the agreed rules: a wec speaking another
    one (here, the previous version) does not start a game that would fault at its
    first message."""
    import wec.net.fog_game as fog_game

    a, b, wire = fog_lobbies()
    wire.local("a", a.end_setup())  # a's rules hash goes out with this version
    monkeypatch.setattr(fog_game, "FORMAT", "wec-fog/1")
    wire.flush()  # b answers with its own, made with the previous version
    assert not [e for e in wire.take("a") + wire.take("b") if isinstance(e, RulesAgreed)]
    assert a.setup is None and b.setup is None


def test_without_fog_the_start_is_the_whole_match() -> None:
    a, b, wire = fog_lobbies()
    off = Options(stealth_invisibility=False, submersion_invisibility=False)
    wire.local("a", a.propose_options(off))
    wire.flush()
    wire.local("b", b.approve())
    wire.flush()
    white, black = agree(a, b, wire)
    assert white.half is None and white.match is not None and not white.fog
    assert white.match.current_hash == black.state_hash


def test_a_board_with_hidden_pieces_travels_as_the_receivers_half() -> None:
    duel = load_scenario("submarine_duel")
    a, b, wire = in_setup(fog=True)
    with pytest.raises(LobbyError, match="decide the colours first"):
        a.propose_start(StartBoard("duel", duel))
    a, b, wire = fog_lobbies()
    wire.local("a", a.propose_start(StartBoard("duel", duel)))
    [sent] = [m for m in wire.sent["a"] if isinstance(m, StartProposal)]
    data = msgpack.unpackb(sent.position, raw=False)
    assert data["viewer"] == "black"
    # White's subs are hidden from Black at the start: they never leave White's machine
    assert not [p for p in data["pieces"] if p["side"] == "white" and p["kind"] == "sub"]
    assert [p for p in data["pieces"] if p["side"] == "black" and p["kind"] == "sub"]
    wire.flush()
    wire.local("b", b.approve())
    wire.flush()
    with pytest.raises(LobbyError, match="propose the board again"):
        a.propose_options(Options(tank_range=8))
    white, black = agree(a, b, wire)
    assert white.state_hash == black.state_hash
    assert black.half is not None and white.half is not None
    assert not [p for p in black.half.pieces if p.side is Side.WHITE and p.kind.value == "sub"]
    own = {p.pid for p in white.half.pieces if p.side is Side.WHITE}
    assert own.isdisjoint(p.pid for p in black.half.pieces if p.side is Side.BLACK)


def test_a_half_board_for_the_wrong_side_is_refused() -> None:
    duel = load_scenario("submarine_duel")
    _a, b, _wire = fog_lobbies()
    wrong = project(build_start(StartBoard("duel", duel), duel.options).current, Side.WHITE)
    step = b.receive(StartProposal(0, "duel", encode_position(wrong)))
    [answer] = step.events
    assert isinstance(answer, ProposalAnswered) and not answer.approved
    assert "must be our side's" in answer.reason


def test_save_info_reads_one_sides_fog_save(tmp_path, capsys) -> None:
    """wec save-info on a wec-fog-save: whose half it is, the options, fog of war on;
    the two halves' files share their resume key, not their bytes."""
    import json

    from wec.cli import main
    from wec.storage.fog_saves import FogSave, encode_fog_save, resume_key, save_key

    full = build_start(StartBoard(), Options()).current
    saves = {side: FogSave(side, "ab" * 32, "cd" * 32, 7, project(full, side), b"record")
             for side in (Side.BLACK, Side.WHITE)}
    data = {side: encode_fog_save(save) for side, save in saves.items()}
    assert data[Side.BLACK] != data[Side.WHITE]
    assert save_key(data[Side.BLACK]) == save_key(data[Side.WHITE]) == \
        resume_key(saves[Side.WHITE])
    path = tmp_path / "half.wecsave"
    path.write_bytes(data[Side.WHITE])
    assert main(["save-info", str(path)]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["half_state_of"], info["actions"], info["turn"]) == ("white", 7, 1)
    assert info["fog_of_war"] is True and info["options"]["stealth_invisibility"] is True
    path.write_bytes(data[Side.WHITE][:-3] + b"xyz")
    assert main(["save-info", str(path)]) == 2
    assert "corrupted" in capsys.readouterr().err


def test_o21_off_with_fog_of_war_is_refused_in_every_proposal_and_allowed_without_fog(
        ) -> None:
    """With O21 reveal on fire off a hidden piece fires and stays hidden (R9.8), and
    the fog protocol sends a Fire whole: such a network game would tell the other
    machine the firer's square, kind and aim. Our own proposal is refused before it
    goes; the peer's (a valid message, options or a start board, whole or as our half)
    is answered with a rejection naming O21, and the agreed rules stay as they were.
    Without fog of war (O15 and O16 off) O21 off is a rule like any other."""
    no_reveal = Options(reveal_on_fire=False)
    a, b, wire = fog_lobbies()
    with pytest.raises(LobbyError, match="O21 reveal on fire stays on"):
        a.propose_options(no_reveal)
    duel = load_scenario("submarine_duel")
    quiet_duel = duel.evolve(options=replace(duel.options, reveal_on_fire=False))
    with pytest.raises(LobbyError, match="O21 reveal on fire stays on"):
        a.propose_start(StartBoard("duel", quiet_duel))
    half = project(build_start(StartBoard("duel", quiet_duel), quiet_duel.options).current,
                   Side.BLACK)
    whole = build_start(StartBoard(), no_reveal).current.evolve(viewer=None)
    for number, message in enumerate((
            OptionProposal(0, no_reveal, 0),
            StartProposal(1, "duel", encode_position(half)),
            StartProposal(2, "standard", encode_position(whole)))):
        [answer] = [e for e in b.receive(message).events if isinstance(e, ProposalAnswered)]
        assert (answer.proposal, answer.approved) == (number, False)
        assert "O21 reveal on fire stays on" in answer.reason, answer.reason
        assert b.options.reveal_on_fire and b.start.title == "standard"
    open_game = Options(stealth_invisibility=False, submersion_invisibility=False,
                        reveal_on_fire=False)
    wire.local("a", a.propose_options(open_game))
    wire.flush()
    wire.local("b", b.approve())
    wire.flush()
    white, black = agree(a, b, wire)
    assert white.match is not None and not white.fog and not black.fog
    assert not white.match.current.options.reveal_on_fire
    assert white.match.current_hash == black.state_hash


def test_a_board_numbering_pieces_past_the_private_detections_reach_is_refused() -> None:
    """The private detection sends identifiers by a transfer of seven bits
    (net.private_sight): with fog of war a board whose pieces, or reinforcements to
    come, would be numbered 127 or more is refused in the lobby with the reason, rather
    than stopping the game at its first detection. The standard game stays well below."""
    from wec.engine.setup import standard_position
    from wec.net.game_fog import fog_board_problem

    standard = standard_position(Options())
    assert fog_board_problem(standard) is None
    assert standard.next_pid - 1 + len(standard.reinforcements) < 100
    crowded = standard.evolve(next_pid=127 - len(standard.reinforcements) + 1)
    problem = fog_board_problem(crowded)
    assert problem is not None and "below 127 (this one reaches 127" in problem
    a, _, _ = fog_lobbies()
    with pytest.raises(LobbyError, match="below 127"):
        a.propose_start(StartBoard("crowded", crowded))


def _stealth_pawns(count: int):
    """A board of two Kings and ``count`` White Stealth Pawns (each can hide, O15)."""
    from wec.engine.editor import Editor
    from wec.engine.pieces import PieceKind

    editor = Editor.empty(Options()).add_piece(Side.WHITE, PieceKind.KING, (1, 1)) \
        .add_piece(Side.BLACK, PieceKind.KING, (10, 10))
    squares = [(row, col) for row in range(2, 9) for col in range(1, 11)][:count]
    for square in squares:
        editor = editor.add_piece(Side.WHITE, PieceKind.STEALTH_PAWN, square)
    return editor.start_position()


def test_a_side_starting_with_more_pieces_that_can_hide_than_a_detection_holds_is_refused(
        ) -> None:
    """Each private detection asks about the pieces of a side that can hide in a run
    of 48 (net.private_sight ``SLOTS``): a board giving a side 49 would stop the game at
    its first detection ("our detection: more than 48 pieces that can hide", as 49
    Stealth Pawns did in process), so the lobby refuses it with the reason, on the
    proposer's machine and on a half received from a program that does not check; 48
    are proposed as usual."""
    from wec.net.game_fog import fog_board_problem

    assert fog_board_problem(_stealth_pawns(48)) is None
    reason = ("with fog of war over the network a side starts with at most 48 pieces that "
              "can hide from the other (here White has 49): take some off, or play it "
              "with O15 and O16 off")
    assert fog_board_problem(_stealth_pawns(49)) == reason
    a, b, wire = fog_lobbies()
    with pytest.raises(LobbyError) as refused:
        a.propose_start(StartBoard("pawns", _stealth_pawns(49)))
    assert str(refused.value) == reason
    wire.local("a", a.propose_start(StartBoard("pawns", _stealth_pawns(48))))
    assert [m for m in wire.sent["a"] if isinstance(m, StartProposal)]
    # Black's half of a board with 49 hiding Black pieces, sent whole by a modified
    # program: Black's lobby refuses it
    crowded = _stealth_pawns(49)
    mirrored = crowded.evolve(pieces=tuple(p.but(side=p.side.other) for p in crowded.pieces))
    half = project(build_start(StartBoard("pawns", mirrored), mirrored.options).current,
                   Side.BLACK)
    step = b.receive(StartProposal(0, "pawns", encode_position(half)))
    [answer] = step.events
    assert isinstance(answer, ProposalAnswered) and not answer.approved
    assert answer.reason == "not a valid start board: " + reason.replace("White has",
                                                                        "Black has")
