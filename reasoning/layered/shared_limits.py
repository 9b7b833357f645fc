"""A third party rate-limiting us (issue 21): its 429s are the fault at the http layer, and a co-tenant whose burst began just before is why.

A provider outside our services (a host the error lines name that is no service read) answering 429,
"Too Many Requests" or "rate limit" to a service's calls is an http-layer fault of that provider's
limit, not of the service that quotes it: its own failure counts only echo the 429s. When the account
or key is shared, the limit was used up by someone: another service whose own send or request rate
(a series it exports, not a count of failures) jumped from the hour before the window is the
co-tenant whose burst exhausts it, and the fault is its (http layer). Without such a burst in view,
the provider's limit itself is the fault. A provider may be named by its words rather than a host
(an SDK's throttle: `the rate at which you may call KMS`, `calls to Graph`); a usage line that
names the top caller of the quota (a cloud usage alarm: `top caller …/batch-role/…`) names the
co-tenant when no burst is in view.
"""

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from reasoning import layers
from reasoning.layered import host_lines, metric_trends, unread_services
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import (
    FACT_CHARS,
    ErrorGroup,
    Errors,
    Facts,
    parse_time,
)
from reasoning.layered.reading import hosts_in, short
from reasoning.layered.storage_quota import STORAGE_QUOTA
from reasoning.observations import Investigation, Observation

# A provider's words for a caller over its limit: a 429, or the words in the body of any answer
# (many APIs answer 200 with a status: OVER_QUERY_LIMIT, RESOURCE_EXHAUSTED, quota_exceeded).
LIMITED: Final = re.compile(
    r"\b429\b|too many requests|rate[ _-]?limit(?:ed|ing)?\b|rate[ _-]?limit[ _-]?exceeded|"
    r"throttl\w*|quota[ _-]?(?:exceeded|exhausted|reached)|over[ _-]?(?:query[ _-]?)?(?:limit|quota)|"
    r"exceeded (?:your |the )?(?:\w{1,20} ){0,3}(?:quota|rate limit|request limit)|"
    r"resource[ _-]?exhausted|usage limit (?:exceeded|reached)",
    re.IGNORECASE,
)
# A series that counts what a service sends or asks (its own load), not what fails.
_LOAD: Final = re.compile(
    r"sent|send|request|call|message|dispatch|deliver|publish|push|api", re.IGNORECASE
)
# A batch of work (a backfill, an import, a migration or replay job), by a service's name or lines.
_BATCH: Final = re.compile(
    r"backfill|\bbatch|\bbulk\b|\bimport|migrat|re-?index|\breplay|resync|\bcron|\bjob\b",
    re.IGNORECASE,
)
# A provider named by the words of its answer, not a host: the API a throttled SDK call went to
# (`the rate at which you may call KMS`, `calls to Graph`, `(Service: Amazon S3; …)`); an
# operation's name (`calling the PutObject operation`) is not one.
_PROVIDER_WORDS: Final = re.compile(
    r"\b(?:may call|calls? to|calling|requests? to)\s+(?:the\s+)?([A-Z][A-Za-z0-9-]{1,40})\b"
    r"(?!\s+(?:operation|method|function|action|endpoint)\b)|"
    r"\(Service: ([A-Z][A-Za-z0-9 -]{1,40}?)[;)]|"
    # A client's request line led by the remote's name (`okta GET /api/v1/users -> 429`,
    # `[stripe] POST /v1/charges: 429`, `hubspot: PATCH /crm/v3/... 429`), also as a structured
    # log's message field (`"msg":"zendesk PUT /api/v2/…"`, `msg="zendesk PUT …"`).
    r"(?:^|[\s\[(\"'=])([A-Za-z][A-Za-z0-9-]{1,40})\]?:? (?:GET|POST|PUT|PATCH|DELETE|HEAD) /"
)
# A cloud API's own throttle code names the service that answered it, when the line names none:
# `"Reason":"ConcurrentInvocationLimitExceeded"` is only ever Lambda refusing invocations over the
# account's (or a function's reserved) concurrency. Codes several services share
# (`ThrottlingException`, `ProvisionedThroughputExceededException`, `SlowDown`) name none.
_THROTTLE_CODES: Final = (
    (
        re.compile(r"\b(?:Reserved)?(?:Function)?ConcurrentInvocationLimitExceeded\b"),
        "lambda",
    ),
)
# Words that lead a request line without naming a remote.
_NOT_PROVIDERS: Final = frozenset(
    [
        "http",
        "https",
        "request",
        "req",
        "call",
        "client",
        "api",
        "upstream",
        "outbound",
        "sending",
        "sent",
        "retry",
        "retrying",
        "error",
        "warn",
        "warning",
        "info",
        "debug",
        "failed",
    ]
)
# A usage line naming who spends a shared quota most (a cloud usage alarm, a provider's dashboard).
_TOP_CALLER: Final = re.compile(
    r"\b(?:top|heaviest|largest|biggest|main) (?:caller|consumer|client|user|principal|"
    r"requester|spender)s?\b[^\n]{0,200}",
    re.IGNORECASE,
)
_BURST: Final = (
    10.0  # a co-tenant's rate in the window's second half over the hour before's
)
_MIN_RATE: Final = 1.0  # … and at least one a second: a trickle is no burst
_CO_TENANT = 0.88
_BATCH_TENANT = 0.87  # a batch that quotes the same limit, without a burst in view
_PROVIDER = 0.86
_PROVIDER_BEHIND = 0.6  # the provider, when a co-tenant's burst explains its answers
_PROVIDER_PROBED = 0.9  # the provider, when a probe of its host met the same refusal


