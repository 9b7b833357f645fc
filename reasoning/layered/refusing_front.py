"""A host's 401/403 answered by what stands in front of its back end: the front that refuses, or the intermediary that drops the credential (issue 21: the loudest host is not the cause).

A probe refused with 401 or 403 by a public host shows that something on the way refuses it, not
what. Two fronts say so in their own lines:

- a gateway or proxy whose access lines name the host as the request's authority and answer the
  401/403 themselves with their own reason (an Envoy filter's `jwt_authn_access_denied`, an
  `ext_authz_denied`, an nginx `auth_request` verdict, a Kong or Traefik plugin's refusal): the
  gateway's own check (its keys, its policy) refuses, and it is the application-level cause
  (`refusing_front`);
- a back end whose lines say a request arrived with no credential (`no Authorization header`,
  `missing bearer token`, `no API key`) while the same line shows it came through an intermediary
  (a `Via` header, a CDN's request id): the intermediary stripped the credential on the way (a CDN
  policy, a proxy's header allowlist), an http-layer fault of that intermediary, named by the
  product its `Via` names (`2.0 abc.cloudfront.net (CloudFront)`, `1.1 varnish`, `1.1 google`)
  (`dropped_credential`).

Either way the probed host's own HTTP hypothesis is the front's symptom.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered import unread_services
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors, Probe
from reasoning.layered.reading import short

_REFUSED: Final = frozenset({401, 403})
_STATUS: Final = re.compile(r"(?<![\w.:/-])(401|403)(?![\w.:/-])")
# A front's own reason for a refusal: an auth filter's verdict, a token or key it could not match.
_OWN_REASON: Final = re.compile(
    r"(?i)\b\w*(?:authn?|authz|jwt|jwks|oidc|oauth|rbac)\w*[_ ](?:access[_ ])?(?:denied|failed|"
    r"rejected|invalid)\w*|\bjwks?\b[^\n]{0,80}\b(?:kid|key)\b|\b(?:invalid|expired|unknown)[_ ]"
    r"(?:token|signature|kid|jwt|key)\b|\bsignature (?:verification )?failed\b|"
    r"\bext_authz_\w+|\bunauthorized[_ ]by\b"
)
# A back end's words for a request that reached it with no credential.
_NO_CREDENTIAL: Final = re.compile(
    r"(?i)\b(?:no|missing|without(?: an?)?|absent|empty)[_ ](?:the[_ ])?(?:authorization|auth|"
    r"bearer|api[_ -]?key|x-api-key|access[_ ]token|token|credentials?|session cookie)"
    r"(?:[_ ](?:header|token|key))?\b|\b(?:authorization|auth) header (?:is )?(?:missing|absent|"
    r"empty|not (?:present|set|found))\b"
)
# The intermediary a request came through, as the back end logged it: a Via header's product
# (`2.0 abc.cloudfront.net (CloudFront)`, `1.1 varnish`, `1.1 google`), or a CDN's own request id.
_VIA: Final = re.compile(
    r"(?i)\bvia\W{1,4}(?:[\w/.]+ )?([\w.-]+)(?: \(([A-Za-z][\w .-]{1,30})\))?"
)
_CDN_ID: Final = (
    ("cloudfront", re.compile(r"(?i)\bx-amz-cf-id\b|\.cloudfront\.net\b")),
    ("akamai", re.compile(r"(?i)\bakamai\w*\b|\bx-akamai-")),
    ("fastly", re.compile(r"(?i)\bx-served-by\W{1,4}cache-|\bfastly\b")),
    ("cloudflare", re.compile(r"(?i)\bcf-ray\b|\bcloudflare\b")),
)
_FRONT: Final = 0.9  # the front's own line refuses the probed host's requests
_DROPPED: Final = (
    0.88  # the back end says the credential is missing, behind a named intermediary
)
_DIRECT_OK: Final = (
    0.03  # a probe straight to a back end answers: only the front's path fails
)


def _refused(board: Board) -> list[Probe]:
    return [
        p
        for p in board.facts.probes.values()
        if p.layer == layers.HTTP and p.status in _REFUSED
    ]


def _groups(errors: Errors) -> list[ErrorGroup]:
    return [*errors.groups, *errors.warnings]


def _every(board: Board) -> list[Errors]:
    """Each service's errors read, and what a read of every service at once shows of the others."""
    return [e for _, e in unread_services.every_service_errors(board.inv, board.facts)]


