"""Nothing leaks over the wire (issue 21): for actions of random games with fog of war
on (O15, O16, many pieces concealed), each action is resolved over the fog protocol
twice, from two FogGames on the true position and from two on a position whose pieces
hidden from the *observing* side were perturbed in a way the rules do not reveal for
this action (tests/test_leakage.py ``_perturbed``: a piece no question of either side
names moved to another free cell or carrying other articles; the observer's view and
events the same before and after). Everything the observer receives (the opening
included) must be the same message kinds in the same order with the same sizes, and
byte-identical but for the fields that are random-looking by construction: the
commitments (roots), the Merkle paths of openings (hashes of other salted leaves), the
PSI queries and replies (first hit, detection reach, presence and the Doze judgement:
blinded elements, tables, tags) and the evidence entries
(hashes, signatures).

Until session 25 one channel was left out on purpose: a perturbation that changes which
of the *observer's* pieces the other side sees. The observer's machine answered
``detect`` itself then, so it knew. Since ``wec-fog/15`` the answer is evaluated
privately (net.private_sight), and those perturbations are compared like any other
("hides or shows the observer's pieces" counts them).

``WEC_FOG_LEAK_ACTIONS`` (default 1,000 per test, two tests: the issue's 2,000 actions)
sets how many actions are compared; every run is real X25519 PSI (about 100 s for the
two on the reference machine, each on its own core).
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import test_leakage as tl
from halves import collect, half_bytes, resolve_both
from test_net_fog import Wire, new_pair

from wec.engine.intents import Exchange
from wec.engine.knowledge import project
from wec.engine.options import Options
from wec.engine.pieces import Side
from wec.engine.position import Position
from wec.net import fog_codec as codec
from wec.net.commitment import Opening
from wec.net.fog_game import FogMessage

ACTIONS = int(os.environ.get("WEC_FOG_LEAK_ACTIONS", "1000"))


def _fixed(m: FogMessage) -> Any:
    """What of a message must not depend on hidden pieces: the payload without its
    random-looking fields."""
    payload = codec.unpack(m.body)
    kind = m.kind
    if isinstance(payload, dict) and "reach" in payload:
        # detection queries sent ahead (an answer, a done: blinded choice bits) or the
        # tables for them (a detect question: masked, sealed entries), as asked back
        payload = {**payload, "reach": [len(part) for part in payload["reach"]]}
    if kind in ("commit", "done"):
        payload = {k: v for k, v in payload.items() if k != "commit"}
    elif kind in ("ot", "ot_reply"):  # base transfers: blinded elements, sealed seeds
        payload = {k: [len(part) for part in v] for k, v in payload.items()}
    elif kind in ("answer", "back_answer", "doze_reply") \
            and isinstance(payload.get("a"), bytes):  # a reply: sealed entries
        payload = {k: v for k, v in payload.items() if k != "a"}
    elif kind in ("answer", "back_answer") and isinstance(payload.get("a"), list) \
            and all(isinstance(part, bytes) for part in payload["a"]):
        # a Doze table's reply and the hidden squares' one: sealed entries; a detection
        # run's masked tables (asked back) or its answer: the input labels, the garbled
        # material (sealed) and the clear part (compared apart, below)
        payload = {**payload, "a": [len(part) for part in payload["a"]],
                   "clear": payload["a"][2] if len(payload["a"]) == 3 else None}
    elif kind == "answer" and payload.get("open"):
        # an opening's cell, contents and salt are fixed; its Merkle path is hashes of
        # other salted leaves (random-looking)
        opened = [Opening.from_bytes(o) for o in payload["open"]]
        payload = {**payload, "open": [(o.cell, o.contents, o.salt) for o in opened]}
    elif kind == "ask" and payload["q"][0] in ("first_hit_psi", "doze_ot"):
        payload = {**payload, "q": payload["q"][:2]}  # the query: blinded elements or bits
    elif kind == "ask" and payload["q"][0] == "stun_ot":
        payload = {**payload, "q": payload["q"][:3]}  # the Stunner line's choice bits
    elif kind in ("ask", "back") and payload["q"][0] in ("reach", "presence_ot", "lock"):
        # blinded elements or choice bits; a lock table's sealed entries
        payload = {**payload, "q": payload["q"][:1]}
    return kind, payload


def _received(before: Position, intent: Any, observer: Side) -> list[FogMessage]:
    games = new_pair(before, seed=7)
    wire = Wire(games)
    wire.run()
    wire.play(before.side_to_act, intent)
    assert not any(wire.faults().values())
    for game in games.values():  # its waiting resolutions let go (FogGame.close)
        game.close()
    return wire.received[observer]


def _enemy_view_of(position: Position, observer: Side) -> bytes:
    seen = project(position, observer.other)
    return repr(sorted(p.pid for p in seen.pieces if p.side is observer)).encode()


def _compare(seed: int, concealed: float, options: Options | None = None,
             actions: int = ACTIONS, anywhere: bool = False, only_seen: bool = False,
             scan: int | None = None, hidden_exchanges: bool = False, tries: int = 1
             ) -> Counter[str]:
    """``anywhere``: perturb pieces in the cells the questions name as well, the rules'
    own test (the observer's view and events the same) the only filter. ``only_seen``:
    compare only perturbations that change which of the observer's pieces the other
    side sees (among ``scan`` actions of random games). ``hidden_exchanges``: only
    Exchanges the observer does not see (the observer the side not acting), ``tries``
    perturbations drawn for each until one is compared."""
    rng = random.Random(seed)
    tried: Counter[str] = Counter()
    for before, intent, full in collect(seed, scan or actions * 2, options,
                                        conceal_share=concealed):
        if tried["compared"] >= actions:
            break
        if hidden_exchanges and not (isinstance(intent, Exchange) and codec.public_form(
                intent, project(before, before.side_to_act))[1]):
            continue
        halves = resolve_both({s: project(before, s) for s in Side}, intent)
        cells: set[int] = set()
        pids: set[int] = set()
        for side in Side:  # what either side's questions name (the wire carries both)
            c, p = tl._touched(halves[side], intent)
            cells |= c
            pids |= p
        named = cells
        if anywhere:
            cells, pids = set(), set()
        observers = [before.side_to_act.other] * tries if hidden_exchanges else list(Side)
        for observer in observers:
            found = tl._perturbed(before, observer, rng, cells, pids,
                                  prefer=named if anywhere else frozenset())
            if found is None:
                continue
            perturbed, piece = found
            if half_bytes(project(perturbed, observer)) != half_bytes(project(before, observer)):
                continue
            fake_full = tl._outcome(perturbed, intent)
            if fake_full is None or not tl._same_for(observer, full, fake_full):
                continue
            seen_by_enemy = (_enemy_view_of(perturbed, observer) != _enemy_view_of(
                before, observer) or _enemy_view_of(fake_full.position, observer)
                != _enemy_view_of(full.position, observer))
            if only_seen and not seen_by_enemy:
                continue
            fake = resolve_both({s: project(perturbed, s) for s in Side}, intent)
            touched = set()
            for side in Side:
                touched |= tl._touched(fake[side], intent)[0]
            if piece.cell in touched and not anywhere:
                continue
            tried["in a named cell"] += piece.cell in touched
            real = _received(before, intent, observer)
            other = _received(perturbed, intent, observer)
            assert [m.kind for m in real] == [m.kind for m in other], (observer, intent)
            assert [len(m.body) for m in real] == [len(m.body) for m in other], (observer,
                                                                                 intent)
            assert [len(m.entry) for m in real] == [len(m.entry) for m in other]
            for a, b in zip(real, other, strict=True):
                assert _fixed(a) == _fixed(b), (observer, intent, a.kind, piece)
            tried["compared"] += 1
            tried["hides or shows the observer's pieces"] += seen_by_enemy
            tried["messages compared"] += len(real)
            tried["hidden actor"] += any(m.kind == "intent" and codec.unpack(m.body)["hidden"]
                                         for m in real)
            tried[f"{type(intent).__name__} hidden"] += any(
                m.kind == "intent" and codec.unpack(m.body)["hidden"] for m in real)
            break
    print(f"fog leakage (seed {seed}): " + ", ".join(f"{k} {n}" for k, n in tried.items()))
    return tried


def test_the_observer_receives_the_same_for_hidden_changes_concealed_games() -> None:
    tried = _compare(2111, 0.5)
    assert tried["compared"] >= ACTIONS and tried["hidden actor"] > 0


def test_the_observer_receives_the_same_whichever_of_its_pieces_the_other_side_sees() -> None:
    """The perturbations the tests above meet only now and then (about 1 in 150): a
    hidden detector of the other side moved into or out of reach of the observer's
    pieces that can hide, so that the other side sees another set of them. Until
    ``wec-fog/15`` the observer's machine answered that detection and knew; now it
    receives the same messages (the other side's tables masked, its input query its
    masks')."""
    tried = _compare(2115, 0.5, actions=max(5, ACTIONS // 25), only_seen=True,
                     scan=ACTIONS * 4)
    assert tried["compared"] >= max(5, ACTIONS // 25), tried
    assert tried["hides or shows the observer's pieces"] == tried["compared"]


def test_the_observer_of_a_hidden_exchange_receives_the_same_whichever_of_its_pieces_are_seen(
        ) -> None:
    """The same perturbations in Exchanges the observer does not see (R4.9: they travel
    as nothing). Until ``wec-fog/16`` the detect question of such an Exchange carried
    the acting side's seen, marked and locked pieces and its reach went unmasked (its
    acquisitions went by lock tables): the observer received other messages when a
    hidden detector of the acting side moved into or out of reach of its pieces."""
    tried = _compare(2116, 0.6, actions=max(4, ACTIONS // 100), only_seen=True,
                     scan=ACTIONS * 40, hidden_exchanges=True, tries=40)
    assert tried["compared"] >= max(4, ACTIONS // 100), tried
    assert tried["Exchange hidden"] == tried["compared"]


def test_the_observer_receives_the_same_for_hidden_changes_random_games() -> None:
    tried = _compare(2112, 0.2)
    assert tried["compared"] >= ACTIONS


def test_the_observer_receives_the_same_in_games_with_stealth_only() -> None:
    """O15 on, O16 and O18 off (stealth only). Until ``wec-fog/10`` such a game made no
    base transfers: a Doze went whole, and a hidden Exchange's detect question named its
    acquiring holder's square. Now it runs the same transfers as the defaults."""
    options = replace(Options(), submersion_invisibility=False, stealth_range_detection=False)
    assert options.stealth_invisibility
    tried = _compare(2113, 0.5, options, ACTIONS // 3)
    assert tried["compared"] >= ACTIONS // 3 and tried["hidden actor"] > 0, tried
    assert tried["Doze hidden"] + tried["Exchange hidden"] > 0, tried


def test_the_observer_receives_the_same_for_hidden_changes_in_the_cells_questions_name() -> None:
    """The tests above leave out the pieces in cells a question names (a route, a
    weapon's cells, a presence). That hid a leak through a question's own field: until
    session 23 a Stunner question named the place of the asker's first piece on the
    line. Here any piece hidden from the observer may be perturbed (those in named cells
    three times in four when there are some), the rules' own test (the observer's view
    and events the same before and after) the only filter; the observer still receives
    the same. (Run on the protocol before the Stunner fix, this sample passed too: the
    leak shows only where the observer's first piece comes before the asker's hidden one,
    and tests/test_net_stun.py pins that case.)"""
    tried = _compare(2114, 0.5, actions=ACTIONS // 2, anywhere=True)
    assert tried["compared"] >= ACTIONS // 2 and tried["in a named cell"] > 0, tried
