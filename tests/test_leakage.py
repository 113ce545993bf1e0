"""Leakage (issue 17): what one side learns of pieces it does not see is exactly what the
rules' outcome shows it.

For more than a thousand positions of random games, the pieces hidden from one side
(the *asking* side) are perturbed in ways no question of the action touches: moved to
another cell that none of its questions names, or made to carry other articles. Where
the rules' outcome shows that side the same thing either way (its half state and its
events, from the full state), the questions it asked the other side, the answers it got
and the half state it reached resolving on two half states must be byte-identical: no
answer tells it more than the outcome. The event stream of the full-state censor is
checked the same way (engine.censor).
"""

from __future__ import annotations

import random
from collections import Counter

from halves import collect, half_bytes, resolve_both
from rules_helpers import perturb_hidden

from wec.engine import board
from wec.engine.censor import events_for
from wec.engine.errors import IllegalIntent
from wec.engine.events import Captured
from wec.engine.game import Outcome, apply
from wec.engine.half_referee import HalfReferee
from wec.engine.intents import Doze, Fire, Intent, Move
from wec.engine.knowledge import project
from wec.engine.pieces import TRAITS, ArticleKind, Side, article_capacity
from wec.engine.position import Piece, Position
from wec.engine.questions import DozeQuestion, HomingQuery, WeaponStep
from wec.engine.sides import doze_squares
from wec.engine.visibility import settle

A = ArticleKind


def _outcome(position: Position, intent: Intent) -> Outcome | None:
    try:
        return apply(position, intent)
    except IllegalIntent:
        return None


def _asked(outcome: Outcome) -> list[tuple[str, object, object]]:
    """The questions the side asked and the answers it got (the questions it was asked
    back by the other side are the other side's: their cells are what the protocol
    hides, docs/architecture.md)."""
    return [q for q in outcome.questions if not q[0].startswith("asked back")]


def _touched(outcome: Outcome, intent: Intent) -> tuple[set[int], set[int]]:
    """The cells and pieces the side's questions name: the cells of first hits,
    presences, weapons, collisions and Dozes, the homing targets, and the acting cell."""
    cells: set[int] = set()
    pids: set[int] = set()
    for name, question, _ in outcome.questions:
        if name in ("first_hit", "presence"):
            cells.update(question)  # type: ignore[arg-type]
        elif name == "weapon":
            assert isinstance(question, WeaponStep)
            cells.update(question.cells)
        elif name == "collide":
            cells.update(p.cell for p in question)  # type: ignore[attr-defined]
        elif name == "collision_effects":
            cells.add(question)  # type: ignore[arg-type]
        elif name == "homing":
            for q in question:  # type: ignore[attr-defined]
                assert isinstance(q, HomingQuery)
                pids.add(q.target)
        elif name == "doze":
            assert isinstance(question, DozeQuestion)
            squares = doze_squares(Doze(question.sq, question.squares, question.dir))
            cells.update(sq * 3 + level for sq in squares for level in range(3))
    frm = getattr(intent, "frm", None)
    if frm is not None:
        cells.add(frm)
    return cells, pids


