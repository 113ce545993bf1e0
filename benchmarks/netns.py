"""Two network namespaces joined by a veth pair, for LAN-play tests and ``wec bench net``.

Issue 8 items 9 and 10 run real peers on a real network stack: each peer in its own network
namespace, the two joined by a veth pair on a private subnet (10.213.0.1/24 and .2 by
default), multicast on, loopback up, and deliberately no default route and no multicast
route (discovery must work without them). Creating namespaces needs root.

    with NamespacePair.create() as pair:
        peer = pair.run_python("a", ["-m", "wec.net.discovery", "--name", "A", ...])
        event = peer.wait_for_event(lambda e: e["event"] == "started", timeout=5)
        pair.cut_link(); pair.restore_link()          # connection-drop tests
        pair.set_netem("both", delay_ms=20, loss_percent=5)   # if the kernel has netem

Teardown (:meth:`NamespacePair.close`, also run by the context manager, at interpreter exit
and for namespaces left by a crashed earlier run) kills the processes started in the
namespaces and deletes both namespaces, which destroys the veth pair.

Fault injection: ``tc qdisc ... netem`` needs the kernel's sch_netem;
:func:`netem_unavailable_reason` says whether it is there. When it is not,
:meth:`NamespacePair.set_netem` raises :class:`NetemUnavailable` and fault injection has to
happen in-process instead (the case on the CI machine this was written on: no sch_netem).

:func:`measure_discovery` gives the seconds until two peers in the two namespaces see each
other (the discovery figure of ``wec bench net``).
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import json
import os
import queue
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from wec.net.identity import fingerprint

ROOT_REQUIRED = (
    "root is required: the LAN tests create network namespaces and a veth pair "
    "(issue 8 item 9); run them as root (CI does)"
)
NAMESPACE_PREFIX = "wec-test-"
DEFAULT_SUBNET = "10.213.0"  # the pair uses <subnet>.1/24 and <subnet>.2/24
Side = Literal["a", "b"]
Sides = Literal["a", "b", "both"]
_counter = itertools.count()
_open_pairs: list[NamespacePair] = []
_NAME_PATTERN = re.compile(rf"{re.escape(NAMESPACE_PREFIX)}(\d+)-\d+-[ab]")


class NamespaceError(RuntimeError):
    """Namespaces cannot be created or driven (not root, no ``ip``, a command failed)."""


class NetemUnavailable(NamespaceError):
    """``tc qdisc netem`` does not work on this machine; the message says why."""


def require_root() -> None:
    """Raise NamespaceError with a clear message unless we are root with ``ip`` available."""
    if os.geteuid() != 0:
        raise NamespaceError(ROOT_REQUIRED)
    if shutil.which("ip") is None:
        raise NamespaceError("the 'ip' command (iproute2) is required for network namespaces")


def run_command(arguments: Sequence[str], check: bool = True) -> subprocess.CompletedProcess[str]:
    """Run one ip/tc command; on failure raise NamespaceError with its output."""
    done = subprocess.run(list(arguments), capture_output=True, text=True, timeout=30)
    if check and done.returncode != 0:
        raise NamespaceError(
            f"{' '.join(arguments)} failed ({done.returncode}): "
            f"{(done.stderr or done.stdout).strip()}"
        )
    return done


# --------------------------------------------------------------------------- processes


class NamespaceProcess:
    """A process started in a namespace; its stdout lines are readable with timeouts.

    Reader threads move stdout lines into a queue and keep stderr, so a test can wait for a
    line without blocking forever and show what the process wrote when it fails.
    """

    def __init__(self, popen: subprocess.Popen[str], label: str) -> None:
        self.popen = popen
        self.label = label
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: list[str] = []
        self.seen: list[str] = []  # every stdout line read so far
        self.events: list[dict[str, Any]] = []  # every JSON event read so far
        self._pending: list[dict[str, Any]] = []  # events read but not yet taken
        self._threads = [
            threading.Thread(target=self._pump_stdout, daemon=True),
            threading.Thread(target=self._pump_stderr, daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    @property
    def pid(self) -> int:
        return self.popen.pid

    def _pump_stdout(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def _pump_stderr(self) -> None:
        assert self.popen.stderr is not None
        for line in self.popen.stderr:
            self._stderr.append(line.rstrip("\n"))

    def read_line(self, timeout: float) -> str | None:
        """The next stdout line, or None after ``timeout`` s or at end of output."""
        try:
            line = self._lines.get(timeout=max(timeout, 0.0))
        except queue.Empty:
            return None
        if line is None:
            self._lines.put(None)  # stay at end of output for later readers
            return None
        self.seen.append(line)
        return line

    def read_event(self, timeout: float) -> dict[str, Any] | None:
        """The next JSON object line not yet taken, or None (timeout, end of output)."""
        if self._pending:
            return self._pending.pop(0)
        return self._read_new_event(timeout)

    def _read_new_event(self, timeout: float) -> dict[str, Any] | None:
        deadline = time.monotonic() + timeout
        while True:
            line = self.read_line(deadline - time.monotonic())
            if line is None:
                return None
            with contextlib.suppress(ValueError):
                event = json.loads(line)
                if isinstance(event, dict):
                    self.events.append(event)
                    return event

    def wait_for_event(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float
    ) -> dict[str, Any]:
        """Take the first JSON event matching ``predicate``; TimeoutError if none comes.

        Events that do not match stay pending for later calls (a selective receive), so
        waiting for "started" does not lose an "added" printed before it.
        """
        for index, pending in enumerate(self._pending):
            if predicate(pending):
                return self._pending.pop(index)
        deadline = time.monotonic() + timeout
        while True:
            event = self._read_new_event(deadline - time.monotonic())
            if event is None:
                raise TimeoutError(
                    f"{self.label}: no matching event within {timeout} s "
                    f"(exit code {self.popen.poll()}); stdout: {self.seen[-10:]}; "
                    f"stderr: {self.stderr_text()[-2000:]}"
                )
            if predicate(event):
                return event
            self._pending.append(event)

    def send_line(self, text: str) -> None:
        """Write one line to the process's stdin."""
        assert self.popen.stdin is not None
        self.popen.stdin.write(text + "\n")
        self.popen.stdin.flush()

    def stderr_text(self) -> str:
        return "\n".join(self._stderr)

    def wait(self, timeout: float) -> int:
        """The exit code; TimeoutError if still running after ``timeout`` s."""
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(f"{self.label} still running after {timeout} s") from None

    def kill(self) -> None:
        """SIGKILL (an abrupt crash: no goodbye, no cleanup) and reap."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGKILL)
        self.popen.wait(timeout=10)

    def close(self) -> None:
        """Close stdin, give the process a moment to finish, kill it if it does not."""
        if self.popen.stdin is not None and not self.popen.stdin.closed:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()
        try:
            self.popen.wait(timeout=3)
        except subprocess.TimeoutExpired:
            self.kill()
        for thread in self._threads:
            thread.join(timeout=2)


# --------------------------------------------------------------------------- namespaces


@dataclass
class Namespace:
    """One end: the namespace, its veth interface and its address."""

    name: str
    interface: str
    address: str
    prefix_length: int = 24


@dataclass
class NamespacePair:
    """Two namespaces joined by a veth pair (see the module docstring)."""

    a: Namespace
    b: Namespace
    processes: list[NamespaceProcess] = field(default_factory=list)
    closed: bool = False

    @classmethod
    def create(cls, subnet: str = DEFAULT_SUBNET) -> NamespacePair:
        """Create both namespaces and the veth pair; undo everything if a step fails."""
        require_root()
        remove_stale_namespaces()
        number = next(_counter)
        tag = f"{os.getpid()}-{number}"
        short = f"{os.getpid() % 10**7}x{number % 1000}"  # interface names: 15 bytes at most
        pair = cls(
            Namespace(f"{NAMESPACE_PREFIX}{tag}-a", f"wv{short}a"[:15], f"{subnet}.1"),
            Namespace(f"{NAMESPACE_PREFIX}{tag}-b", f"wv{short}b"[:15], f"{subnet}.2"),
        )
        _open_pairs.append(pair)
        try:
            pair._build()
        except BaseException:
            pair.close()
            raise
        return pair

    def _build(self) -> None:
        for end in (self.a, self.b):
            run_command(["ip", "netns", "add", end.name])
        run_command(["ip", "link", "add", self.a.interface, "netns", self.a.name, "type", "veth",
                     "peer", "name", self.b.interface, "netns", self.b.name])
        for end in (self.a, self.b):
            run_command(["ip", "-n", end.name, "link", "set", "lo", "up"])
            run_command(["ip", "-n", end.name, "addr", "add",
                         f"{end.address}/{end.prefix_length}", "dev", end.interface])
            run_command(["ip", "-n", end.name, "link", "set", end.interface, "multicast", "on"])
            run_command(["ip", "-n", end.name, "link", "set", end.interface, "up"])

    def __enter__(self) -> NamespacePair:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def side(self, side: Side) -> Namespace:
        return self.a if side == "a" else self.b

    def _sides(self, sides: Sides) -> list[Namespace]:
        return [self.a, self.b] if sides == "both" else [self.side(sides)]

    # ----------------------------------------------------------------- processes

    def run_python(
        self, side: Side, arguments: Sequence[str], env: dict[str, str] | None = None
    ) -> NamespaceProcess:
        """Start ``python -u ARGUMENTS`` (this interpreter: the venv) inside one namespace."""
        end = self.side(side)
        environment = {**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}
        popen = subprocess.Popen(
            ["ip", "netns", "exec", end.name, sys.executable, "-u", *arguments],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, encoding="utf-8", errors="replace", env=environment,
        )
        process = NamespaceProcess(popen, f"{end.name}: python {' '.join(arguments)}")
        self.processes.append(process)
        return process

    def run(self, side: Side, arguments: Sequence[str]) -> subprocess.CompletedProcess[str]:
        """Run one command inside a namespace and wait for it (``ip netns exec``)."""
        return run_command(["ip", "netns", "exec", self.side(side).name, *arguments])

    # ----------------------------------------------------------------- faults

    def cut_link(self, sides: Sides = "both") -> None:
        """Take the veth interface down: nothing passes until :meth:`restore_link`."""
        for end in self._sides(sides):
            run_command(["ip", "-n", end.name, "link", "set", end.interface, "down"])

    def restore_link(self, sides: Sides = "both") -> None:
        """Bring the veth interface up again (the kernel restores the subnet route)."""
        for end in self._sides(sides):
            run_command(["ip", "-n", end.name, "link", "set", end.interface, "up"])

    def link_is_up(self, side: Side) -> bool:
        end = self.side(side)
        shown = run_command(["ip", "-n", end.name, "-o", "link", "show", end.interface]).stdout
        return ",UP" in shown or "<UP" in shown

    def set_netem(
        self,
        sides: Sides = "both",
        *,
        delay_ms: float = 0.0,
        jitter_ms: float = 0.0,
        loss_percent: float = 0.0,
        duplicate_percent: float = 0.0,
        reorder_percent: float = 0.0,
    ) -> None:
        """Delay, lose, duplicate or reorder the frames leaving an interface (tc netem).

        Reordering needs a delay: the reordered frames are the ones sent without it.
        Raises NetemUnavailable when the kernel lacks netem.
        """
        if reorder_percent and not delay_ms:
            raise ValueError("netem reordering needs delay_ms > 0")
        options = ["delay", f"{delay_ms:g}ms"]
        if jitter_ms:
            options.append(f"{jitter_ms:g}ms")
        if loss_percent:
            options += ["loss", f"{loss_percent:g}%"]
        if duplicate_percent:
            options += ["duplicate", f"{duplicate_percent:g}%"]
        if reorder_percent:
            options += ["reorder", f"{reorder_percent:g}%"]
        for end in self._sides(sides):
            done = run_command(["tc", "-n", end.name, "qdisc", "replace", "dev", end.interface,
                                "root", "netem", *options], check=False)
            if done.returncode != 0:
                raise NetemUnavailable(f"tc netem failed: {done.stderr.strip()}")

    def clear_netem(self, sides: Sides = "both") -> None:
        """Remove any netem qdisc (back to the interface's default queue)."""
        for end in self._sides(sides):
            run_command(["tc", "-n", end.name, "qdisc", "del", "dev", end.interface, "root"],
                        check=False)

    def netem_unavailable_reason(self) -> str | None:
        """None when netem works on this pair, else the reason (``tc`` missing, no module)."""
        if shutil.which("tc") is None:
            return "the 'tc' command is missing"
        try:
            self.set_netem("a", delay_ms=1)
        except NetemUnavailable as error:
            return f"{error} (the kernel has no sch_netem: inject faults in-process instead)"
        self.clear_netem("a")
        return None

    # ----------------------------------------------------------------- teardown

    def close(self) -> None:
        """Kill our processes and delete both namespaces (safe to call twice)."""
        if self.closed:
            return
        self.closed = True
        for process in self.processes:
            with contextlib.suppress(Exception):
                process.kill()
                process.close()
        for end in (self.a, self.b):
            delete_namespace(end.name)
        with contextlib.suppress(ValueError):
            _open_pairs.remove(self)


def namespace_names() -> list[str]:
    """The network namespaces that exist now."""
    listed = run_command(["ip", "netns", "list"], check=False).stdout
    return [line.split()[0] for line in listed.splitlines() if line.strip()]


def delete_namespace(name: str) -> None:
    """Kill the processes left in one of our namespaces, then delete it."""
    pids = run_command(["ip", "netns", "pids", name], check=False).stdout.split()
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, ValueError):
            os.kill(int(pid), signal.SIGKILL)
    run_command(["ip", "netns", "del", name], check=False)


