"""Credentials never reach a file: what every written config, summary and report goes through.

A config may carry an API key (``[llm] api_key = "..."``, ``[vqa] api_key``), HTTP headers, or a
base URL with a token in it (``https://user:secret@host/v1?api_key=...``). :func:`redact` returns a
copy of any JSON-like value in which

* every field whose name is a credential (:data:`SECRET_FIELDS`, or ending in ``_key``, ``_token``,
  ``_secret``, ``_password``, ``_headers``) holds :data:`SET` when it was set (and stays empty when
  it was not), so a reader learns *that* a key was set, never its value;
* every URL (a string that is one ``scheme://...``) loses its password and the values of query parameters named
  like credentials.

The configuration hash still covers the real values (it is computed from the config, not from
what is written), so resuming checks the same settings.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

SET = "<set; not written>"
SET_IN_URL = "REDACTED"  # the same inside a URL, where spaces and brackets would be escaped
SECRET_FIELDS = frozenset({
    "api_key", "apikey", "key", "token", "secret", "password", "passwd", "authorization", "auth", "cookie",
    "cookies", "headers", "credentials", "access_token", "refresh_token", "client_secret", "bearer",
})
_SECRET_SUFFIXES = ("_key", "_token", "_secret", "_password", "_headers", "_credentials")
_QUERY_SECRETS = re.compile(r"(key|token|secret|password|passwd|sig|signature|auth|credential)", re.IGNORECASE)
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")


def is_secret_field(name: str) -> bool:
    """True for a field name that holds a credential (``api_key``, ``headers``, ``hf_token`` ...)."""
    low = name.lower()
    return low in SECRET_FIELDS or low.endswith(_SECRET_SUFFIXES)


def redact_url(text: str) -> str:
    """``text``, when it is a URL, with its password and credential-like query values replaced by :data:`SET_IN_URL`.

    Any other text (a prompt, a path) is returned as it is.
    """
    if not _URL.fullmatch(text):
        return text
    try:
        parts = urlsplit(text)
    except ValueError:
        return SET
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        user = userinfo.split(":", 1)[0]
        netloc = f"{user}:{SET_IN_URL}@{host}" if ":" in userinfo else f"{SET_IN_URL}@{host}"
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, SET_IN_URL if _QUERY_SECRETS.search(k) else v) for k, v in pairs])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def redact(value: Any) -> Any:
    """A copy of ``value`` (dicts, lists, strings, numbers) with every credential replaced (module docstring)."""
    if isinstance(value, dict):
        out: dict[Any, Any] = {}
        for k, v in value.items():
            if isinstance(k, str) and is_secret_field(k) and not isinstance(v, (bool, int, float)):
                out[k] = SET if v else v
            else:
                out[k] = redact(v)
        return out
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_url(value)
    return value


def public_config(config: Any) -> dict[str, Any]:
    """``config.to_dict()`` as it may be written to a file (see :func:`redact`)."""
    return redact(config.to_dict())


__all__ = ["SET", "SET_IN_URL", "SECRET_FIELDS", "is_secret_field", "public_config", "redact", "redact_url"]
