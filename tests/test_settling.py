"""Positions from files are settled before anything reads them (issue 17): a hand-written
file need not set the ``hidden`` flags (docs/formats.md), and every command, the client
and the lobby read it through ``wec.storage.positions.read_position``, which lets the
rules derive them (engine.loading, engine.visibility ``settle``). Tried as a rules
auditor would: each case below once worked only with the flag written by hand.

Also the standard start with lock-on (O17) or Stealth (O15) off, R9.4(d)'s locks for a
start that states none, and R8.7.2 (a Chopper ending at Ground may carry the King with
O25 off)."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from rules_helpers import BLACK_TURN, WHITE_TURN, black, white

from wec.engine import board
from wec.engine.board import Level
from wec.engine.encoding import full_state_hash
from wec.engine.errors import IllegalIntent
from wec.engine.events import Captured, DozeFoiled, Moved
from wec.engine.game import apply
from wec.engine.intents import Doze, Move
from wec.engine.knowledge import view
from wec.engine.movement import legal_moves
from wec.engine.options import Options
from wec.engine.pieces import PieceKind, Side
from wec.engine.position import Position
from wec.engine.setup import standard_position
from wec.storage.positions import parse_position

WEC = str(Path(sys.executable).with_name("wec"))
K = PieceKind


def data(pieces: list[dict[str, Any]], turn: int = WHITE_TURN,
         options: dict[str, Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"format": "wec-position/1", "turn": turn, "pieces": pieces}
    if options:
        out["options"] = options
    return out


def read(pieces: list[dict[str, Any]], turn: int = WHITE_TURN,
         options: dict[str, Any] | None = None) -> Position:
    """The position as any command reads the file (wec.storage.positions)."""
    return parse_position(json.dumps(data(pieces, turn, options)), "test.json")


def cell(row: int, col: int, level: Level = Level.GROUND) -> int:
    return board.cell_at(row, col, level)


KINGS = [white("king", 1, 10), black("king", 10, 10)]


def moved_to(position: Position, move: Move) -> tuple[int, list[Any]]:
    """Where the mover stopped and what it took (R5.2.4)."""
    events = apply(position, move).events
    stop = next(e.to for e in events if isinstance(e, Moved))
    taken = [info.kind for e in events if isinstance(e, Captured) for info in e.pieces]
    return stop, taken


def legal(position: Position, frm: int, to: int) -> Move:
    """The legal Move from ``frm`` to ``to`` (on what the side to act knows, R4.13)."""
    found = [m for m in legal_moves(position) if (m.frm, m.to) == (frm, to)]
    assert len(found) == 1, (board.describe_cell(frm), board.describe_cell(to))
    return found[0]


def wec(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([WEC, *args], capture_output=True, text=True, timeout=120)


# ---------------------------------------------------------------- hidden pieces met on the way

def test_a_stealthy_pawn_on_a_tanks_path_is_met_there_not_refused(tmp_path):
    """R4.13, R5.2.4: the Black Rocket Pawn carrying Stealth is hidden from White: the
    Tank's Move to (8,4) is legal on what White knows and stops at (4,1), taking it."""
    path = tmp_path / "tank.json"
    path.write_text(json.dumps(data([white("tank", 1, 1, hand="right"),
                                     black("rocket_pawn", 4, 1, articles=["stealth"]),
                                     *KINGS])))
    listed = wec("moves", str(path), "--at", "1,1")
    assert listed.returncode == 0, listed.stderr
    assert [8, 4, "ground"] in json.loads(listed.stdout)
    done = wec("act", str(path), "--events",
               '{"act": "move", "from": [1,1,"ground"], "to": [8,4,"ground"]}')
    assert done.returncode == 0, done.stderr
    events = json.loads(done.stdout)["events"]
    assert events[0]["to"] == [4, 1, "ground"] and events[0]["reported"] == [8, 4, "ground"]
    assert events[1]["event"] == "captured"


