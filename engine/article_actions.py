"""Pick-up, Drop and Exchange of articles (R4.7-R4.9, R2.6, R9.9).

Articles keep their acquisition order (R7.4): a picked-up or received article goes
last; of several carried articles of one kind, the earliest acquired one leaves.
An Anti-Stealth instance that leaves its holder releases its lock (R9.4(c)).
"""

from __future__ import annotations

from wec.engine import board
from wec.engine.articles import GROUND_ARTICLE_LIMIT, ArticleTable, add_article, take_article
from wec.engine.board import GROUND
from wec.engine.budget import refuse_if_acted, refuse_if_spent, spend
from wec.engine.errors import IllegalIntent, Reason, refuse
from wec.engine.events import Dropped, Event, Exchanged, PickedUp
from wec.engine.intents import Drop, Exchange, PickUp
from wec.engine.movement import with_pieces_in_place
from wec.engine.pieces import TRAITS, ArticleKind, Hand, PieceKind, article_capacity, describe_kind
from wec.engine.position import Lock, Piece, Position
from wec.engine.selection import select_own, twin_hand

A = ArticleKind


def _name(article: ArticleKind) -> str:
    return article.value.replace("_", " ")


def _without(articles: tuple[ArticleKind, ...], article: ArticleKind) -> tuple[ArticleKind, ...]:
    at = articles.index(article)
    return articles[:at] + articles[at + 1:]


def capacity_reason(piece: Piece, articles: tuple[ArticleKind, ...]) -> Reason | None:
    """R2.6: why ``piece`` may not end up carrying ``articles``, or None."""
    capacity = article_capacity(piece.kind, articles)
    if len(articles) > capacity:
        return ("R2.6", f"the {describe_kind(piece.kind)} at {board.describe_cell(piece.cell)} "
                f"would carry {len(articles)} articles (at most {capacity})")
    return None


def stealth_reason(position: Position, piece: Piece, article: ArticleKind) -> Reason | None:
    """R9.9: a primary government piece may not acquire Stealth unless O26 is on."""
    if (article is A.STEALTH and TRAITS[piece.kind].primary
            and not position.options.king_may_be_stealthy):
        return ("R9.9", f"the {describe_kind(piece.kind)} may not acquire Stealth (option O26 "
                "king_may_be_stealthy is off)")
    return None


def _able(position: Position, piece: Piece, action: str) -> None:
    """R7.2: a stunned piece may not Pick-up, Drop or take part in an Exchange."""
    if piece.stunned(position.turn):
        raise IllegalIntent("R7.2", f"the {describe_kind(piece.kind)} at "
                                    f"{board.describe_cell(piece.cell)} is stunned until turn "
                                    f"{piece.stunned_until} and may not {action}")
    refuse_if_acted(position, piece)


def _release_lock(locks: tuple[Lock, ...], piece: Piece, article: ArticleKind) -> tuple[Lock, ...]:
    """R9.4(c): the Anti-Stealth instance leaving ``piece`` loses its lock; the holder's
    later instances move down one place."""
    if article is not A.ANTI_STEALTH or not locks:
        return locks
    abilities = piece.abilities()
    first = len(TRAITS[piece.kind].inherent) + piece.articles.index(article)
    gone = abilities[:first].count(A.ANTI_STEALTH)
    kept = []
    for lock in locks:
        if lock.holder != piece.pid or lock.instance < gone:
            kept.append(lock)
        elif lock.instance > gone:
            kept.append(Lock(lock.holder, lock.instance - 1, lock.target))
    return tuple(kept)


def _acquired(holder: Piece, article: ArticleKind) -> tuple[tuple[int, int], ...]:
    """R9.4(a): an Anti-Stealth article that just came under ``holder``'s control (it
    went last) acquires a lock as its holder's last Anti-Stealth instance."""
    if article is not A.ANTI_STEALTH:
        return ()
    return ((holder.pid, holder.abilities().count(A.ANTI_STEALTH) - 1),)


# ---------------------------------------------------------------- Pick-up

def pickup_reason(position: Position, piece: Piece, article: ArticleKind) -> Reason | None:
    """Why ``piece`` may not pick up ``article`` now (beyond the turn budget), or None."""
    if piece.level is not GROUND:
        return ("R4.7", f"only a piece at Ground picks up; the {describe_kind(piece.kind)} is at "
                f"{piece.level.label}")
    if article not in position.ground_articles[piece.sq]:
        return ("R4.7", f"no unowned {_name(article)} lies at {board.describe_square(piece.sq)}")
    return (stealth_reason(position, piece, article)
            or capacity_reason(piece, (*piece.articles, article)))