def _perturbed(before: Position, asker: Side, rng: random.Random, cells: set[int],
               pids: set[int], prefer: set[int] | frozenset[int] = frozenset()
               ) -> tuple[Position, Piece] | None:
    """``before`` with one piece hidden from ``asker`` moved to a free cell none of the
    questions named, or carrying other articles; None if it has none to perturb.
    ``prefer``: cells whose pieces are chosen three times in four when there are any."""
    hidden = [p for p in before.pieces if p.side is not asker and p.hidden
              and p.transit is None and p.pid not in pids and p.cell not in cells]
    if not hidden:
        return None
    preferred = [p for p in hidden if p.cell in prefer]
    piece = rng.choice(preferred if preferred and rng.random() < 0.75 else hidden)
    if rng.random() < 0.6:
        taken = {p.cell for p in before.pieces} | {pr.cell for pr in before.projectiles}
        free = [c for c in range(board.CELLS) if c not in taken and c not in cells
                and board.cell_level(c) in TRAITS[piece.kind].native
                and all(p.cell != c for p in before.pieces)]
        if not free:
            return None
        target = rng.choice(free)
        changed = piece.but(sq=target // 3, level=board.cell_level(target), revealed=None)
    else:
        options = [a for a in (A.ANTI_FLAME, A.ANTI_ROCKET, A.SAM_LAUNCHER, A.XXX, A.BIKE)
                   if len((*piece.articles, a)) <= article_capacity(piece.kind,
                                                                     (*piece.articles, a))]
        removable = [a for a in piece.articles if a is not A.STEALTH]
        if removable and (not options or rng.random() < 0.5):
            gone = rng.choice(removable)
            at = piece.articles.index(gone)
            articles = piece.articles[:at] + piece.articles[at + 1:]
        elif options:
            articles = (*piece.articles, rng.choice(options))
        else:
            return None
        if len(articles) > article_capacity(piece.kind, articles):
            return None
        changed = piece.but(articles=articles, ready=())
    position = before.evolve(pieces=tuple(changed if p is piece else p for p in before.pieces))
    return settle(position), changed


def _same_for(side: Side, real: Outcome, fake: Outcome) -> bool:
    return (half_bytes(project(real.position, side)) == half_bytes(project(fake.position, side))
            and events_for(side, real) == events_for(side, fake))


def test_the_asking_side_learns_nothing_its_outcome_does_not_show():
    """At least 1,000 positions: each perturbation of the pieces the asking side does not
    see that no question touches leaves its questions, the answers it receives and its
    resulting half state byte-identical."""
    rng = random.Random(1717)
    intents = collect(41, 800) + collect(42, 400, conceal_share=0.5)
    tried: Counter[str] = Counter()
    positions = compared = 0
    for before, intent, full in intents:
        positions_counted = False
        halves = resolve_both({s: project(before, s) for s in Side}, intent)
        for asker in Side:
            mine = halves[asker]
            cells, pids = _touched(mine, intent)
            found = _perturbed(before, asker, rng, cells, pids)
            if found is None:
                continue
            perturbed, piece = found
            tried["perturbations"] += 1
            if (half_bytes(project(perturbed, asker)) != half_bytes(project(before, asker))):
                tried["shown before (not a valid perturbation)"] += 1
                continue
            fake_full = _outcome(perturbed, intent)
            if fake_full is None or not _same_for(asker, full, fake_full):
                tried["outcome differs (not a valid perturbation)"] += 1
                continue
            fake = apply(project(perturbed, asker), intent,
                         HalfReferee(project(perturbed, asker.other)))
            fake_cells, fake_pids = _touched(fake, intent)
            if piece.cell in fake_cells or piece.pid in fake_pids:
                tried["touched by the perturbed run's questions"] += 1
                continue
            assert repr(_asked(fake)) == repr(_asked(mine)), (asker, intent, piece)
            assert half_bytes(fake.position) == half_bytes(mine.position), (asker, intent)
            assert fake.events == mine.events, (asker, intent)
            tried["compared"] += 1
            compared += 1
            if not positions_counted:
                positions += 1
                positions_counted = True
    print(f"leakage: {positions} positions, perturbations: "
          + ", ".join(f"{k} {n}" for k, n in tried.items()))
    assert positions >= 1000 and compared >= 1500


def test_perturbing_hidden_pieces_leaves_the_other_sides_event_stream_identical():
    """For the full-state censor (engine.censor): wherever the other side's view is the
    same before and after an intent, its event stream is byte-identical too (the only
    exception is what a hidden collision shows the mover, R5.2.4)."""
    rng = random.Random(808)
    compared = concealed = positions = 0
    for before, intent, _ in collect(31, 450) + collect(32, 450):
        for side in Side:
            other = side.other
            moved = perturb_hidden(before, side, rng, some=True)
            perturbed = None if moved is None else settle(moved)
            if perturbed is None or (half_bytes(project(before, other))
                                     != half_bytes(project(perturbed, other))):
                continue
            positions += 1
            real, fake = _outcome(before, intent), _outcome(perturbed, intent)
            if real is None or fake is None:
                continue
            if any(isinstance(e, Captured) for e in real.events + fake.events):
                continue
            if half_bytes(project(real.position, other)) != half_bytes(
                    project(fake.position, other)):
                continue
            mine = events_for(other, real)
            assert mine == events_for(other, fake), (other, intent)
            concealed += len(real.events) != len(mine)
            compared += 1
    assert positions >= 600 and compared >= 500
    assert concealed > 30  # the stream really left out events about hidden pieces


def test_a_fire_or_move_of_a_hidden_piece_asks_nothing_that_names_it():
    """The side that does not see the acting piece asks about its action only what the
    outcome shows (``act``: where a Move took its pieces, a Fire's strength when its
    pieces or a projectile show it), never which piece acts."""
    for before, intent, _ in collect(51, 400, conceal_share=0.5):
        if not isinstance(intent, Move | Fire):
            continue
        observer = before.side_to_act.other
        outcome = resolve_both({s: project(before, s) for s in Side}, intent)[observer]
        for name, question, answer in outcome.questions:
            if name == "act":
                assert question in ("move", "strength", "drop")
                shown = repr(answer)
                assert "pid" not in shown and "Piece(" not in shown