def _names_host(text: str, host: str) -> bool:
    return re.search(rf"(?<![\w.-]){re.escape(host)}(?![\w-])", text) is not None


def refusing_front(board: Board) -> None:
    """A gateway whose own access lines answer the refused host's requests with 401/403 and its own auth verdict is the cause; the host's HTTP failure is its symptom."""
    for probe in _refused(board):
        for errors in _every(board):
            for group in _groups(errors):
                text = (group.sample or group.signature)[:4000]
                if not _names_host(text, probe.host) or not _STATUS.search(text):
                    continue
                reason = _OWN_REASON.search(text)
                if reason is None:
                    continue
                service = errors.service
                c = board.get(
                    layers.APPLICATION,
                    service,
                    f"{service} refuses the requests for {probe.host} itself: "
                    f"its own check answers {probe.status} ({short(reason.group(0), 80)})",
                )
                if c.status == "ruled_out":
                    continue
                c.cite(errors.obs, errors.fact(group))
                c.cite(probe.obs, probe.fact)
                c.status, c.confidence = "confirmed", max(c.confidence, _FRONT)
                c.chain = [
                    board.symptom(),
                    f"{probe.host} answers HTTP {probe.status}",
                    f"{service} logs: {short(text, 120)}",
                    c.statement,
                ]
                c.keywords = [service, reason.group(0), str(probe.status), "gateway"]
                _explain_host(board, probe, c)
                break
            else:
                continue
            break


def _intermediary(text: str) -> str | None:
    """The intermediary a back end's line says the request came through."""
    via = _VIA.search(text)
    if via is not None:
        product = (via.group(2) or "").strip()
        if product:
            return product.split()[0].lower()
    for name, pattern in _CDN_ID:
        if pattern.search(text):
            return name
    if via is not None:
        name = via.group(1).lower()
        if re.fullmatch(r"[a-z][a-z-]{2,30}", name):
            return name
    return None


def dropped_credential(board: Board) -> None:
    """A back end whose new lines say requests arrive with no credential, through an intermediary its lines name (a Via header, a CDN's request id), while a host is refused with 401/403: the intermediary strips the credential (http layer)."""
    refused = _refused(board)
    if not refused:
        return
    direct_ok = [
        p for p in board.facts.probes.values() if p.layer is None and p not in refused
    ]
    for errors in _every(board):
        for group in _groups(errors):
            text = (group.sample or group.signature)[:4000]
            missing = _NO_CREDENTIAL.search(text)
            if missing is None:
                continue
            front = _intermediary(text)
            if front is None:
                continue
            probe = refused[0]
            c = board.get(
                layers.HTTP,
                front,
                f"{front} forwards requests to {errors.service} without their credential "
                f"({short(missing.group(0), 60)}): {errors.service} answers them {probe.status}",
            )
            if c.status == "ruled_out":
                return
            c.cite(errors.obs, errors.fact(group))
            c.cite(probe.obs, probe.fact)
            confidence = _DROPPED
            if direct_ok:
                c.cite(direct_ok[0].obs, direct_ok[0].fact)
                confidence += _DIRECT_OK
            c.status, c.confidence = "confirmed", max(c.confidence, confidence)
            c.chain = [
                board.symptom(),
                f"{probe.host} answers HTTP {probe.status}",
                f"{errors.service} logs: {short(text, 120)}",
                c.statement,
            ]
            c.keywords = [front, missing.group(0), "header", "origin request policy"]
            _explain_host(board, probe, c)
            origin = board.candidates.get(f"{layers.APPLICATION}:{errors.service}")
            if origin is not None and origin is not c:
                origin.explained_by(
                    c, f"a symptom of {c.id} (its requests arrive without a credential)"
                )
            return


def _explain_host(board: Board, probe: Probe, cause: Candidate) -> None:
    http = board.candidates.get(f"{layers.HTTP}:{probe.host}")
    if http is None or http is cause or http.status == "ruled_out":
        return
    http.status, http.confidence = "ruled_out", min(http.confidence, 0.2)
    http.reason_ruled_out = (
        f"explained by {cause.id}: the {probe.status} is {cause.component}'s answer"
    )
