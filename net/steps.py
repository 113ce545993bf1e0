"""What the two sans-IO protocols of a game hand back: the lobby (net.lobby) and the game
itself (net.lockstep).

Both are fed the peer's messages and the local player's commands, and each call returns
a :class:`Step`: the messages to send to the peer, in order, and the events to show. They
share the way a peer message is refused: the handler raises :class:`Refusal`, the message
is answered with a Rejection and a :class:`Refused` event and never applied; a Rejection
from the peer becomes a :class:`PeerRefused` event. Chat lines (:class:`ChatLine`) happen
in both. These shared parts live here, once, so the two protocols cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Generic, TypeVar

from wec.net.messages import Message


@dataclass(frozen=True)
class LobbyEvent:
    """Something the player should see; ``kind`` names it in the headless peer's output."""

    kind: ClassVar[str] = "lobby"


@dataclass(frozen=True)
class GameEvent:
    """Something of the game under way for the player to see (net.lockstep)."""

    kind: ClassVar[str] = "game"


@dataclass(frozen=True)
class ChatLine(LobbyEvent, GameEvent):
    """A chat line, in the lobby or in the game (``by_us``: we wrote it)."""

    kind: ClassVar[str] = "chat"
    by_us: bool
    text: str


@dataclass(frozen=True)
class Refused(LobbyEvent, GameEvent):
    """We refused one of the peer's messages (it was not applied)."""

    kind: ClassVar[str] = "refused"
    tag: str
    reason: str


@dataclass(frozen=True)
class PeerRefused(LobbyEvent, GameEvent):
    """The peer refused one of our messages and said why (untrusted text)."""

    kind: ClassVar[str] = "peer_refused"
    tag: str
    reason: str


E = TypeVar("E")


@dataclass
class Step(Generic[E]):
    """What one call produced: messages for the peer (in order) and events to show."""

    send: list[Message] = field(default_factory=list)
    events: list[E] = field(default_factory=list)

    def extend(self, other: Step[E]) -> Step[E]:
        """Append ``other``'s messages and events to ours (in order); returns self."""
        self.send += other.send
        self.events += other.events
        return self


LobbyStep = Step[LobbyEvent]  # what a Lobby call returns
GameStep = Step[GameEvent]  # what a Lockstep call returns


class Refusal(Exception):
    """A peer message the protocol does not allow now, raised inside a handler; the
    handler's caller answers it with a Rejection and a Refused event (``reason`` says
    why), so the message is never applied."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


__all__ = ["ChatLine", "GameEvent", "GameStep", "LobbyEvent", "LobbyStep", "PeerRefused",
           "Refusal", "Refused", "Step"]
