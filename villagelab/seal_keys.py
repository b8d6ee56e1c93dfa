"""The key a run folder's manifest is sealed with: kept outside every run folder, in the user's
state directory (`VILLAGELAB_SEAL_KEYS`, default ~/.local/state/villagelab/keys, mode 0700),
and named in the manifest by its id only.

A plain checksum can be recomputed by whoever edits a folder; an HMAC under a key the folder
does not hold cannot. Each key is a file `<id>.key` (32 random bytes, hex, mode 0600); `current`
names the one new manifests are sealed with, made on first use. Verifying a folder sealed
elsewhere needs that machine's key file copied into this folder (its id says which).
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from villagelab.files import state_dir

from .yamlsource import InputError

_ID = 16  # hex digits of a key's id: the start of its SHA-256


class UnknownKey(LookupError):
    """A key id with no key file here."""


def keys_dir() -> Path:
    return state_dir("keys", "VILLAGELAB_SEAL_KEYS")


def _key_id(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()[:_ID]


def _read(path: Path) -> bytes:
    return bytes.fromhex(path.read_text(encoding="ascii").strip())


def current() -> tuple[str, bytes]:
    """(id, key) that new seals use; made (race-free: the first writer wins) when none is.
    A key folder that cannot be written is the user's setup to fix (InputError, before a run
    writes anything: its first manifest is sealed before any episode runs)."""
    try:
        return _current()
    except OSError as exc:
        raise InputError(
            f"{keys_dir()}: cannot keep the run folders' seal key there ({exc.strerror or exc}); "
            "set VILLAGELAB_SEAL_KEYS to a private folder you can write"
        ) from None


def _current() -> tuple[str, bytes]:
    folder = keys_dir()
    pointer = folder / "current"
    with contextlib.suppress(FileNotFoundError, ValueError):
        kid = pointer.read_text(encoding="ascii").strip()
        return kid, key(kid)
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    made = secrets.token_bytes(32)
    kid = _key_id(made)
    fd = os.open(folder / f"{kid}.key", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="ascii") as fh:
        fh.write(made.hex() + "\n")
        fh.flush()
        os.fsync(fh.fileno())
    tmp = folder / f".current.{secrets.token_hex(6)}"
    tmp.write_text(kid + "\n", encoding="ascii")
    try:
        os.link(tmp, pointer)  # fails if another process made one first: use that one
    except FileExistsError:
        pass
    finally:
        tmp.unlink(missing_ok=True)
    kid = pointer.read_text(encoding="ascii").strip()
    return kid, key(kid)


def key(kid: str) -> bytes:
    """The key with this id (UnknownKey when this machine holds none by that id)."""
    if not (len(kid) == _ID and all(c in "0123456789abcdef" for c in kid)):
        raise UnknownKey(kid)
    try:
        found = _read(keys_dir() / f"{kid}.key")
    except (OSError, ValueError):
        raise UnknownKey(kid) from None
    if _key_id(found) != kid:
        raise UnknownKey(kid)
    return found


def mac(kid: str, message: bytes) -> str:
    return hmac.new(key(kid), message, hashlib.sha256).hexdigest()


def matches(kid: str, message: bytes, given: str) -> bool:
    return hmac.compare_digest(mac(kid, message), str(given))
