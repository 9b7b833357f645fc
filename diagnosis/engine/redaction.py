"""Secrets out of what a span stores: tool arguments, results, headers and error texts.

Best effort that errs on the side of hiding: a false positive costs a few characters of context,
a false negative puts a credential into the trace, the report and an LLM prompt. Every text
pattern does bounded work per position (bounded, possessive repeats; key names tested in Python),
so redacting a string stays linear in its length.
"""

import math
import re
from collections.abc import Mapping
from typing import Any

MASK = "***"
MAX_DEPTH = 64
DEEPER = "…"

# Compared against a key with case and every non-alphanumeric character removed.
_SECRET_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "privatekey",
    "authkey",
    "credential",
    "authorization",
    "cookie",
    "sessionid",
    "signature",
)
# Keys that name a secret but hold none: max_tokens, token_type, secret_name, password_file.
_HARMLESS_SUFFIXES = (
    "tokens",
    "count",
    "limit",
    "length",
    "type",
    "ttl",
    "expiry",
    "expires",
    "expiresat",
    "expiresin",
    "name",
    "path",
    "file",
    "url",
    "uri",
)
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def is_secret_key(name: str) -> bool:
    """Whether a key, header or variable name says its value is a secret."""
    key = _NON_ALNUM.sub("", name[:200].lower())
    return any(word in key for word in _SECRET_WORDS) and not key.endswith(
        _HARMLESS_SUFFIXES
    )


# key=value, key: value, "key": "value", Header: value. The scan starts at a secret word (a
# literal, so no variable prefix is retried at every position); the whole key is then read
# backwards in Python and tested by is_secret_key, the one owner of the key rule.
_KEY_WORD = re.compile(
    r"(?:password|passwd|passphrase|secret|token|api[_-]?key|access[_-]?key|private[_-]?key"
    r"|auth[_-]?key|credential|authorization|cookie|session[_ -]?id|signature)"
    r"[\w.-]{0,64}+(?P<sep>[\"']?[ \t]{0,8}+[=:][ \t]{0,8}+)",
    re.IGNORECASE,
)
_VALUE = re.compile(
    r"(?:(?:Bearer|Basic|Token|Digest|Negotiate|AWS4-HMAC-SHA256)[ \t]{1,8}+)?"
    r"(?:\"(?:[^\"\\]|\\.){0,4096}+\"|'[^']{0,4096}+'|[^\s,;&\"'<>(){}\[\]]{1,4096}+)",
    re.IGNORECASE,
)
_KEY_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
)


def _mask_pairs(text: str) -> str:
    # A manual scan rather than re.sub, so that a harmless key (token_type=…) consumes nothing
    # and "secret_name: password=hunter2" still loses the password. The value is matched only
    # after a secret key, and then consumed: the work stays linear.
    out: list[str] = []
    pos = 0
    while (match := _KEY_WORD.search(text, pos)) is not None:
        start, lower = match.start(), max(0, match.start() - 64)
        while start > lower and text[start - 1] in _KEY_CHARS:
            start -= 1
        value = None
        if is_secret_key(text[start : match.start("sep")]):
            value = _VALUE.match(text, match.end())
        if value is None:
            out.append(text[pos : match.end()])
            pos = match.end()
            continue
        quote = value.group(0)[0] if value.group(0)[0] in "\"'" else ""
        out.append(f"{text[pos : match.end()]}{quote}{MASK}{quote}")
        pos = value.end()
    out.append(text[pos:])
    return "".join(out)


def _mask_scheme(match: re.Match[str]) -> str:
    # Outside a header, only a credential-looking word after the scheme: a digit, a symbol or
    # two capitals, so that "Basic authentication" stays prose; "=" inside (not base64's
    # padding) is the next key=value pair, as in "token_type=Bearer expires_in=3600".
    credential = match.group("credential")
    if "=" in credential.rstrip("="):
        return match.group(0)
    if any(c.isdigit() or c in "._~+/=-" for c in credential) or (
        sum(c.isupper() for c in credential) >= 2
    ):
        return f"{match.group('head')}{MASK}"
    return match.group(0)