def remove_stale_namespaces() -> None:
    """Delete namespaces of our naming pattern whose creating process no longer exists."""
    for name in namespace_names():
        match = _NAME_PATTERN.fullmatch(name)
        if match and not _process_exists(int(match.group(1))):
            delete_namespace(name)


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@atexit.register
def _close_open_pairs() -> None:
    for pair in list(_open_pairs):
        pair.close()


@contextlib.contextmanager
def namespace_pair(subnet: str = DEFAULT_SUBNET) -> Iterator[NamespacePair]:
    """A :class:`NamespacePair` that is torn down when the block ends, even on failure."""
    pair = NamespacePair.create(subnet)
    try:
        yield pair
    finally:
        pair.close()


def netem_unavailable_reason() -> str | None:
    """None when ``tc qdisc netem`` works here, else why not (uses a throwaway pair)."""
    with namespace_pair() as pair:
        return pair.netem_unavailable_reason()


# --------------------------------------------------------------------------- discovery


def new_fingerprint() -> str:
    """The fingerprint of a random public key, as net.identity writes it ("ABCD-EFGH-...")."""
    return fingerprint(secrets.token_bytes(32))


def start_discovery_peer(
    pair: NamespacePair,
    side: Side,
    name: str,
    fingerprint: str,
    port: int = 7300,
    ttl: int | None = None,
    timeout: float = 10.0,
) -> tuple[NamespaceProcess, dict[str, Any]]:
    """Run ``python -m wec.net.discovery`` in one namespace; return it and its 'started' event."""
    arguments = ["-m", "wec.net.discovery", "--name", name, "--fingerprint", fingerprint,
                 "--port", str(port)]
    if ttl is not None:
        arguments += ["--ttl", str(ttl)]
    process = pair.run_python(side, arguments)
    started = process.wait_for_event(lambda event: event["event"] == "started", timeout)
    return process, started


