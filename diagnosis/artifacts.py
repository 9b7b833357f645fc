"""What a span keeps of a tool call's result: redacted, hashed, previewed, inline or as an artifact.

A result whose canonical JSON exceeds DIAGNOSIS_RESULT_INLINE_BYTES is written to the
"artifacts" storage (settings.STORAGES: the file system, or S3 when configured) as
`spans/<task_id>/<span_id>.json`; the span keeps its URI, size and SHA-256 (seed 000 §9.7).
"""

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import storages

from diagnosis.exceptions import DiagnosisError
from reasoning.masking import redact

STORAGE_ALIAS = "artifacts"
URI_PREFIX = "artifacts:"


class ArtifactError(DiagnosisError):
    """A stored result cannot be read back as it was written."""

    def __init__(self, message: str, *, uri: str) -> None:
        super().__init__(message)
        self.uri = uri


class ArtifactMissing(ArtifactError):
    """No artifact under that URI (deleted, another storage, or never written)."""


class ArtifactCorrupt(ArtifactError):
    """The artifact's bytes do not hash to the SHA-256 the span recorded, or are not JSON."""


def canonical_json(value: Any) -> bytes:
    """UTF-8 JSON with sorted keys and no spaces: the bytes every hash here is taken of.

    Raises:
        TypeError: a value JSON cannot hold (`redact` first turns those into strings).
        ValueError: NaN or an infinity.
    """
    return json.dumps(
        value,
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
        allow_nan=False,
    ).encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def arguments_hash(arguments: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical arguments as sent (not redacted): what an Approval is bound to."""
    return sha256_hex(canonical_json(arguments))


def preview(value: Any, *, limit: int | None = None) -> str:
    """A short human view of an (already redacted) result, at most `limit` characters.

    Its text (an MCP result's text blocks joined by newlines), else its structured content or
    the value as compact JSON. A longer
    text is cut and ends with "…[cut N characters]". `limit` defaults to
    DIAGNOSIS_RESULT_PREVIEW_CHARS.
    """
    if limit is None:
        limit = settings.DIAGNOSIS_RESULT_PREVIEW_CHARS
    text = _preview_text(value)
    if len(text) <= limit:
        return text
    # The marker counts itself out of the limit; its digits can grow as the kept part shrinks.
    keep = limit
    for _ in range(4):
        marker = f"…[cut {len(text) - keep} characters]"
        keep = max(0, limit - len(marker))
    marker = f"…[cut {len(text) - keep} characters]"
    if len(marker) > limit:
        return text[:limit]
    return text[:keep] + marker


def _preview_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if not isinstance(value, Mapping):
        return _compact(value)
    # The executor's {"text", "structured"} and MCP's own {"content", "structuredContent"}.
    if isinstance(value.get("text"), str) and value["text"]:
        return str(value["text"])
    content = value.get("content")
    if isinstance(content, list) and content:
        return "\n".join(_block_text(block) for block in content)
    for key in ("structured", "structuredContent"):
        if value.get(key) is not None:
            return _compact(value[key])
    return _compact(value)


def _block_text(block: Any) -> str:
    if not isinstance(block, Mapping):
        return _compact(block)
    if block.get("type") == "text" and isinstance(block.get("text"), str):
        return str(block["text"])
    # Images, audio, resources: say what was there, not the base64.
    detail = block.get("mimeType") or block.get("uri") or ""
    return f"[{block.get('type', 'block')} {detail}]".replace(" ]", "]")


def _compact(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
    )


@dataclass(frozen=True)
class StoredResult:
    """What a span records of a result: `result` inline (small) or `uri` to the artifact."""

    result: Any | None
    uri: str
    sha256: str
    size: int
    preview: str


def store_result(*, task_id: str, span_id: str, value: Any) -> StoredResult:
    """Redact a tool call's result, hash it, and keep it inline or write it as an artifact.

    The hash and size are those of the redacted canonical JSON, so `load_result` can check
    what it reads back. Writing the same span again replaces its artifact.

    Raises:
        OSError: the file system storage could not write (S3 raises its client's errors).
    """
    redacted = redact(value)
    data = canonical_json(redacted)
    digest, text = sha256_hex(data), preview(redacted)
    if len(data) <= settings.DIAGNOSIS_RESULT_INLINE_BYTES:
        return StoredResult(
            result=redacted, uri="", sha256=digest, size=len(data), preview=text
        )
    storage = storages[STORAGE_ALIAS]
    name = f"spans/{task_id}/{span_id}.json"
    # A storage that does not overwrite would pick another name; the span keeps the real one.
    name = storage.save(name, ContentFile(data))
    return StoredResult(
        result=None,
        uri=URI_PREFIX + name,
        sha256=digest,
        size=len(data),
        preview=text,
    )


def load_result(stored_uri: str, *, sha256: str | None = None) -> Any:
    """Read back the redacted result `store_result` wrote under `stored_uri`.

    With `sha256` (the span's result_hash), the bytes must hash to it.

    Raises:
        ArtifactMissing: not an artifact URI, or nothing stored under it.
        ArtifactCorrupt: the bytes do not match `sha256`, or are not JSON.
    """
    if not stored_uri.startswith(URI_PREFIX):
        raise ArtifactMissing(f"not an artifact URI: {stored_uri!r}", uri=stored_uri)
    name = stored_uri.removeprefix(URI_PREFIX)
    storage = storages[STORAGE_ALIAS]
    try:
        with storage.open(name, "rb") as file:
            data = file.read()
    except FileNotFoundError as exc:
        raise ArtifactMissing(f"no artifact {name!r}", uri=stored_uri) from exc
    if sha256 is not None and sha256_hex(data) != sha256:
        raise ArtifactCorrupt(
            f"artifact {name!r} does not hash to {sha256}", uri=stored_uri
        )
    try:
        return json.loads(data)
    except ValueError as exc:
        raise ArtifactCorrupt(f"artifact {name!r} is not JSON", uri=stored_uri) from exc


def open_artifact(stored_uri: str, *, sha256: str | None = None) -> Any:
    """A binary file of the redacted artifact under `stored_uri`, for a download to stream.

    With `sha256`, the bytes are hashed first (in chunks, not held in memory) and must match,
    so a download never hands out what the span did not record.

    Raises:
        ArtifactMissing: not an artifact URI, or nothing stored under it.
        ArtifactCorrupt: the bytes do not match `sha256`.
    """
    if not stored_uri.startswith(URI_PREFIX):
        raise ArtifactMissing(f"not an artifact URI: {stored_uri!r}", uri=stored_uri)
    name = stored_uri.removeprefix(URI_PREFIX)
    storage = storages[STORAGE_ALIAS]
    try:
        if sha256 is not None:
            digest = hashlib.sha256()
            with storage.open(name, "rb") as file:
                for chunk in file.chunks():
                    digest.update(chunk)
            if digest.hexdigest() != sha256:
                raise ArtifactCorrupt(
                    f"artifact {name!r} does not hash to {sha256}", uri=stored_uri
                )
        return storage.open(name, "rb")
    except FileNotFoundError as exc:
        raise ArtifactMissing(f"no artifact {name!r}", uri=stored_uri) from exc
