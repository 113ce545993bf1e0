"""From clicks to intents: the selection model of the play screen (no Panda3D here).

The manual's interface: a left click selects an own piece (a chooser when the square
holds several), its legal destinations light up, a click on one moves; a right click
selects a weapon (the piece's own or a carried article), then the legal directions,
homing targets or transport destinations light up and a click fires. Everything is
computed from the acting side's view and its legal intents (R4.13): the client holds
no rules, it asks the engine what is legal and, for a refused click, why.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from wec.client.narration import article_name, direction_words
from wec.engine import board
from wec.engine.errors import IllegalIntent
from wec.engine.intents import Doze, Drop, EndTurn, Exchange, Fire, Intent, Move, PickUp, Reinforce
from wec.engine.movement import plan_move
from wec.engine.pieces import ArticleKind, describe_kind
from wec.engine.position import Piece, Position

article_label = article_name  # ``SAM Launcher``, ``Anti-Stealth``: as players name it

ACTION_GROUPS = ("pickup", "drop", "exchange", "reinforce", "doze")
"""The Actions menu's groups, in the menu's order (keys P, D, X, R, Z)."""

_GROUP_OF: dict[type, str] = {PickUp: "pickup", Drop: "drop", Exchange: "exchange",
                              Reinforce: "reinforce", Doze: "doze"}


class Highlight(Enum):
    """What a lit cell means; the scene colours each one."""

    SELECTED = "selected"   # the selected piece's cell
    MOVE = "move"           # a legal Move destination (yellow, as the manual says)
    CAPTURE = "capture"     # a legal Move destination holding a visible enemy
    AIM = "aim"             # a legal Fire direction (the first square along it)
    TARGET = "target"       # a legal homing / restricted-rocket target
    TRANSPORT = "transport"  # a legal transport destination square (Ground)
    DOZE_PICK = "doze_pick"  # a square the Dozer may take along (click to choose it)
    DOZE_CHOSEN = "doze_chosen"  # a square chosen for the Doze


@dataclass(frozen=True, slots=True)
class Choice:
    """One line of a chooser: what the player reads and what picking it does."""

    label: str
    value: object


@dataclass(frozen=True, slots=True)
class Reply:
    """What a click led to: an intent to send, a chooser to show, or a message."""

    intent: Intent | None = None
    choices: tuple[Choice, ...] = ()
    prompt: str = ""
    message: str = ""


@dataclass(frozen=True, slots=True)
class Selection:
    """The selected own piece and, after a right click, its selected weapon."""

    piece: Piece
    weapon: ArticleKind | None = None


@dataclass(frozen=True, slots=True)
class ActionRow:
    """A line of the Actions menu: a heading (``intent`` None, ``doze_from`` None), an
    intent to send, or the start of a Doze chosen on the board (``doze_from``)."""

    label: str
    intent: Intent | None = None
    doze_from: int | None = None

    @property
    def heading(self) -> bool:
        return self.intent is None and self.doze_from is None


def plain_cell(cell: int) -> str:
    """``(8,9)`` on the Ground, ``(8,9) Air``, ``(8,9) Sub``: a cell in plain words."""
    level = board.cell_level(cell)
    square = board.describe_square(board.cell_square(cell))
    return square if level is board.GROUND else f"{square} {level.label.title()}"


def piece_label(piece: Piece) -> str:
    """``Chopper (right) at (4,3) air`` — how a piece is named on screen."""
    hand = f" ({piece.hand.value})" if piece.hand else ""
    return f"{describe_kind(piece.kind)}{hand} at {board.describe_cell(piece.cell)}"


def _names_piece(intent: Move | Fire | Drop | Exchange | PickUp, piece: Piece,
                 view: Position) -> bool:
    """True when ``intent`` is an action of ``piece`` (the intent names a kind and hand
    only where two own pieces share the cell, R5.1.1)."""
    cell = intent.at if isinstance(intent, PickUp) else intent.frm
    if cell != piece.cell:
        return False
    if intent.kind is not None and intent.kind is not piece.kind:
        return False
    if intent.hand is not None and intent.hand is not piece.hand:
        return False
    if intent.kind is None:
        first = next(p for p in view.pieces if p.cell == cell and p.side is piece.side)
        return first.pid == piece.pid
    return True


@dataclass
class DozeChoice:
    """R8.8 on the board: the Dozer's square and the squares chosen so far."""

    sq: int
    chosen: frozenset[int] = frozenset()


