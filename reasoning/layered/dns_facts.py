"""DNS facts a resolver or a record's history states, that the name's callers never do (issue 21 classes 1 and 4).

A name's callers log only that it fails or that it is slow; why is said elsewhere. A resolver that
cached the NXDOMAIN of a record deleted and re-created (the zone's SOA minimum, hours long) keeps
answering "no such name" after the record is back: the fault is the name's negative answer, not
the writer that has already put it back (`negative_cache`). A validating resolver that fails
`no keys have a DS` after a key rollover fails every name of the zone, while non-validating
resolvers still answer: the zone's DS chain is at fault, not the name probed (`dnssec_mismatch`).
A weighted record set left at weight 0 for one pool sends every client to the others: that pool
goes idle while the rest are overloaded or far away (`zero_weight`). Each blames the DNS name or
zone at the DNS layer and explains the services failing on it.
"""

import re
from collections.abc import Callable, Iterator
from typing import Any, Final

from reasoning import layers
from reasoning.layered import unread_services
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.dns_records import failing_names
from reasoning.layered.facts import FACT_CHARS, Facts
from reasoning.layered.reading import as_dict, as_list, hosts_in, short
from reasoning.observations import Investigation, Observation
from reasoning.tools import SEARCH_LOGS

_TEXT: Final = 2000
_CONFIDENCE: Final = (
    0.96  # the resolver's or the record's own words, over a writer's deletion
)

# A resolver holding a negative answer.
NEGATIVE: Final = re.compile(
    r"\bnxdomain (?:is )?cached\b|\bnegative(?:ly)?[ -]cach\w*|\bnegative ttl\b|"
    r"\bcached (?:an? )?nxdomain\b|\bsoa minimum\b",
    re.IGNORECASE,
)
NEGATIVE_SEARCH: Final = r"(?i)nxdomain (is )?cached|negative(ly)?[ -]cach|negative ttl|cached (an? )?nxdomain|soa minimum"
SEARCH_LIMIT: Final = 20
# A validating resolver refusing a zone's signatures.
VALIDATION: Final = re.compile(
    r"\bvalidation failure\b|\bno keys have a DS\b|\bDS key tag \d+ not in DNSKEY\b|"
    r"\bdnssec[^\n]{0,60}\bbogus\b|\bbogus\b[^\n]{0,60}\bdnssec\b|\bDNSKEY (?:missing|not found)\b",
    re.IGNORECASE,
)
_KEY_WORDS: Final = re.compile(
    r"\b(?:KSK|ZSK|DNSKEY|DS|rollover|key tag)\b", re.IGNORECASE
)
# A weighted record's set identifier and its weight (`SetIdentifier=eu-west-1 Weight=0`).
_WEIGHTED: Final = re.compile(
    r"\bSetIdentifier[=: ]+([\w.-]{1,64})[,;]?\s+Weight[=: ]+(\d{1,6})(?:\s*\(was (\d{1,6})\))?",
    re.IGNORECASE,
)


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], Any],
    window: dict[str, str],
) -> list[Any]:
    """When names fail to resolve: every service's lines of a resolver holding a negative answer."""
    if not failing_names(facts):
        return []
    return [
        call(
            SEARCH_LOGS,
            {"query": NEGATIVE_SEARCH, "regex": True, **window, "limit": SEARCH_LIMIT},
            "names fail to resolve: does a resolver hold a cached NXDOMAIN for them",
        )
    ]


def _lines(inv: Investigation) -> Iterator[tuple[Observation, str, str]]:
    """(answer, service, message) of every search_logs line read, whatever its query."""
    for obs in inv.observations:
        if obs.tool != SEARCH_LOGS or not obs.is_ok:
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")[:_TEXT]
            if message:
                yield obs, str(line.get("service") or ""), message


def _groups(
    inv: Investigation, facts: Facts
) -> Iterator[tuple[Observation, str, str, str]]:
    """(answer, service, text, fact) of every error and warning group read."""
    for service, errors in unread_services.every_service_errors(inv, facts):
        for group in (*errors.groups, *errors.warnings):
            yield (
                errors.obs,
                service,
                (group.sample or group.signature)[:_TEXT],
                errors.fact(group),
            )


def _confirm(c: Candidate) -> None:
    if c.confidence < _CONFIDENCE:
        c.status, c.confidence = "confirmed", _CONFIDENCE


