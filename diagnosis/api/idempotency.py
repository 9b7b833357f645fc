"""Idempotency-Key on POSTs: a repeat gets the saved answer and causes no second effect.

1. The claim: insert a `processing` IdempotencyRecord (scope = the caller, key) in its own
   transaction; the unique constraint decides a race between two copies of one request.
   An existing record answers instead: another body → 422; still processing → 409;
   succeeded → its saved status and body, replayed.
2. The effect and the `succeeded` write of its answer commit in one transaction, so a crash
   between them cannot leave an effect without its saved answer. The write is conditional on
   the claim still being ours; if it is not, the effect rolls back and the caller gets 409.
3. A 4xx or 5xx answer is not kept as the key's answer: the record is marked `failed` (with
   that answer, for the audit) and the next request with the key takes it over, so a corrected
   retry works. Body validation runs before the claim, so a 400 never touches a record.
A record is ignored after its expires_at (24 h); a `processing` record older than
PROCESSING_STALE (its request died) may be taken over too.
"""

import hashlib
import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from diagnosis.api.errors import ApiError, api_error_from
from diagnosis.exceptions import DiagnosisError
from diagnosis.models import IdempotencyRecord, IdempotencyStatus
from diagnosis.principals import Principal

HEADER = "Idempotency-Key"
KEY_MAX = 200
RECORD_TTL = timedelta(hours=24)
PROCESSING_STALE = timedelta(minutes=5)
REPLAYED_HEADER = "Idempotent-Replayed"
_PRINTABLE_ASCII = re.compile(r"[\x20-\x7e]+")

Result = tuple[int, dict[str, Any]]
# An effect returns its 2xx answer and raises ApiError or a DiagnosisError for anything else.
Effect = Callable[[], Result]


class _ClaimLost(Exception):
    """Our processing claim was taken over while the effect ran."""


def request_hash(method: str, path: str, data: dict[str, Any]) -> str:
    """sha256 of method, path and the canonical JSON of the body (key order, spacing ignored)."""
    canonical = json.dumps(
        data, sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(f"{method}\n{path}\n{canonical}".encode()).hexdigest()


def idempotency_key(headers: Any) -> str | None:
    """The request's key, or None.

    Raises:
        ApiError: 400 for a blank or over-long key, or one with characters other than
            printable ASCII (a NUL would fail the INSERT; header bytes arrive as Latin-1).
    """
    key: str | None = headers.get(HEADER)
    if key is None:
        return None
    key = key.strip()
    if not key or len(key) > KEY_MAX or not _PRINTABLE_ASCII.fullmatch(key):
        raise ApiError(
            400,
            "invalid Idempotency-Key",
            code="invalid",
            fields={HEADER: f"1 to {KEY_MAX} printable ASCII characters"},
        )
    return key


def _claim(scope: str, key: str, digest: str) -> IdempotencyRecord | Result:
    """Our new processing record, or the answer to give instead of running the effect."""
    now = timezone.now()
    for _ in range(3):
        try:
            with transaction.atomic():
                return IdempotencyRecord.objects.create(
                    scope=scope,
                    key=key,
                    request_hash=digest,
                    status=IdempotencyStatus.PROCESSING,
                    expires_at=now + RECORD_TTL,
                )
        except IntegrityError:
            pass
        record = IdempotencyRecord.objects.filter(scope=scope, key=key).first()
        if record is None:
            continue  # deleted meanwhile (purge): insert again
        replaceable = (
            Q(expires_at__lte=now)
            | Q(status=IdempotencyStatus.FAILED)
            | Q(
                status=IdempotencyStatus.PROCESSING,
                created_at__lt=now - PROCESSING_STALE,
            )
        )
        # A takeover is a conditional UPDATE: of two racing requests, exactly one wins.
        taken = IdempotencyRecord.objects.filter(
            Q(pk=record.pk) & Q(created_at=record.created_at) & replaceable
        ).update(
            request_hash=digest,
            status=IdempotencyStatus.PROCESSING,
            response_status=None,
            response_body=None,
            created_at=now,
            expires_at=now + RECORD_TTL,
        )
        if taken:
            record.refresh_from_db()
            return record
        if record.request_hash != digest:
            raise ApiError(
                422,
                "this Idempotency-Key was used with a different request",
                code="idempotency_key_reused",
            )
        if record.status == IdempotencyStatus.PROCESSING:
            raise ApiError(
                409,
                "a request with this Idempotency-Key is still being processed",
                code="idempotency_key_in_progress",
            )
        if record.status == IdempotencyStatus.SUCCEEDED:
            return int(record.response_status or 200), dict(record.response_body or {})
    raise ApiError(
        409,
        "the Idempotency-Key is contended; retry",
        code="idempotency_key_in_progress",
    )


def _finish(
    record: IdempotencyRecord, status: IdempotencyStatus, result: Result
) -> int:
    return IdempotencyRecord.objects.filter(
        pk=record.pk,
        status=IdempotencyStatus.PROCESSING,
        created_at=record.created_at,
    ).update(status=status, response_status=result[0], response_body=result[1])


def _run(effect: Effect) -> Result:
    try:
        with transaction.atomic():
            return effect()
    except DiagnosisError as exc:
        raise api_error_from(exc) from exc


def run(
    *, principal: Principal, key: str | None, digest: str, effect: Effect
) -> tuple[Result, bool]:
    """Run `effect` at most once per (caller, key); returns (status, body) and whether replayed.

    Raises:
        ApiError: 422 key reused with another body, 409 key still processing, or the error the
            effect raised (the record is then marked failed and the key can be used again).
    """
    if key is None:
        return _run(effect), False
    claim = _claim(principal.scope_key, key, digest)
    if not isinstance(claim, IdempotencyRecord):
        return claim, True
    try:
        with transaction.atomic():
            result = _run(effect)
            if _finish(claim, IdempotencyStatus.SUCCEEDED, result) != 1:
                raise _ClaimLost
    except _ClaimLost:
        raise ApiError(
            409,
            "the Idempotency-Key was taken over by another request",
            code="idempotency_key_in_progress",
        ) from None
    except ApiError as exc:
        _finish(claim, IdempotencyStatus.FAILED, (exc.status, exc.body))
        raise
    except BaseException:
        _finish(
            claim,
            IdempotencyStatus.FAILED,
            (500, {"error": "internal error", "code": "internal"}),
        )
        raise
    return result, False
