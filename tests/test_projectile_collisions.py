"""Projectile collisions (R6.8.5): every projectile at a square-level holding pieces hits
every piece at that level there and is removed.

Two points of R6.8.5 are checked here with exact outcomes:
- "Several projectiles hitting the same square-level in the same step each deliver
  their hits": two Rockets reaching one Dozer in the same projectile phase are both
  removed and their hits add up against the defences (R6.4), whatever the order of
  the projectile list.
- "every piece at that level there receives n hits": a passenger of a Chopper at Air
  or of a Sub at Sub (R8.7) is hit together with its carrier; it cannot escape by
  falling to Ground (R7.3) when the carrier is destroyed first.

Every position is at turn 2 (White to act, R4.1) with White's Move counted as made;
EndTurn runs turn 3's projectile phase (R4.2, R6.8.4), in which the projectiles step.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from rules_helpers import black, cell_tuple, white

from wec import engine
from wec.engine import board
from wec.engine.events import (
    ArticleDropped,
    Destroyed,
    Fell,
    Hit,
    ProjectileRemoved,
    ProjectileStepped,
    TurnEnded,
)
from wec.engine.intents import EndTurn

KINGS = [white("king", 1, 1), black("king", 10, 10)]


def rocket(row: int, col: int, d: tuple[int, int], strength: int = 1) -> dict[str, Any]:
    return {"kind": "rocket", "side": "white", "at": [row, col], "dir": list(d),
            "strength": strength}


def sam(row: int, col: int, d: tuple[int, int]) -> dict[str, Any]:
    return {"kind": "sam", "side": "white", "at": [row, col], "dir": list(d), "strength": 1}


def torpedo(row: int, col: int, d: tuple[int, int]) -> dict[str, Any]:
    return {"kind": "torpedo", "side": "white", "at": [row, col], "dir": list(d),
            "strength": 1}


def position(pieces: list[dict[str, Any]], projectiles: list[dict[str, Any]]
             ) -> engine.Position:
    """Turn 2, White's Move made (so EndTurn is allowed), the projectiles in this order."""
    return engine.position_from_dict({
        "format": "wec-position/1", "turn": 2, "actions_this_turn": {"move": 1},
        "pieces": KINGS + pieces, "projectiles": projectiles})


def end_turn(pieces: list[dict[str, Any]], projectiles: list[dict[str, Any]]
             ) -> engine.Outcome:
    return engine.apply(position(pieces, projectiles), EndTurn())


def square(sq: int) -> tuple[int, int]:
    return (board.row_of(sq), board.col_of(sq))


def after_steps(outcome: engine.Outcome) -> list[tuple[Any, ...]]:
    """What a player reads after the projectiles stepped: removals, hits (weapon hits,
    total this turn, matching Anti abilities), destructions, article drops (R3.4) and
    falls, in order."""
    out: list[tuple[Any, ...]] = []
    for e in outcome.events:
        if isinstance(e, ProjectileRemoved):
            out.append(("removed", e.projectile, square(e.sq), e.why))
        elif isinstance(e, Hit):
            out.append(("hit", e.kind.value, cell_tuple(e.cell), e.hits, e.total, e.defences))
        elif isinstance(e, Destroyed):
            out.append(("destroyed", e.piece.kind.value, cell_tuple(e.cell), e.cause))
        elif isinstance(e, ArticleDropped):
            out.append(("dropped", e.article.value, square(e.sq)))
        elif isinstance(e, Fell):
            out.append(("fell", e.kind.value, cell_tuple(e.frm), cell_tuple(e.to)))
        elif not isinstance(e, (TurnEnded, ProjectileStepped)):
            out.append((type(e).__name__,))
    return out


def standing(outcome: engine.Outcome) -> list[tuple[str, str, tuple[int, int, str]]]:
    """(side, kind, cell) of every piece in play but the two kings, in board order."""
    return sorted((p.side.value, p.kind.value, cell_tuple(p.cell))
                  for p in outcome.position.pieces if p.kind.value != "king")


def flying(outcome: engine.Outcome) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
    """(kind, square, direction) of every projectile still in flight, sorted."""
    return sorted((pr.kind, square(pr.sq), pr.dir) for pr in outcome.position.projectiles)


# --------------------------------------------------------------------------- same step

CONVERGING = [rocket(3, 5, (1, 0)), rocket(4, 4, (0, 1))]  # both step onto (4,5)G


@pytest.mark.parametrize("projectiles", [CONVERGING, CONVERGING[::-1]],
                         ids=["north-first", "west-first"])
def test_two_rockets_reaching_a_dozer_in_one_step_both_hit_and_both_go(projectiles):
    """R6.8.5: the first Rocket already destroys the Dozer (no Anti-Rocket), yet the
    second one also delivers its hit there and is removed; it does not fly on."""
    out = end_turn([black("dozer", 4, 5)], projectiles)
    assert [(square(e.frm), square(e.to)) for e in out.events
            if isinstance(e, ProjectileStepped)] == [
        (square(board.square(*p["at"])), (4, 5)) for p in projectiles]
    assert after_steps(out) == [
        ("removed", "rocket", (4, 5), "hit"),
        ("hit", "dozer", (4, 5, "ground"), 1, 1, 0),
        ("removed", "rocket", (4, 5), "hit"),
        ("hit", "dozer", (4, 5, "ground"), 1, 2, 0),
        ("destroyed", "dozer", (4, 5, "ground"), "rocket"),
    ]
    assert standing(out) == []
    assert flying(out) == []


