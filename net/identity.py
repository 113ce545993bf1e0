"""Each installation's long-term Ed25519 identity key.

The key lives in ``<state dir>/identity/ed25519.pem`` where the state dir is
``platformdirs.user_data_dir("wec")`` unless a caller (``wec peer --state-dir``, tests)
passes another one. It is created on first use with owner-only permissions (file 0600,
folder 0700); an existing key file that other users can read, or that belongs to someone
else, is refused with a message that says how to fix it, because a copied key lets an
impostor pass as this player forever.

Peers recognise each other by the public key; people compare the *fingerprint*, a short
base32 rendering of SHA-256 of the public key, in groups of four.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

import platformdirs
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from wec.net.errors import IdentityError
from wec.storage.files import PRIVATE_MODE, write_atomically

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64
IDENTITY_FOLDER = "identity"
KEY_FILE_NAME = "ed25519.pem"
MAX_NAME_LENGTH = 64
MAX_NAME_BYTES = 200  # UTF-8 bytes: fits one TXT string with its "name=" key (net.discovery)
FINGERPRINT_GROUPS = 5  # 5 groups of 4 base32 characters = 100 bits
_CHECK_PERMISSIONS = os.name == "posix"


def default_state_dir() -> Path:
    """The per-user folder where wec keeps its identity and pinned peers."""
    return Path(platformdirs.user_data_dir("wec"))


def fingerprint(public_key: bytes) -> str:
    """Human-comparable fingerprint of an identity public key, e.g. ``ABCD-EFGH-...``
    (base32 of SHA-256, 20 characters in 5 groups)."""
    digest = base64.b32encode(hashlib.sha256(public_key).digest()).decode("ascii")
    chars = digest[:4 * FINGERPRINT_GROUPS]
    return "-".join(chars[i:i + 4] for i in range(0, len(chars), 4))


def verify_signature(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """True when ``signature`` is ``public_key``'s Ed25519 signature of ``data``.
    Never raises on malformed keys or signatures (they simply do not verify)."""
    if len(public_key) != PUBLIC_KEY_SIZE or len(signature) != SIGNATURE_SIZE:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


@dataclass(frozen=True)
class Identity:
    """An Ed25519 key pair; ``public_key`` is the raw 32 bytes peers pin."""

    private_key: Ed25519PrivateKey
    public_key: bytes

    @classmethod
    def generate(cls) -> Identity:
        """A fresh identity kept only in memory (tests, benchmarks)."""
        return cls.from_private_key(Ed25519PrivateKey.generate())

    @classmethod
    def from_private_key(cls, private_key: Ed25519PrivateKey) -> Identity:
        public = private_key.public_key().public_bytes(
            serialization.Encoding.Raw, serialization.PublicFormat.Raw)
        return cls(private_key, public)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def sign(self, data: bytes) -> bytes:
        return self.private_key.sign(data)

    def __repr__(self) -> str:  # never print key material
        return f"Identity(fingerprint={self.fingerprint!r})"


def display_name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a player's display name (None when it can): 1 to
    MAX_NAME_LENGTH characters and at most MAX_NAME_BYTES in UTF-8 (a discovery TXT
    string holds 255 bytes, the name's key included), no control characters, no
    leading or trailing spaces."""
    if not isinstance(name, str):
        return f"a display name is text (got {type(name).__name__})"
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        return f"a display name has 1 to {MAX_NAME_LENGTH} characters (got {len(name)})"
    if len(name.encode("utf-8")) > MAX_NAME_BYTES:
        return (f"a display name takes at most {MAX_NAME_BYTES} bytes in UTF-8 (got "
                f"{len(name.encode('utf-8'))}; emoji and accented letters take 2 to 4)")
    if not name.isprintable():
        return f"a display name has no control characters (got {name!r})"
    if name != name.strip():
        return f"a display name does not start or end with spaces (got {name!r})"
    return None


def identity_path(state_dir: Path | None = None) -> Path:
    """Where the identity key file lives for ``state_dir`` (default: the user data folder)."""
    return (state_dir if state_dir is not None else default_state_dir()) / IDENTITY_FOLDER \
        / KEY_FILE_NAME


def load_or_create_identity(state_dir: Path | None = None) -> Identity:
    """This installation's identity: read it, or create it on first use.

    Raises IdentityError when the existing key file or its folder is accessible to other
    users, owned by someone else, or not a valid Ed25519 private key.
    """
    path = identity_path(state_dir)
    _ensure_private_folder(path.parent)
    if not path.exists():
        _create_key_file(path)
    return _read_key_file(path)


def _ensure_private_folder(folder: Path) -> None:
    if not folder.exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        folder.mkdir(mode=0o700)
        os.chmod(folder, 0o700)  # mkdir's mode is filtered by the umask
    if not folder.is_dir():
        raise IdentityError(f"{folder} should be a folder for the identity key")
    _check_private(folder, "identity folder", 0o700)


def _check_private(path: Path, what: str, wanted_mode: int) -> None:
    if not _CHECK_PERMISSIONS:
        return
    info = path.stat()
    if info.st_uid != os.getuid():
        raise IdentityError(f"the {what} {path} belongs to user id {info.st_uid}, not to you "
                            f"(user id {os.getuid()}); refusing to use it")
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o077:
        raise IdentityError(f"the {what} {path} is accessible to other users (mode "
                            f"{mode:04o}); anyone who copies the key can impersonate you. "
                            f"Fix it with: chmod {wanted_mode:o} {path}")


def _create_key_file(path: Path) -> None:
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    # never replaces a key another process created meanwhile
    with contextlib.suppress(FileExistsError):
        write_atomically(path, pem, mode=PRIVATE_MODE, replace=False)


def _read_key_file(path: Path) -> Identity:
    _check_private(path, "identity key file", 0o600)
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (ValueError, TypeError) as exc:
        raise IdentityError(f"the identity key file {path} is not a valid key ({exc}); move "
                            "it away to create a new identity (peers will then have to pair "
                            "with you again)") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise IdentityError(f"the identity key file {path} holds another kind of key, not "
                            "an Ed25519 key; move it away to create a new identity")
    return Identity.from_private_key(key)