def negative_cache(board: Board) -> None:
    """A name that fails to resolve while a resolver logs that it holds the name's NXDOMAIN cached (a negative answer kept for the zone's SOA minimum) is a DNS fault of that name's cached negative answer, not of the record writer that re-created it."""
    names = failing_names(board.facts)
    if not names:
        return
    for obs, service, message in _lines(board.inv):
        if not NEGATIVE.search(message):
            continue
        named = {h.lower().rstrip(".") for h in hosts_in(message)}
        for name in sorted(names):
            if name not in named:
                continue
            c = board.get(layers.DNS, name, f"DNS resolution of {name} fails")
            c.statement = (
                f"resolvers hold a cached NXDOMAIN for {name} ({short(message, 100)}): "
                "it keeps failing to resolve after its record was re-created"
            )
            c.cite(
                obs,
                short(f"search_logs(every service): {service}: {message}", FACT_CHARS),
            )
            for answer, _, text, fact in _groups(board.inv, board.facts):
                if name in text.lower():
                    c.cite(answer, fact)
                    break
            _confirm(c)
            c.chain = [board.symptom(), short(message, 160), c.statement]
            c.keywords += [
                k
                for k in (name, "negative cache", "nxdomain", "soa minimum")
                if k not in c.keywords
            ]
            for other in board.candidates.values():
                if (
                    other is not c
                    and other.status != "ruled_out"
                    and name in other.statement
                ):
                    other.explained_by(c, f"{name}'s NXDOMAIN is cached ({c.id})")
            return


def _zone(name: str, lines: list[str]) -> str:
    """The zone of `name` a key line names (its longest suffix there), else its last two labels."""
    suffixes = [
        h.lower().rstrip(".")
        for line in lines
        for h in hosts_in(line)
        if name == h.lower().rstrip(".") or name.endswith("." + h.lower().rstrip("."))
    ]
    if suffixes:
        return min(suffixes, key=len)
    return ".".join(name.split(".")[-2:])


def dnssec_mismatch(board: Board) -> None:
    """A validating resolver failing a name's DNSSEC validation (`no keys have a DS`, a DS key tag not in the DNSKEY set) is a DNS fault of the name's zone (its DS chain after a key rollover), not of the name probed or the resolver."""
    failed = [
        (obs, service, text, fact)
        for obs, service, text, fact in _groups(board.inv, board.facts)
        if VALIDATION.search(text)
    ]
    if not failed:
        return
    obs, service, text, fact = failed[0]
    names = [h.lower().rstrip(".") for h in hosts_in(text) if "." in h.strip(".")]
    if not names:
        return
    key_lines = [m for _, _, m in _lines(board.inv) if _KEY_WORDS.search(m)]
    zone = _zone(names[0], key_lines)
    c = board.get(
        layers.DNS,
        zone,
        f"the DNSSEC chain of {zone} is broken ({short(text, 100)}): validating resolvers "
        f"answer SERVFAIL for its names",
    )
    c.cite(obs, fact)
    _confirm(c)
    c.chain = [board.symptom(), short(text, 160), c.statement]
    c.keywords += [
        k for k in (zone, "dnssec", "DS record", "KSK rollover") if k not in c.keywords
    ]
    for other in board.candidates.values():
        if other is c or other.status == "ruled_out":
            continue
        if other.component == service or other.component.endswith(zone):
            other.explained_by(c, f"{zone}'s DNSSEC chain is broken ({c.id})")


def zero_weight(board: Board) -> None:
    """A weighted DNS record set whose one pool was left at weight 0 while another keeps traffic, and whose zeroed pool the failing or idle services name, is a DNS fault of that record, not of the services now overloaded or idle."""
    groups = list(_groups(board.inv, board.facts))
    for obs, service, message in _lines(board.inv):
        weights = list(_WEIGHTED.finditer(message))
        zeroed = [m for m in weights if int(m.group(2)) == 0]
        if not zeroed:
            continue
        kept = any(int(m.group(2)) > 0 for m in weights) or any(
            m.group(3) and int(m.group(3)) > 0 for m in zeroed
        )
        pool = zeroed[0].group(1)
        tied = [
            g
            for g in groups
            if re.search(rf"(?<![\w-]){re.escape(pool)}(?![\w-])", g[2], re.IGNORECASE)
        ]
        names = [h.lower().rstrip(".") for h in hosts_in(message[: zeroed[0].start()])]
        if not kept or not tied or not names:
            continue
        name = names[-1]
        c = board.get(
            layers.DNS,
            name,
            f"the weighted record {name} sends no traffic to {pool} (weight 0): every client "
            "goes to the other pools",
        )
        c.cite(
            obs, short(f"search_logs(every service): {service}: {message}", FACT_CHARS)
        )
        c.cite(tied[0][0], tied[0][3])
        _confirm(c)
        c.chain = [board.symptom(), short(message, 160), c.statement]
        c.keywords += [
            k
            for k in (name, pool, "weighted record", "weight 0")
            if k not in c.keywords
        ]
        for other in board.candidates.values():
            if (
                other is not c
                and other.layer == layers.APPLICATION
                and other.status != "ruled_out"
            ):
                other.explained_by(c, f"{name} sends no traffic to {pool} ({c.id})")
        return