@dataclass
class Interaction:
    """The selection state of the side to act, over its view and legal intents."""

    view: Position
    legal: Sequence[Intent]
    selection: Selection | None = None
    doze: DozeChoice | None = None
    _pending: Callable[[object], Reply] | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ queries

    def own_pieces_at(self, sq: int, level: board.Level | None = None) -> list[Piece]:
        return [p for p in self.view.pieces if p.sq == sq and p.side is self.view.side_to_act
                and (level is None or p.level is level)]

    def moves_of(self, piece: Piece) -> list[Move]:
        return [i for i in self.legal if isinstance(i, Move) and _names_piece(i, piece, self.view)]

    def fires_of(self, piece: Piece, weapon: ArticleKind | None = None) -> list[Fire]:
        return [i for i in self.legal if isinstance(i, Fire) and _names_piece(i, piece, self.view)
                and (weapon is None or i.weapon is weapon)]

    def weapons_of(self, piece: Piece) -> list[ArticleKind]:
        """The piece's weapons with a legal Fire now, in the order the engine lists them."""
        seen: list[ArticleKind] = []
        for fire in self.fires_of(piece):
            if fire.weapon not in seen:
                seen.append(fire.weapon)
        return seen

    def group(self, name: str) -> list[Intent]:
        """The legal intents of one Actions-menu group (``pickup``, ``drop``, ...)."""
        return [i for i in self.legal if _GROUP_OF.get(type(i)) == name]

    def can_end_turn(self) -> bool:
        return any(isinstance(i, EndTurn) for i in self.legal)

    def pickups_at(self, sq: int, article: ArticleKind | None = None) -> list[PickUp]:
        """The legal Pick-ups on square ``sq`` (of ``article``)."""
        return [i for i in self.legal if isinstance(i, PickUp)
                and board.cell_square(i.at) == sq and article in (None, i.article)]

    def exchanges_between(self, piece: Piece, sq: int) -> list[Exchange]:
        """The legal Exchanges of ``piece`` with an own piece on square ``sq``: what it
        gives (and takes back), started from either side."""
        found = []
        for intent in self.legal:
            if not isinstance(intent, Exchange):
                continue
            gives = (intent.frm == piece.cell and board.cell_square(intent.to) == sq
                     and intent.kind in (None, piece.kind))
            takes = (intent.to == piece.cell and board.cell_square(intent.frm) == sq
                     and intent.to_kind in (None, piece.kind))
            if gives or takes:
                found.append(intent)
        return found

    def actor_of(self, intent: Intent) -> Piece | None:
        """The own piece that would act (the giver of an Exchange, the Dozer)."""
        if isinstance(intent, Doze):
            cell = board.cell(intent.sq, board.GROUND)
            return next((p for p in self.view.pieces if p.cell == cell
                         and p.side is self.view.side_to_act
                         and p.kind.value == "dozer"), None)
        if isinstance(intent, PickUp | Drop | Exchange):
            cell = intent.at if isinstance(intent, PickUp) else intent.frm
            for piece in self.own_pieces_at(board.cell_square(cell), board.cell_level(cell)):
                if _names_piece(intent, piece, self.view):
                    return piece
        return None

    def action_rows(self, focus: str | None = None) -> list[ActionRow]:
        """The Actions menu (issue 18): Pick-up, Drop, Exchange and Doze grouped under
        the piece that acts, then the reinforcements, in plain words, each line once;
        ``focus`` keeps one group (``pickup``, ``drop``, ``exchange``, ``reinforce``,
        ``doze``)."""
        by_piece: dict[int, list[ActionRow]] = {}
        pieces: dict[int, Piece] = {}
        reinforcements: list[ActionRow] = []
        for intent in self.legal:
            group = _GROUP_OF.get(type(intent))
            if group is None or focus not in (None, group):
                continue
            if isinstance(intent, Reinforce):
                hand = f" ({intent.hand.value}-handed)" if intent.hand else ""
                row = ActionRow(f"Bring in the {describe_kind(intent.kind)}{hand} at "
                                f"{board.describe_square(intent.sq)}", intent)
                if row.label not in {r.label for r in reinforcements}:
                    reinforcements.append(row)
                continue
            actor = self.actor_of(intent)
            if actor is None:
                continue
            pieces[actor.pid] = actor
            rows = by_piece.setdefault(actor.pid, [])
            row = self._row_of(intent, actor)
            if row.label not in {r.label for r in rows}:
                rows.append(row)
        result: list[ActionRow] = []
        for piece in self.view.pieces:
            if piece.pid in by_piece:
                result.append(ActionRow(piece_label(piece)))
                result.extend(by_piece[piece.pid])
        if reinforcements:
            result.append(ActionRow("Reinforcements (R10)"))
            result.extend(reinforcements)
        return result

    def _row_of(self, intent: Intent, actor: Piece) -> ActionRow:
        if isinstance(intent, PickUp):
            return ActionRow(f"Pick up {article_label(intent.article)}", intent)
        if isinstance(intent, Drop):
            return ActionRow(f"Drop {article_label(intent.article)}", intent)
        if isinstance(intent, Doze):
            return ActionRow("Doze: choose the squares on the board", doze_from=intent.sq)
        assert isinstance(intent, Exchange)
        if intent.frm == actor.cell:
            other_cell, other_kind = intent.to, intent.to_kind
        else:
            other_cell, other_kind = intent.frm, intent.kind
        other = next((p for p in self.view.pieces if p.cell == other_cell
                      and p.side is actor.side and other_kind in (None, p.kind)), None)
        name = describe_kind(other.kind) if other is not None else "piece"
        where = f"the {name} at {plain_cell(other_cell)}"
        if intent.take is None:
            return ActionRow(f"Give {article_label(intent.give)} to {where}", intent)
        return ActionRow(f"Swap {article_label(intent.give)} for the "
                         f"{article_label(intent.take)} of {where}", intent)

    def aims_at_square(self, fire: Fire, sq: int) -> bool:
        """Whether ``fire``'s lit cell (its first square, target or destination) is on
        square ``sq``."""
        cell, _ = _aim_cell(fire)
        return cell is not None and board.cell_square(cell) == sq

    def dozes_from(self, sq: int) -> list[Doze]:
        return [i for i in self.legal if isinstance(i, Doze) and i.sq == sq]

    def highlights(self) -> dict[int, Highlight]:
        """Cell -> what it means now (destinations of the selection, its aims)."""
        lit: dict[int, Highlight] = {}
        if self.doze is not None:
            return self._doze_highlights()
        if self.selection is None:
            return lit
        piece = self.selection.piece
        if self.selection.weapon is None:
            enemies = {p.cell for p in self.view.pieces if p.side is not piece.side}
            for move in self.moves_of(piece):
                lit[move.to] = Highlight.CAPTURE if move.to in enemies else Highlight.MOVE
        else:
            for fire in self.fires_of(piece, self.selection.weapon):
                cell, kind = _aim_cell(fire)
                if cell is not None:
                    lit.setdefault(cell, kind)
        lit[piece.cell] = Highlight.SELECTED
        return lit

    # ------------------------------------------------------------------ clicks

    def left_click(self, sq: int, level: board.Level | None) -> Reply:
        """Select an own piece, or act with the selection on a lit cell: move there, or
        fire there when a weapon is selected."""
        self._pending = None
        if self.doze is not None:
            return self._doze_click(sq)
        if self.selection is not None:
            acted = self._act_at(sq, self._cell_for(sq, level))
            if acted is not None:
                return acted
            if not self.own_pieces_at(sq, level):
                return self._explain(sq, level)
        return self._select(sq, level, weapon_mode=False)

    def right_click(self, sq: int, level: board.Level | None) -> Reply:
        """Select one of an own piece's weapons; with a weapon selected, fire at the click."""
        self._pending = None
        if self.selection is not None and self.selection.weapon is not None:
            acted = self._act_at(sq, self._cell_for(sq, level))
            if acted is not None:
                return acted
        return self._select(sq, level, weapon_mode=True)

    def start_doze(self, sq: int) -> Reply:
        """R8.8 on the board: the Dozer on ``sq`` dozes; the squares it may take along
        light up (click to choose or drop each), then a click on a lit destination
        dozes in that direction."""
        dozes = self.dozes_from(sq)
        if not dozes:
            return Reply(message=f"no legal Doze from {board.describe_square(sq)} now (R8.8)")
        self.selection = None
        self._pending = None
        self.doze = DozeChoice(sq)
        return Reply(message=self._doze_prompt())

    def _doze_prompt(self) -> str:
        assert self.doze is not None
        chosen = ", ".join(board.describe_square(q) for q in sorted(self.doze.chosen))
        return (f"Doze from {board.describe_square(self.doze.sq)}: click the squares to "
                f"take along (purple; chosen: {chosen or 'none'}), then a destination "
                "(Esc cancels)")

    def _doze_highlights(self) -> dict[int, Highlight]:
        assert self.doze is not None
        lit: dict[int, Highlight] = {}
        dozes = self.dozes_from(self.doze.sq)
        for doze in dozes:
            for q in doze.squares:
                lit[board.cell(q, board.GROUND)] = (
                    Highlight.DOZE_CHOSEN if q in self.doze.chosen else Highlight.DOZE_PICK)
        for doze in dozes:
            if frozenset(doze.squares) == self.doze.chosen:
                to = board.offset(doze.sq, doze.dir)
                if to is not None:
                    lit[board.cell(to, board.GROUND)] = Highlight.MOVE
        lit[board.cell(self.doze.sq, board.GROUND)] = Highlight.SELECTED
        return lit

    def _doze_click(self, sq: int) -> Reply:
        assert self.doze is not None
        dozes = self.dozes_from(self.doze.sq)
        for doze in dozes:
            if (frozenset(doze.squares) == self.doze.chosen
                    and board.offset(doze.sq, doze.dir) == sq):
                self.doze = None
                return Reply(intent=doze)
        if any(sq in doze.squares for doze in dozes):
            chosen = self.doze.chosen ^ {sq}
            self.doze = DozeChoice(self.doze.sq, chosen)
            if not any(frozenset(d.squares) == chosen for d in dozes):
                return Reply(message=f"R8.8.2: no Doze takes exactly these squares along; "
                                     f"{self._doze_prompt()}")
            return Reply(message=self._doze_prompt())
        return Reply(message="R8.8: click a purple square to take it along, or a lit "
                             "destination to doze (Esc cancels)")

    def choose(self, choice: Choice) -> Reply:
        """Answer the last chooser."""
        pending, self._pending = self._pending, None
        if pending is None:
            return Reply(message="nothing to choose")
        return pending(choice.value)

    def cancel(self) -> None:
        self.selection = None
        self.doze = None
        self._pending = None

    # ------------------------------------------------------------------ helpers

    def _cell_for(self, sq: int, level: board.Level | None) -> int | None:
        return None if level is None else board.cell(sq, level)

    def _select(self, sq: int, level: board.Level | None, weapon_mode: bool) -> Reply:
        candidates = self.own_pieces_at(sq, level) or self.own_pieces_at(sq)
        if not candidates:
            self.selection = None
            whose = [p for p in self.view.pieces if p.sq == sq]
            if whose:
                return Reply(message=f"{piece_label(whose[0])} is not yours: "
                                     f"{self.view.side_to_act.title} to act")
            return Reply(message=f"no piece of yours at {board.describe_square(sq)}")
        if len(candidates) == 1:
            return self._selected(candidates[0], weapon_mode)
        return self._ask(f"Which piece at {board.describe_square(sq)}?",
                         [(piece_label(p), p) for p in candidates],
                         lambda piece: self._selected(piece, weapon_mode))

    def _selected(self, piece: Piece, weapon_mode: bool) -> Reply:
        self.selection = Selection(piece)
        if not weapon_mode:
            count = len({m.to for m in self.moves_of(piece)})
            if count == 0:
                return Reply(message=self._why_no_moves(piece))
            return Reply(message=f"{piece_label(piece)}: {count} legal "
                                 f"destination{'s' if count != 1 else ''}")
        weapons = self.weapons_of(piece)
        if not weapons:
            return Reply(message=f"{piece_label(piece)} has no weapon it may fire now")
        if len(weapons) == 1:
            return self._with_weapon(piece, weapons[0])
        return self._ask(f"Fire which weapon of the {describe_kind(piece.kind)}?",
                         [(article_label(w), w) for w in weapons],
                         lambda weapon: self._with_weapon(piece, weapon))

    def _with_weapon(self, piece: Piece, weapon: ArticleKind) -> Reply:
        self.selection = Selection(piece, weapon)
        return Reply(message=f"{article_label(weapon)} of the {describe_kind(piece.kind)}: "
                             "pick a lit square")

    def _offer_moves(self, moves: list[Move]) -> Reply:
        if len(moves) == 1:
            return self._send(moves[0])
        assert self.selection is not None
        mover = self.selection.piece
        passenger = next((p for p in self.view.pieces if p.cell == mover.cell
                          and p.side is mover.side and p.pid != mover.pid), None)
        return self._ask("Which Move?", [(_move_label(m, passenger), m) for m in moves],
                         self._send)

    def _act_at(self, sq: int, cell: int | None) -> Reply | None:
        """The selection's Move or Fire at the clicked cell, or None if none is legal."""
        assert self.selection is not None
        piece, weapon = self.selection.piece, self.selection.weapon
        if weapon is None:
            moves = [m for m in self.moves_of(piece)
                     if board.cell_square(m.to) == sq and (cell is None or m.to == cell)]
            return self._offer_moves(moves) if moves else None
        fires = [f for f in self.fires_of(piece, weapon) if _aims_at(f, sq, cell)]
        return self._offer_fires(fires) if fires else None

    def _offer_fires(self, fires: list[Fire]) -> Reply:
        if len(fires) == 1:
            return self._send(fires[0])
        return self._ask("Which aim?", [(_fire_label(f), f) for f in fires], self._send)

    def _ask(self, prompt: str, options: list[tuple[str, Any]],
             then: Callable[[Any], Reply]) -> Reply:
        """A chooser: the player picks one of ``options``; ``then`` acts on its value."""
        self._pending = then
        return Reply(choices=tuple(Choice(label, value) for label, value in options),
                     prompt=prompt)

    def _send(self, intent: Intent) -> Reply:
        self.selection = None
        return Reply(intent=intent)

    def _explain(self, sq: int, level: board.Level | None) -> Reply:
        """Why the selection cannot act there, in the engine's words (rule first)."""
        assert self.selection is not None
        piece = self.selection.piece
        if self.selection.weapon is not None:
            return Reply(message=f"R6: the {article_label(self.selection.weapon)} of the "
                                 f"{describe_kind(piece.kind)} cannot aim at "
                                 f"{board.describe_square(sq)}: pick a lit square")
        to = board.cell(sq, level if level is not None else piece.level)
        try:
            plan_move(self.view, Move(piece.cell, to, kind=piece.kind, hand=piece.hand))
        except IllegalIntent as refusal:
            return Reply(message=str(refusal))
        return Reply(message=f"{piece_label(piece)} cannot end there now")

    def _why_no_moves(self, piece: Piece) -> str:
        try:
            plan_move(self.view, Move(piece.cell, piece.cell, kind=piece.kind, hand=piece.hand))
        except IllegalIntent as refusal:
            if refusal.rule not in ("R5.1", "R5.3"):
                return f"{piece_label(piece)} cannot move: {refusal}"
        return f"{piece_label(piece)} has no legal Move now"



