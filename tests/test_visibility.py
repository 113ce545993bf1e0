"""Visibility (R9): the worked examples of section C, standard starting visibility,
views and the leakage property (issue 4)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import replace

from rules_helpers import BLACK_TURN, black, make, perturb_hidden, white

from wec import engine
from wec.engine import board
from wec.engine.board import Level
from wec.engine.encoding import encode_state
from wec.engine.game import legal_intents
from wec.engine.intents import EndTurn, Fire, Move, PickUp
from wec.engine.knowledge import view
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.playout import play_turn
from wec.engine.position import Lock, Marker, Position
from wec.engine.visibility import refresh

A = ArticleKind
K = PieceKind


def cell(row: int, col: int, level: Level = Level.GROUND) -> int:
    return board.cell_at(row, col, level)


def seen(position: Position, by: Side) -> list[tuple[str, int, int, str]]:
    """The enemy pieces ``by`` sees, as (kind, row, col, level)."""
    return sorted((p.kind.value, p.row, p.col, p.level.label)
                  for p in view(position, by).pieces if p.side is not by)


def piece(position: Position, kind: K, side: Side):
    return next(p for p in position.pieces if p.kind is kind and p.side is side)


def markers(position: Position, viewer: Side) -> list[tuple[str, tuple[int, int, str]]]:
    return [(m.kind.value, (board.row_of(m.cell // 3), board.col_of(m.cell // 3),
                            board.cell_level(m.cell).label))
            for m in position.last_seen if m.viewer is viewer]


def turn(position: Position, move: Move) -> Position:
    """Make ``move`` and end the turn."""
    return engine.apply(engine.apply(position, move).position, EndTurn()).position


def settled(position: Position) -> Position:
    """The position with visibility computed by the rules (as after any action)."""
    return refresh(position, position)


# ---------------------------------------------------------------- EX-14

def ex14(**options: object) -> Position:
    return settled(make([white("flame_pawn", 4, 4), white("king", 1, 5),
                         black("aaa", 6, 6), black("rocket_pawn", 4, 8, articles=["stealth"]),
                         black("king", 10, 6)],
                        articles=[("anti_stealth", 4, 4)], options=options or None))


def test_ex14_pickup_locks_the_nearest_hidden_stealthy_enemy():
    p = ex14()
    assert seen(p, Side.WHITE) == [("king", 10, 6, "ground")]  # both stealthy pieces hidden
    after = engine.apply(p, PickUp(cell(4, 4), A.ANTI_STEALTH)).position
    pawn, aaa = piece(after, K.FLAME_PAWN, Side.WHITE), piece(after, K.AAA, Side.BLACK)
    assert after.locks == (Lock(pawn.pid, 0, aaa.pid),)  # the AAA at distance 2, not 4
    assert seen(after, Side.WHITE) == [("aaa", 6, 6, "ground"), ("king", 10, 6, "ground")]


def test_ex14_variant_range_detection_applies_first_and_the_lock_goes_further():
    p = ex14(stealth_range_detection=True)
    after = engine.apply(p, PickUp(cell(4, 4), A.ANTI_STEALTH)).position
    pawn = piece(after, K.FLAME_PAWN, Side.WHITE)
    rocket_pawn = piece(after, K.ROCKET_PAWN, Side.BLACK)
    assert after.locks == (Lock(pawn.pid, 0, rocket_pawn.pid),)
    assert seen(after, Side.WHITE) == [("aaa", 6, 6, "ground"), ("king", 10, 6, "ground"),
                                       ("rocket_pawn", 4, 8, "ground")]
    # the AAA walks to (6,8) one step at a time (it moves as a King): at (6,7) it is at
    # distance 3 and still seen; at (6,8), distance 4, it is hidden again (it is not
    # locked) and White keeps a marker where it was last seen
    after = turn(after, Move(cell(1, 5), cell(1, 4), K.KING))
    after = turn(after, Move(cell(6, 6), cell(6, 7), K.AAA))
    assert seen(after, Side.WHITE)[0] == ("aaa", 6, 7, "ground")
    after = turn(after, Move(cell(1, 4), cell(1, 5), K.KING))
    after = engine.apply(after, Move(cell(6, 7), cell(6, 8), K.AAA)).position
    assert [s[0] for s in seen(after, Side.WHITE)] == ["king", "rocket_pawn"]
    assert markers(after, Side.WHITE) == [("aaa", (6, 7, "ground"))]
    # the locked pawn stays visible wherever it goes
    after = turn(engine.apply(after, EndTurn()).position, Move(cell(1, 5), cell(1, 4), K.KING))
    step = next(m for m in legal_intents(after)
                if isinstance(m, Move) and m.kind is K.ROCKET_PAWN)
    after = engine.apply(after, step).position
    to = board.cell_square(step.to)
    assert ("rocket_pawn", board.row_of(to), board.col_of(to), "ground") in seen(
        after, Side.WHITE)


# ---------------------------------------------------------------- EX-15

def test_ex15_submersion_detection_and_last_seen_marker():
    p = settled(make([black("sub", 6, 6, "sub"), white("destroyer", 3, 4),
                      white("king", 1, 5), black("king", 10, 6)]))
    assert ("sub", 6, 6, "sub") in seen(p, Side.WHITE)  # distance max(3, 2) = 3
    p = engine.apply(p, Move(cell(3, 4), cell(2, 4), K.DESTROYER)).position
    assert ("sub", 6, 6, "sub") not in seen(p, Side.WHITE)  # distance 4
    assert markers(p, Side.WHITE) == [("sub", (6, 6, "sub"))]
    # White's half state keeps which piece the marker stands for (it saw the Sub: R9.10
    # removes the marker when that piece is seen again); its file shows only where
    sub = next(q for q in p.pieces if q.kind is K.SUB)
    assert view(p, Side.WHITE).last_seen == (Marker(Side.WHITE, sub.pid, K.SUB,
                                                    cell(6, 6, Level.SUB)),)
    p = engine.apply(p, EndTurn()).position
    p = engine.apply(p, Move(cell(6, 6, Level.SUB), cell(5, 5, Level.SUB), K.SUB)).position
    assert ("sub", 5, 5, "sub") in seen(p, Side.WHITE)  # distance 3 from (2,4)
    assert markers(p, Side.WHITE) == []


# ---------------------------------------------------------------- EX-17

def test_ex17_reveal_on_fire_lasts_until_the_piece_moves():
    p = settled(make([black("aaa", 7, 3), white("king", 1, 5), black("king", 10, 6)],
                     turn=21))
    assert seen(p, Side.WHITE) == [("king", 10, 6, "ground")]
    p = engine.apply(p, Fire(cell(7, 3), A.SAM_LAUNCHER, dir=(-1, 0))).position
    assert ("aaa", 7, 3, "ground") in seen(p, Side.WHITE)
    assert [(pr.kind, pr.sq) for pr in p.projectiles] == [("sam", board.square(6, 3))]
    p = engine.apply(p, Move(cell(10, 6), cell(10, 5), K.KING)).position
    p = engine.apply(p, EndTurn()).position  # T = 22: the SAM steps to (5,3) Air
    assert [(pr.kind, pr.sq) for pr in p.projectiles] == [("sam", board.square(5, 3))]
    assert ("aaa", 7, 3, "ground") in seen(p, Side.WHITE)  # still revealed: it has not moved
    p = engine.apply(engine.apply(p, Move(cell(1, 5), cell(1, 4), K.KING)).position,
                     EndTurn()).position
    p = engine.apply(p, Move(cell(7, 3), cell(7, 4), K.AAA)).position  # T = 23
    assert seen(p, Side.WHITE) == [("king", 10, 5, "ground")]
    assert markers(p, Side.WHITE) == [("aaa", (7, 3, "ground"))]
    aaa = piece(p, K.AAA, Side.BLACK)
    assert aaa.ready_at(1) == 29  # the SAM Launcher may next fire on T >= 29


# ---------------------------------------------------------------- R9.2, R9.7, R9.8, R15.3

def test_standard_start_hides_exactly_the_aaas_and_locks_the_stealth_pawns():
    p = engine.standard_position()
    assert encode_state(settled(p)) == encode_state(p)
    hidden = sorted((q.side.value, q.row, q.col) for q in p.pieces if q.hidden)
    assert hidden == [("black", 9, 3), ("black", 9, 8), ("white", 2, 3), ("white", 2, 8)]
    assert len(p.locks) == 2


def test_a_stealthy_piece_that_takes_is_capture_revealed_until_it_moves():
    p = settled(make([white("rocket_pawn", 4, 4, articles=["stealth"], moved=True),
                      black("flame_pawn", 5, 4),
                      white("king", 1, 5), black("king", 10, 6)]))
    assert seen(p, Side.BLACK) == [("king", 1, 5, "ground")]
    p = engine.apply(p, Move(cell(4, 4), cell(5, 4), K.ROCKET_PAWN)).position
    assert seen(p, Side.BLACK) == [("king", 1, 5, "ground"), ("rocket_pawn", 5, 4, "ground")]
    p = turn(engine.apply(p, EndTurn()).position, Move(cell(10, 6), cell(10, 5), K.KING))
    p = engine.apply(p, Move(cell(5, 4), cell(6, 5), K.ROCKET_PAWN)).position
    assert seen(p, Side.BLACK) == [("king", 1, 5, "ground")]
    assert markers(p, Side.BLACK) == [("rocket_pawn", (5, 4, "ground"))]


def test_stealth_dominance_keeps_a_detected_stealthy_sub_hidden():
    pieces = [black("sub", 6, 6, "sub", articles=["stealth"]), white("destroyer", 4, 4),
              white("king", 1, 5), black("king", 10, 6)]
    assert ("sub", 6, 6, "sub") in seen(settled(make(pieces)), Side.WHITE)
    assert ("sub", 6, 6, "sub") not in seen(
        settled(make(pieces, options={"dominance": "stealth"})), Side.WHITE)


def test_king_stealth_needs_o26():
    pieces = [white("king", 1, 5, articles=["stealth"]), black("king", 10, 6)]
    stealthy_king = settled(make(pieces, turn=BLACK_TURN,
                                 options={"king_may_be_stealthy": True}))
    assert seen(stealthy_king, Side.BLACK) == []
    off = stealthy_king.evolve(options=replace(stealthy_king.options,
                                               king_may_be_stealthy=False))
    assert seen(settled(off), Side.BLACK) == [("king", 1, 5, "ground")]


def test_dropping_its_stealth_releases_the_lock_on_a_piece():
    p = settled(make([white("stealth_pawn", 2, 5), black("rocket_pawn", 4, 5,
                                                          articles=["stealth"]),
                      white("king", 1, 5), black("king", 10, 6)], turn=BLACK_TURN))
    pawn, target = piece(p, K.STEALTH_PAWN, Side.WHITE), piece(p, K.ROCKET_PAWN, Side.BLACK)
    p = settled(p.evolve(locks=(Lock(pawn.pid, 0, target.pid),)))
    assert p.locks
    from wec.engine.intents import Drop
    p = engine.apply(p, Drop(cell(4, 5), A.STEALTH)).position
    assert p.locks == ()  # R9.4(c): the target stopped being stealthy


# ---------------------------------------------------------------- views

def test_wec_view_lists_exactly_the_visible_enemy_pieces_and_markers(tmp_path):
    p = settled(make([black("sub", 6, 6, "sub"), white("destroyer", 3, 4),
                      white("king", 1, 5), black("king", 10, 6), black("aaa", 8, 8)]))
    p = engine.apply(p, Move(cell(3, 4), cell(2, 4), K.DESTROYER)).position
    path = tmp_path / "game.json"
    path.write_text(json.dumps(engine.position_to_dict(p)))
    done = subprocess.run([sys.executable, "-m", "wec", "view", str(path), "--side", "white"],
                          capture_output=True, text=True, check=True)
    data = json.loads(done.stdout)
    assert data["viewer"] == "white"
    assert [(q["side"], q["kind"]) for q in data["pieces"]] == [
        ("white", "king"), ("white", "destroyer"), ("black", "king")]
    assert data["last_seen"] == [{"kind": "sub", "at": [6, 6], "level": "sub"}]


# ---------------------------------------------------------------- leakage (issue 4 item 8)

def test_hidden_pieces_leak_nothing_into_the_other_sides_view_or_legal_intents():
    """Move a side's hidden pieces elsewhere and change what they carry: the other side's
    view and its legal intents stay byte-identical (R4.13, R9)."""
    rng = random.Random(404)
    position = engine.standard_position()
    compared = 0
    while compared < 1000:
        position = play_turn(position, rng)
        if position.result is not None:
            position = engine.standard_position()
            continue
        for side in (Side.BLACK, Side.WHITE):
            if compared == 1000:
                break
            other = side.other
            perturbed = perturb_hidden(position, side, rng)
            if perturbed is None or any(pr.target is not None for pr in position.projectiles):
                continue
            perturbed = settled(perturbed)
            if any(not q.hidden for q in perturbed.pieces
                   if q.side is side and q.pid in {h.pid for h in position.pieces if h.hidden}):
                continue  # the perturbation moved a piece into sight: a different game
            before, after = view(position, other), view(perturbed, other)
            assert encode_state(before) == encode_state(after)
            if other is position.side_to_act:
                assert legal_intents(before) == legal_intents(after)
            compared += 1
    assert compared == 1000