@pytest.mark.parametrize("case", ["jet", "pawn", "destroyer", "sub", "chopper"])
def test_other_movers_meet_hidden_pieces_on_the_way(case):
    """R5.2.4 for a Jet's 2-square Air move (R5.3.4), a pawn's first move (R5.3.1), a
    Destroyer and a Sub (no combat, D-16) and a Chopper's flight path (R5.3.7)."""
    stealthy = ["stealth"]
    if case == "jet":
        p = read([white("jet", 3, 3, "air"), black("jet", 4, 3, "air", articles=stealthy),
                  *KINGS])
        move, stop = Move(cell(3, 3, Level.AIR), cell(5, 3, Level.AIR)), cell(4, 3, Level.AIR)
    elif case == "pawn":
        p = read([white("rocket_pawn", 2, 2), black("flame_pawn", 3, 3, articles=stealthy),
                  *KINGS])
        move, stop = Move(cell(2, 2), cell(4, 4)), cell(3, 3)
    elif case == "destroyer":
        p = read([white("destroyer", 5, 5), black("flame_pawn", 6, 5, articles=stealthy),
                  *KINGS])
        move, stop = Move(cell(5, 5), cell(6, 5)), cell(6, 5)
    elif case == "sub":
        p = read([white("sub", 5, 5, "sub"), black("sub", 6, 5, "sub", articles=stealthy),
                  *KINGS], options={"dominance": "stealth"})
        move, stop = Move(cell(5, 5, Level.SUB), cell(6, 5, Level.SUB)), cell(6, 5, Level.SUB)
    else:  # a right-handed Chopper from (3,3) to (5,5) Ground flies over (4,4)
        p = read([white("chopper", 3, 3, hand="right"),
                  black("jet", 4, 4, "air", articles=stealthy), *KINGS])
        move, stop = Move(cell(3, 3), cell(5, 5)), cell(4, 4, Level.AIR)
    move = legal(p, move.frm, move.to)  # the hidden piece is absent for White (R4.13)
    assert moved_to(p, move) == (stop, [K.JET if case in ("jet", "sub", "chopper")
                                        and case != "sub" else
                                        (K.SUB if case == "sub" else K.FLAME_PAWN)])


def test_a_queen_stops_on_its_tank_path_instead_of_rerouting():
    """R5.3.8, R5.2.3: the Tank path is tried first and is clear on what White knows; the
    hidden piece on it is met there (R5.2.4), the Cleric path never taken."""
    p = read([white("queen", 1, 1), black("rocket_pawn", 3, 1, articles=["stealth"]),
              *KINGS])
    move = legal(p, cell(1, 1), cell(8, 4))
    assert moved_to(p, move) == (cell(3, 1), [K.ROCKET_PAWN])


def test_a_doze_into_a_hidden_aaa_is_foiled():
    """R8.8.5, D-33: the White AAA (stealthy, R9.2) stands hidden where the Dozer's group
    would go: the Doze is legal on what Black knows, and foiled."""
    p = read([black("dozer", 5, 5), black("flame_pawn", 5, 5), white("aaa", 5, 6),
              *KINGS], turn=BLACK_TURN)
    doze = Doze(board.square(5, 5), (), (0, 1))
    events = apply(p, doze).events
    assert events == (DozeFoiled(Side.BLACK, board.square(5, 5)),)


# ---------------------------------------------------------------- flags never trusted

def test_a_plain_piece_flagged_hidden_is_seen_and_blocks(tmp_path):
    """R9.7: a Rocket Pawn without Stealth is seen whatever the file says: it blocks the
    Tank's path (R5.2.2) and the state hashes alike with or without the flag."""
    pieces = [white("tank", 1, 1, hand="right"), black("rocket_pawn", 4, 1, hidden=True),
              *KINGS]
    p = read(pieces)
    assert not any(q.hidden for q in p.pieces)
    with pytest.raises(IllegalIntent, match=r"R5\.2\.2: path blocked at \(4,1\) ground"):
        apply(p, Move(cell(1, 1), cell(8, 4)))
    flagged, plain = tmp_path / "flagged.json", tmp_path / "plain.json"
    flagged.write_text(json.dumps(data(pieces)))
    plain.write_text(json.dumps(data([white("tank", 1, 1, hand="right"),
                                      black("rocket_pawn", 4, 1), *KINGS])))
    hashes = {wec("hash", str(f)).stdout for f in (flagged, plain)}
    assert len(hashes) == 1 and hashes != {""}


def test_no_marker_for_a_piece_its_side_never_saw():
    """R9.10: a marker stands where a piece was last seen; the White AAA (stealthy) was
    never seen by Black, and an unrelated Black Move gives Black no marker."""
    p = read([white("aaa", 3, 3), black("rocket_pawn", 9, 9), *KINGS], turn=BLACK_TURN)
    after = apply(p, Move(cell(9, 9), cell(8, 8))).position
    assert after.last_seen == ()
    assert view(after, Side.BLACK).last_seen == ()