# PEM private keys go first: their base64 body would otherwise be half-masked by later rules.
_PEM = re.compile(
    r"-----BEGIN (?P<kind>[A-Z0-9 ]{0,40})PRIVATE KEY-----(?:[^-]|-(?!----END))*+"
    r"(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY-----)?"
)
_SCHEME = re.compile(
    r"\b(?P<head>(?:Bearer|Basic|Token|Digest)[ \t]{1,8}+)(?P<credential>[A-Za-z0-9._~+/=-]{8,}+)",
    re.IGNORECASE,
)
_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    # scheme://user:password@host
    (
        re.compile(
            r"\b(?P<head>[a-z][a-z0-9+.-]{0,30}+://[^\s:/@]{0,256}+:)[^\s/@]{1,256}+@",
            re.IGNORECASE,
        ),
        rf"\g<head>{MASK}@",
    ),
    # Token shapes that need no telling key; the prefix stays to say what kind was there.
    (
        re.compile(r"\b(?P<head>A(?:KIA|SIA|BIA|CCA))[0-9A-Z]{16}(?![0-9A-Za-z])"),
        rf"\g<head>{MASK}",
    ),
    (
        re.compile(r"\b(?P<head>eyJ)[\w-]{8,}+\.eyJ[\w-]{8,}+\.[\w-]*+"),
        rf"\g<head>{MASK}",
    ),
    (
        re.compile(r"\b(?P<head>gh[pousr]_|github_pat_)[A-Za-z0-9_]{30,}+"),
        rf"\g<head>{MASK}",
    ),
    (
        re.compile(r"\b(?P<head>gl(?:pat|dt|rt|ptt|soat)-)[\w-]{20,}+"),
        rf"\g<head>{MASK}",
    ),
    (re.compile(r"\b(?P<head>xox[abposre]-)[A-Za-z0-9-]{10,}+"), rf"\g<head>{MASK}"),
    (
        re.compile(r"\b(?P<head>(?:sk|rk)_(?:live|test)_|whsec_)[A-Za-z0-9]{16,}+"),
        rf"\g<head>{MASK}",
    ),
    (re.compile(r"\b(?P<head>sk-)[\w-]{20,}+"), rf"\g<head>{MASK}"),
    (
        re.compile(r"\b(?P<head>AIza)[\w-]{35}(?![\w-])"),
        rf"\g<head>{MASK}",
    ),
)


def redact_text(text: str) -> str:
    """`text` with credentials, tokens, keys and passwords replaced by `***`."""
    text = _PEM.sub(
        rf"-----BEGIN \g<kind>PRIVATE KEY-----{MASK}-----END \g<kind>PRIVATE KEY-----",
        text,
    )
    text = _SCHEME.sub(_mask_scheme, _mask_pairs(text))
    for pattern, replacement in _SHAPES:
        text = pattern.sub(replacement, text)
    return text


def redact(value: Any) -> Any:
    """A JSON copy of `value` with secrets replaced by `***`.

    Values under secret keys (also `[name, value]` pairs and `{"name"/"key": …, "value": …}`
    entries, as in header lists and Kubernetes env) are masked whole; every string is run
    through `redact_text`. Anything JSON cannot hold becomes a string; nesting deeper than
    `MAX_DEPTH` (or a container inside itself) becomes `…`.
    """
    return _redact(value, 0, frozenset())


def _redact(value: Any, depth: int, path: frozenset[int]) -> Any:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, bytes | bytearray):
        return redact_text(bytes(value).decode("utf-8", "replace"))
    if not isinstance(value, Mapping | list | tuple):
        return redact_text(str(value))
    if depth >= MAX_DEPTH or id(value) in path:
        return DEEPER
    inner = path | {id(value)}
    if isinstance(value, Mapping):
        return _redact_mapping(value, depth, inner)
    if (
        len(value) == 2
        and isinstance(value[0], str)
        and isinstance(value[1], str)
        and is_secret_key(value[0])
    ):
        return [redact_text(value[0]), MASK]
    return [_redact(item, depth + 1, inner) for item in value]


def _redact_mapping(
    value: Mapping[Any, Any], depth: int, path: frozenset[int]
) -> dict[str, Any]:
    named = next(
        (
            v
            for k, v in value.items()
            if isinstance(k, str) and k.lower() in {"name", "key"}
        ),
        None,
    )
    secret_entry = isinstance(named, str) and is_secret_key(named)
    out: dict[str, Any] = {}
    for key, item in value.items():
        name = key if isinstance(key, str) else str(key)
        if is_secret_key(name) or (secret_entry and name.lower() == "value"):
            # A boolean says whether a secret is there, not what it is.
            out[redact_text(name)] = (
                item if item is None or isinstance(item, bool) else MASK
            )
        else:
            out[redact_text(name)] = _redact(item, depth + 1, path)
    return out
