"""engine.values.fast_init: the same objects as the dataclass's own __init__, still frozen."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from wec.engine.intents import Fire, Move
from wec.engine.pieces import ArticleKind, PieceKind
from wec.engine.values import fast_init


def test_fast_init_builds_equal_hashable_frozen_values():
    fire = Fire(4 * 3 + 1, ArticleKind.FLAME, dir=(1, 0), kind=PieceKind.FLAME_PAWN)
    assert fire.dest is None and fire.path == "beeline" and fire.dir == (1, 0)
    assert fire == dataclasses.replace(fire)
    assert hash(fire) == hash(dataclasses.replace(fire))
    with pytest.raises(dataclasses.FrozenInstanceError):
        fire.dir = (0, 1)  # type: ignore[misc]
    move = Move(13, 22, PieceKind.TANK)
    assert (move.frm, move.to, move.kind, move.carry, move.hand) == (13, 22, PieceKind.TANK,
                                                                      None, None)
    with pytest.raises(TypeError):
        Move(13)  # type: ignore[call-arg]


def test_fast_init_refuses_what_it_cannot_reproduce():
    @dataclass(frozen=True, slots=True)
    class WithFactory:
        items: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class NotFrozen:
        x: int

    with pytest.raises(TypeError, match="plain fields"):
        fast_init(WithFactory)
    with pytest.raises(TypeError, match="frozen"):
        fast_init(NotFrozen)
