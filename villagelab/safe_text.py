"""Text that is safe to show or store: credentials masked, control characters escaped.

Credentials never leave the process: what is shown, logged, tagged or written is redacted.

A user hands villagelab locations that may carry secrets — `s3://KEY:SECRET@bucket/…`,
`postgresql://user:password@host/db`, `http://user:token@mlflow…`, `?secret_key=…`. Workers and
clients need the real location; every person-facing or persisted copy gets `redact(uri)`, and
any free text (an error message, a log line, a tag) passes through `scrub(text)`, which masks
credentials in URIs it finds and every secret `remember` was told about (an error from a
storage library may quote a key outside any URI).
"""

from __future__ import annotations

import re
import urllib.parse

MASK = "***"

# object stores put the access key id where a user name goes: it is half of the credential
_KEY_AS_USER = ("s3", "gs", "gcs", "abfs", "abfss", "az", "adl", "wasb", "wasbs", "oss", "r2")
_CREDENTIAL_PARAM = re.compile(r"key|secret|token|passw|pwd|sig|credential|auth", re.IGNORECASE)
# scheme://userinfo@ inside any text; userinfo stops at the first '/', space, quote or '@'
_USERINFO = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://(?P<user>[^/\s:@'\"<>]*)"
    r"(?::(?P<password>[^/\s@'\"<>]*))?@"
)
_PARAM = re.compile(r"(?P<name>[?&;][^=&\s#'\"<>]+)=(?P<value>[^&\s#'\"<>]*)")
# parameters whose name looks like a credential's but is not one: the MLflow UI's shared view
# is named by `viewStateShareKey`, a public label (`villagelab ui` prints it)
_PUBLIC_PARAMS = frozenset({"viewstatesharekey"})

_remembered: set[str] = set()

# C0 and C1 controls except newline and tab; zero-width and bidi overrides (they reorder text)
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")


def _mask_userinfo(match: re.Match[str]) -> str:
    scheme, user, password = match["scheme"], match["user"], match["password"]
    if scheme.lower() in _KEY_AS_USER and user:
        user = MASK
    if password is not None:
        return f"{scheme}://{user}:{MASK}@"
    return f"{scheme}://{user}@"


def _mask_param(match: re.Match[str]) -> str:
    if match["name"][1:].lower() in _PUBLIC_PARAMS:
        return match[0]
    if _CREDENTIAL_PARAM.search(match["name"]) and match["value"]:
        return f"{match['name']}={MASK}"
    return match[0]


def redact(uri: str) -> str:
    """The location with its credentials masked (user names of databases and servers kept,
    an object store's access key masked like its secret)."""
    return _PARAM.sub(_mask_param, _USERINFO.sub(_mask_userinfo, uri))


def secrets_in(uri: str) -> set[str]:
    """The credential strings a location carries (raw and percent-decoded)."""
    found: set[str] = set()
    for match in _USERINFO.finditer(uri):
        if match["password"]:
            found.add(match["password"])
        if match["user"] and match["scheme"].lower() in _KEY_AS_USER:
            found.add(match["user"])
    for match in _PARAM.finditer(uri):
        if _CREDENTIAL_PARAM.search(match["name"]) and match["value"]:
            found.add(match["value"])
    return found | {urllib.parse.unquote(s) for s in found}


def remember(uri: str | None) -> str | None:
    """Note the secrets a user-given location carries, so `scrub` masks them wherever they
    turn up; returns the location unchanged (for use in option callbacks)."""
    if uri:
        # short strings would mask ordinary words; real credentials are longer
        _remembered.update(s for s in secrets_in(uri) if len(s) >= 4)
    return uri


def scrub(text: str) -> str:
    """Free text with every credential masked: in URIs, and every remembered secret."""
    text = redact(text)
    for secret in sorted(_remembered, key=len, reverse=True):  # longest first: no partial masks
        text = text.replace(secret, MASK)
    return text


def _escape(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """Safe for a terminal: credentials masked, and every control or reordering character
    shown as an escape (a name from a file could otherwise clear the screen or fake a link)."""
    return _UNSAFE.sub(_escape, scrub(str(text)))


__all__ = ["MASK", "printable", "redact", "remember", "scrub", "secrets_in"]
