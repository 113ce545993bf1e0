"""The Referee: the only way rule resolution learns about enemy pieces it cannot see.

See ../shared/design/hidden-information.md and docs/architecture.md ("Design note:
partial state and Referee"). A side's rules run on its partial state; wherever the
truth matters about enemy pieces hidden from that side (R4.13, R5.2.4, R9.11), they ask
the Referee one of a small, closed set of questions. Each answer reveals exactly what
the rule's outcome reveals: the cells before a first hit are empty of unseen enemies,
the hit cell's unseen occupants are shown (they are taken, so their kind and articles
become public); an effects answer is the asker's own outcome: its new view and its
event stream (engine.censor).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side
from wec.engine.position import Piece, Position
from wec.engine.values import fast_init

if TYPE_CHECKING:
    from wec.engine.game import Outcome
    from wec.engine.intents import Intent


@fast_init
@dataclass(frozen=True, slots=True)
class PieceInfo:
    """What an answer reveals of one unseen piece: no identity, only what rules use."""

    side: Side
    kind: PieceKind
    hand: Hand | None
    articles: tuple[ArticleKind, ...]
    ready: tuple[int, ...] = ()  # the articles' ready turns (R3.5); () = all ready

    @classmethod
    def of(cls, piece: Piece) -> PieceInfo:
        ready = piece.article_ready() if piece.ready else ()
        return cls(piece.side, piece.kind, piece.hand, piece.articles,
                   ready if any(ready) else ())

    def sort_key(self) -> tuple[str, str, str, tuple[str, ...]]:
        """Canonical order among the pieces of one cell (both sides must agree on it)."""
        return (self.side.value, self.kind.value, self.hand.value if self.hand else "",
                tuple(a.value for a in self.articles))


@fast_init
@dataclass(frozen=True, slots=True)
class Hit:
    """Answer to a first-hit question: ``cells[index]`` holds these unseen enemies."""

    index: int
    cell: int
    pieces: tuple[PieceInfo, ...]


class Referee(Protocol):
    """The closed set of questions about enemy pieces unseen by ``asker``."""

    def first_unseen_hit(self, asker: Side, cells: Sequence[int]) -> Hit | None:
        """Question 1: the first of ``cells`` (in order) holding unseen enemy pieces."""
        ...

    def unseen_occupants(self, asker: Side, cells: Sequence[int]) -> tuple[Hit, ...]:
        """Question 2: the unseen enemy pieces in each of ``cells`` that holds any."""
        ...

    def sight(self, asker: Side, after: Position) -> Position:
        """Question 3, detection (R9.3-R9.7, R9.4 lock choice, R9.10): ``asker``'s
        partial state ``after`` an action it resolved, with visibility recomputed: the
        enemy pieces it now sees, its own pieces' ``hidden`` flags, its locks and its
        last-seen markers. It reveals exactly the asker's new view."""
        ...

    def effects(self, asker: Side, before: Position, intent: Intent) -> Outcome:
        """Question 4, effects (R9.11, R4.13, R8.8.5, R4.2): ``intent`` (a Fire, Doze or
        end of turn of the side to act, or any intent when ``asker`` does not act),
        resolved on the truth from ``asker``'s partial state ``before``, answered with
        what the outcome shows ``asker``: its partial state afterwards and its event
        stream (engine.censor.events_for). IllegalIntent if the rules refuse it."""
        ...


def _hideable() -> Callable[[Position], Iterable[Piece]]:
    """engine.visibility.hideable (imported when first needed: visibility imports the
    rules that import this module)."""
    global _HIDEABLE
    if _HIDEABLE is None:
        from wec.engine.visibility import hideable

        _HIDEABLE = hideable
    return _HIDEABLE


_HIDEABLE: Callable[[Position], Iterable[Piece]] | None = None


def _hidden_again(p: Piece, truth: Piece) -> Piece:
    """The own piece ``p`` of a partial state with ``hidden`` set as in the truth: the
    truth's own piece where nothing else of it changed (the same object, so that
    visibility sees it unchanged), else a copy."""
    if (p.sq == truth.sq and p.level is truth.level and p.side is truth.side
            and p.kind is truth.kind and p.hand is truth.hand and p.articles == truth.articles
            and p.moved == truth.moved and p.stunned_until == truth.stunned_until
            and p.ready == truth.ready and p.transit == truth.transit
            and p.revealed == truth.revealed):
        return truth
    return p.but(hidden=True)


