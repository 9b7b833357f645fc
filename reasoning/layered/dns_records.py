"""A name that stops resolving because a record writer deleted its record: the writer, not the name, is at fault.

DNS records are written by controllers and pipelines (external-dns, a cloud DNS change set, an
infrastructure run). A writer deletes the records it believes it owns and no longer has a source
for; external-dns claims ownership by TXT records carrying its owner id, so a second instance given
the same owner id (a cluster built from copied values, a sync policy on a shared zone) deletes the
first one's records, which that one then re-creates: the name flaps between an answer and NXDOMAIN.
Its callers log `ENOTFOUND`, `no such host`, `could not resolve host`, but the name's own service
is healthy and the name's record was right: the fault is the writer that deleted it. When names
fail to resolve, the planner searches every service's lines for a deletion naming one of them, or
its ownership TXT record, and for an owner id set on one of their parent domains (`searches`). A
line (not an error: a failed deletion deleted nothing) deleting a record of a failing name makes
its service the DNS hypothesis, citing the owner id's line when one names the same domain
(`deleted_records`); the failing name is its symptom. A deletion of a name that does not fail, or
a line removing a failing host from a pool rather than a record, is not this rule's; nor is a
deletion that retires what the record pointed at (`retire db-01 (migrated …)`, decommissioned): that
one was meant, and the fault is whoever still calls the old name. A CI/CD runner (GitHub Actions,
GitLab CI, Jenkins, Atlantis) that pushes a declarative zone (DNSControl, OctoDNS, Terraform) only
runs what a change told it to: it owns no records and is never the DNS fault; the deleted record's
name is, citing the deletion (`pushed_deletions`).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.dns_zones import parents
from reasoning.layered.facts import Facts, parse_time
from reasoning.layered.reading import (
    error_classes,
    every_service_lines,
    hosts_in,
    short,
)
from reasoning.layered.warning_leads import names_service
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

# A record deleted (RE2 for the logs server, case-insensitive there).
DELETE_WORDS: Final = r"(delet|remov|destroy|purg|\bdel\b)"
OWNER_WORDS: Final = r"(owner.?id|txt.?owner)"
_DELETE: Final = re.compile(
    r"\b(?:(?:delet|remov|destroy|purg)\w*|del\b)", re.IGNORECASE
)
# The line is about a DNS record: a record type, or a record, zone or change-set word.
_RECORD_TYPE: Final = re.compile(r"\b(?:A|AAAA|CNAME|TXT|ALIAS|NS|SRV)\b")
_RECORD_WORD: Final = re.compile(
    r"\b(?:records?|rrsets?|record.?sets?|hosted.?zones?|zones?|resource.?record\w*|"
    r"changeresourcerecordsets|dns)\b",
    re.IGNORECASE,
)
# An owner id as configured: `txtOwnerId=prod-a`, `--txt-owner-id=prod-a`, `owner-id: prod-a`.
_OWNER: Final = re.compile(
    r"\b((?:txt[-_]?)?owner[-_]?id)\b\s*[=:]\s*[\"']?([A-Za-z0-9][\w.-]{0,62})",
    re.IGNORECASE,
)
_NOT_CHANGE_LEVELS: Final = ("error", "err", "fatal", "critical")
# A deletion that retires what the record pointed at (the host decommissioned, migrated away, its
# instance destroyed in the same run) is meant: the fault is whoever still calls the old name.
_RETIRES: Final = re.compile(
    r"\b(?:retir(?:e|es|ed|ing)|decommission\w*|sunset\w*|migrated|end[- ]of[- ]life|"
    r"tear(?:ing)?[- ]?down|torn down)\b",
    re.IGNORECASE,
)
# A CI/CD runner: it executes a pipeline someone changed, so it is never itself the record writer at fault.
_CI_RUNNER: Final = re.compile(
    r"^(?:.*[-_.])?(?:github[-_]?actions?|gitlab(?:[-_]?(?:ci|runner))?|jenkins|circleci|"
    r"buildkite|travis(?:[-_]?ci)?|drone(?:[-_]?ci)?|teamcity|bamboo|azure[-_]?(?:pipelines|devops)|"
    r"bitbucket[-_]?pipelines|woodpecker|concourse|tekton|codebuild|cloud[-_]?build|atlantis|"
    r"spacelift|ci|ci[-_]?cd|ci[-_]?runner)(?:[-_.].*)?$",
    re.IGNORECASE,
)
_MAX_NAMES: Final = 3
_LIMIT: Final = 20
OWNER_LEAD: Final = timedelta(
    hours=2
)  # a writer's values are set well before it deletes


@dataclass(frozen=True)
class Deletion:
    obs: Observation
    service: str  # the writer: the service whose line it is
    at: datetime | None
    message: str
    name: str  # the failing name it deletes

    @property
    def fact(self) -> str:
        return short(
            f"search_logs: {self.service} deletes a record of {self.name}: {self.message}",
            300,
        )


def failing_names(facts: Facts) -> dict[str, datetime | None]:
    """Names that fail to resolve (a probe's dns layer, an error or warning line's DNS failure), each with its first failure."""
    found: dict[str, datetime | None] = {}
    for probe in facts.probes.values():
        if probe.layer == layers.DNS:
            found.setdefault(probe.host.lower(), None)
    for group in (g for e in facts.errors.values() for g in (*e.groups, *e.warnings)):
        if layers.DNS not in error_classes(group.text):
            continue
        first = parse_time(group.first_seen)
        for host in hosts_in(group.text):
            if "." not in host.strip("."):
                continue
            host = host.lower()
            was = found.get(host)
            found[host] = first if was is None or (first and first < was) else was
    return found


def _names(facts: Facts) -> list[str]:
    return sorted(failing_names(facts))[:_MAX_NAMES]


def _alternatives(names: list[str]) -> str:
    return "|".join(re.escape(n) for n in names)


def search_pattern(names: list[str]) -> str:
    """A regex for lines naming a deletion and one of `names` (its TXT companion included), in either order."""
    alternatives = _alternatives(names)
    return f"{DELETE_WORDS}.*({alternatives})|({alternatives}).*{DELETE_WORDS}"


def owner_pattern(names: list[str]) -> str:
    """A regex for lines setting an owner id and naming one of the parent domains of `names`."""
    domains = list(dict.fromkeys(p for n in names for p in (n, *parents(n))))
    alternatives = _alternatives(domains)
    return f"{OWNER_WORDS}.*({alternatives})|({alternatives}).*{OWNER_WORDS}"


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """When names fail to resolve: every service's lines deleting a record of one of them, and lines setting a record writer's owner id for their domains."""
    names = _names(facts)
    if not names:
        return []
    base: dict[str, Any] = {"regex": True, **window, "limit": _LIMIT}
    start = parse_time(window.get("start", ""))
    earlier = dict(base)
    if start is not None:
        earlier["start"] = (start - OWNER_LEAD).isoformat().replace("+00:00", "Z")
    listed = ", ".join(names)
    return [
        call(
            SEARCH_LOGS,
            {"query": search_pattern(names), **base},
            f"{listed} do not resolve: did a record writer (external-dns, a DNS change "
            "set) delete their records",
        ),
        call(
            SEARCH_LOGS,
            {"query": owner_pattern(names), **earlier},
            f"{listed} do not resolve: which record writer claims their domain (its owner id)",
        ),
    ]


def _deleted_name(message: str, names: list[str]) -> str | None:
    """The failing name whose record the line deletes (its own, or a TXT companion `a-<name>`, `<prefix>.<name>`)."""
    if not _DELETE.search(message):
        return None
    if not (_RECORD_TYPE.search(message) or _RECORD_WORD.search(message)):
        return None
    for host in (h.lower().rstrip(".") for h in hosts_in(message)):
        for name in names:
            if host == name or host.endswith(("." + name, "-" + name)):
                return name
    return None


def deletions(board: Board) -> list[Deletion]:
    """Lines of the deletion search (any search answer) that delete a record of a failing name, one per service and name."""
    names = list(failing_names(board.facts))
    if not names:
        return []
    found: list[Deletion] = []
    for obs, line in every_service_lines(
        board.inv, search_pattern(_names(board.facts))
    ):
        message = str(line.get("message") or "")
        level = str(line.get("level") or "").lower()
        service = str(line.get("service") or "")
        if level in _NOT_CHANGE_LEVELS or not service or _RETIRES.search(message):
            continue
        name = _deleted_name(message, names)
        if name is None:
            continue
        if any(d.service == service and d.name == name for d in found):
            continue
        found.append(
            Deletion(
                obs, service, parse_time(str(line.get("time") or "")), message, name
            )
        )
    return found


def _owner_line(
    board: Board, deletion: Deletion
) -> tuple[Observation, str, str, str] | None:
    """(answer, service, message, owner id) of a line setting an owner id for the deleted name's domain or naming its writer."""
    domains = {deletion.name, *parents(deletion.name)}
    query = owner_pattern(_names(board.facts))
    for obs, line in every_service_lines(board.inv, query):
        message = str(line.get("message") or "")
        match = _OWNER.search(message)
        if match is None:
            continue
        named = {h.lower().rstrip(".") for h in hosts_in(message)}
        if named & domains or names_service(message, deletion.service):
            owner = f"{match.group(1)}={match.group(2)}"
            return obs, str(line.get("service") or ""), message, owner
    return None


