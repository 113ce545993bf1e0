"""Reading WEC notation (R16.1): ``parse_turn`` reads one turn's line into a
``TurnRecord`` of frozen records, or raises ``NotationError`` naming the rule, the
1-based column and what was expected there.

A recursive-descent parser, one method per grammar element, so each error points at
the first character that cannot belong to the line. It reads the D-45 aliases as well
as the canonical codes; engine.notation_format writes the canonical ones only.
"""

from __future__ import annotations

import re
from typing import NoReturn

from wec.engine.board import Level
from wec.engine.notation_codes import (
    ARTICLE_BY_CODE,
    FIRE_ARTICLES,
    MAX_DOZE_ENTRIES,
    PIECE_BY_CODE,
    PROJECTILE_BY_CODE,
    RESULT_CODES,
    TAKE,
    TARGETED_ARTICLES,
    TRANSPORT_ARTICLES,
)
from wec.engine.notation_records import (
    DozedPiece,
    DozeRecord,
    DropRecord,
    ExchangeRecord,
    FireRecord,
    Loc,
    MoveRecord,
    NotationError,
    PickupRecord,
    PieceRef,
    PieceResult,
    ProjectileGone,
    ProjectileMoved,
    ReinforceRecord,
    Result,
    TransportRecord,
    TurnRecord,
)
from wec.engine.pieces import ArticleKind, Hand, PieceKind, Side

__all__ = ["parse_turn"]

_UPPER = re.compile(r"[A-Z]+")
_DIGITS = re.compile(r"[0-9]+")
_DOZED_PIECE_AHEAD = re.compile(r",[A-Z]+\(")
_ARTICLES_LONGEST_FIRST = sorted(ARTICLE_BY_CODE, key=len, reverse=True)
# The optional sections after the Move and its Transport/Doze elements, in order.
_SECTIONS = (",FI1:", ",FI2:", ",PU:", ",EX:", ",RE:", ",DR:", ",RS:")


def parse_turn(text: str) -> TurnRecord:
    """Read one turn's notation into records; NotationError if it is malformed."""
    return _Parser(text).turn()


