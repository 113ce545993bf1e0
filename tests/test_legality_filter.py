"""The fast move generator and the explaining legality filter must agree (two-tier legality)."""

from __future__ import annotations

from hypothesis import given, settings
from wec_strategies import positions

from wec.engine.movement import check_route, legal_plans, must_carry, passenger_of, piece_routes
from wec.engine.pieces import TRAITS


def _explained_legal(position, piece):
    """Destinations the explaining filter accepts, with each carrying choice."""
    if (position.actions.move or piece.level not in TRAITS[piece.kind].native
            or piece.stunned(position.turn)):
        return set()
    passenger = passenger_of(position, piece) if TRAITS[piece.kind].carries else None
    choices = [None] if passenger is None else (
        [passenger] if must_carry(passenger) else [None, passenger])
    return {(route.dest, carried is not None)
            for route in piece_routes(position, piece) for carried in choices
            if check_route(position, piece, carried, route) is None}


@settings(max_examples=400, deadline=None)
@given(positions())
def test_generator_and_filter_agree_on_every_route(position):
    side = position.side_to_act
    for piece in position.pieces:
        if piece.side is side:
            generated = {(plan.route.dest, plan.passenger is not None)
                         for plan in legal_plans(position, piece)}
            assert generated == _explained_legal(position, piece), piece.describe()
