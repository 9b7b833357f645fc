"""The one secret-masking module: every text and object that leaves a bundled server or enters a
span, an event, a report, an artifact or a log line goes through it.

Best effort that errs on the side of hiding: a false positive costs a few characters of context, a
false negative puts a credential into the trace, the report and an LLM prompt. It imports the
standard library only (the stdio servers import it at start-up).

The rule, decided by shape:

* A key names a secret when, with case and every non-alphanumeric character removed, it contains
  one of `SECRET_WORDS` (password, passwd, pwd, secret, token, apikey, accesskey, privatekey,
  authorization, cookie, credential, sessionid, …) or is one of `SECRET_NAMES` (`sig`) —
  unless it merely *names* or *measures* a secret: it ends with a `HARMLESS_SUFFIXES` word
  (`token_count`, `max_tokens`, `passwordless`, `secret_name`, `secretRef`, `secretKeyRef`,
  `password_file`, `token_type`) or starts with a `HARMLESS_PREFIXES` word (`max_token`). A bare
  `signature` (the grouping key of a `top_errors` group, a webhook's HMAC) is no secret; the
  signature of a pre-signed URL is (`X-Amz-Signature`, `sig`).
* A secret key's value is masked when the key is followed by
  - `=`, `:`, `=>` (logfmt, env dumps, YAML, headers, ADO `Password=X;`), with optional spaces
    and quotes around either side: `"password": "X"`, `'password': 'X'`, JSON inside a JSON string
    (`\\"password\\":\\"X\\"`), and URL-encoded (`passwd%3DX`, `password%22%3A%22X`, double-encoded
    `%253D`); the value is a quoted string (to its closing quote) or a word (up to a space, `,`,
    `;`, `&`, a bracket, a quote or their URL encodings), with an auth scheme word in front kept
    in the value (`token=Bearer X`);
  - whitespace, when the key is a command-line flag (`--password X`, `-password X`) or an
    upper-case environment name (`PGPASSWORD X psql`, `AWS_SECRET_ACCESS_KEY X`) and the next
    word is not in capitals only (a table header: `NAME  SECRETS  AGE`);
  - for `Authorization:`, `Proxy-Authorization:`, `Cookie:` and `Set-Cookie:` headers: the rest of
    the line (every cookie, every part of an AWS4 signature).
* Command lines whose short flag is a password where that is unambiguous: `mysql`/`mysqldump`/
  `mysqladmin`/`mariadb` `-p X` and `-pX`, `mongo`/`mongosh` `-p X`, `redis-cli -a X`,
  `sshpass -p X`, `sqlcmd -P X`. (`psql -p` is a port and stays.)
* Credentials in URLs: `scheme://user:X@host` (also `redis://:X@host` and the URL-encoded form
  `scheme%3A%2F%2Fuser%3AX%40host`).
* PEM private-key blocks, whole, first (their base64 body would otherwise be half-masked).
* Value shapes that are secrets whatever the key: an auth scheme with a credential-looking word
  (`Bearer X`), AWS access key ids (AKIA…, ASIA…), JWTs, GitHub (ghp_…, github_pat_…), GitLab
  (glpat-…), Slack tokens (xox?-…) and webhooks, Stripe secret keys (sk_live_…, rk_…, whsec_…),
  OpenAI-style (sk-…), Google API keys (AIza…), npm (npm_…) and SendGrid (SG.…) tokens. Their
  prefix stays, to say what kind was there.
* `true`, `false`, `null`, `none` and an already masked `***` are left as they are: they tell
  whether a secret is set, not what it is. Masking is idempotent.

Lower-case prose (`password reset failed for bob`) is left alone: a key needs a separator, a flag's
dashes or an environment name's capitals. Every text pattern does bounded work per position
(bounded, possessive repeats; key names read and tested in Python), so masking stays linear in
the text's length.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "DEEPER",
    "MASK",
    "MAX_DEPTH",
    "is_secret_key",
    "mask_text",
    "redact",
]

MASK = "***"
MAX_DEPTH = 64
DEEPER = "…"

# Compared against a key with case and every non-alphanumeric character removed.
SECRET_WORDS = (
    "password",
    "passwd",
    "passphrase",
    "pwd",
    "secret",
    "token",
    "apikey",
    "accesskey",
    "accountkey",
    "privatekey",
    "authkey",
    "credential",
    "authorization",
    "cookie",
    "sessionid",
    "amzsignature",
)
SECRET_NAMES = frozenset({"sig"})
# Keys that name, measure or describe a secret but hold none.
HARMLESS_SUFFIXES = (
    "tokens",
    "count",
    "counts",
    "limit",
    "length",
    "len",
    "size",
    "type",
    "kind",
    "ttl",
    "expiry",
    "expires",
    "expiresat",
    "expiresin",
    "expiration",
    "name",
    "names",
    "ref",
    "refs",
    "path",
    "file",
    "url",
    "uri",
    "less",
    "policy",
    "required",
    "enabled",
    "field",
    "format",
    "mode",
    "source",
    "store",
    "version",
    "stdin",
    "tokenizer",
    "hint",
)
HARMLESS_PREFIXES = ("max", "min", "num", "total")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def is_secret_key(name: str) -> bool:
    """Whether a key, header, flag or variable name says its value is a secret."""
    key = _NON_ALNUM.sub("", name[:200].lower())
    if key in SECRET_NAMES:
        return True
    return (
        any(word in key for word in SECRET_WORDS)
        and not key.endswith(HARMLESS_SUFFIXES)
        and not key.startswith(HARMLESS_PREFIXES)
    )


# --- key and value ------------------------------------------------------------------------------
# The scan starts at a secret word (a literal, so no variable prefix is retried at every
# position); the whole key is then read both ways in Python and tested by is_secret_key, the one
# owner of the key rule.
_KEY_WORD = re.compile(
    r"pass|pwd|secret|token|api[_-]?key|access[_-]?key|account[_-]?key|private[_-]?key|auth"
    r"|credential|cookie|session[ _-]?id|sig",
    re.IGNORECASE,
)
_KEY_CHARS = frozenset(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-"
)
_KEY_TAIL = re.compile(r"[\w.-]{0,64}+")
_QUOTE = r"\\{0,3}+[\"']|%(?:25)?2[27]"
_SEPARATOR = re.compile(
    rf"(?:\]|%(?:25)?5[Dd])?(?:{_QUOTE})?[ \t]{{0,8}}+"
    r"(?P<op>=>|=|:(?!//)|%(?:25)?3[AaDd])(?!=)[ \t]{0,8}+"
)
_OPEN_QUOTE = re.compile(_QUOTE)
_DOUBLE_QUOTED = re.compile(r"(?:[^\"\\\n]|\\.){0,4096}+\"")
# A word: up to a space, a separator, a bracket, a quote, a backslash, or the URL encoding of one.
_STOP = r"%(?:25)?(?:2[02367Cc]|3[BbCcEe]|5[BbDd]|7[BbDd]|0[AaDd])"
_WORD = rf"(?:[^\s,;&\"'<>(){{}}\[\]%\\]|%(?!{_STOP[1:]})){{1,4096}}+"
_SCHEME_WORD = r"(?:Bearer|Basic|Token|Digest|Negotiate|Bot|AWS4-HMAC-SHA256)"
_VALUE = re.compile(
    rf"(?:{_SCHEME_WORD}(?:[ \t]{{1,8}}+|%20|\+))?{_WORD}", re.IGNORECASE
)
_REST_OF_LINE = re.compile(r"[^\r\n\"'\\]{1,4096}+")
_HEADER_LINE_KEYS = frozenset(
    {"authorization", "proxyauthorization", "cookie", "setcookie"}
)
_GAP = re.compile(r"[ \t]{1,8}+")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9_]*")
_CAPITALS = re.compile(r"[A-Z][A-Z_]*")
_NOT_SECRETS = frozenset({"true", "false", "null", "none", "nil", MASK})
# An unquoted value that makes the pair prose or a missing value (`token: expired`), not a secret.
_PROSE = frozenset(
    [
        "is",
        "was",
        "are",
        "were",
        "be",
        "been",
        "for",
        "not",
        "no",
        "missing",
        "expired",
        "invalid",
        "required",
        "empty",
        "unset",
        "set",
        "error",
        "failed",
        "mismatch",
        "rejected",
        "denied",
        "changed",
        "reset",
        "and",
        "or",
        "in",
        "of",
        "on",
        "the",
        "a",
        "an",
        "to",
        "from",
        "with",
        "has",
        "had",
        "must",
        "should",
        "will",
        "cannot",
        "can",
        "may",
        "too",
    ]
)


def _quoted_end(text: str, pos: int, quote: str) -> int:
    """End of a value opened by `quote` at `pos` (past its closing quote), or of the line."""
    if quote == '"':
        closed = _DOUBLE_QUOTED.match(text, pos)
        if closed is not None:
            return closed.end()
    else:
        limit = min(len(text), pos + 4096)
        newline = text.find("\n", pos, limit)
        found = text.find(quote, pos, newline if newline >= 0 else limit)
        if found >= 0:
            return found + len(quote)
    newline = text.find("\n", pos, pos + 4096)
    return newline if newline >= 0 else min(len(text), pos + 4096)


def _value_span(
    text: str, pos: int, key: str, op: str | None
) -> tuple[int, int, int] | None:
    """(start, end of the secret, end of what it consumed) of the value at `pos`, or None."""
    quote = _OPEN_QUOTE.match(text, pos)
    if quote is not None:
        start = quote.end()
        end = _quoted_end(text, start, quote.group(0))
        closing = len(quote.group(0)) if text.endswith(quote.group(0), 0, end) else 0
        return start, end - closing, end
    if op == ":" and _NON_ALNUM.sub("", key.lower()) in _HEADER_LINE_KEYS:
        rest = _REST_OF_LINE.match(text, pos)
        if rest is None:
            return None
        end = len(rest.group(0).rstrip()) + pos
        return pos, end, end
    word = _VALUE.match(text, pos)
    if word is None:
        return None
    return pos, word.end(), word.end()


def _mask_pairs(text: str) -> str:
    # A manual scan rather than re.sub, so that a harmless key (token_type=…) consumes only
    # itself and "secret_name: password=hunter2" still loses the password. A value is matched
    # only after a secret key, and then consumed: the work stays linear.
    out: list[str] = []
    pos = 0
    while (match := _KEY_WORD.search(text, pos)) is not None:
        start, lower = match.start(), max(pos, match.start() - 64)
        while start > lower and text[start - 1] in _KEY_CHARS:
            start -= 1
        key_end = _KEY_TAIL.match(text, match.end())
        end = key_end.end() if key_end is not None else match.end()
        key = text[start:end]
        span = None
        if is_secret_key(key):
            span = _pair_value(text, start, end, key)
        if span is None:
            out.append(text[pos:end])
            pos = end
            continue
        value_start, value_end, consumed = span
        value = text[value_start:value_end]
        if (
            value.strip().lower() in _NOT_SECRETS
            or value.startswith(MASK)
            or (value.lower() in _PROSE and value_end == consumed)
        ):
            out.append(text[pos:consumed])
        else:
            out.append(f"{text[pos:value_start]}{MASK}{text[value_end:consumed]}")
        pos = consumed
    out.append(text[pos:])
    return "".join(out)


def _pair_value(
    text: str, start: int, end: int, key: str
) -> tuple[int, int, int] | None:
    separator = _SEPARATOR.match(text, end)
    if separator is not None:
        return _value_span(text, separator.end(), key, separator.group("op"))
    flag = key.startswith("-") and (start == 0 or text[start - 1] in " \t\"'=")
    env = _ENV_NAME.fullmatch(key) is not None and (
        start == 0 or not text[start - 1].isalnum()
    )
    gap = _GAP.match(text, end) if flag or env else None
    if gap is None or text.startswith("-", gap.end()):
        return None
    span = _value_span(text, gap.end(), key, None)
    if span is not None and env and _CAPITALS.fullmatch(text[span[0] : span[1]]):
        return None  # a table's header (`NAME  SECRETS  AGE`), not an assignment
    return span


# --- command lines ------------------------------------------------------------------------------
# The short flag that takes a password, where that is unambiguous; True: also attached (-pX).
_CLI_FLAGS: dict[str, tuple[str, bool]] = {
    "mysql": ("-p", True),
    "mysqldump": ("-p", True),
    "mysqladmin": ("-p", True),
    "mariadb": ("-p", True),
    "mariadb-dump": ("-p", True),
    "mongo": ("-p", False),
    "mongosh": ("-p", False),
    "redis-cli": ("-a", False),
    "sshpass": ("-p", True),
    "sqlcmd": ("-P", False),
}
_COMMAND = re.compile(
    r"(?<![\w.-])(?P<cmd>mysql|mysqldump|mysqladmin|mariadb(?:-dump)?|mongo(?:sh)?|redis-cli"
    r"|sshpass|sqlcmd)(?=[ \t])"
)
_ARGUMENT = re.compile(
    r"[ \t]{1,8}+(?P<arg>\"[^\"\n]{0,512}+\"?|'[^'\n]{0,512}+'?|[^\s;|&]{1,512}+)"
)


def _mask_command_lines(text: str) -> str:
    out: list[str] = []
    pos = 0
    for command in _COMMAND.finditer(text):
        if command.start() < pos:
            continue
        flag, attached = _CLI_FLAGS[command.group("cmd")]
        at = command.end()
        mask_next = False
        for _ in range(32):
            argument = _ARGUMENT.match(text, at)
            if argument is None:
                break
            arg = argument.group("arg")
            secret = None
            if mask_next and not arg.startswith("-"):
                secret = argument.span("arg")
            elif attached and arg.startswith(flag) and len(arg) > 2:
                secret = (argument.start("arg") + 2, argument.end("arg"))
            mask_next = arg == flag
            if secret is not None and text[secret[0] : secret[1]].strip("\"'") != MASK:
                out.append(f"{text[pos : secret[0]]}{MASK}")
                pos = secret[1]
            at = argument.end()
    out.append(text[pos:])
    return "".join(out)


# --- shapes -------------------------------------------------------------------------------------
_PEM = re.compile(
    r"-----BEGIN (?P<kind>[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?)-----(?:[^-]|-(?!----END))*+"
    r"(?:-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----)?"
)
_SCHEME = re.compile(
    rf"\b(?P<head>{_SCHEME_WORD}[ \t]{{1,8}}+)(?P<credential>[A-Za-z0-9._~+/=-]{{8,}}+)",
    re.IGNORECASE,
)


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


_SHAPES: tuple[tuple[re.Pattern[str], str], ...] = (
    # scheme://user:password@host (the password may hold an "@": up to the last one)
    (
        re.compile(
            r"\b(?P<head>[a-z][a-z0-9+.-]{0,30}+://[^\s:/@]{0,256}+:)"
            r"(?:[^\s/@]|@(?=[^\s/@]{0,256}+@)){1,256}+@",
            re.IGNORECASE,
        ),
        rf"\g<head>{MASK}@",
    ),
    # The same URL-encoded: scheme%3A%2F%2Fuser%3Apassword%40host
    (
        re.compile(
            r"\b(?P<head>[a-z][a-z0-9+.-]{0,30}+%3A%2F%2F(?:[^\s%/@:]|%(?!3A|40)){0,256}+%3A)"
            r"(?:[^\s%/@]|%(?!40)){1,256}+%40",
            re.IGNORECASE,
        ),
        rf"\g<head>{MASK}%40",
    ),
    # Token shapes that need no telling key; the prefix stays to say what kind was there.
    (
        re.compile(
            r"\b(?P<head>A(?:KIA|SIA|BIA|CCA|GPA|IDA|ROA|NPA|NVA|IPA))[0-9A-Z]{16}(?![0-9A-Za-z])"
        ),
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
        re.compile(
            r"(?P<head>hooks\.slack\.com/services/)T[A-Z0-9]{6,}+/B[A-Z0-9]{6,}+/[A-Za-z0-9]{16,}+"
        ),
        rf"\g<head>{MASK}",
    ),
    (
        re.compile(r"\b(?P<head>(?:sk|rk)_(?:live|test)_|whsec_)[A-Za-z0-9]{16,}+"),
        rf"\g<head>{MASK}",
    ),
    (re.compile(r"\b(?P<head>sk-)[\w-]{20,}+"), rf"\g<head>{MASK}"),
    (re.compile(r"\b(?P<head>AIza)[\w-]{35}(?![\w-])"), rf"\g<head>{MASK}"),
    (re.compile(r"\b(?P<head>npm_)[A-Za-z0-9]{36}(?![A-Za-z0-9])"), rf"\g<head>{MASK}"),
    (re.compile(r"\b(?P<head>SG\.)[\w-]{16,32}+\.[\w-]{30,64}+"), rf"\g<head>{MASK}"),
)


def mask_text(text: str) -> str:
    """`text` with credentials, tokens, keys and passwords replaced by `***`."""
    text = _PEM.sub(
        rf"-----BEGIN \g<kind>-----{MASK}-----END \g<kind>-----",
        text,
    )
    # URLs before pairs: "redis://:r3d1s-pass@cache" holds a secret word inside the password.
    for pattern, replacement in _SHAPES[:2]:
        text = pattern.sub(replacement, text)
    text = _SCHEME.sub(_mask_scheme, _mask_pairs(_mask_command_lines(text)))
    for pattern, replacement in _SHAPES[2:]:
        text = pattern.sub(replacement, text)
    return text


# --- objects ------------------------------------------------------------------------------------
def redact(value: Any) -> Any:
    """A JSON copy of `value` with secrets replaced by `***`.

    Values under secret keys (also `[name, value]` pairs and `{"name"/"key": …, "value": …}`
    entries, as in header lists and Kubernetes env) are masked whole; every string is run
    through `mask_text`. Anything JSON cannot hold becomes a string; nesting deeper than
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
        return mask_text(value)
    if isinstance(value, bytes | bytearray):
        return mask_text(bytes(value).decode("utf-8", "replace"))
    if not isinstance(value, Mapping | list | tuple):
        return mask_text(str(value))
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
        return [mask_text(value[0]), MASK]
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
            out[mask_text(name)] = (
                item if item is None or isinstance(item, bool) else MASK
            )
        else:
            out[mask_text(name)] = _redact(item, depth + 1, path)
    return out
