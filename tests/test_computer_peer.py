"""``wec peer --computer LEVEL`` (issue 19): the headless peer's side played by the computer
through the LAN protocol like any peer, against a random peer on loopback, to the end."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from wec.benchmarks.netns import NamespaceProcess

LOCAL = "127.0.0.1"


def kind(name: str) -> Callable[[dict[str, Any]], bool]:
    return lambda event: event.get("event") == name


class PeerProcess:
    def __init__(self, tmp_path: Path, name: str, *arguments: str) -> None:
        command = [sys.executable, "-u", "-m", "wec", "peer", "--name", name,
                   "--state-dir", str(tmp_path / name), "--listen", LOCAL, "--port", "0",
                   "--no-discovery", "--exit-timeout", "5", *arguments]
        popen = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, encoding="utf-8",
                                 errors="replace")
        self.process = NamespaceProcess(popen, name)
        self.port = int(self.process.wait_for_event(kind("started"), 30)["port"])

    def wait_for(self, predicate: Callable[[dict[str, Any]], bool],
                 timeout: float) -> dict[str, Any]:
        return self.process.wait_for_event(predicate, timeout)

    def seen(self, name: str) -> list[dict[str, Any]]:
        return [e for e in self.process.events if e.get("event") == name]


@pytest.fixture
def peers(tmp_path: Path) -> Iterator[Callable[..., PeerProcess]]:
    started: list[PeerProcess] = []

    def start(name: str, *arguments: str) -> PeerProcess:
        peer = PeerProcess(tmp_path, name, *arguments)
        started.append(peer)
        return peer

    yield start
    for peer in started:
        peer.process.close()


@pytest.mark.parametrize("fog", [False, True], ids=["open", "fog-of-war"])
def test_the_computer_plays_a_lan_game_to_the_end(peers: Callable[..., PeerProcess],
                                                  fog: bool) -> None:
    """Open information, and with fog of war (issue 21: the computer is told our half
    states and our events only, as the FogLockstep keeps them)."""
    mode = () if fog else ("--no-fog",)
    host = peers("Host", "--host", "--auto-confirm", "--colour", "white", "--scenario",
                 "king_hunt", "--computer", "2", "--computer-budget", "0.1", "--seed", "4",
                 *mode)
    guest = peers("Guest", "--join", "Host", "--address", f"{LOCAL}:{host.port}",
                  "--auto-confirm", "--colour", "black", "--random", "--seed", "7", *mode)
    final = host.wait_for(kind("final"), 300)
    other = guest.wait_for(kind("final"), 60)
    assert final["result"] is not None and final["result"]["how"] == "rules", final
    assert final["state_hash"] == other["state_hash"]
    assert final["intents_sent"] > 0 and other["intents_sent"] > 0
    # the computer played every one of its intents: none refused
    assert not [e for e in host.seen("error")], host.seen("error")
    if fog:
        assert final["fog"] and final["audit"] == other["audit"] == "audited: clean"


def test_a_bad_computer_level_is_refused_with_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "wec", "peer", "--name", "X", "--state-dir",
                           str(tmp_path / "x"), "--no-discovery", "--computer", "7"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "--computer 7" in done.stderr