def seen(fingerprint: str, kind: str = "added") -> Callable[[dict[str, Any]], bool]:
    """An event predicate: the peer with this fingerprint was added (or updated, removed)."""
    return lambda event: event["event"] == kind and event["peer"]["fingerprint"] == fingerprint


@dataclass(frozen=True)
class DiscoveryTimes:
    """Seconds from the newcomer's Discovery.start() call until each side saw the other."""

    newcomer_seen: float  # the peer already running saw the newcomer
    first_seen: float  # the newcomer saw the peer already running

    @property
    def both_seen(self) -> float:
        return max(self.newcomer_seen, self.first_seen)


def measure_discovery_times(
    pair: NamespacePair | None = None, timeout: float = 10.0
) -> DiscoveryTimes:
    """Start a peer in namespace a, then one in b; time how fast they see each other.

    Both processes share the machine's monotonic clock, so the times compare the newcomer's
    start call with the moment each side's list changed. Needs root.
    """
    if pair is None:
        with namespace_pair() as own_pair:
            return measure_discovery_times(own_pair, timeout)
    first_fp, newcomer_fp = new_fingerprint(), new_fingerprint()
    first, _ = start_discovery_peer(pair, "a", "First", first_fp, timeout=timeout)
    newcomer, started = start_discovery_peer(pair, "b", "Newcomer", newcomer_fp, timeout=timeout)
    try:
        saw_newcomer = first.wait_for_event(seen(newcomer_fp), timeout)
        saw_first = newcomer.wait_for_event(seen(first_fp), timeout)
    finally:
        for process in (first, newcomer):
            with contextlib.suppress(OSError):
                process.send_line("stop")
            process.close()
    start = float(started["start_called_at"])
    return DiscoveryTimes(float(saw_newcomer["at"]) - start, float(saw_first["at"]) - start)


def measure_discovery(pair: NamespacePair | None = None, timeout: float = 10.0) -> float:
    """Seconds from a newcomer's start until it and a peer in the other namespace see each
    other (issue 8 goal: within 2 s). Needs root; NamespaceError otherwise."""
    return measure_discovery_times(pair, timeout).both_seen
