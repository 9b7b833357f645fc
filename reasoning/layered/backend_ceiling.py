"""A back end answering that its own ceiling is reached (a maximum of shards, connections, fields, partitions): the back end's capacity is the cause at the application layer, not the host's HTTP answer (issue 21).

A probe of a back end's host answered with a 4xx whose body says the back end itself is full
(`this cluster currently has [3000]/[3000] maximum normal shards open`, `Limit of total fields
[1000] has been exceeded`, `too many connections`, `max_connections reached`, `maximum number of
partitions exceeded`) shows no fault of HTTP: the back end works, and refuses because a limit of its
own configuration or size is spent. The back end (the service its host belongs to, else the host's
first label) is the application-level cause, confirmed on the probe's answer and on a caller's line
quoting the same words; the host's HTTP hypothesis and the quoting callers' own are its symptoms.
A rate limit (429, requests per interval) is not a ceiling of this kind (`shared_limits`).
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered import unread_services
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Probe
from reasoning.layered.reading import belongs, short

# A back end's words for its own ceiling being spent.
CEILING: Final = re.compile(
    r"(?i)\bcurrently has \[?\d+\]?\s*/\s*\[?\d+\]? (?:maximum|max)\b[^\n;]{0,40}|"
    r"\b(?:maximum|max(?:imum)?[_ ]\w{1,30}|limit of (?:total )?\w{1,20}(?: \[\d+\])?)"
    r"[^\n;]{0,60}?\b(?:has been |have been |is |was )?(?:reached|exceeded|hit|spent)\b|"
    r"\btoo many (?:open )?(?:shards|indices|connections|clients|fields|partitions|tables|"
    r"databases|collections|subscriptions|topics|queues|channels)\b|"
    r"\bwould (?:add|exceed|create)\b[^\n;]{0,80}\b(?:maximum|limit)\b"
)
_RATE: Final = re.compile(
    r"(?i)\brate[ _-]?limit|\bper (?:second|minute|hour)\b|\b429\b"
)
_CONFIDENCE: Final = 0.88  # the back end's own answer names its spent ceiling
_QUOTED: Final = 0.02  # a caller's line quotes the same ceiling


def _ceiling(probe: Probe) -> str | None:
    if probe.layer != layers.HTTP or probe.status is None:
        return None
    if not 400 <= probe.status < 500:
        return None  # a 5xx naming a limit is a service's own exhaustion (its pool, its queue)
    if probe.status in (401, 403, 404, 429) or not probe.body:
        return None
    body = probe.body[:4000]
    if _RATE.search(body):
        return None
    match = CEILING.search(body)
    return match.group(0) if match else None


def backend_ceiling(board: Board) -> None:
    """A probe answered with a 4xx whose body says the back end's own ceiling is reached (maximum shards, connections, fields) is that back end's application-level fault; the host's HTTP answer and its quoting callers are symptoms."""
    every = unread_services.every_service_errors(board.inv, board.facts)
    known = [s for s, _ in every if s] + [s for s in board.facts.health if s]
    for probe in board.facts.probes.values():
        words = _ceiling(probe)
        if words is None:
            continue
        owner = next((s for s in known if belongs(probe.host, s)), None)
        backend = (owner or probe.host.split(".", 1)[0]).lower()
        c = board.get(
            layers.APPLICATION,
            backend,
            f"{backend} refuses new work because its own ceiling is spent: {short(words, 80)}",
        )
        if c.status in ("ruled_out", "confirmed"):
            continue  # another rule's conclusion on the back end stands
        c.cite(probe.obs, probe.fact)
        confidence = _CONFIDENCE
        key = " ".join(words.split()[:4]).lower()
        callers = []
        for service, errors in every:
            if not service or service.lower() == backend:
                continue
            for group in (*errors.groups, *errors.warnings):
                if (
                    key
                    in " ".join(
                        (group.sample or group.signature)[:4000].split()
                    ).lower()
                ):
                    c.cite(errors.obs, errors.fact(group))
                    callers.append(service)
                    break
        if callers:
            confidence += _QUOTED
        c.status, c.confidence = "confirmed", max(c.confidence, confidence)
        c.chain = [
            board.symptom(),
            f"{probe.host} answers HTTP {probe.status}: {short(words, 100)}",
            c.statement,
        ]
        c.keywords = [backend, words, "limit", "capacity"]
        http = board.candidates.get(f"{layers.HTTP}:{probe.host}")
        if http is not None and http.status != "ruled_out":
            http.status, http.confidence = "ruled_out", min(http.confidence, 0.2)
            http.reason_ruled_out = (
                f"explained by {c.id}: the {probe.status} is {backend}'s own refusal"
            )
        for service in callers:
            victim = board.candidates.get(f"{layers.APPLICATION}:{service}")
            if victim is not None and victim is not c:
                victim.explained_by(c, f"a symptom of {c.id} (it quotes its ceiling)")