class FullStateReferee:
    """A Referee backed by the full state: hotseat, computer opponent and tests."""

    def __init__(self, truth: Position) -> None:
        if truth.viewer is not None:
            raise ValueError("a FullStateReferee needs the full state, not a partial state")
        self._truth = truth
        self._unseen: dict[Side, dict[int, list[Piece]]] = {}
        self._outcomes: dict[Any, Outcome] = {}  # full-state outcomes by intent

    def _unseen_by(self, asker: Side) -> dict[int, list[Piece]]:
        """The enemy pieces hidden from ``asker``, by cell. A hidden piece of a state
        settled by engine.visibility is one of the pieces it judged (``hideable``); the
        answers sort each cell's pieces, so their order within a cell does not matter."""
        table = self._unseen.get(asker)
        if table is None:
            table = {}
            for p in _hideable()(self._truth):
                if p.side is not asker and p.hidden:
                    table.setdefault(p.sq * 3 + p.level, []).append(p)
            self._unseen[asker] = table
        return table

    def _answer(self, index: int, cell: int, pieces: list[Piece]) -> Hit:
        infos = sorted((PieceInfo.of(p) for p in pieces), key=PieceInfo.sort_key)
        return Hit(index, cell, tuple(infos))

    def first_unseen_hit(self, asker: Side, cells: Sequence[int]) -> Hit | None:
        table = self._unseen_by(asker)
        if not table:
            return None
        for index, c in enumerate(cells):
            found = table.get(c)
            if found:
                return self._answer(index, c, found)
        return None

    def unseen_occupants(self, asker: Side, cells: Sequence[int]) -> tuple[Hit, ...]:
        table = self._unseen_by(asker)
        return tuple(self._answer(i, c, table[c]) for i, c in enumerate(cells) if table.get(c))

    def sight(self, asker: Side, after: Position) -> Position:
        from wec.engine.knowledge import project
        from wec.engine.visibility import refresh

        return project(refresh(self._truth, self._merged(asker, after)), asker)

    def effects(self, asker: Side, before: Position, intent: Intent) -> Outcome:
        from wec.engine.censor import events_for
        from wec.engine.game import Outcome, apply
        from wec.engine.knowledge import project

        truth = self._truth
        if before.viewer is not asker or before.turn != truth.turn:
            raise ValueError("the question comes from a partial state of another position")
        outcome = self._outcomes.get(intent)
        if outcome is None:  # both sides ask about the same intent in lockstep play
            outcome = self._outcomes[intent] = apply(truth, intent, self)
        return Outcome(project(outcome.position, asker), events_for(asker, outcome))

    def _merged(self, asker: Side, after: Position) -> Position:
        """The full state after an action ``asker`` resolved on its partial state: its
        result plus the unseen enemy pieces, less those at cells the asker now holds
        (a cell never holds both sides, R1.6: they were taken there)."""
        truth = self._truth
        present = {p.pid for p in after.pieces}
        held = {p.sq * 3 + p.level for p in after.pieces if p.side is asker}
        unseen = []
        hidden_own = {}
        for p in truth.pieces:
            if p.side is not asker:
                if p.pid not in present and p.sq * 3 + p.level not in held:
                    unseen.append(p)
            elif p.hidden:
                # the asker's view shows its own pieces with ``hidden`` off: the truth
                # has them
                hidden_own[p.pid] = p
        pieces = (*[p if p.pid not in hidden_own else _hidden_again(p, hidden_own[p.pid])
                    for p in after.pieces], *unseen)
        by_pid = {p.pid: p for p in pieces}
        pids = by_pid.keys()
        # locks the asker could not list: enemy holders, or own holders on unseen targets
        extra = [lk for lk in truth.locks if lk not in after.locks
                 and lk.holder in pids and lk.target in pids
                 and (by_pid[lk.holder].side is not asker or lk.target not in present)]
        markers = tuple(m for m in truth.last_seen if m.viewer is not asker)
        own_markers = tuple(m for m in truth.last_seen if m.viewer is asker)
        unseen_pids = {p.pid for p in unseen}
        hits = tuple(sorted((*after.hits, *(h for h in truth.hits if h[0] in unseen_pids)),
                            key=lambda h: (h[0], h[1].value)))
        return after.evolve(pieces=pieces, locks=(*after.locks, *extra), viewer=None, hits=hits,
                            last_seen=own_markers + markers,
                            next_pid=max(after.next_pid, truth.next_pid))
