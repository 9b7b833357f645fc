"""What never leaves the server: Secret data (names and keys only), and credentials in any text or object.

A Secret's `data`/`stringData` values and its last-applied annotation (which repeats them) are
replaced by `***`, in YAML text and in objects alike; then every value removed is scrubbed from the
rest of the text too. Everything else goes through the shared `mask_secrets`, except lines that only
name a secret (`SecretName:  db-creds`), which an engineer needs to see.
"""

from __future__ import annotations

import base64
import binascii
import copy
import re
from typing import Any

from reasoning.masking import MASK, is_secret_key
from reasoning.masking import mask_text as mask_secrets

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_BLOCK = re.compile(r"^(\s*)(- )?(data|stringData):(.*)$")
_ANNOTATION = re.compile(rf"^(\s*){re.escape(LAST_APPLIED)}:(.*)$")
_CHILD = re.compile(r"^(\s*)([^:\s][^:]*):(.*)$")
# describe lines whose value names a secret, says where a value comes from, or gives a Secret
# key's size (`password:  20 bytes`): shown as they are.
_NAME_LINE = re.compile(
    r"^(\s*(?:SecretName|Image pull secrets|Mountable secrets|Tokens|Secrets|secretName|Type):\s+)(.*)$"
    r"|^(\s*[A-Za-z_][A-Za-z0-9_.-]*:\s+)(<set to the key '[^']*' (?:in secret|of config map) '[^']*'>.*)$"
    r"|^([-._a-zA-Z0-9]+:\s+)(\d+ bytes)$"
)
_YAML_ENV_NAME = re.compile(r"^(\s*)- name: ['\"]?([^'\"\s]+)['\"]?\s*$")


def mask_text(text: str) -> str:
    """`text` with credentials masked, leaving lines that only name a secret readable."""
    kept: list[str] = []

    def protect(match: re.Match[str]) -> str:
        index = next(i for i in (1, 3, 5) if match.group(i) is not None)
        prefix, value = match.group(index), match.group(index + 1)
        kept.append(prefix + mask_secrets(value))
        return f"\x00{len(kept) - 1}\x00"

    protected = "\n".join(_NAME_LINE.sub(protect, line) for line in text.split("\n"))
    # Line by line first: a `key: value` pair must not reach across a newline (YAML's `data:` then
    # `  API_TOKEN: …` would pair `data` with `API_TOKEN:`); then whole, for PEM blocks.
    lines = _mask_yaml_env(protected).split("\n")
    masked = mask_secrets("\n".join(mask_secrets(line) for line in lines))
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], masked)


def _mask_yaml_env(text: str) -> str:
    """`- name: DB_PASSWORD` followed by `  value: …` (YAML env entries): the value is masked."""
    lines = text.split("\n")
    for index, line in enumerate(lines[:-1]):
        match = _YAML_ENV_NAME.match(line)
        if match and is_secret_key(match.group(2)):
            value = re.match(rf"^{match.group(1)}  value: (.*)$", lines[index + 1])
            if value and value.group(1) not in (MASK, f"'{MASK}'"):
                lines[index + 1] = f"{match.group(1)}  value: '{MASK}'"
    return "\n".join(lines)


def redact_secret_yaml(text: str) -> str:
    """A Secret's (or a list of Secrets') YAML with data values, stringData and last-applied masked."""
    lines = text.split("\n")
    out: list[str] = []
    removed: set[str] = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        index += 1
        block = _BLOCK.match(line)
        annotation = _ANNOTATION.match(line)
        if block and len(block.group(1)) + (2 if block.group(2) else 0) in (0, 2):
            indent = len(block.group(1)) + (2 if block.group(2) else 0)
            head = f"{block.group(1)}{block.group(2) or ''}{block.group(3)}:"
            inline = block.group(4).strip()
            if inline and inline != "{}":
                removed.add(inline)
                out.append(f"{head} '{MASK}'")
                continue
            out.append(line)
            child_indent = None
            while (
                index < len(lines)
                and lines[index].strip()
                and _indent(lines[index]) > indent
            ):
                child = lines[index]
                index += 1
                if child_indent is None:
                    child_indent = _indent(child)
                match = _CHILD.match(child)
                if _indent(child) == child_indent and match:
                    removed.add(match.group(3).strip().strip("'\""))
                    out.append(f"{match.group(1)}{match.group(2)}: '{MASK}'")
                else:
                    removed.add(child.strip())  # a value continued on the next line
        elif annotation:
            indent = len(annotation.group(1))
            out.append(f"{annotation.group(1)}{LAST_APPLIED}: '{MASK}'")
            while (
                index < len(lines)
                and lines[index].strip()
                and _indent(lines[index]) > indent
            ):
                index += 1
        else:
            out.append(line)
    return scrub("\n".join(out), removed)


