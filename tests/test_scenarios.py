"""Bundled scenarios (wec/scenarios, docs/scenarios.md): start boards a player loads by
name. Each is a checked-in wec-position/1 file equal to what make_scenarios.py builds,
a valid start by the editor's R14.4 checks, playable for 20 random turns (and savable),
described in a paragraph and documented; ``wec position scenario NAME`` prints it."""

from __future__ import annotations

import random
from collections import Counter
from importlib import resources
from pathlib import Path

import pytest

from wec.cli import main
from wec.engine.board import SUB
from wec.engine.editor import check_start
from wec.engine.encoding import state_hash
from wec.engine.game import Outcome
from wec.engine.intents import Intent
from wec.engine.match import Match
from wec.engine.pieces import ArticleKind, PieceKind, Side
from wec.engine.playout import play_turn
from wec.engine.position import Position
from wec.engine.savegame import decode_save, encode_save
from wec.engine.setup import standard_position
from wec.storage.scenarios import (
    ScenarioError,
    load_scenario,
    scenario_description,
    scenario_names,
)
from wec.storage.scenarios.make_scenarios import BUILDERS, render

NAMES = ["standard", "open_information", "ground_war", "air_war", "submarine_duel",
         "king_hunt"]
DOCS = Path(__file__).resolve().parent.parent / "docs" / "scenarios.md"
K = PieceKind
A = ArticleKind


def kinds(position: Position, side: Side) -> Counter[str]:
    return Counter(p.kind.value for p in position.pieces if p.side is side)


def ground_articles(position: Position) -> Counter[str]:
    return Counter(a.value for here in position.ground_articles for a in here)


def test_six_scenarios_in_the_order_they_are_offered():
    assert scenario_names() == NAMES
    files = sorted(entry.name for entry in resources.files("wec.storage.scenarios").iterdir()
                   if entry.name.endswith(".json"))
    assert files == sorted(f"{name}.json" for name in NAMES)
    assert list(BUILDERS) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_the_file_is_what_the_generator_writes(name):
    """The checked-in file is reproducible: make_scenarios.py writes it byte for byte."""
    text = resources.files("wec.storage.scenarios").joinpath(f"{name}.json").read_text("utf-8")
    built = BUILDERS[name]()
    assert text == render(built)
    assert state_hash(load_scenario(name)) == state_hash(built)


@pytest.mark.parametrize("name", NAMES)
def test_every_scenario_is_a_valid_start_board(name):
    """R14.4 (a)-(f), at turn 1 with Black to act (R4.1), nothing under way."""
    start = load_scenario(name)
    assert check_start(start) == []
    assert (start.turn, start.side_to_act, start.result) == (1, Side.BLACK, None)
    assert start.actions.is_fresh()
    assert not any(p.transit or p.stunned_until for p in start.pieces)


@pytest.mark.parametrize("name", NAMES)
def test_every_scenario_plays_20_random_turns_and_saves(name):
    """Random play (every action kind) for 20 turns or until a side wins, through a
    Match; the game then saves and loads back to the same state."""
    for seed in range(3):
        match = Match.begin(load_scenario(name))
        played = [match]

        def record(before: Position, intent: Intent, outcome: Outcome,
                   played: list[Match] = played) -> None:
            played.append(played[-1].play(intent))

        current, rng = match.current, random.Random(seed)
        for _ in range(20):
            current = play_turn(current, rng, record)
            if current.result is not None:
                break
        game = played[-1]
        assert game.current_hash == state_hash(current)
        assert current.result is not None or current.turn == 21
        assert decode_save(encode_save(game)).current_hash == game.current_hash


def test_every_scenario_has_a_description_and_a_section_in_the_docs():
    docs = DOCS.read_text(encoding="utf-8")
    for name in NAMES:
        description = scenario_description(name)
        assert len(description) > 150 and "\n" not in description
        assert f"## {name}\n" in docs
        assert f"wec position scenario {name}" in docs


def test_an_unknown_scenario_is_refused_naming_the_known_ones():
    message = ("unknown scenario 'chess' (known: standard, open_information, ground_war, "
               "air_war, submarine_duel, king_hunt)")
    for call in (load_scenario, scenario_description):
        with pytest.raises(ScenarioError) as refused:
            call("chess")
        assert str(refused.value) == message


# ---------------------------------------------------------------- what each one is

def test_standard_is_the_r15_setup():
    assert state_hash(load_scenario("standard")) == state_hash(standard_position())


def test_open_information_hides_nothing():
    """O15 and O16 off: not even the AAAs (R15.3) are hidden; no lock is needed."""
    start = load_scenario("open_information")
    assert (start.options.stealth_invisibility, start.options.submersion_invisibility) == (
        False, False)
    assert [p for p in start.pieces if p.hidden] == []
    assert start.locks == ()
    assert len(start.pieces) == 56 and sum(ground_articles(start).values()) == 68


