"""Secret masking for text that leaves a server (log lines, labels, error messages).

Masking is best effort and errs on the side of hiding: a false positive costs a few characters of
context, a false negative leaks a credential into an LLM prompt and an incident report.

Every pattern does bounded work per position (bounded repeats, key test in a callback), so masking stays
linear in the line length; an unbounded repeat before a literal backtracks quadratically on long lines.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

MASK = "***"

# Key names whose values are secrets in key=value, key: value, "key": "value" and header forms.
_SECRET_KEY = re.compile(
    r"password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key"
    r"|credential|auth[_-]?key|session[_-]?id|cookie|signature",
    re.IGNORECASE,
)
# Any key, then the secret test runs on the key alone: a regex alternation behind a variable prefix
# would be tried at every word boundary and go quadratic on long lines.
_JSON_PAIR = re.compile(r'"([A-Za-z0-9_.-]{1,64}+)"(\s*:\s*)"((?:[^"\\]|\\.){0,4096})"')
_KV_PAIR = re.compile(
    r"\b([A-Za-z0-9_.-]{1,64}+)([\"']?\s*[=:]\s*)(\"[^\"]{0,4096}\"|'[^']{0,4096}'|[^\s,;&\"'}\]]{1,4096})"
)


def _mask_json_pair(match: re.Match[str]) -> str:
    if not _SECRET_KEY.search(match.group(1)) or match.group(3) == MASK:
        return match.group(0)
    return f'"{match.group(1)}"{match.group(2)}"{MASK}"'


def _mask_kv_pair(match: re.Match[str]) -> str:
    key, separator, value = match.groups()
    if value.strip("\"'") == MASK:
        return match.group(0)
    if not _SECRET_KEY.search(key):
        # "failed: password=hunter2": the value of a harmless key may hold a secret pair of its own.
        return f"{key}{separator}{_KV_PAIR.sub(_mask_kv_pair, value)}"
    return f"{key}{separator}{MASK}"


_PATTERNS: tuple[tuple[re.Pattern[str], str | Callable[[re.Match[str]], str]], ...] = (
    # PEM blocks first: they span lines and contain base64 the later rules would half-mask.
    (
        re.compile(
            r"-----BEGIN ([A-Z ]*)PRIVATE KEY-----.*?(?:-----END \1PRIVATE KEY-----|$)",
            re.DOTALL,
        ),
        f"-----BEGIN \\1PRIVATE KEY-----{MASK}-----END \\1PRIVATE KEY-----",
    ),
    # Authorization headers and bare "Bearer <token>" / "Basic <b64>".
    (
        re.compile(
            r"\b(Bearer|Basic|Token|Digest)(\s+)[A-Za-z0-9._~+/=\-:]{6,}", re.IGNORECASE
        ),
        rf"\1\2{MASK}",
    ),
    # Credentials in URLs: scheme://user:password@host
    (
        re.compile(
            r"(\b[a-z][a-z0-9+.-]{0,30}://[^\s:/@]{1,256}:)[^\s@/]{1,256}@",
            re.IGNORECASE,
        ),
        rf"\1{MASK}@",
    ),
    # JSON style "password": "value", then key=value / key: value (logfmt, env dumps, X-Api-Key: ...)
    (_JSON_PAIR, _mask_json_pair),
    (_KV_PAIR, _mask_kv_pair),
    # Well-known token shapes that appear without a telling key.
    (
        re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),
        f"AKIA{MASK}",
    ),
    (
        re.compile(r"\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*"),
        f"eyJ{MASK}",
    ),  # JWT
    (re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"), f"gh_{MASK}"),  # GitHub
    (re.compile(r"\bgithub_pat_[A-Za-z0-9_]{30,}\b"), f"github_pat_{MASK}"),
    (re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"), f"xox-{MASK}"),  # Slack
    (
        re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}\b"),
        f"sk_{MASK}",
    ),  # Stripe
    (re.compile(r"\bsk-[A-Za-z0-9_-]{20,}\b"), f"sk-{MASK}"),  # OpenAI-style API keys
    (re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), f"AIza{MASK}"),  # Google API keys
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}\b"), f"glpat-{MASK}"),  # GitLab
)


def mask_secrets(text: str) -> str:
    """Return `text` with credentials, tokens and keys replaced by `***`."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def is_secret_key(name: str) -> bool:
    """True when a key or variable name says its value is a secret (DB_PASSWORD, api_key, X-Auth-Token)."""
    return _SECRET_KEY.search(name) is not None
