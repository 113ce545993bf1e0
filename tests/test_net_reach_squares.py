"""A side asks the other side's detector reach only where its pieces can hide (issue 21,
``wec-fog/13``; engine.visibility ``hiding_squares``).

The owner of unseen pieces answers the detection (engine.questions ``detect``), so it
asks, by oblivious transfer, which of its squares the other side's detectors reach
(R9.3(b), R9.6). Until ``wec-fog/12`` it asked at the squares of all its pieces: its
machine learned, around each of them, whether an enemy detector stood within range,
a hidden Sub near its King for one, which the rules do not show (R9.1; the half state
and the client keep own pieces unflagged, engine.knowledge ``project``). Only a piece
that can hide at all (stealthy, R9.2, or at Sub level with O16) needs the reach, so the
query now names only their squares. Its own intent may change which pieces can hide (a
Pick-up of a Stealth article) before anything is asked, so the query that a ``done``
sends ahead for the first detection of the next action goes only when the other side
acts next; when the sender acts, that detection asks the reach back.

Since ``wec-fog/15`` the queries name the squares of the owner's *slots* (its pieces that
can hide now or could at the step's start, net.private_sight) and the owner reads only
masked bits there; the tests below still pin which squares are named, the ``done``'s
rule, and that a query naming other squares is caught by the audit.
"""

from __future__ import annotations

from typing import Any

import pytest
from halves import half_bytes
from rules_helpers import black, make, white
from test_net_audit import (
    ProbesReach,
    TampersOnce,
    _squares_asked,
    audit_names_the_liar,
    refused_at_once,
    tampering,
)
from test_net_fog import Wire, finish_and_audit, new_pair
from test_net_transit_schedule import _king_move

from wec.engine import board
from wec.engine.game import apply
from wec.engine.intents import EndTurn
from wec.engine.knowledge import project
from wec.engine.pieces import PieceKind, Side
from wec.engine.position import Position
from wec.engine.visibility import hiding_squares, settle
from wec.net import fog_codec as codec
from wec.net import private_sight as ps
from wec.net.fog_game import PRE_RUN, SIGHT_QUERIES, FogGame

W, B = Side.WHITE, Side.BLACK
STEALTH_PAWN, KING = (3, 3), (1, 5)  # White's, in White coordinates
SUB = (2, 5)  # Black's Sub, submerged next to White's King: hidden, its Torpedo
# Launcher reaching the King's square (R9.6, SubDetectRange 3)


def _start() -> Position:
    """Black to act: White's King, a Tank (seen) and a Stealth pawn (stealthy, R9.2);
    Black's King and its Sub at Sub level next to White's King (O16: hidden)."""
    return settle(make([white("king", *KING), white("tank", 2, 2, hand="right"),
                        white("stealth_pawn", *STEALTH_PAWN),
                        black("king", 10, 8), black("sub", *SUB, "sub")], turn=1))


