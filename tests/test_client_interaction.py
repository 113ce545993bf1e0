"""The play screen's selection model: clicks on squares become the engine's intents
(R4.13: computed on the side's view), refusals quote the rule."""

from __future__ import annotations

import pytest

from wec.client.interaction import Highlight, Interaction, article_label, piece_label
from wec.engine import board
from wec.engine.board import AIR, GROUND
from wec.engine.game import apply, legal_intents
from wec.engine.intents import Fire, Move
from wec.engine.knowledge import view
from wec.engine.pieces import ArticleKind, PieceKind
from wec.engine.setup import standard_position


def sq(row: int, col: int) -> int:
    return board.square(row, col)


def cell(row: int, col: int, level: board.Level = GROUND) -> int:
    return board.cell(board.square(row, col), level)


def named(lit: dict[int, Highlight]) -> list[str]:
    return sorted(f"{board.describe_cell(c)} {h.value}" for c, h in lit.items())


@pytest.fixture
def opening() -> Interaction:
    start = standard_position()
    seen = view(start, start.side_to_act)
    return Interaction(seen, legal_intents(seen))


def test_selecting_a_pawn_lights_its_three_destinations_yellow(opening: Interaction) -> None:
    reply = opening.left_click(sq(9, 2), None)
    assert reply.message == "Stunner Pawn at (9,2) ground: 3 legal destinations"
    assert named(opening.highlights()) == [
        "(7,4) ground move", "(8,1) ground move", "(8,3) ground move",
        "(9,2) ground selected"]


def test_a_click_on_a_lit_square_is_the_engine_move(opening: Interaction) -> None:
    opening.left_click(sq(9, 2), None)
    reply = opening.left_click(sq(7, 4), None)
    assert reply.intent == Move(cell(9, 2), cell(7, 4), kind=PieceKind.STUNNER_PAWN)
    after = apply(standard_position(), reply.intent).position
    assert [p.kind for p in after.pieces if p.cell == cell(7, 4)] == [PieceKind.STUNNER_PAWN]
    assert opening.selection is None and opening.highlights() == {}


def test_an_unreachable_square_is_refused_with_the_rule(opening: Interaction) -> None:
    opening.left_click(sq(9, 2), None)
    reply = opening.left_click(sq(5, 5), None)
    assert reply.intent is None
    assert reply.message == "R5.3.1: a Stunner Pawn at (9,2) ground cannot reach (5,5) ground"
    assert opening.selection is not None  # still selected: the player may try again


def test_a_square_with_two_pieces_offers_a_chooser(opening: Interaction) -> None:
    reply = opening.left_click(sq(10, 4), None)
    assert reply.prompt == "Which piece at (10,4)?"
    assert [c.label for c in reply.choices] == ["Chopper (left) at (10,4) ground",
                                                "Jet at (10,4) ground"]
    chosen = opening.choose(reply.choices[0])
    assert chosen.message == "Chopper (left) at (10,4) ground: 8 legal destinations"
    lit = opening.highlights()
    assert lit[cell(8, 2, AIR)] is Highlight.MOVE and lit[cell(8, 2, GROUND)] is Highlight.MOVE


def test_a_move_with_or_without_the_passenger_asks_which(opening: Interaction) -> None:
    opening.choose(opening.left_click(sq(10, 4), None).choices[0])
    reply = opening.left_click(sq(8, 2), AIR)
    assert reply.prompt == "Which Move?"
    labels = [c.label for c in reply.choices]
    assert labels == ["to (8,2) air alone (the Jet stays)", "to (8,2) air with the Jet"]
    sent = opening.choose(reply.choices[1])
    assert isinstance(sent.intent, Move) and sent.intent.carry is True


def test_right_click_selects_the_weapon_and_lights_its_directions(opening: Interaction) -> None:
    reply = opening.right_click(sq(9, 1), None)
    assert reply.message == "Rocket Launcher of the Rocket Pawn: pick a lit square"
    assert named(opening.highlights()) == [
        "(10,1) ground aim", "(10,2) ground aim", "(8,1) ground aim", "(8,2) ground aim",
        "(9,1) ground selected", "(9,2) ground aim"]
    fired = opening.left_click(sq(8, 2), None)
    assert isinstance(fired.intent, Fire)
    assert (fired.intent.weapon, fired.intent.dir) == (ArticleKind.ROCKET_LAUNCHER, (-1, 1))


def test_clicks_on_enemy_or_empty_squares_say_why(opening: Interaction) -> None:
    assert opening.left_click(sq(2, 2), None).message == (
        "Stunner Pawn at (2,2) ground is not yours: Black to act")
    assert opening.left_click(sq(5, 5), None).message == "no piece of yours at (5,5)"


def test_hidden_enemy_pieces_are_not_selectable_nor_named(opening: Interaction) -> None:
    # White's AAAs at (2,3) and (2,8) start hidden (R15): Black's view has no trace.
    assert [p.kind for p in opening.view.pieces if p.sq == sq(2, 3)] == [PieceKind.FLAME_PAWN]


def test_labels_read_as_players_name_things() -> None:
    start = standard_position()
    chopper = next(p for p in start.pieces if p.cell == cell(10, 4) and p.hand is not None)
    assert piece_label(chopper) == "Chopper (left) at (10,4) ground"
    assert article_label(ArticleKind.SAM_LAUNCHER) == "SAM Launcher"
    assert article_label(ArticleKind.ANTI_STEALTH) == "Anti-Stealth"


def test_keyboard_square_entry_reads_row_column_and_level() -> None:
    from wec.client.interaction import parse_square

    assert parse_square("9,2") == (sq(9, 2), None)
    assert parse_square(" 10 10 air") == (sq(10, 10), AIR)
    with pytest.raises(ValueError, match=r"R1.1: \(11,2\) is off the board"):
        parse_square("11,2")
    with pytest.raises(ValueError, match="type a square as row,column"):
        parse_square("e7")
    with pytest.raises(ValueError, match="unknown level 'space'"):
        parse_square("9,2,space")