def test_ground_war_has_no_air_or_sub_pieces_and_no_transport_articles():
    start = load_scenario("ground_war")
    for side in (Side.BLACK, Side.WHITE):
        assert kinds(start, side) == Counter({
            "rocket_pawn": 2, "stunner_pawn": 2, "flame_pawn": 2, "conversion_pawn": 2,
            "stealth_pawn": 1, "xxx_pawn": 1, "tank": 2, "dozer": 2, "cleric": 2,
            "destroyer": 2, "aaa": 2, "king": 1, "queen": 1})
    assert sorted({r.kind.value for r in start.reinforcements if r.kind}) == [
        "aaa", "cleric", "destroyer", "dozer", "queen", "tank"]
    articles = ground_articles(start)
    assert articles["bike"] == articles["jump_pack"] == articles["scuba_suit"] == 0
    assert sum(articles.values()) == 56


def test_air_war_is_fought_by_jets_choppers_and_aaa():
    start = load_scenario("air_war")
    for side in (Side.BLACK, Side.WHITE):
        assert kinds(start, side) == Counter({
            "jet": 4, "chopper": 2, "aaa": 2, "sam_torpedo_pawn": 6, "stealth_pawn": 1,
            "xxx_pawn": 1, "king": 1, "queen": 1})
    assert Counter((r.side.value, r.kind.value) for r in start.reinforcements if r.kind) == (
        Counter({("black", "jet"): 2, ("white", "jet"): 2}))
    assert ground_articles(start) == Counter({
        "sam_launcher": 4, "anti_sam": 4, "jump_pack": 4, "xxx": 2, "anti_stealth": 2,
        "stealth": 2})


def test_submarine_duel_starts_submerged_and_unseen():
    """R9.6: the Subs start at Sub level, out of every enemy Torpedo Launcher's range."""
    start = load_scenario("submarine_duel")
    subs = sorted((p.side.value, p.row, p.col, p.hidden) for p in start.pieces
                  if p.kind is K.SUB)
    assert subs == [("black", 9, 2, True), ("black", 9, 4, True), ("black", 9, 7, True),
                    ("black", 9, 9, True), ("white", 2, 2, True), ("white", 2, 4, True),
                    ("white", 2, 7, True), ("white", 2, 9, True)]
    assert all(p.level is SUB for p in start.pieces if p.kind is K.SUB)
    assert kinds(start, Side.WHITE)["destroyer"] == 2
    assert ground_articles(start)["torpedo_launcher"] == 6


def test_king_hunt_has_forward_kings_and_nothing_else_to_pick_up():
    start = load_scenario("king_hunt")
    assert sorted((p.side.value, p.row, p.col) for p in start.pieces if p.kind is K.KING) == [
        ("black", 7, 6), ("white", 4, 5)]
    assert sum(ground_articles(start).values()) == 0
    assert start.reinforcements == ()
    assert (start.options.reinforcements, start.options.weapon_articles,
            start.options.xxx_boxes) == ("none", "none", "none")
    assert len(start.pieces) == 24


# ---------------------------------------------------------------- the command line

def test_wec_position_scenario_prints_the_file(capsys):
    for name in NAMES:
        assert main(["position", "scenario", name]) == 0
        out = capsys.readouterr().out
        assert out == resources.files("wec.storage.scenarios").joinpath(f"{name}.json").read_text(
            "utf-8")


def test_wec_position_standard_is_unchanged_and_equals_the_standard_scenario(capsys):
    assert main(["position", "standard"]) == 0
    assert capsys.readouterr().out == render(standard_position())
    assert render(standard_position()) == render(load_scenario("standard"))


def test_wec_position_scenario_list(capsys):
    assert main(["position", "scenario", "--list"]) == 0
    assert capsys.readouterr() == ("\n".join(NAMES) + "\n", "")


@pytest.mark.parametrize("argv, message", [
    (["position", "scenario", "chess"],
     "wec position: unknown scenario 'chess' (known: standard, open_information, ground_war, "
     "air_war, submarine_duel, king_hunt)\n"),
    (["position", "scenario"],
     "wec position: scenario: give its NAME (known: standard, open_information, ground_war, "
     "air_war, submarine_duel, king_hunt)\n"),
    (["position", "standard", "air_war"],
     "wec position: standard takes no NAME and no --list (did you mean: wec position scenario "
     "NAME?)\n"),
])
def test_wec_position_scenario_refusals(capsys, argv, message):
    assert main(argv) == 2
    assert capsys.readouterr() == ("", message)
