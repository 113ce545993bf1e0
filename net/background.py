"""Run a LAN-play :class:`~net.peer.Peer` beside a frame loop (issue 8 item 7).

The Panda3D client draws frames on its own loop and must never wait for the network.
:class:`BackgroundPeer` runs the Peer's asyncio loop in a daemon thread; the client
talks to it in two thread-safe ways:

- **commands**: ``submit(fn)`` runs ``fn(peer)`` on the network thread and returns a
  ``concurrent.futures.Future`` (``call(fn)`` does the same for coroutine functions such
  as ``peer.connect``). A refused command (LobbyError, LockstepError, IllegalIntent...)
  comes back as the future's exception. A frame never waits: check ``future.done()`` on
  later frames, or use ``future.add_done_callback``.
- **events**: every PeerEvent is queued; ``poll_events()`` returns those waiting, at
  once, typically once per frame. ``net.peer.describe_event`` and ``event_kind`` give
  their names and fields for the screens.

Client screens (built later) use it like this::

    network = BackgroundPeer(PeerConfig(name="Alice", state_dir=user_data_dir))
    network.start()                                   # raises if the peer cannot start
    # Play on local network: the peers list
    peers = network.submit(lambda peer: peer.peers()).result(timeout=1)
    network.call(lambda peer: peer.connect_to("Bob"))  # the link pairs on its own
    # every frame:
    for event in network.poll_events():
        kind = event_kind(event)  # "peer_seen", "pairing_code", "invited", "intent", ...
    # the pairing prompt shows PairingCode.code; the player's answer:
    network.submit(lambda peer: peer.confirm_pairing("Bob", True))
    # lobby: peer.invite(), accept(), choose_colour("white"), propose_options(options),
    #        approve(), reject(reason), choose_government(g), end_setup()
    # game:  peer.play(intent), resign(), request_takeback(), answer_takeback(True),
    #        chat(text), save(name); after GraceExpired: claim_win() or keep_waiting()
    network.stop()                                    # goodbye to the peer, thread ends

Commands and reads of the Peer's state must go through ``submit``: the Peer is not
thread-safe and lives on the network thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

from wec.net.peer import Peer, PeerConfig, PeerEvent

log = logging.getLogger("wec.net.background")

T = TypeVar("T")
MAX_QUEUED_EVENTS = 10_000  # a client that stops polling does not grow without bound


class BackgroundPeer:
    """A Peer on its own network thread (see the module docstring)."""

    def __init__(self, config: PeerConfig, max_events: int = MAX_QUEUED_EVENTS) -> None:
        self.config = config
        self._events: queue.Queue[PeerEvent] = queue.Queue(maxsize=max_events)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._peer: Peer | None = None
        self._ready = threading.Event()
        self._failure: BaseException | None = None
        self._stop_requested: asyncio.Event | None = None
        self.dropped_events = 0

    # ------------------------------------------------------------ life cycle

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def port(self) -> int:
        return self._started_peer().port

    @property
    def fingerprint(self) -> str:
        return self._started_peer().fingerprint

    def start(self, timeout: float = 10.0) -> None:
        """Start the network thread and the peer; raises what made the start fail."""
        if self._thread is not None:
            raise RuntimeError("the background peer was already started")
        self._thread = threading.Thread(target=self._run, name="wec-network", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise TimeoutError(f"the network did not start within {timeout} s")
        if self._failure is not None:
            raise self._failure

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the peer (goodbye on every link) and end the thread."""
        loop, stop = self._loop, self._stop_requested
        if loop is not None and stop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(stop.set)
        if self._thread is not None:
            self._thread.join(timeout)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # reported to start() or logged
            if not self._ready.is_set():
                self._failure = exc
                self._ready.set()
            else:
                log.exception("the network thread failed")

    async def _main(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._stop_requested = asyncio.Event()
        peer = Peer(self.config, on_event=self._queue_event)
        await peer.start()
        self._peer = peer
        self._ready.set()
        try:
            await self._stop_requested.wait()
        finally:
            await peer.stop()

    def _queue_event(self, event: PeerEvent) -> None:
        try:
            self._events.put_nowait(event)
        except queue.Full:
            self.dropped_events += 1

    def _started_peer(self) -> Peer:
        if self._peer is None:
            raise RuntimeError("the background peer is not started")
        return self._peer

    # ------------------------------------------------------------ commands and events

    def submit(self, command: Callable[[Peer], T]) -> concurrent.futures.Future[T]:
        """Run ``command(peer)`` on the network thread; its result or exception comes
        back through the future."""
        peer = self._started_peer()
        loop = self._loop
        assert loop is not None
        future: concurrent.futures.Future[T] = concurrent.futures.Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(command(peer))
            except BaseException as exc:
                future.set_exception(exc)

        loop.call_soon_threadsafe(run)
        return future

    def call(self, command: Callable[[Peer], Awaitable[T]]) -> concurrent.futures.Future[T]:
        """Run the coroutine ``command(peer)`` on the network thread (e.g. connect)."""
        peer = self._started_peer()
        loop = self._loop
        assert loop is not None

        async def run() -> T:
            return await command(peer)

        return asyncio.run_coroutine_threadsafe(run(), loop)

    def poll_events(self, limit: int | None = None) -> list[PeerEvent]:
        """The events waiting now (at most ``limit``); never blocks."""
        events: list[PeerEvent] = []
        while limit is None or len(events) < limit:
            try:
                events.append(self._events.get_nowait())
            except queue.Empty:
                break
        return events