def scrub(text: str, values: set[str]) -> str:
    """Replace each removed value (and its base64 decoding) wherever else it still appears."""
    needles = set()
    for value in values:
        if len(value) >= 4 and value not in (MASK, f"'{MASK}'"):
            needles.add(value)
            decoded = _b64_text(value)
            if decoded and len(decoded) >= 4:
                needles.add(decoded)
    for needle in sorted(needles, key=len, reverse=True):
        text = text.replace(needle, MASK)
    return text


def _b64_text(value: str) -> str | None:
    try:
        return base64.b64decode(value, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def redact_object(value: Any) -> Any:
    """A copy of a Kubernetes object (or list) with Secret data, secret-named env values and
    ConfigMap values masked, and `mask_secrets` over every string."""
    value = copy.deepcopy(value)
    removed: set[str] = set()
    _redact_in_place(value, removed)
    return _strings(value, removed)


def _redact_in_place(value: Any, removed: set[str], implied_kind: str = "") -> None:
    if isinstance(value, list):
        for item in value:
            _redact_in_place(item, removed, implied_kind)
        return
    if not isinstance(value, dict):
        return
    kind = value.get("kind") or implied_kind
    if (
        isinstance(kind, str)
        and kind.endswith("List")
        and isinstance(value.get("items"), list)
    ):
        # The API's SecretList leaves `kind` off its items.
        _redact_in_place(value["items"], removed, kind.removesuffix("List"))
    if kind == "Secret":
        for key in ("data", "stringData"):
            if isinstance(value.get(key), dict):
                removed.update(str(v) for v in value[key].values())
                value[key] = dict.fromkeys(value[key], MASK)
        annotations = value.get("metadata", {}).get("annotations")
        if isinstance(annotations, dict) and LAST_APPLIED in annotations:
            annotations[LAST_APPLIED] = MASK
    if kind == "ConfigMap" and isinstance(value.get("data"), dict):
        value["data"] = {
            k: MASK if is_secret_key(k) else v for k, v in value["data"].items()
        }
    if (
        isinstance(value.get("name"), str)
        and isinstance(value.get("value"), str)
        and is_secret_key(value["name"])
    ):
        value["value"] = MASK  # an env entry: {"name": "DB_PASSWORD", "value": "…"}
    for key, child in value.items():
        if key != "items" or not str(kind).endswith("List"):
            _redact_in_place(child, removed)


def _strings(value: Any, removed: set[str]) -> Any:
    if isinstance(value, str):
        return scrub(mask_secrets(value), removed) if removed else mask_secrets(value)
    if isinstance(value, list):
        return [_strings(item, removed) for item in value]
    if isinstance(value, dict):
        return {key: _strings(item, removed) for key, item in value.items()}
    return value


def secret_values(value: Any) -> set[str]:
    """Every Secret data value in an object or list (to scrub from text that came beside it)."""
    found: set[str] = set()
    if isinstance(value, list):
        for item in value:
            found |= secret_values(item)
    elif isinstance(value, dict):
        items = value.get("items")
        if isinstance(items, list):
            implied = str(value.get("kind", "")).removesuffix("List")
            for item in items:
                if (
                    isinstance(item, dict)
                    and implied == "Secret"
                    and "kind" not in item
                ):
                    item = {**item, "kind": "Secret"}
                found |= secret_values(item)
        if value.get("kind") == "Secret":
            for key in ("data", "stringData"):
                if isinstance(value.get(key), dict):
                    found.update(str(v) for v in value[key].values())
    return found


def safe_text(text: str, *, is_secret_yaml: bool, objects: Any = None) -> str:
    """kubectl's text as it may leave the server: Secret data and credentials masked."""
    if is_secret_yaml:
        text = redact_secret_yaml(text)
    values = secret_values(objects) if objects is not None else set()
    if values:
        text = scrub(text, values)
    return mask_text(text)