def resolve_pickup(position: Position, intent: PickUp) -> tuple[Position, list[Event]]:
    refuse_if_spent(position, "pickup")
    piece = select_own(position, intent.at, intent.kind, intent.hand, "R4.7", "pick up",
                       able=lambda p: pickup_reason(position, p, intent.article) is None)
    _able(position, piece, "Pick-up")
    refuse(pickup_reason(position, piece, intent.article))
    table = ArticleTable(position.ground_articles, position.ground_ready)
    holder = add_article(piece, intent.article, table.take(piece.sq, intent.article))
    ground, ground_ready = table.packed()
    after = with_pieces_in_place(position, {piece.pid: holder}, ground_articles=ground,
                         ground_ready=ground_ready,
                         actions=spend(position.actions, "pickup", piece),
                         acquiring=_acquired(holder, intent.article))
    return after, [PickedUp(piece.side, piece.kind, piece.cell, intent.article)]


# ---------------------------------------------------------------- Drop

def transit_article_reason(piece: Piece, article: ArticleKind, rule: str) -> Reason | None:
    """R4.8, R4.9, R8.4.3: a piece in transit keeps its transport article."""
    if (piece.transit is not None and piece.transit.article is article
            and piece.articles.count(article) == 1):
        return (rule, f"the {describe_kind(piece.kind)} at {board.describe_cell(piece.cell)} is "
                      f"in transit and keeps its {_name(article)} until the transport ends")
    return None


def drop_reason(position: Position, piece: Piece, article: ArticleKind) -> Reason | None:
    if article not in piece.articles:
        return ("R4.8", f"the {describe_kind(piece.kind)} at {board.describe_cell(piece.cell)} "
                f"carries no {_name(article)}")
    transit = transit_article_reason(piece, article, "R4.8")
    if transit:
        return transit
    if len(position.ground_articles[piece.sq]) >= GROUND_ARTICLE_LIMIT:
        return ("R4.8", f"{board.describe_square(piece.sq)} already holds "
                f"{GROUND_ARTICLE_LIMIT} unowned articles (D-11)")
    return capacity_reason(piece, _without(piece.articles, article))


def resolve_drop(position: Position, intent: Drop) -> tuple[Position, list[Event]]:
    refuse_if_spent(position, "drop")
    piece = select_own(position, intent.frm, intent.kind, intent.hand, "R4.8", "drop",
                       able=lambda p: drop_reason(position, p, intent.article) is None)
    _able(position, piece, "Drop")
    refuse(drop_reason(position, piece, intent.article))
    table = ArticleTable(position.ground_articles, position.ground_ready)
    holder, ready = take_article(piece, intent.article)
    table.put(piece.sq, intent.article, ready)
    ground, ground_ready = table.packed()
    after = with_pieces_in_place(position, {piece.pid: holder}, ground_articles=ground,
                         ground_ready=ground_ready,
                         locks=_release_lock(position.locks, piece, intent.article),
                         actions=spend(position.actions, "drop", piece))
    return after, [Dropped(piece.side, piece.kind, piece.cell, intent.article)]


# ---------------------------------------------------------------- Exchange

def exchange_reason(position: Position, giver: Piece, taker: Piece, give: ArticleKind,
                    take: ArticleKind | None) -> Reason | None:
    """R4.9: distance, articles held, capacities afterwards and R9.9 for both pieces."""
    if (board.distance(giver.sq, taker.sq) > 1 and not TRAITS[giver.kind].secondary
            and not TRAITS[taker.kind].secondary):
        return ("R4.9", f"{board.describe_cell(giver.cell)} and {board.describe_cell(taker.cell)} "
                "are more than 1 square apart and neither piece is the secondary government "
                "piece")
    for piece, article in ((giver, give), (taker, take)):
        if article is not None and article not in piece.articles:
            return ("R4.9", f"the {describe_kind(piece.kind)} at "
                    f"{board.describe_cell(piece.cell)} carries no {_name(article)}")
        transit = article and transit_article_reason(piece, article, "R4.9")
        if transit:
            return transit
    giver_after = _without(giver.articles, give) + ((take,) if take else ())
    taker_after = (_without(taker.articles, take) if take else taker.articles) + (give,)
    return (stealth_reason(position, taker, give)
            or (stealth_reason(position, giver, take) if take else None)
            or capacity_reason(giver, giver_after) or capacity_reason(taker, taker_after))