class _Parser:
    """A recursive-descent reader of the R16.1 grammar, one method per element."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    # ------------------------------------------------------------ primitives

    def at(self, literal: str) -> bool:
        """Whether the unread text starts with ``literal``."""
        return self.text.startswith(literal, self.pos)

    def take(self, literal: str) -> bool:
        """Read ``literal`` if the unread text starts with it."""
        if self.at(literal):
            self.pos += len(literal)
            return True
        return False

    def expect(self, literal: str, rule: str = "R16.1") -> None:
        """Read ``literal``, which the grammar requires here."""
        if not self.take(literal):
            self.fail(f"'{literal}'", rule)

    def fail(self, expected: str, rule: str = "R16.1", at: int | None = None) -> NoReturn:
        """Raise NotationError: ``expected`` was wanted at ``at`` (default: here)."""
        pos = self.pos if at is None else at
        rest = self.text[pos:pos + 12]
        found = f"found {rest!r}" if rest else "found the end of the turn"
        raise NotationError(f"{rule}: expected {expected} at column {pos + 1}, {found}",
                            pos + 1)

    def token(self, pattern: re.Pattern[str]) -> str:
        """Read what ``pattern`` matches here (empty if it matches nothing)."""
        found = pattern.match(self.text, self.pos)
        if found is None:
            return ""
        self.pos = found.end()
        return found.group()

    def number(self, low: int, high: int, what: str) -> int:
        """A decimal number in ``low..high`` without leading zeros."""
        start = self.pos
        digits = self.token(_DIGITS)
        if not digits or (len(digits) > 1 and digits[0] == "0") or not low <= int(digits) <= high:
            self.fail(what, at=start)
        return int(digits)

    # ------------------------------------------------------------ the turn

    def turn(self) -> TurnRecord:
        """``MV:`` and the Move (or ``-``), then every other element of R16.1 in its
        fixed order, each optional; anything left over is an error."""
        self.expect("MV:")
        move = None if self.take("-") else self.move()
        after_move = self.after_move()
        fires = self.fires()
        pickup = self.pickup() if self.take(",PU:") else None
        exchange = self.exchange() if self.take(",EX:") else None
        reinforce = self.reinforce() if self.take(",RE:") else None
        drop = self.drop() if self.take(",DR:") else None
        results = self.results() if self.take(",RS:") else ()
        if self.pos < len(self.text):
            seen = [len(fires) > 0, len(fires) > 1, pickup is not None, exchange is not None,
                    reinforce is not None, drop is not None, bool(results)]
            self.fail(self.what_may_follow(seen))
        return TurnRecord(move, after_move, fires, pickup, exchange, reinforce, drop, results)

    def after_move(self) -> tuple[TransportRecord | DozeRecord, ...]:
        """The ``-TRA->`` Transport and ``,DO>`` Doze elements, in the order written."""
        after_move: list[TransportRecord | DozeRecord] = []
        while True:
            if self.take("-TRA->"):
                after_move.append(self.transport())
            elif self.take(",DO>"):
                after_move.append(self.doze())
            else:
                return tuple(after_move)

    def fires(self) -> tuple[FireRecord, ...]:
        """``,FI1:`` and, only after it, ``,FI2:``."""
        fires: list[FireRecord] = []
        if self.take(",FI1:"):
            fires.append(self.fire())
            if self.take(",FI2:"):
                fires.append(self.fire())
        return tuple(fires)

    def what_may_follow(self, seen: list[bool]) -> str:
        """The elements R16.1 still allows where the parse stopped (``seen``: which of
        _SECTIONS were read), for the error message."""
        last = max((i for i, found in enumerate(seen) if found), default=-1)
        allowed = ["'-TRA->'", "',DO>'"] if last < 0 else []
        allowed += [f"'{marker}'" for i, marker in enumerate(_SECTIONS)
                    if i > last and (marker != ",FI2:" or seen[0])]
        return (", ".join(allowed) + " or " if allowed else "") + "the end of the turn"

    # ------------------------------------------------------------ pieces and squares

    def piece(self) -> PieceRef:
        """``PieceType Level Loc [Articles] [Orient]``."""
        kind = self.piece_type()
        level = self.level()
        loc = self.loc()
        return PieceRef(kind, level, loc, self.articles(), self.orient())

    def piece_type(self) -> PieceKind:
        """``PieceType``: a piece type code (aliases included)."""
        start = self.pos
        code = self.token(_UPPER)
        kind = PIECE_BY_CODE.get(code)
        if kind is None:
            self.fail("a piece type code", "R16.2", at=start)
        return kind

    def level(self) -> Level:
        """``Level``: ``^`` Air, ``v`` Sub, nothing for Ground."""
        if self.take("^"):
            return Level.AIR
        if self.take("v"):
            return Level.SUB
        return Level.GROUND

    def loc(self) -> Loc:
        """``Loc``: ``(row,col)``, each 1..10."""
        self.expect("(")
        row = self.number(1, 10, "a row 1..10")
        self.expect(",")
        col = self.number(1, 10, "a column 1..10")
        self.expect(")")
        return Loc(row, col)

    def articles(self) -> tuple[ArticleKind, ...]:
        """``Count Article {Article}``: present when a digit is followed by an article
        code (otherwise the digit is a Result's stun count)."""
        if not (self.pos < len(self.text) and self.text[self.pos].isdigit()
                and self.article_ahead(self.pos + 1)):
            return ()
        count = int(self.text[self.pos])
        if not 1 <= count <= 3:
            self.fail("an article count 1..3 (Count = the number of article codes)")
        self.pos += 1
        return tuple(self.article() for _ in range(count))

    def article_ahead(self, pos: int) -> bool:
        """Whether an article code starts at ``pos``."""
        return any(self.text.startswith(code, pos) for code in _ARTICLES_LONGEST_FIRST)

    def article(self) -> ArticleKind:
        """One article code; the codes are prefix-free, so the first that matches is it."""
        for code in _ARTICLES_LONGEST_FIRST:
            if self.take(code):
                return ARTICLE_BY_CODE[code]
        self.fail("an article code", "R16.2")

    def orient(self) -> Hand | None:
        """``Orient``: ``>`` right hand, ``<`` left, nothing for none."""
        if self.take(">"):
            return Hand.RIGHT
        if self.take("<"):
            return Hand.LEFT
        return None

    # ------------------------------------------------------------ elements

    def move(self) -> MoveRecord:
        """``Move``: the piece, ``->``, the destination asked for."""
        piece = self.piece()
        self.expect("->")
        level = self.level()
        return MoveRecord(piece, level, self.loc())

    def transport(self) -> TransportRecord:
        """``Transport``: the piece as it stood, then where it ended."""
        piece = self.piece()
        level = self.level()
        return TransportRecord(piece, level, self.loc())

    def doze(self) -> DozeRecord:
        """``Doze``: the destination, then 1..5 dozed pieces (the coincident first)."""
        dest = self.loc()
        pieces = [self.dozed_piece()]
        while _DOZED_PIECE_AHEAD.match(self.text, self.pos):
            if len(pieces) == MAX_DOZE_ENTRIES:
                self.fail("the end of the Doze: it lists at most 5 pieces, the coincident "
                          "first (R8.8.2)")
            self.take(",")
            pieces.append(self.dozed_piece())
        return DozeRecord(dest, tuple(pieces))

    def dozed_piece(self) -> DozedPiece:
        """``DozedPiece``: a piece type and its square."""
        kind = self.piece_type()
        return DozedPiece(kind, self.loc())

    def fire(self) -> FireRecord:
        """``Fire``: a fire article, ``/`` the firer, then ``=>`` a target or ``->`` a square."""
        start = self.pos
        article = self.article()
        if article not in FIRE_ARTICLES:
            self.fail("a fire article code FL, ST, CS, RL, TL, SL, BI, SC or JP", "R16.2",
                      at=start)
        self.expect("/")
        piece = self.piece()
        aim = self.pos
        if self.take("=>"):
            if article not in TARGETED_ARTICLES:
                self.fail("'->': only RL, SL and TL fire at a target ('=>')", "R16.3", at=aim)
            return FireRecord(article, piece, target=self.piece())
        if not self.take("->"):
            self.fail("'->' (a direction or destination) or '=>' (a target)", "R16.3")
        dest = self.loc()
        path = "beeline"
        if article in TRANSPORT_ARTICLES:
            path = "starboard" if self.take(">") else "port" if self.take("<") else "beeline"
        return FireRecord(article, piece, dest, path)

    def pickup(self) -> PickupRecord:
        """``Pickup``: the piece, ``^``, the article picked up."""
        piece = self.piece()
        self.expect("^")
        return PickupRecord(piece, self.article())

    def exchange(self) -> ExchangeRecord:
        """``Exchange``: a swap (``<=>`` ... ``<-``) or a transfer (``->``)."""
        giver = self.piece()
        self.expect("->")
        give = self.article()
        take: ArticleKind | None = None
        if self.take("<=>"):
            take = self.article()
            self.expect("<-")
        elif not self.take("->"):
            self.fail("'<=>' (a swap) or '->' (a transfer)")
        return ExchangeRecord(giver, give, take, self.piece())

    def reinforce(self) -> ReinforceRecord:
        """``Reinforce``: the entry square, the piece type, its hand."""
        loc = self.loc()
        kind = self.piece_type()
        return ReinforceRecord(loc, kind, self.orient())

    def drop(self) -> DropRecord:
        """``Drop``: the piece, ``v``, the article dropped."""
        piece = self.piece()
        self.expect("v")
        return DropRecord(piece, self.article())

    def results(self) -> tuple[Result, ...]:
        """``Results``: one or more Results separated by commas."""
        results = [self.result()]
        while self.take(","):
            results.append(self.result())
        return tuple(results)

    def result(self) -> Result:
        """One Result: a projectile moved or gone, else an effect on a piece."""
        projectile = self.projectile_result()
        return projectile if projectile is not None else self.piece_result()

    def projectile_result(self) -> Result | None:
        """``ProjType "->" Loc Offset`` or ``ProjType "v" Loc``, if one starts here."""
        for code, projectile in PROJECTILE_BY_CODE.items():
            if self.take(code + "->"):
                loc = self.loc()
                return ProjectileMoved(projectile, loc, self.offset())
            if self.at(code + "v("):
                self.pos += len(code) + 1
                return ProjectileGone(projectile, self.loc())
        return None

    def piece_result(self) -> PieceResult:
        """``ResultType "*" Piece Stun Color``; a piece type as ResultType is a take."""
        start = self.pos
        code = self.token(_UPPER)
        taker = PIECE_BY_CODE.get(code)
        if (code not in RESULT_CODES and taker is None) or not self.at("*"):
            self.fail("a projectile code R, T or S followed by '->' or 'v', or a result code "
                      "(RK, TK, SK, STK, CK, FK, CV, CRK or a taking piece's type) followed "
                      "by '*'", "R16.2", at=start)
        self.pos += 1
        piece = self.piece()
        stun = self.number(0, 255, "a stun count 0..255")
        side = Side.BLACK if self.take("B") else Side.WHITE if self.take("W") else None
        if side is None:
            self.fail("the affected piece's side B or W")
        if code in RESULT_CODES:
            return PieceResult(code, piece, stun, side)
        return PieceResult(TAKE, piece, stun, side, taker)

    def offset(self) -> tuple[int, int]:
        """``Offset``: a projectile's heading ``(dr,dc)``, each 0, 1 or -1."""
        self.expect("(")
        dr = self.offset_part()
        self.expect(",")
        dc = self.offset_part()
        self.expect(")")
        return (dr, dc)

    def offset_part(self) -> int:
        """One component of an Offset: ``0``, ``1`` or ``-1``."""
        sign = -1 if self.take("-") else 1
        if self.take("0"):
            return 0
        if self.take("1"):
            return sign
        self.fail("an offset component 0, 1 or -1")
