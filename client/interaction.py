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

from wec.client.narration import article_name
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
class Interaction:
    """The selection state of the side to act, over its view and legal intents."""

    view: Position
    legal: Sequence[Intent]
    selection: Selection | None = None
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

    def highlights(self) -> dict[int, Highlight]:
        """Cell -> what it means now (destinations of the selection, its aims)."""
        lit: dict[int, Highlight] = {}
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

    def choose(self, choice: Choice) -> Reply:
        """Answer the last chooser."""
        pending, self._pending = self._pending, None
        if pending is None:
            return Reply(message="nothing to choose")
        return pending(choice.value)

    def cancel(self) -> None:
        self.selection = None
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
    return fire.describe()