def test_a_start_position_stating_no_locks_acquires_them_before_turn_1():
    """R9.4(d): every Anti-Stealth instance acquires per R9.4(b) before turn 1, Black's
    holders first, each onto the nearest enemy stealthy piece hidden from it, ties by
    lowest row then column: Black's Stealth Pawn (9,6) onto White's AAA (2,3) rather than
    White's Stealth Pawn (2,5), both 7 away; White's onto Black's Stealth Pawn (9,6) rather
    than Black's AAA (9,8). Each then sees its target (R9.3(a))."""
    pieces = [white("stealth_pawn", 2, 5), black("stealth_pawn", 9, 6), white("aaa", 2, 3),
              black("aaa", 9, 8), *KINGS]
    p = read(pieces, turn=1)
    kinds = {q.pid: (q.side, q.kind) for q in p.pieces}
    assert sorted(repr((kinds[lk.holder], kinds[lk.target])) for lk in p.locks) == sorted(
        repr(pair) for pair in (((Side.BLACK, K.STEALTH_PAWN), (Side.WHITE, K.AAA)),
                                ((Side.WHITE, K.STEALTH_PAWN), (Side.BLACK, K.STEALTH_PAWN))))
    assert K.AAA in {q.kind for q in view(p, Side.BLACK).pieces if q.side is Side.WHITE}
    stated = parse_position(json.dumps({**data(pieces, turn=1), "locks": []}), "t.json")
    assert stated.locks == ()  # a file that states its locks (none) keeps them


# ---------------------------------------------------------------- the standard start

def test_the_standard_start_without_lock_on_hides_the_stealth_pawns():
    """R9.3(a), R15.3 with O17 off: no lock, so each Stealth Pawn is hidden from the enemy."""
    start = standard_position(replace(Options(), stealth_lock_on=False))
    assert start.locks == ()
    seen = {q.kind for q in view(start, Side.BLACK).pieces if q.side is Side.WHITE}
    assert K.STEALTH_PAWN not in seen and K.AAA not in seen


def test_the_standard_start_without_stealth_keeps_no_lock():
    """R9.4(c) with O15 off: nothing is stealthy, so no lock holds; every piece is seen."""
    start = standard_position(replace(Options(), stealth_invisibility=False))
    assert start.locks == ()
    assert not any(q.hidden for q in start.pieces)
    assert full_state_hash(start) == full_state_hash(read_back(start))


def read_back(position: Position) -> Position:
    from wec.engine.formats import position_to_dict

    return parse_position(json.dumps(position_to_dict(position)), "start.json")


# ---------------------------------------------------------------- R8.7.2

def test_a_chopper_may_carry_the_king_to_ground_with_o25_off():
    """R8.7.2: the primary government piece may not be carried to Air or Sub with O25 off;
    a Chopper ending its Move at Ground carries it."""
    p = read([white("chopper", 3, 3, hand="right"), white("king", 3, 3),
              black("king", 10, 10)], options={"king_may_fly_or_go_sub": False})
    to_ground = Move(cell(3, 3), cell(5, 5), K.CHOPPER, True)
    to_air = Move(cell(3, 3), cell(5, 5, Level.AIR), K.CHOPPER, True)
    assert to_ground in legal_moves(p)
    assert to_air not in legal_moves(p)
    after = apply(p, to_ground).position
    assert {(q.kind, q.cell) for q in after.pieces if q.side is Side.WHITE} == {
        (K.CHOPPER, cell(5, 5)), (K.KING, cell(5, 5))}
    with pytest.raises(IllegalIntent, match=r"^R8\.7\.2: "):
        apply(p, to_air)


# ---------------------------------------------------------------- every reader settles

def test_the_clients_board_reader_and_the_lobbys_start_board_settle_too(tmp_path):
    """R9.7, R9.4(d): the editor's and the menu's board reader (wec.client.boards) and a
    start board received in the LAN lobby (wec.net.lobby) settle as wec.storage does: a
    forged ``hidden`` flag is not trusted, a start stating no locks acquires them."""
    from wec.client.boards import read_board
    from wec.net.lobby import decode_position, encode_position

    pieces = [white("tank", 1, 1, hand="right"), black("rocket_pawn", 4, 1, hidden=True),
              white("stealth_pawn", 2, 5), black("stealth_pawn", 9, 6), *KINGS]
    path = tmp_path / "board.json"
    path.write_text(json.dumps(data(pieces, turn=1)))
    expected = full_state_hash(read(pieces, turn=1))
    board_read = read_board(path)
    assert full_state_hash(board_read) == expected
    assert not any(q.hidden for q in board_read.pieces if q.kind is K.ROCKET_PAWN)
    assert len(board_read.locks) == 2  # each Stealth Pawn locks the other (R9.4(d))
    # the bytes a peer could send: the flag forged, the locks left out
    sent = encode_position(board_read.evolve(
        pieces=tuple(replace(q, hidden=q.kind is K.ROCKET_PAWN) for q in board_read.pieces),
        locks=()))
    received = decode_position(sent, settled=True)
    assert not any(q.hidden for q in received.pieces if q.kind is K.ROCKET_PAWN)
    assert full_state_hash(received) == expected
    assert decode_position(sent).locks == ()  # a desync report keeps what was sent