def deleted_records(board: Board) -> None:
    """A name that fails to resolve while a service's lines delete its DNS record (or its TXT ownership record) is a DNS fault of that record writer, not of the name's own service."""
    for deletion in deletions(board):
        if not is_ci_runner(deletion.service):
            _hypothesis(board, deletion)


def is_ci_runner(service: str) -> bool:
    """Whether `service` names a CI/CD runner (it runs a changed pipeline; it owns no records)."""
    return len(service) <= 100 and _CI_RUNNER.match(service) is not None


def pushed_deletions(board: Board) -> None:
    """A CI/CD runner's push deleting the record of a name that then fails to resolve is a DNS fault of that name's record (dropped from the pushed zone), not of the runner."""
    for deletion in deletions(board):
        if is_ci_runner(deletion.service):
            _pushed(board, deletion)


def _pushed(board: Board, deletion: Deletion) -> None:
    name = deletion.name
    c = board.get(layers.DNS, name, f"the DNS record of {name} was deleted")
    c.statement = (
        f"the DNS record of {name} was deleted by a zone push that {deletion.service} ran "
        f"(a declarative DNS config without the record), so {name} fails to resolve"
    )
    c.cite(deletion.obs, deletion.fact)
    c.status = "confirmed"
    c.confidence = max(c.confidence, 0.94)
    c.chain = [
        board.symptom(),
        f"{deletion.service} logs: {short(deletion.message, 140)}",
        c.statement,
    ]
    c.keywords = [layers.DNS, name, deletion.service, "record deleted", "nxdomain"]