@dataclass(frozen=True)
class Limited:
    """A service's new error lines quoting a provider's rate-limit answer."""

    errors: Errors
    group: ErrorGroup
    provider: str

    @property
    def fact(self) -> str:
        return self.errors.fact(self.group)


@dataclass(frozen=True)
class Burst:
    obs: Observation
    service: str
    metric: str
    was: float
    now: float

    @property
    def fact(self) -> str:
        return short(
            f"query_metric {self.metric}{{service={self.service}}}: "
            f"{metric_trends.number_text(self.was)}/s the hour before the window, "
            f"{metric_trends.number_text(self.now)}/s now",
            FACT_CHARS,
        )


def limited_by_provider(board: Board) -> list[Limited]:
    """The services whose new error lines quote a rate-limit answer of a host that is no service read."""
    return _limited(board.facts)


def needs_tenants(inv: Investigation, facts: Facts) -> bool:
    """A provider limits a service and no answer of every service's errors at once shows who
    else quotes its limit (a batch on the same key) yet."""
    return bool(_limited(facts)) and not any(
        unread_services.is_every_service(o) for o in inv.observations
    )


def _limited(facts: Facts) -> list[Limited]:
    known = {s.lower() for s in (*facts.errors, *facts.health) if s}
    found: list[Limited] = []
    for service, errors in facts.errors.items():
        if not service:
            continue
        for group in (*errors.groups, *errors.warnings):
            if not group.is_new or not LIMITED.search(group.text):
                continue
            if STORAGE_QUOTA.search(group.text[:4000]):
                continue  # a disk quota filled (storage_quota), no provider's rate limit
            text = group.sample or group.signature
            hosts = [
                h
                for h in hosts_in(text)
                if not any(h == k or h.startswith(f"{k}.") for k in known)
            ]
            provider = hosts[0] if hosts else _provider_named(text, known)
            if provider:
                found.append(Limited(errors, group, provider))
                break
    return found


def _provider_named(text: str, known: set[str]) -> str | None:
    """The provider a limit answer names by its words (no host): the API that was called, else the
    cloud service whose own throttle code it quotes."""
    for match in _PROVIDER_WORDS.finditer(text[:4000]):
        name = next((g for g in match.groups() if g), "").strip().lower()
        if name and name not in known and name not in _NOT_PROVIDERS:
            return name
    return next(
        (
            service
            for code, service in _THROTTLE_CODES
            if service not in known and code.search(text[:4000])
        ),
        None,
    )