def parse_square(text: str) -> tuple[int, board.Level | None]:
    """The manual's keyboard square entry: ``9,2`` or ``9 2`` (row, column), optionally
    with a level: ``9,2,air``. ValueError says what to type."""
    parts = [p for p in text.replace(",", " ").split() if p]
    if len(parts) not in (2, 3) or not all(p.isdigit() for p in parts[:2]):
        raise ValueError(f"type a square as row,column (e.g. 9,2) or row,column,level "
                         f"(e.g. 9,2,air); got {text!r}")
    row, col = int(parts[0]), int(parts[1])
    if not board.on_board(row, col):
        raise ValueError(f"R1.1: ({row},{col}) is off the board (rows and columns 1-10)")
    level = board.Level.parse(parts[2]) if len(parts) == 3 else None
    return board.square(row, col), level


def _aim_cell(fire: Fire) -> tuple[int | None, Highlight]:
    """The cell a Fire's aim lights: the first square along a direction (at the firer's
    level), the target cell, or the transport destination at Ground."""
    if fire.dir is not None:
        sq = board.offset(board.cell_square(fire.frm), fire.dir)
        return (None if sq is None else board.cell(sq, board.cell_level(fire.frm)),
                Highlight.AIM)
    if fire.target is not None:
        return fire.target, Highlight.TARGET
    assert fire.dest is not None
    return board.cell(fire.dest, board.GROUND), Highlight.TRANSPORT


def _aims_at(fire: Fire, sq: int, cell: int | None) -> bool:
    aimed, _ = _aim_cell(fire)
    if aimed is None:
        return False
    if fire.dir is not None:
        return board.cell_square(aimed) == sq
    return board.cell_square(aimed) == sq and (cell is None or fire.target is None
                                                or aimed == cell)


def _move_label(move: Move, passenger: Piece | None) -> str:
    """``to (8,2) air with the Jet`` / ``to (8,2) air alone (the Jet stays)`` (R8.7)."""
    where = f"to {board.describe_cell(move.to)}"
    other = describe_kind(passenger.kind) if passenger is not None else "passenger"
    if move.carry is True:
        return f"{where} with the {other}"
    if move.carry is False:
        return f"{where} alone (the {other} stays)"
    return where


def _fire_label(fire: Fire) -> str:
    if fire.dest is not None:
        return f"to {board.describe_square(fire.dest)} by the {fire.path} path"
    if fire.target_kind is not None:
        return f"at the {describe_kind(fire.target_kind)}"
    if fire.target is not None:
        return f"at {board.describe_cell(fire.target)}"
    return direction_words(fire.dir or (0, 0))