def resolve_exchange(position: Position, intent: Exchange) -> tuple[Position, list[Event]]:
    refuse_if_spent(position, "exchange")
    give, take = intent.give, intent.take
    giver = select_own(position, intent.frm, intent.kind, intent.hand, "R4.9", "give",
                       able=lambda p: give in p.articles)
    taker = select_own(position, intent.to, intent.to_kind, intent.to_hand, "R4.9", "receive",
                       exclude=giver, kind_field="to_kind",
                       able=lambda p: exchange_reason(position, giver, p, give, take) is None)
    for piece in (giver, taker):
        _able(position, piece, "take part in an Exchange")
    refuse(exchange_reason(position, giver, taker, give, take))
    locks = _release_lock(position.locks, giver, give)
    if take is not None:
        locks = _release_lock(locks, taker, take)
    giver_after, given_ready = take_article(giver, give)
    taker_after = taker
    if take is not None:
        taker_after, taken_ready = take_article(taker, take)
        giver_after = add_article(giver_after, take, taken_ready)
    taker_after = add_article(taker_after, give, given_ready)
    after = with_pieces_in_place(position, {giver.pid: giver_after, taker.pid: taker_after},
                         locks=locks, actions=spend(position.actions, "exchange", giver, taker),
                         acquiring=(_acquired(taker_after, give)
                                    + (_acquired(giver_after, take) if take else ())))
    return after, [Exchanged(giver.side, giver.kind, giver.cell, taker.kind, taker.cell, give,
                             take)]


# ---------------------------------------------------------------- legal intents

def legal_article_intents(position: Position) -> list[PickUp | Drop | Exchange]:
    """Every legal Pick-up, Drop and Exchange of the side to act (R4.3 budget permitting):
    the Pick-ups, then the Drops, then the Exchanges, each in piece order."""
    return [*legal_pickups(position), *legal_drops(position), *legal_exchanges(position)]


def _taking_part(position: Position) -> list[Piece]:
    """The side to act's pieces that may pick up, drop or exchange, in order: R7.2, a
    stunned piece takes no part; R4.12(b), nor one that has acted."""
    side, turn = position.side_to_act, position.turn
    acted = (position.actions.actors
             if position.options.action_restriction == "one_action_per_piece" else ())
    return [p for p in position.pieces
            if p.side is side and turn >= p.stunned_until and p.pid not in acted]


def legal_pickups(position: Position) -> list[PickUp]:
    """Every legal Pick-up of the side to act (R4.7): those ``pickup_reason`` allows,
    tested without building refusal messages (``_may_pick_up``)."""
    if position.options.action_restriction == "move_only" or position.actions.pickup:
        return []
    ground = position.ground_articles
    occ = position.known_occupancy(position.side_to_act)
    stealth_allowed = position.options.king_may_be_stealthy
    out = []
    for p in _taking_part(position):
        here = ground[p.sq]
        if here and p.level is GROUND:
            cell = p.sq * 3 + GROUND
            hand = twin_hand(position, p) if len(occ[cell]) > 1 else None
            for article in _kinds(here):
                if _may_pick_up(p, article, stealth_allowed):
                    out.append(PickUp(cell, article, p.kind, hand))
    return out


def legal_drops(position: Position) -> list[Drop]:
    """Every legal Drop of the side to act (R4.8): those ``drop_reason`` allows, tested
    without building refusal messages (``_may_drop``)."""
    if position.options.action_restriction == "move_only" or position.actions.drop:
        return []
    ground = position.ground_articles
    occ = position.known_occupancy(position.side_to_act)
    out = []
    for p in _taking_part(position):
        if p.articles and len(ground[p.sq]) < GROUND_ARTICLE_LIMIT:
            cell = p.sq * 3 + p.level
            hand = twin_hand(position, p) if len(occ[cell]) > 1 else None
            for article in _kinds(p.articles):
                if _may_drop(p, article):
                    out.append(Drop(cell, article, p.kind, hand))
    return out


def legal_exchanges(position: Position) -> list[Exchange]:
    """Every legal Exchange of the side to act (R4.9), givers and takers in piece order."""
    if position.options.action_restriction == "move_only" or position.actions.exchange:
        return []
    return _legal_exchanges(position, _taking_part(position))


def _may_pick_up(piece: Piece, article: ArticleKind, stealth_allowed: bool) -> bool:
    """``pickup_reason(...) is None`` for a piece at Ground on a square holding
    ``article``: R9.9 and R2.6."""
    if article is A.STEALTH and not stealth_allowed and TRAITS[piece.kind].primary:
        return False
    articles = (*piece.articles, article)
    return len(articles) <= article_capacity(piece.kind, articles)


def _may_drop(piece: Piece, article: ArticleKind) -> bool:
    """``drop_reason(...) is None`` for a carried ``article`` on a square with room for
    it (D-11): R8.4.3 and R2.6."""
    if (piece.transit is not None and piece.transit.article is article
            and piece.articles.count(article) == 1):
        return False
    articles = _without(piece.articles, article)
    return len(articles) <= article_capacity(piece.kind, articles)