def top_caller(
    board: Board, limited: set[str]
) -> tuple[str, Errors, ErrorGroup] | None:
    """(service, errors, group) of a usage line that names a service the logs know as the top
    caller of a shared quota, the service not one of those the limit refuses."""
    every = unread_services.every_service_errors(board.inv, board.facts)
    known = {s for s, _ in every if s} | {s for s in board.facts.health if s}
    for _, errors in every:
        for group in (*errors.groups, *errors.warnings):
            if not group.is_new:
                continue
            match = _TOP_CALLER.search(group.sample or group.signature)
            if match is None:
                continue
            tail = match.group(0).lower()
            named = [
                n
                for n in known
                if n not in limited
                and n != errors.service
                and re.search(rf"(?<![a-z0-9]){re.escape(n)}(?![a-z0-9])", tail)
            ]
            if named:
                return max(named, key=len), errors, group
    return None


def bursts(board: Board, start: datetime, limited: set[str]) -> list[Burst]:
    """Other services whose own send or request rate jumped from the hour before the window."""
    found: list[Burst] = []
    for obs, name, labels, points in metric_trends.answered_series(
        board.inv, metric_trends.QUERY
    ):
        service = str(labels.get("service") or "").lower()
        if not service or service in limited or metric_trends.FAULTS.search(name):
            continue
        if not _LOAD.search(name) or not re.search(
            r"_rate$|per_?s(?:ec(?:ond)?)?$", name
        ):
            continue
        medians = metric_trends.before_and_recent(points, start)
        if medians is None:
            continue
        was, now = medians
        if now >= _MIN_RATE and now >= _BURST * was:
            found.append(Burst(obs, service, name, was, now))
    found.sort(key=lambda b: -b.now)
    return found


def batch_tenants(
    board: Board, limited: list[Limited]
) -> list[tuple[Errors, ErrorGroup]]:
    """Other services whose own new lines quote a limit too and that run a batch of work (by their
    name or those lines): a backfill or import on the shared key is what uses the quota up."""
    callers = {lim.errors.service for lim in limited}
    found = []
    for service, errors in unread_services.every_service_errors(board.inv, board.facts):
        if not service or service in callers:
            continue
        for group in (*errors.groups, *errors.warnings):
            if (
                group.is_new
                and LIMITED.search(group.text)
                and (_BATCH.search(service) or _BATCH.search(group.text))
            ):
                found.append((errors, group))
                break
    return found


def shared_limits(board: Board) -> None:
    """A provider outside our services (a host, or the API the answer names) answering a service's calls with 429 or a rate limit is an http-layer fault: another service whose own send or request rate jumped from before the window, or that a usage line names as the quota's top caller, used the shared limit up and is the cause, else the provider's limit is."""
    start = parse_time(board.inv.incident.window_start or "")
    if start is None:
        return
    limited = limited_by_provider(board)
    if not limited:
        return
    first = limited[0]
    others = bursts(board, start, {lim.errors.service for lim in limited})
    provider = board.get(
        layers.HTTP,
        first.provider,
        f"{first.provider} answers {first.errors.service}'s calls with a rate limit or "
        f"quota answer ({short(_limit_words(first.group.text), 40)}): the limit of the account "
        "is used up",
    )
    for lim in limited:
        provider.cite(lim.errors.obs, lim.fact)
    provider.keywords = [first.provider, "429", "rate limit", layers.HTTP]
    probed = _probed(board, provider)
    if not others:
        named = top_caller(board, {lim.errors.service for lim in limited})
        if named is not None:
            _top(board, provider, first, limited, *named)
            return
        batches = batch_tenants(board, limited)
        if batches:
            _batch(board, provider, first, limited, *batches[0])
            return
        provider.chain = [board.symptom(), first.fact, provider.statement]
        provider.status, provider.confidence = (
            "confirmed",
            max(provider.confidence, _PROVIDER_PROBED if probed else _PROVIDER),
        )
        return
    burst = others[0]
    provider.status, provider.confidence = (
        "likely",
        max(provider.confidence, _PROVIDER_BEHIND),
    )
    c = board.get(
        layers.HTTP,
        burst.service,
        f"{burst.service}'s burst ({burst.metric} jumped) uses up the rate limit it shares "
        f"with {first.errors.service} at {first.provider}, which answers 429",
    )
    c.cite(burst.obs, burst.fact)
    for lim in limited:
        c.cite(lim.errors.obs, lim.fact)
    c.chain = [board.symptom(), first.fact, burst.fact, c.statement]
    c.status, c.confidence = "confirmed", max(c.confidence, _CO_TENANT)
    c.keywords = [burst.service, first.provider, "429", "rate limit", layers.HTTP]


