"""Account secrets and names: usernames checked, passwords hashed with Argon2
(argon2-cffi, imported on first use), bot tokens made and hashed.

A bot token is 128 random bits, so a fast hash (SHA-256) is enough to store
it: there is nothing to guess. A password is a person's choice and gets the
slow, salted Argon2id hash.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import TYPE_CHECKING

from .records import StoreError

if TYPE_CHECKING:
    from argon2 import PasswordHasher

USERNAME_MIN, USERNAME_MAX = 2, 20
PASSWORD_MIN, PASSWORD_MAX = 8, 256
_USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
#: Names that would read as the server's own words in the lobby.
RESERVED = frozenset({"admin", "computer", "guest", "server", "nobody"})


def check_username(name: str) -> str:
    """``name`` if it is a valid username, else ``StoreError`` saying why: 2–20
    ASCII letters, digits and ``. - _``, starting with a letter or digit."""
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise StoreError(
            f"a username has {USERNAME_MIN} to {USERNAME_MAX} characters, "
            f"not {len(name)}: {name[:40]!r}"
        )
    if not _USERNAME.fullmatch(name):
        raise StoreError(
            f"a username is letters, digits and . - _ (starting with a letter or digit): {name!r}"
        )
    if name.lower() in RESERVED:
        raise StoreError(f"the username {name!r} is reserved")
    return name


def check_password(password: str) -> str:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise StoreError(f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")
    return password


_HASHER: PasswordHasher | None = None


def _hasher() -> PasswordHasher:
    global _HASHER
    if _HASHER is None:
        from argon2 import PasswordHasher

        _HASHER = PasswordHasher()
    return _HASHER


def hash_password(password: str) -> str:
    """The Argon2id hash of ``password`` (salt and parameters included)."""
    return _hasher().hash(check_password(password))


def verify_password(stored: str, password: str) -> bool:
    """Whether ``password`` matches the ``stored`` Argon2 hash."""
    from argon2.exceptions import InvalidHashError, VerificationError

    try:
        return _hasher().verify(stored, password)
    except (VerificationError, InvalidHashError):
        return False


def verify_nothing(password: str) -> None:
    """Spends the time a password check takes, for a name with no password, so
    that how long a login takes does not tell which names exist."""
    global _DUMMY
    if _DUMMY is None:
        _DUMMY = _hasher().hash("no such account")
    verify_password(_DUMMY, password)


_DUMMY: str | None = None


def needs_rehash(stored: str) -> bool:
    """Whether ``stored`` was made with weaker parameters than today's."""
    return _hasher().check_needs_rehash(stored)


def new_token() -> str:
    """A new bot token: 128 random bits as 32 hex digits."""
    return secrets.token_hex(16)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(stored: str, token: str) -> bool:
    return hmac.compare_digest(stored, hash_token(token))