def _legal_exchanges(position: Position, own: list[Piece]) -> list[Exchange]:
    """Every legal Exchange among ``own``, givers and takers in ``own`` order. Takers are
    looked up by square: within 1 square of the giver, or anywhere when either piece is
    the secondary government piece (R4.9)."""
    if not any(p.articles for p in own):
        return []
    order = {}
    by_square: dict[int, list[Piece]] = {}
    secondaries = []
    for i, p in enumerate(own):
        order[p.pid] = i
        by_square.setdefault(p.sq, []).append(p)
        if TRAITS[p.kind].secondary:
            secondaries.append(p)
    hands: dict[int, Hand | None] = {}
    occ = position.known_occupancy(position.side_to_act)

    def hand_of(p: Piece) -> Hand | None:
        hand = hands.get(p.pid, _UNKNOWN)
        if hand is _UNKNOWN:
            hand = hands[p.pid] = (twin_hand(position, p)
                                   if len(occ[p.sq * 3 + p.level]) > 1 else None)
        return hand  # type: ignore[return-value]

    out: list[Exchange] = []
    for giver in own:
        if not giver.articles:
            continue
        if TRAITS[giver.kind].secondary:
            takers = own
        else:
            takers = [p for sq in _NEAR[giver.sq] for p in by_square.get(sq, ())]
            takers.extend(p for p in secondaries if not any(q is p for q in takers))
            if len(takers) > 1:
                takers.sort(key=lambda p: order[p.pid])
        for taker in takers:
            if taker is not giver:
                trades = _trades(position, giver, taker)
                if trades:
                    giver_hand, taker_hand = hand_of(giver), hand_of(taker)
                    out.extend(Exchange(giver.cell, taker.cell, give, take, giver.kind,
                                        taker.kind, giver_hand, taker_hand)
                               for give, take in trades)
    return out


_UNKNOWN = object()

# per square, itself and its neighbours: where an Exchange partner stands (R4.9)
_NEAR = [(sq, *board.neighbours(sq)) for sq in range(board.SQUARES)]


def _trades(position: Position, giver: Piece, taker: Piece
            ) -> tuple[tuple[ArticleKind, ArticleKind | None], ...]:
    """The (give, take) pairs ``exchange_reason`` allows between two pieces in reach of
    each other. Memo: beyond their articles and transit articles, the rules ask only
    whether each piece is an XXX Pawn (R2.6) and a primary government piece (R9.9), and
    option O26."""
    key = (giver.kind is PieceKind.XXX_PAWN, TRAITS[giver.kind].primary, giver.articles,
           giver.transit and giver.transit.article,
           taker.kind is PieceKind.XXX_PAWN, TRAITS[taker.kind].primary, taker.articles,
           taker.transit and taker.transit.article, position.options.king_may_be_stealthy)
    found = _TRADES.get(key)
    if found is None:
        if len(_TRADES) > _TRADES_LIMIT:
            _TRADES.clear()
        stealth_allowed = position.options.king_may_be_stealthy
        found = _TRADES[key] = tuple(
            (give, take) for give in _kinds(giver.articles)
            for take in (None, *_kinds(taker.articles))
            if _may_trade(giver, taker, give, take, stealth_allowed))
    return found


def _may_trade(giver: Piece, taker: Piece, give: ArticleKind, take: ArticleKind | None,
               stealth_allowed: bool) -> bool:
    """``exchange_reason(...) is None`` for two pieces in reach of each other, ``give``
    carried by the giver and ``take`` (if any) by the taker: R8.4.3, R9.9, R2.6."""
    for piece, article in ((giver, give), (taker, take)):
        if (article is not None and piece.transit is not None
                and piece.transit.article is article and piece.articles.count(article) == 1):
            return False
        if (article is A.STEALTH and not stealth_allowed
                and TRAITS[(taker if piece is giver else giver).kind].primary):
            return False
    giver_after = _without(giver.articles, give) + ((take,) if take else ())
    taker_after = (_without(taker.articles, take) if take else taker.articles) + (give,)
    return (len(giver_after) <= article_capacity(giver.kind, giver_after)
            and len(taker_after) <= article_capacity(taker.kind, taker_after))


_TRADES: dict[tuple[object, ...], tuple[tuple[ArticleKind, ArticleKind | None], ...]] = {}
_TRADES_LIMIT = 20_000


def _kinds(articles: tuple[ArticleKind, ...]) -> list[ArticleKind]:
    """Distinct article kinds in first-seen order."""
    seen: list[ArticleKind] = []
    for a in articles:
        if a not in seen:
            seen.append(a)
    return seen
