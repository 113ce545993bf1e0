"""The defences of every government piece (R11.1, R11.2, R6.4), in play.

Each of the four primary and four secondary kinds is hit once by each weapon type of
R6.4.4: Flame, Stunner, Conversion, Rocket (at Ground), SAM (carried by a Chopper at
Air) and Torpedo (carried by a Sub at Sub). One hit is stopped exactly when the kind has
the matching Anti ability of R11.1; otherwise the weapon takes effect (destroyed,
stunned for three own turns, converted), and a primary piece's loss ends the game
(R12.1, R6.7.3). A second hit in the same turn overcomes the one Anti (R6.4.3).

The expected defences are the R11.1 table, written out here independently of
engine/pieces.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from wec import engine
from wec.engine import board
from wec.engine.events import Converted, Destroyed, Fell, GameOver, Hit, Stunned
from wec.engine.intents import Fire
from wec.engine.pieces import ArticleKind, PieceKind, Side

A = ArticleKind
TURN = 10  # White acts on even turns (R4.1)

# R11.1: government, primary piece, its defences, secondary piece, its defences.
R11_1 = [
    ("monarchy", "king", {"flame", "rocket"}, "queen", {"conversion", "stunner"}),
    ("dictatorship", "dictator", {"conversion", "rocket"}, "assassin", {"flame", "stunner"}),
    ("theocracy", "avatar", {"stunner", "rocket"}, "acolyte", {"flame", "conversion"}),
    ("democracy", "president", {"conversion", "flame"}, "prime_minister",
     {"rocket", "stunner"}),
]
# kind -> (government, primary?, the weapons its Anti abilities stop)
GOVERNMENT_PIECES: dict[str, tuple[str, bool, set[str]]] = {}
for _gov, _primary, _primary_defences, _secondary, _secondary_defences in R11_1:
    GOVERNMENT_PIECES[_primary] = (_gov, True, _primary_defences)
    GOVERNMENT_PIECES[_secondary] = (_gov, False, _secondary_defences)

# weapon -> (the White piece that fires it from (5,5), the article it fires, the level
# it acts at, the Black carrier that holds the target there, or None at Ground). The
# carriers have no Anti of their own: the projectile hits every piece at that level
# there, carrier and passenger alike, before either is destroyed (R6.8.5), so the
# passenger cannot escape by falling from its destroyed carrier (R7.3).
WEAPONS: dict[str, tuple[str, ArticleKind, str, dict[str, Any] | None]] = {
    "flame": ("flame_pawn", A.FLAME, "ground", None),
    "stunner": ("stunner_pawn", A.STUNNER, "ground", None),
    "conversion": ("conversion_pawn", A.CONVERSION, "ground", None),
    "rocket": ("rocket_pawn", A.ROCKET_LAUNCHER, "ground", None),
    "sam": ("sam_torpedo_pawn", A.SAM_LAUNCHER, "air",
            {"kind": "chopper", "hand": "left"}),
    "torpedo": ("sam_torpedo_pawn", A.TORPEDO_LAUNCHER, "sub",
                {"kind": "sub"}),
}
CASES = [(kind, weapon) for kind in GOVERNMENT_PIECES for weapon in WEAPONS]
DEFENDED = [(kind, weapon) for kind, (_, _, stops) in GOVERNMENT_PIECES.items()
            for weapon in sorted(stops)]


def target_board(kind: str, weapon: str) -> engine.Position:
    """White's firer at (5,5) aiming forward at Black's ``kind`` on (6,5), at the level
    the weapon acts on (a passenger of its carrier at Air or Sub, R8.7); each side keeps
    a primary piece elsewhere (Black's own when ``kind`` is secondary)."""
    government, primary, _ = GOVERNMENT_PIECES[kind]
    firer, _, level, carrier = WEAPONS[weapon]
    pieces: list[dict[str, Any]] = [
        {"side": "white", "kind": "king", "at": [1, 1]},
        {"side": "white", "kind": firer, "at": [5, 5], "moved": True},
        {"side": "black", "kind": kind, "at": [6, 5], "level": level},
    ]
    if carrier is not None:
        pieces.append({"side": "black", "at": [6, 5], "level": level, **carrier})
    if not primary:
        primary_kind = next(p for g, p, _, _, _ in R11_1 if g == government)
        pieces.append({"side": "black", "kind": primary_kind, "at": [10, 10]})
    return engine.position_from_dict({
        "format": "wec-position/1", "turn": TURN, "pieces": pieces,
        "options": {"government": {"black": government, "white": "monarchy"}}})


def fire(position: engine.Position, row: int, col: int, weapon: ArticleKind,
         direction: tuple[int, int]) -> engine.Outcome:
    return engine.apply(position, Fire(board.cell_at(row, col, board.GROUND), weapon,
                                       dir=direction))


def hits_on(outcome: engine.Outcome, kind: str) -> list[tuple[str, int, int, int]]:
    """(weapon, hits, total this turn, matching Anti abilities) of each hit on ``kind``."""
    return [(e.weapon.value, e.hits, e.total, e.defences) for e in outcome.events
            if isinstance(e, Hit) and e.kind.value == kind]


def test_the_r11_table_covers_every_government_piece():
    """Eight kinds, each with exactly two of the four ground weapons' Anti abilities;
    none stops a SAM or a Torpedo (R11.2: only these defences)."""
    assert sorted(GOVERNMENT_PIECES) == sorted(
        k.value for k in PieceKind if engine.pieces.TRAITS[k].primary
        or engine.pieces.TRAITS[k].secondary)
    for _, _, stops in GOVERNMENT_PIECES.values():
        assert len(stops) == 2 and stops <= {"flame", "stunner", "conversion", "rocket"}


@pytest.mark.parametrize(("kind", "weapon"), CASES, ids=[f"{k}-{w}" for k, w in CASES])
def test_one_hit_of_each_weapon_on_each_government_piece(kind, weapon):
    _, primary, stops = GOVERNMENT_PIECES[kind]
    _, article, level, carrier = WEAPONS[weapon]
    defended = weapon in stops
    out = fire(target_board(kind, weapon), 5, 5, article, (1, 0))
    assert hits_on(out, kind) == [(article.value, 1, 1, 1 if defended else 0)]
    here = [p for p in out.position.pieces if p.sq == board.square(6, 5)]
    if defended:
        # the Anti stops the one hit: the piece stands, Black's, unstunned (R6.4.3)
        assert [(p.side, p.kind.value, p.level.label, p.stunned_until) for p in here
                if p.kind.value == kind] == [(Side.BLACK, kind, level, 0)]
        assert out.position.result is None
        return
    if weapon == "stunner":  # R7.1: stunned while the turn is below T + 2 * 3
        assert [e.until for e in out.events if isinstance(e, Stunned)] == [TURN + 6]
        assert [(p.side, p.kind.value, p.stunned_until) for p in here] == [
            (Side.BLACK, kind, TURN + 6)]
        assert out.position.result is None
        return
    if weapon == "conversion":  # R6.7.2: White's now
        assert [(e.side, e.kind.value) for e in out.events if isinstance(e, Converted)] == [
            (Side.WHITE, kind)]
        assert [(p.side, p.kind.value) for p in here] == [(Side.WHITE, kind)]
    else:  # destroyed; a carrier holding it at Air or Sub is destroyed with it (R6.8.5)
        destroyed = [kind] if carrier is None else sorted([kind, carrier["kind"]])
        # both hit first, then destroyed in canonical piece order (same side: by kind)
        assert [(e.piece.kind.value, e.cause) for e in out.events
                if isinstance(e, Destroyed)] == [(k, weapon) for k in destroyed]
        assert [e for e in out.events if isinstance(e, Fell)] == []  # no escape (R7.3)
        assert here == []
        if carrier is not None:
            assert hits_on(out, carrier["kind"]) == [(article.value, 1, 1, 0)]
    ended = [e for e in out.events if isinstance(e, GameOver)]
    if primary:  # R12.1, R6.7.3: losing the primary piece loses the game
        assert out.position.result is not None
        assert out.position.result.winner is Side.WHITE
        assert [e.winner for e in ended] == [Side.WHITE]
    else:
        assert out.position.result is None and ended == []


SECOND_FIRERS = {"flame": "flame_pawn", "stunner": "stunner_pawn",
                 "conversion": "conversion_pawn", "rocket": "rocket_pawn"}


@pytest.mark.parametrize(("kind", "weapon"), DEFENDED, ids=[f"{k}-{w}" for k, w in DEFENDED])
def test_a_second_hit_in_the_same_turn_overcomes_the_one_anti(kind, weapon):
    """R6.4.3: one Anti stops one hit; a second firer's hit this turn is the one too many
    (from (5,4), aiming diagonally at (6,5))."""
    _, primary, _ = GOVERNMENT_PIECES[kind]
    article = WEAPONS[weapon][1]
    position = target_board(kind, weapon)
    second = {"side": "white", "kind": SECOND_FIRERS[weapon], "at": [5, 4], "moved": True}
    data = engine.position_to_dict(position)
    data["pieces"].append(second)
    first = fire(engine.position_from_dict(data), 5, 5, article, (1, 0))
    then = fire(first.position, 5, 4, article, (1, 1))
    assert hits_on(then, kind) == [(article.value, 1, 2, 1)]
    here = [(p.side, p.kind.value, p.stunned_until) for p in then.position.pieces
            if p.sq == board.square(6, 5)]
    expected = {"flame": [], "rocket": [], "stunner": [(Side.BLACK, kind, TURN + 6)],
                "conversion": [(Side.WHITE, kind, 0)]}[weapon]
    assert here == expected
    ends = primary and weapon != "stunner"
    assert (then.position.result is not None) is ends
    if ends:
        assert then.position.result.winner is Side.WHITE