def _probed(board: Board, provider: Candidate) -> bool:
    """Fold a failing probe of the provider's host (or of a front host of its domain, the API's
    `api.` host) into the provider: the probe's answer is cited there, its own hypothesis is the
    same fault named by the host, a lead below the provider."""
    probed = False
    for probe in board.facts.probes.values():
        if probe.layer != layers.HTTP or not _provider_host(
            provider.component, probe.host
        ):
            continue
        provider.cite(probe.obs, probe.fact)
        probed = True
        front = board.candidates.get(f"{layers.HTTP}:{probe.host}")
        if front is not None and front is not provider:
            front.explained_by(
                provider, f"the same refusal as {provider.id}, met at its API host"
            )
    return probed


def _provider_host(provider: str, host: str) -> bool:
    """`host` is the provider's: the provider's own host or domain, or, for a provider named by a
    word (`zendesk`, `shopify`), a host one of whose labels before the top-level domain is that
    word or holds it (`acme.zendesk.com`, `shop-7.myshopify.com`): the tenant hosts SaaS APIs
    serve each customer under."""
    if provider in (host, host_lines.provider_domain(host)):
        return True
    if "." in provider or len(provider) < 4:
        return False
    return any(provider in label for label in host.lower().split(".")[:-1])


def _limit_words(text: str) -> str:
    match = LIMITED.search(text)
    return match.group(0) if match else "429"


def _batch(
    board: Board,
    provider: Candidate,
    first: Limited,
    limited: list[Limited],
    errors: Errors,
    group: ErrorGroup,
) -> None:
    """A batch that quotes the same limit is the co-tenant using it up; the provider is how."""
    provider.status, provider.confidence = (
        "likely",
        max(provider.confidence, _PROVIDER_BEHIND),
    )
    c = board.get(
        layers.HTTP,
        errors.service,
        f"{errors.service}, a batch of work, is limited at {first.provider} too: it uses up the "
        f"limit it shares with {first.errors.service}, which {first.provider} now refuses",
    )
    c.cite(errors.obs, errors.fact(group))
    for lim in limited:
        c.cite(lim.errors.obs, lim.fact)
    c.chain = [board.symptom(), first.fact, errors.fact(group), c.statement]
    c.status, c.confidence = "confirmed", max(c.confidence, _BATCH_TENANT)
    c.keywords = [errors.service, first.provider, "quota", "rate limit", layers.HTTP]


def _top(
    board: Board,
    provider: Candidate,
    first: Limited,
    limited: list[Limited],
    service: str,
    errors: Errors,
    group: ErrorGroup,
) -> None:
    """A service a usage line names as the top caller of the shared quota is the co-tenant using
    it up; the provider is how, the callers it refuses are its victims."""
    provider.status, provider.confidence = (
        "likely",
        max(provider.confidence, _PROVIDER_BEHIND),
    )
    usage = group.sample or group.signature
    c = board.get(
        layers.HTTP,
        service,
        f"{service} is the top caller of the quota {first.errors.service} shares at "
        f"{first.provider} ({errors.service}: {short(usage, 90)}); {first.provider} now "
        f"refuses {first.errors.service}",
    )
    c.cite(errors.obs, errors.fact(group))
    for lim in limited:
        c.cite(lim.errors.obs, lim.fact)
    own = board.facts.errors.get(service)
    if own is not None:
        mine = next(
            (g for g in (*own.groups, *own.warnings) if LIMITED.search(g.text)), None
        )
        if mine is not None:
            c.cite(own.obs, own.fact(mine))
    c.chain = [board.symptom(), first.fact, errors.fact(group), c.statement]
    c.status, c.confidence = "confirmed", max(c.confidence, _CO_TENANT)
    c.keywords = [service, first.provider, "quota", "rate limit", layers.HTTP]
    for lim in limited:
        victim = board.candidates.get(f"{layers.APPLICATION}:{lim.errors.service}")
        if victim is not None:
            victim.explained_by(
                c, f"a victim of {c.id} (it spends the quota the caller shares)"
            )
