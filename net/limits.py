"""Rate limits for what a peer may ask of us (issue 20: a hostile peer must not make us
work, write or show without bound).

:class:`RateLimit` is a token bucket on an injectable clock: ``capacity`` actions at
once, then one more every ``1 / rate`` seconds. The Peer keeps one per link or per game
for chat lines, save requests and connection attempts (net.peer_config has the figures).
"""

from __future__ import annotations

from collections.abc import Callable

Clock = Callable[[], float]  # seconds, monotonic (time.monotonic, or a test's own clock)


class RateLimit:
    """At most ``capacity`` actions at once and ``rate`` per second on average."""

    def __init__(self, capacity: float, rate: float, clock: Clock) -> None:
        if capacity < 1 or rate <= 0:
            raise ValueError("a rate limit needs a capacity of 1 or more and a positive "
                             "rate")
        self.capacity = capacity
        self.rate = rate
        self._clock = clock
        self._tokens = float(capacity)
        self._at = clock()

    def allow(self) -> bool:
        """Take one action now if the limit allows it (True), else change nothing."""
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + max(0.0, now - self._at) * self.rate)
        self._at = now
        if self._tokens < 1:
            return False
        self._tokens -= 1
        return True


__all__ = ["Clock", "RateLimit"]