def test_the_outcome_does_not_depend_on_the_order_of_the_projectile_list():
    """R6.8.5: the same position, events and projectiles in flight for both orders."""
    pieces = [black("dozer", 4, 5)]
    one = end_turn(pieces, CONVERGING)
    other = end_turn(pieces, CONVERGING[::-1])
    assert engine.position_to_dict(one.position) == engine.position_to_dict(other.position)
    assert after_steps(one) == after_steps(other)


def test_hits_of_two_rockets_add_up_against_one_anti_rocket():
    """R6.4: a Rocket Pawn's inherent Anti-Rocket stops one hit; the two Rockets arriving
    together make two this turn, one too many."""
    out = end_turn([black("rocket_pawn", 4, 5)], CONVERGING)
    assert after_steps(out) == [
        ("removed", "rocket", (4, 5), "hit"),
        ("hit", "rocket_pawn", (4, 5, "ground"), 1, 1, 1),
        ("removed", "rocket", (4, 5), "hit"),
        ("hit", "rocket_pawn", (4, 5, "ground"), 1, 2, 1),
        ("destroyed", "rocket_pawn", (4, 5, "ground"), "rocket"),
    ]
    assert standing(out) == []


def test_one_rocket_alone_is_stopped_by_the_anti_rocket():
    """The contrast to the test above: one hit, one Anti (R6.4.3), the pawn stands."""
    out = end_turn([black("rocket_pawn", 4, 5)], CONVERGING[:1])
    assert after_steps(out) == [
        ("removed", "rocket", (4, 5), "hit"),
        ("hit", "rocket_pawn", (4, 5, "ground"), 1, 1, 1),
    ]
    assert standing(out) == [("black", "rocket_pawn", (4, 5, "ground"))]


def test_every_piece_there_receives_every_projectiles_hits():
    """R6.8.5: a Dozer and a Rocket Pawn sharing (4,5)G (R1.6(c)) each take both hits,
    in canonical piece order; both are destroyed only after all hits are in."""
    out = end_turn([black("dozer", 4, 5), black("rocket_pawn", 4, 5)], CONVERGING)
    assert after_steps(out) == [
        ("removed", "rocket", (4, 5), "hit"),
        ("hit", "dozer", (4, 5, "ground"), 1, 1, 0),
        ("hit", "rocket_pawn", (4, 5, "ground"), 1, 1, 1),
        ("removed", "rocket", (4, 5), "hit"),
        ("hit", "dozer", (4, 5, "ground"), 1, 2, 0),
        ("hit", "rocket_pawn", (4, 5, "ground"), 1, 2, 1),
        ("destroyed", "dozer", (4, 5, "ground"), "rocket"),
        ("destroyed", "rocket_pawn", (4, 5, "ground"), "rocket"),
    ]
    assert standing(out) == []


def test_projectiles_elsewhere_fly_on_and_the_strongest_rocket_counts_its_strength():
    """Only the projectiles at the hit square-level are removed; a Rocket of strength 2
    gives 2 hits (R6.4); a SAM passing over the Air of another square flies on."""
    out = end_turn([black("dozer", 4, 5), black("rocket_pawn", 4, 5)],
                   [rocket(2, 2, (0, 1)), rocket(3, 5, (1, 0), strength=2), sam(4, 4, (0, 1))])
    assert after_steps(out) == [
        ("removed", "rocket", (4, 5), "hit"),
        ("hit", "dozer", (4, 5, "ground"), 2, 2, 0),
        ("hit", "rocket_pawn", (4, 5, "ground"), 2, 2, 1),
        ("destroyed", "dozer", (4, 5, "ground"), "rocket"),
        ("destroyed", "rocket_pawn", (4, 5, "ground"), "rocket"),
    ]
    assert flying(out) == [("rocket", (2, 3), (0, 1)), ("sam", (4, 5), (0, 1))]


# --------------------------------------------------------------------------- passengers


def test_a_sam_destroys_a_chopper_and_its_passenger_together():
    """R6.8.5, R8.7: the Flame Pawn carried by the Chopper at (6,5)A is hit with it; it
    is destroyed there, it does not fall to Ground."""
    out = end_turn([black("chopper", 6, 5, "air", hand="left"), black("flame_pawn", 6, 5, "air")],
                   [sam(5, 5, (1, 0))])
    assert after_steps(out) == [
        ("removed", "sam", (6, 5), "hit"),
        ("hit", "chopper", (6, 5, "air"), 1, 1, 0),
        ("hit", "flame_pawn", (6, 5, "air"), 1, 1, 0),
        ("destroyed", "chopper", (6, 5, "air"), "sam"),
        ("destroyed", "flame_pawn", (6, 5, "air"), "sam"),
    ]
    assert standing(out) == []


