"""Pytest fixtures for the two-namespace harness (issue 8 item 9); the core is
benchmarks/netns.py, because ``wec bench net`` needs the same namespaces.

A test module takes the API from ``benchmarks.netns`` and the fixtures from this plugin::

    from wec.benchmarks.netns import NamespacePair, start_discovery_peer

    pytest_plugins = ["netns"]  # netns_pair, root_required

    def test_something(netns_pair: NamespacePair):
        peer = netns_pair.run_python("a", ["-m", "wec.net.discovery", ...])

(Loading it as a plugin rather than importing the fixture keeps ruff's F811 and pytest's
assert-rewrite warning away.) Without root the fixtures fail the test, never skip it, with
a message saying root is required; ``netns_pair`` always deletes its namespaces, also when
the test fails.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from wec.benchmarks.netns import NamespaceError, NamespacePair, require_root


def require_root_or_fail() -> None:
    """Fail the test (not skip it) when namespaces cannot be created here."""
    try:
        require_root()
        return
    except NamespaceError as error:
        reason = str(error)
    pytest.fail(reason, pytrace=False)


@pytest.fixture
def root_required() -> None:
    """For tests that build their own namespaces: fail clearly unless run as root."""
    require_root_or_fail()


@pytest.fixture
def netns_pair() -> Iterator[NamespacePair]:
    """Two fresh namespaces joined by a veth pair; deleted after the test, pass or fail."""
    require_root_or_fail()
    pair = NamespacePair.create()
    try:
        yield pair
    finally:
        pair.close()
