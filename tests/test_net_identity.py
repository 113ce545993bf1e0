"""Identity keys and pairing (issue 8 item 2): owner-only key files, fingerprints, the
short authentication string and the pinned-peers store."""

from __future__ import annotations

import base64
import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from wec.net.errors import IdentityError, PeerKeyChanged, PinStoreError
from wec.net.identity import (
    Identity,
    default_state_dir,
    display_name_problem,
    fingerprint,
    identity_path,
    load_or_create_identity,
    verify_signature,
)
from wec.net.pairing import (
    PeerStore,
    PinStatus,
    format_sas,
    short_authentication_string,
)

KEY_A = bytes(range(32))
KEY_B = bytes(range(100, 132))
KEY_C = bytes(32)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def permissive_umask() -> Iterator[None]:
    """Key files must be private even when the user's umask would allow group reads."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


# ---------------------------------------------------------------- identity


def test_identity_is_created_private_on_first_use(tmp_path: Path,
                                                  permissive_umask: None) -> None:
    identity = load_or_create_identity(tmp_path)
    key_file = tmp_path / "identity" / "ed25519.pem"
    assert identity_path(tmp_path) == key_file
    assert mode(key_file) == 0o600
    assert mode(key_file.parent) == 0o700
    assert key_file.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert sorted(p.name for p in key_file.parent.iterdir()) == ["ed25519.pem"]
    again = load_or_create_identity(tmp_path)
    assert again.public_key == identity.public_key and len(identity.public_key) == 32
    assert again.fingerprint == identity.fingerprint


def test_default_state_dir_is_the_user_data_folder(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_state_dir() == tmp_path / "wec"
    assert identity_path() == tmp_path / "wec" / "identity" / "ed25519.pem"
    identity = load_or_create_identity()
    assert load_or_create_identity(tmp_path / "wec").public_key == identity.public_key


def test_key_file_readable_by_others_is_refused(tmp_path: Path) -> None:
    load_or_create_identity(tmp_path)
    key_file = identity_path(tmp_path)
    os.chmod(key_file, 0o644)
    with pytest.raises(IdentityError) as caught:
        load_or_create_identity(tmp_path)
    assert str(caught.value) == (
        f"the identity key file {key_file} is accessible to other users (mode 0644); anyone "
        f"who copies the key can impersonate you. Fix it with: chmod 600 {key_file}")
    os.chmod(key_file, 0o600)
    assert load_or_create_identity(tmp_path).public_key  # usable again once fixed


def test_identity_folder_open_to_others_is_refused(tmp_path: Path) -> None:
    load_or_create_identity(tmp_path)
    folder = tmp_path / "identity"
    os.chmod(folder, 0o750)
    with pytest.raises(IdentityError, match=r"identity folder .* \(mode 0750\).*chmod 700"):
        load_or_create_identity(tmp_path)


def test_damaged_or_foreign_key_files_are_refused(tmp_path: Path) -> None:
    load_or_create_identity(tmp_path)
    key_file = identity_path(tmp_path)
    key_file.write_bytes(b"not a key")
    with pytest.raises(IdentityError, match="is not a valid key"):
        load_or_create_identity(tmp_path)
    other = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption())
    key_file.write_bytes(other)
    with pytest.raises(IdentityError) as caught:
        load_or_create_identity(tmp_path)
    assert str(caught.value) == (f"the identity key file {key_file} holds another kind of "
                                 "key, not an Ed25519 key; move it away to create a new "
                                 "identity")
    assert key_file.read_bytes() == other  # never overwritten


def test_fingerprint_is_grouped_base32_of_sha256() -> None:
    assert fingerprint(KEY_C) == "MZUH-VLPY-MK6X-O3EP-YGFY"
    assert fingerprint(KEY_A) == "MMG4-2KLG-YQZW-NEIS-KREL"


def test_signatures_verify_only_for_the_signed_data_and_key() -> None:
    identity, other = Identity.generate(), Identity.generate()
    signature = identity.sign(b"move e2 e4")
    assert verify_signature(identity.public_key, signature, b"move e2 e4")
    assert not verify_signature(identity.public_key, signature, b"move e2 e5")
    assert not verify_signature(other.public_key, signature, b"move e2 e4")
    assert not verify_signature(identity.public_key, signature[:-1], b"move e2 e4")
    assert not verify_signature(b"short", signature, b"move e2 e4")
    assert repr(identity) == f"Identity(fingerprint={identity.fingerprint!r})"


def test_display_names() -> None:
    assert display_name_problem("Alice") is None
    assert display_name_problem("Ünïcode 名前") is None
    assert display_name_problem("") == "a display name has 1 to 64 characters (got 0)"
    assert display_name_problem("x" * 65) == "a display name has 1 to 64 characters (got 65)"
    assert display_name_problem("a\nb") == "a display name has no control characters " \
                                          "(got 'a\\nb')"
    assert display_name_problem(" Alice") == "a display name does not start or end with " \
                                             "spaces (got ' Alice')"
    assert display_name_problem(5) == "a display name is text (got int)"


# ---------------------------------------------------------------- SAS


def test_short_authentication_string_known_values() -> None:
    assert short_authentication_string(KEY_C, KEY_C, KEY_A) == "148862"
    # swapping roles or changing the transcript gives other digits
    assert short_authentication_string(KEY_C, KEY_A, KEY_C) == "849690"
    assert short_authentication_string(b"\x01" + bytes(31), KEY_C, KEY_A) == "881883"
    assert format_sas("012345") == "012 345"


# ---------------------------------------------------------------- pinned peers


def test_pin_then_recognise_the_same_key(tmp_path: Path, permissive_umask: None) -> None:
    store = PeerStore(tmp_path)
    assert store.peers() == [] and store.check("Bob", KEY_A) is PinStatus.NEW
    pinned = store.pin("Bob", KEY_A)
    assert (pinned.name, pinned.public_key, pinned.fingerprint) == (
        "Bob", KEY_A, "MMG4-2KLG-YQZW-NEIS-KREL")
    assert store.check("Bob", KEY_A) is PinStatus.PINNED
    assert PeerStore(tmp_path).get("Bob") == pinned  # read back from the file
    assert store.pin("Bob", KEY_A) == pinned  # pinning again changes nothing
    assert store.name_for_key(KEY_A) == "Bob" and store.name_for_key(KEY_B) is None

    path = tmp_path / "pinned_peers.json"
    assert mode(path) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pinned_peers.json"]  # no temp
    data = json.loads(path.read_text())
    assert data == {"format": "wec-pinned-peers/2", "peers": [{
        "public_key": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
        "fingerprint": "MMG4-2KLG-YQZW-NEIS-KREL", "name": "Bob", "former_names": [],
        "pinned_at": pinned.pinned_at}]}


def test_a_known_key_under_a_new_name_is_recognised_and_renamed(tmp_path: Path) -> None:
    """Issue 20 hole 11: pins are kept by key; the same key under a new name is the same
    peer (no new pairing code), and the new name is noted with the old one kept."""
    store = PeerStore(tmp_path)
    first = store.pin("Bob", KEY_A)
    assert store.check("Robert", KEY_A) is PinStatus.RENAMED
    assert PinStatus.RENAMED.pinned and PinStatus.PINNED.pinned and not PinStatus.NEW.pinned
    renamed = store.pin("Robert", KEY_A)
    assert (renamed.name, renamed.former_names, renamed.pinned_at) == (
        "Robert", ("Bob",), first.pinned_at)
    assert store.check("Robert", KEY_A) is PinStatus.PINNED
    assert store.get("Bob") is None and store.by_key(KEY_A) == renamed
    assert [p.name for p in store.peers()] == ["Robert"]
    # the old name is free again; another key under the new name is still an impostor
    assert store.check("Bob", KEY_B) is PinStatus.NEW
    with pytest.raises(PeerKeyChanged):
        store.check("Robert", KEY_B)
    # a known key presenting another pinned peer's name is refused loudly too
    store.pin("Carol", KEY_C)
    with pytest.raises(PeerKeyChanged) as caught:
        store.check("Carol", KEY_A)
    assert caught.value.pinned_fingerprint == fingerprint(KEY_C)


def test_a_version_1_pins_file_is_converted_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "pinned_peers.json"
    old = {"format": "wec-pinned-peers/1", "peers": [
        {"name": "Bob", "public_key": base64.b64encode(KEY_A).decode(),
         "fingerprint": fingerprint(KEY_A), "pinned_at": "2024-01-01T00:00:00+00:00"},
        {"name": "Bobby", "public_key": base64.b64encode(KEY_A).decode(),
         "fingerprint": fingerprint(KEY_A), "pinned_at": "2024-02-01T00:00:00+00:00"},
        {"name": "Carol", "public_key": base64.b64encode(KEY_C).decode(),
         "fingerprint": fingerprint(KEY_C), "pinned_at": "2024-03-01T00:00:00+00:00"}]}
    text = json.dumps(old)
    path.write_text(text)
    store = PeerStore(tmp_path)
    assert store.check("Bob", KEY_A) is PinStatus.PINNED
    assert store.check("Bobby", KEY_A) is PinStatus.RENAMED  # one key, one peer
    assert [(p.name, p.former_names) for p in store.peers()] == [("Bob", ("Bobby",)),
                                                                  ("Carol", ())]
    assert json.loads(path.read_text())["format"] == "wec-pinned-peers/2"
    assert (tmp_path / "pinned_peers.json.v1").read_text() == text  # the old file, kept
    assert mode(path) == 0o600


def test_a_damaged_or_newer_pins_file_is_named_with_its_repair(tmp_path: Path) -> None:
    path = tmp_path / "pinned_peers.json"
    store = PeerStore(tmp_path)
    entry = {"name": "Bob", "public_key": base64.b64encode(KEY_A).decode(),
             "pinned_at": "2024-01-01T00:00:00+00:00"}
    path.write_text(json.dumps({"format": "wec-pinned-peers/2",
                                "peers": [entry, {**entry, "name": "Ann"}]}))
    with pytest.raises(PinStoreError) as twice:
        store.peers()
    assert str(twice.value) == (
        f"the pinned peers file {path} is malformed: peers[1]: the key "
        f"{fingerprint(KEY_A)} is pinned twice; fix the file or remove it (removing "
        "forgets every pairing: each peer then shows a pairing code again)")
    path.write_text(json.dumps({"format": "wec-pinned-peers/9", "peers": []}))
    with pytest.raises(PinStoreError, match="has the format 'wec-pinned-peers/9', written "
                                            "by a newer wec"):
        store.check("Bob", KEY_A)
    path.write_text(json.dumps({"format": "wec-pinned-peers/2",
                                "peers": [{**entry, "former_names": "Bo"}]}))
    with pytest.raises(PinStoreError, match=r"former_names must be a list"):
        store.peers()


def test_changed_key_for_a_known_name_is_refused_loudly(tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture
                                                        ) -> None:
    store = PeerStore(tmp_path)
    store.pin("Bob", KEY_A)
    with pytest.raises(PeerKeyChanged) as caught:
        store.check("Bob", KEY_B)
    error = caught.value
    assert (error.name, error.pinned_fingerprint) == ("Bob", fingerprint(KEY_A))
    assert error.presented_fingerprint == fingerprint(KEY_B)
    assert str(error) == (
        "WARNING: THE IDENTITY KEY OF PEER 'Bob' HAS CHANGED. Pinned fingerprint "
        f"{fingerprint(KEY_A)}, presented fingerprint {fingerprint(KEY_B)}. Someone may be "
        "impersonating 'Bob'; the connection is refused. If 'Bob' really reinstalled wec, "
        "remove the pin for that name and pair again.")
    assert any(r.levelname == "ERROR" and "HAS CHANGED" in r.getMessage()
               for r in caplog.records)
    with pytest.raises(PeerKeyChanged):
        store.pin("Bob", KEY_B)
    assert store.get("Bob") is not None and store.get("Bob").public_key == KEY_A  # type: ignore[union-attr]
    # only the player's explicit decision replaces a pin
    assert store.forget("Bob") is True and store.forget("Bob") is False
    assert store.check("Bob", KEY_B) is PinStatus.NEW
    store.pin("Bob", KEY_B)
    store.pin("Carol", KEY_C)
    assert [p.name for p in store.peers()] == ["Bob", "Carol"]


def test_malformed_store_is_an_error_not_a_reset(tmp_path: Path) -> None:
    path = tmp_path / "pinned_peers.json"
    path.write_text("{broken")
    store = PeerStore(tmp_path)
    with pytest.raises(PinStoreError, match="is not valid JSON"):
        store.check("Bob", KEY_A)
    with pytest.raises(PinStoreError):
        store.pin("Bob", KEY_A)
    assert path.read_text() == "{broken"
    entry = {"name": "Bob", "public_key": "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
             "pinned_at": "2024-01-01T00:00:00+00:00"}
    path.write_text(json.dumps({"format": "wec-pinned-peers/1", "peers": [entry, entry]}))
    with pytest.raises(PinStoreError) as twice:
        store.peers()
    assert str(twice.value).startswith(f"the pinned peers file {path} is malformed: "
                                       "peers[1]: the name 'Bob' is pinned twice; fix the "
                                       "file or remove it")
    path.write_text(json.dumps({"format": "wec-pinned-peers/1",
                                "peers": [{**entry, "public_key": "AAEC"}]}))
    with pytest.raises(PinStoreError, match=r"peers\[0\].public_key must be 32 bytes"):
        store.peers()


def test_invalid_pins_are_refused(tmp_path: Path) -> None:
    store = PeerStore(tmp_path)
    with pytest.raises(ValueError, match="1 to 64 characters"):
        store.pin("", KEY_A)
    with pytest.raises(ValueError, match="32 bytes"):
        store.pin("Bob", b"short")
    assert not (tmp_path / "pinned_peers.json").exists()


def test_a_display_name_that_would_not_fit_a_discovery_record_is_refused():
    """64 four-byte characters are 256 bytes: more than one TXT string (net.discovery)."""
    from wec.net.identity import display_name_problem

    assert display_name_problem("\U0001F680" * 50) is None  # exactly 200 bytes
    assert display_name_problem("\U0001F680" * 51) == (
        "a display name takes at most 200 bytes in UTF-8 (got 204; emoji and accented "
        "letters take 2 to 4)")
    assert display_name_problem("Ana's laptop") is None