def _hypothesis(board: Board, deletion: Deletion) -> None:
    name = deletion.name
    owner = _owner_line(board, deletion)
    owned = f" (configured with {owner[3]})" if owner else ""
    c = board.get(
        layers.DNS,
        deletion.service,
        f"{deletion.service}{owned} deletes the DNS record of {name}, which then fails "
        f"to resolve: a record writer that claims records it does not own",
    )
    c.cite(deletion.obs, deletion.fact)
    if owner is not None:
        c.cite(
            owner[0],
            short(f"search_logs: {owner[1]} logs the owner id: {owner[2]}", 300),
        )
    leaf = board.candidates.get(f"{layers.DNS}:{name}")
    if leaf is not None:
        for e in leaf.evidence:
            if not any(x.span_id == e.span_id and x.fact == e.fact for x in c.evidence):
                c.evidence.append(e)
                c.sources.add(e.server)
    c.status = "confirmed"
    base = leaf.confidence if leaf is not None else 0.6
    c.confidence = max(c.confidence, min(max(base, 0.9) + 0.04, 0.97))
    c.chain = [
        *(leaf.chain[:-1] if leaf is not None else [board.symptom()]),
        f"{deletion.service} logs: {short(deletion.message, 140)}",
        *([f"{owner[1]} logs: {short(owner[2], 140)}"] if owner else []),
        c.statement,
    ]
    c.keywords = [layers.DNS, deletion.service, name, "record deleted", "nxdomain"]
    if owner is not None:
        c.keywords.append(owner[3])
    if leaf is not None and leaf.status != "ruled_out":
        leaf.status, leaf.confidence = "likely", min(leaf.confidence, 0.4)
        leaf.statement += f"; a symptom of {c.id} (its record was deleted)"
