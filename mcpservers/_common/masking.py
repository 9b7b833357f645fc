"""Secret masking for text that leaves a server (log lines, labels, error messages).

Masking is best effort and errs on the side of hiding: a false positive costs a few characters of
context, a false negative leaks a credential into an LLM prompt and an incident report.
"""

from __future__ import annotations

import re

MASK = "***"

# Names whose values are secrets in key=value, key: value, "key": "value" and header forms.
_SECRET_NAMES = (
    r"(?:[a-z0-9_.-]*?(?:password|passwd|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key"
    r"|private[_-]?key|client[_-]?secret|credentials?|auth[_-]?key|session[_-]?id|cookie|signature))"
)

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
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
        re.compile(r"([a-z][a-z0-9+.-]*://[^\s:/@]+:)[^\s@/]+@", re.IGNORECASE),
        rf"\1{MASK}@",
    ),
    # JSON style: "password": "value"
    (
        re.compile(rf'("{_SECRET_NAMES}"\s*:\s*")((?:[^"\\]|\\.)*)(")', re.IGNORECASE),
        rf"\1{MASK}\3",
    ),
    # key=value / key: value (logfmt, env dumps, headers such as X-Api-Key: ...)
    (
        re.compile(
            rf"(\b{_SECRET_NAMES}\b[\"']?\s*[=:]\s*)(?![\"']?\*\*\*)(\"[^\"]*\"|'[^']*'|[^\s,;&\"'}}\]]+)",
            re.IGNORECASE,
        ),
        rf"\1{MASK}",
    ),
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