def test_a_torpedo_destroys_a_sub_and_its_passenger_together():
    """R6.8.5, R8.7: the same at Sub: the Sub's passenger does not surface and escape."""
    out = end_turn([black("sub", 6, 5, "sub"), black("flame_pawn", 6, 5, "sub")],
                   [torpedo(5, 5, (1, 0))])
    assert after_steps(out) == [
        ("removed", "torpedo", (6, 5), "hit"),
        ("hit", "flame_pawn", (6, 5, "sub"), 1, 1, 0),
        ("hit", "sub", (6, 5, "sub"), 1, 1, 0),
        ("destroyed", "flame_pawn", (6, 5, "sub"), "torpedo"),
        ("destroyed", "sub", (6, 5, "sub"), "torpedo"),
    ]
    assert standing(out) == []


def test_a_passenger_whose_anti_sam_stops_the_hit_falls_when_its_carrier_goes():
    """R6.4.3 then R7.3: the passenger's Anti-SAM stops its one hit; the carrier is
    destroyed, so the passenger falls to Ground of its square."""
    out = end_turn([black("chopper", 6, 5, "air", hand="left"),
                    black("flame_pawn", 6, 5, "air", articles=["anti_sam"])],
                   [sam(5, 5, (1, 0))])
    assert after_steps(out) == [
        ("removed", "sam", (6, 5), "hit"),
        ("hit", "chopper", (6, 5, "air"), 1, 1, 0),
        ("hit", "flame_pawn", (6, 5, "air"), 1, 1, 1),
        ("destroyed", "chopper", (6, 5, "air"), "sam"),
        ("fell", "flame_pawn", (6, 5, "air"), (6, 5, "ground")),
    ]
    assert standing(out) == [("black", "flame_pawn", (6, 5, "ground"))]


def test_a_passenger_falling_onto_a_rocket_is_hit_by_it_after_the_fall():
    """R6.8.5 "after any action or step": the Rocket reaching the empty (6,5)G hits
    nothing in the step; the passenger that then falls there (R7.3) meets it and is hit
    (its Anti-SAM does not stop Rockets)."""
    out = end_turn([black("chopper", 6, 5, "air", hand="left"),
                    black("flame_pawn", 6, 5, "air", articles=["anti_sam"])],
                   [rocket(5, 5, (1, 0)), sam(5, 5, (1, 0))])
    assert after_steps(out) == [
        ("removed", "sam", (6, 5), "hit"),
        ("hit", "chopper", (6, 5, "air"), 1, 1, 0),
        ("hit", "flame_pawn", (6, 5, "air"), 1, 1, 1),
        ("destroyed", "chopper", (6, 5, "air"), "sam"),
        ("fell", "flame_pawn", (6, 5, "air"), (6, 5, "ground")),
        ("removed", "rocket", (6, 5), "hit"),
        ("hit", "flame_pawn", (6, 5, "ground"), 1, 1, 0),
        ("destroyed", "flame_pawn", (6, 5, "ground"), "rocket"),
        ("dropped", "anti_sam", (6, 5)),
    ]
    assert standing(out) == []
    assert flying(out) == []


# --------------------------------------------------------------------------- order


MIXED_PIECES = [black("chopper", 6, 5, "air", hand="left"),
                black("flame_pawn", 6, 5, "air", articles=["anti_sam"]),
                black("dozer", 4, 5), black("rocket_pawn", 4, 5),
                black("sub", 8, 8, "sub"), black("flame_pawn", 8, 8, "sub")]
MIXED_PROJECTILES = [rocket(5, 5, (1, 0)), sam(5, 5, (1, 0)), rocket(3, 5, (1, 0)),
                     rocket(4, 4, (0, 1)), torpedo(8, 7, (0, 1)), rocket(1, 9, (0, 1))]


def test_every_order_of_the_projectile_list_gives_the_same_outcome():
    """R6.8.5: all 720 orders of six projectiles (three collisions at three cells, a
    fall onto a Rocket, one projectile flying on) give one position and one event list
    after the steps."""
    outcomes = {(repr(engine.position_to_dict(out.position)), repr(after_steps(out)))
                for order in itertools.permutations(MIXED_PROJECTILES)
                for out in [end_turn(MIXED_PIECES, list(order))]}
    assert len(outcomes) == 1
    out = end_turn(MIXED_PIECES, MIXED_PROJECTILES)
    assert standing(out) == []
    assert flying(out) == [("rocket", (1, 10), (0, 1))]
    assert [e for e in after_steps(out) if e[0] == "destroyed"] == [
        ("destroyed", "dozer", (4, 5, "ground"), "rocket"),
        ("destroyed", "rocket_pawn", (4, 5, "ground"), "rocket"),
        ("destroyed", "chopper", (6, 5, "air"), "sam"),
        ("destroyed", "flame_pawn", (8, 8, "sub"), "torpedo"),
        ("destroyed", "sub", (8, 8, "sub"), "torpedo"),
        ("destroyed", "flame_pawn", (6, 5, "ground"), "rocket"),
    ]