class RecordsReach(FogGame):
    """An honest FogGame that keeps the squares of every detection query it sends
    ahead (its slots')."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.sent_ahead: list[tuple[int, ...]] = []

    def _reach_ahead(self, act: Any, k: int, slots: Any) -> list[bytes]:
        self.sent_ahead.append(tuple(s.sq for s in slots))
        return super()._reach_ahead(act, k, slots)


def _play(turns: int = 4, cls: dict[Side, type[FogGame]] | None = None,
          check: bool = True) -> tuple[Wire, Position]:
    """Both sides move their King to and fro and end their turn, ``turns`` times each;
    every action checked against the full state (``check``)."""
    start = _start()
    wire = Wire(new_pair(start, cls or {W: RecordsReach, B: RecordsReach}, seed=3))
    wire.run()
    full = start
    for turn in range(turns):
        for side in (B, W):
            for intent in (_king_move(full, side, turn), EndTurn()):
                wire.play(side, intent)
                full = apply(full, intent).position
                if check:
                    assert not any(wire.faults().values()), wire.faults()
                    for s in Side:
                        assert half_bytes(wire.games[s].half) == half_bytes(project(full, s))
    return wire, full


def _asked(game: FogGame) -> list[tuple[int, ...]]:
    """The squares of every reach query ``game`` sent: ahead, and asked back."""
    assert isinstance(game, RecordsReach)
    back = [tuple(q[1]) for act in game.actions for q in act.backs.questions
            if q[0] == "sight" and q[4] < PRE_RUN]
    return game.sent_ahead + back


def test_a_side_asks_the_reach_only_at_the_squares_of_its_pieces_that_can_hide() -> None:
    """White's King and Tank are seen whatever Black's detectors do; only its Stealth
    pawn can hide. Every reach query White sends, ahead or asked back, names its
    square alone, so White's machine never learns that Black's hidden Sub reaches its
    King; Black's name only its Sub's. The games agree with the full state, and both
    audits are clean."""
    assert hiding_squares(_start().pieces, W, _start().options) == \
        [board.square(*STEALTH_PAWN)]
    wire, full = _play()
    white_asked, black_asked = _asked(wire.games[W]), _asked(wire.games[B])
    assert len(white_asked) >= 8 and len(black_asked) >= 8
    assert set(white_asked) == {(board.square(*STEALTH_PAWN),)}
    sub = next(p for p in full.pieces if p.kind is PieceKind.SUB)
    assert sub.hidden and set(black_asked) == {(sub.sq,)}
    assert all(v.clean for v in finish_and_audit(wire).values())


def test_a_done_sends_the_reach_query_ahead_only_when_the_other_side_acts_next() -> None:
    """The query a ``done`` sends ahead serves the first detection of the next action:
    sent when the receiver acts next (its own intent cannot change the sender's pieces
    before it asks), left out when the sender acts (it asks the reach back then)."""
    wire, _ = _play(turns=2)
    for side in Side:
        game = wire.games[side]
        dones = [codec.unpack(m.body) for m in wire.received[side] if m.kind == "done"]
        assert len(dones) == len(game.actions)
        for payload in dones:
            act = game.actions[payload["n"]]
            acts_next = act.actor.other if isinstance(act.form, EndTurn) else act.actor
            assert ("reach" in payload) == (acts_next is side), (payload["n"], act.form)


class _DoneReach(TampersOnce):
    """Sends a reach query with a ``done`` where none is due (the sender acts next), or
    leaves it out where one is."""

    def tamper(self, kind: str, payload: dict[str, Any]) -> list[tuple[str, Any]] | None:
        if kind != "done" or not self.actions:
            return None
        if self.how == "not due" and "reach" not in payload:
            return [(kind, {**payload, "reach": [bytes(n) for n in SIGHT_QUERIES]})]
        if self.how == "left out" and "reach" in payload:
            return [(kind, {k: v for k, v in payload.items() if k != "reach"})]
        return None


@pytest.mark.parametrize("how,reason", [
    ("not due", "where none is due"),
    ("left out", "without the detection queries it sends ahead")])
def test_a_done_with_a_reach_query_not_due_or_without_one_due_is_refused(
        how: str, reason: str) -> None:
    """Black's ``done`` carries a query (valid in size) after an action it acts after,
    or none where White acts next: White stops the game at once, naming the message;
    its record stays intact."""
    wire, _ = _play(turns=2, cls={B: tampering(_DoneReach, how), W: RecordsReach},
                    check=False)
    refused_at_once(wire, W, reason)


class AsksReachAtAllItsSquares(ProbesReach):
    """Asks the reach at the squares of all its pieces, as every side did until
    ``wec-fog/12``: now a probe of where the peer's detectors reach around pieces seen
    anyway (its King's)."""

    def _probe(self, n: int, j: int) -> bytes | None:
        squares = set(_squares_asked(self, n, j))
        everywhere = sorted(squares | {p.sq for p in self.half.pieces if p.side is self.side})
        if len(everywhere) == len(squares):
            return None
        return ps.reach_receiver(self._bases(), codec.reach_run_id(
            self.game_id, n, self.side, j)).query_slots(everywhere)


def test_a_peer_that_asks_the_reach_at_all_its_squares_is_caught_with_proof() -> None:
    """Black asks White's reach around its King too (a query sent ahead, answered by
    White's table): White's audit names the lie, the action and the signed message."""
    liar = type("AsksReachEverywhere", (AsksReachAtAllItsSquares,), {"lie_from": 0})
    wire, _ = _play(turns=3, cls={B: liar, W: RecordsReach}, check=False)
    lying = wire.games[B]
    assert isinstance(lying, AsksReachAtAllItsSquares) and lying.via_ahead
    audit_names_the_liar(wire, lying, B, "reach query")
