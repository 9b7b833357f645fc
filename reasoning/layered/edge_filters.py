"""A request filter in front of a host (a WAF, an ACL, a bot rule) answering 401/403: the filter's own block line is the evidence.

A probe that gets 401 or 403 from a host shows that something refuses it, not what: the host's own
code, or a filter in front of it (a web ACL, a WAF rule group, a bot-control rule) that answers for
it. A filter logs what it blocks, often at info level, naming the rule that
matched and the path it refused, and nobody reads its logs because no incident names it. Once a
probe is refused, the planner searches every service's lines for a block verdict next to a rule
(`searches`); a line that blocks a request and names its rule or ACL (one naming a refused path
first, when the probe or the callers' errors name one) is the cause (`edge_filters`): the filter is
the hypothesis (its ACL, else its rule), its block line is cited, and the host's own HTTP hypothesis
is explained by it. A line naming that rule or ACL with a change word from shortly before the window
(the rule added, the ACL modified) is then searched and cited as the change that began it.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Final
from urllib.parse import urlparse

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import Facts, Probe, parse_time
from reasoning.layered.reading import arg, as_dict, as_list, host_of, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import SEARCH_LOGS

_REFUSED: Final = frozenset({401, 403})
# A filter's verdict next to the rule that gave it, as a RE2 pattern the logs server's regex search takes.
BLOCK_QUERY: Final = (
    r"action\W{0,3}(block|deny|drop)\b|\b(blocked|denied)\b.{0,60}\brule|"
    r"\brule.{0,60}\b(blocked|denied)\b"
)
_URL: Final = re.compile(r"https?://[^\s'\"<>)]+")
_BLOCK: Final = re.compile(
    r"\b(?:action\s*[=:]\s*\"?(?:block|deny|drop)|blocked|denied|deny|rejected|forbidden|dropped)\b",
    re.IGNORECASE,
)
# key=value pairs naming the ACL and the rule that matched (AWS WAF, Cloudflare, ModSecurity, nginx …).
_ACL: Final = re.compile(
    r"\b(?:web_?acl(?:_?id|_?name)?|acl(?:_?id|_?name)?|policy(?:_?id|_?name)?|firewall(?:_?name)?)"
    r"\s*[=:]\s*\"?([A-Za-z0-9][\w./:-]*)",
    re.IGNORECASE,
)
_RULE: Final = re.compile(
    r"\b(?:terminating_?rule(?:_?id)?|rule_?(?:id|name|group)|rule|ruleset|rule_?set)"
    r"\s*[=:]\s*\"?([A-Za-z0-9][\w./:-]*)",
    re.IGNORECASE,
)
_MATCH: Final = re.compile(
    r"\b(?:rule_?match|matched(?:_?rule)?|label|category)\s*[=:]\s*\"?([A-Za-z0-9][\w./:-]*)",
    re.IGNORECASE,
)
_CHANGE_WORDS: Final = r"(added|enabled|created|modif|changed|updated|applied|apply|deployed|set to|switched)"
_LEAD: Final = timedelta(minutes=30)
_LIMIT: Final = 20


@dataclass(frozen=True)
class Block:
    """A filter's line blocking a refused path: which answer, the line, the ACL and rule it names."""

    obs: Observation
    service: str
    message: str
    acl: str | None
    rule: str | None
    match: str | None

    @property
    def component(self) -> str:
        return self.acl or self.rule or self.service


def _refused(facts: Facts) -> list[Probe]:
    return [
        p
        for p in facts.probes.values()
        if p.layer == layers.HTTP and p.status in _REFUSED
    ]


def _path(url: str) -> str:
    """The URL's path when it says more than the root ("" otherwise)."""
    path = urlparse(url).path
    return path if len(path.strip("/")) >= 3 else ""


def _paths(facts: Facts, probe: Probe) -> list[str]:
    """The refused paths: the probe's, and those the error lines name on the probe's host."""
    found = [p] if (p := _path(probe.url)) else []
    for _, group in facts.error_texts():
        for url in _URL.findall(group.text):
            path = _path(url)
            if host_of(url) == probe.host and path and path not in found:
                found.append(path)
    return found


def change_pattern(name: str) -> str:
    """A regex for lines naming a filter's rule or ACL `name` and a change word, in either order."""
    escaped = re.escape(name)
    return f"{escaped}.*{_CHANGE_WORDS}|{_CHANGE_WORDS}.*{escaped}"


def searches(
    inv: Investigation,
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """Every service's lines blocking a request by a rule once a probe was refused, then lines changing the filter that blocked it."""
    refused = _refused(facts)
    if not refused:
        return []
    calls: list[PlannedCall | None] = [
        call(
            SEARCH_LOGS,
            {"query": BLOCK_QUERY, "regex": True, **window, "limit": _LIMIT},
            f"{refused[0].url} answered {refused[0].status}: which filter's lines block requests",
        )
    ]
    start = parse_time(window.get("start", ""))
    for block in _first_blocks(inv, facts):
        for name in dict.fromkeys(n for n in (block.rule, block.acl) if n):
            arguments = {
                "query": change_pattern(name),
                "regex": True,
                **window,
                "limit": 5,
            }
            if start is not None:
                arguments["start"] = (start - _LEAD).isoformat().replace("+00:00", "Z")
            calls.append(
                call(
                    SEARCH_LOGS,
                    arguments,
                    f"{block.component} blocks the refused requests: changes to {name} just before",
                )
            )
    return calls


def blocks(inv: Investigation, facts: Facts, probe: Probe) -> list[Block]:
    """The lines of the block search that block a request and name a rule or an ACL, those naming a refused path first."""
    paths = _paths(facts, probe)
    found: list[Block] = []
    for obs in inv.observations:
        if (
            obs.tool != SEARCH_LOGS
            or not obs.is_ok
            or arg(obs, "service")
            or arg(obs, "query") != BLOCK_QUERY
        ):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            if not _BLOCK.search(message):
                continue
            acl, rule, match = (
                (m.group(1) if (m := p.search(message)) else None)
                for p in (_ACL, _RULE, _MATCH)
            )
            if acl is None and rule is None:
                continue
            found.append(
                Block(obs, str(line.get("service") or ""), message, acl, rule, match)
            )
    on_path = [b for b in found if any(p in b.message for p in paths)]
    return on_path if paths else found


def _first_blocks(inv: Investigation, facts: Facts) -> list[Block]:
    found: dict[str, Block] = {}
    for probe in _refused(facts):
        for block in blocks(inv, facts, probe):
            found.setdefault(block.component, block)
    return list(found.values())[:2]


def _changes(inv: Investigation, block: Block) -> list[tuple[Observation, str]]:
    """Lines naming the block's rule or ACL with a change word (not blocks themselves)."""
    patterns = {change_pattern(n) for n in (block.rule, block.acl) if n}
    found: list[tuple[Observation, str]] = []
    for obs in inv.observations:
        if (
            obs.tool != SEARCH_LOGS
            or not obs.is_ok
            or arg(obs, "query") not in patterns
        ):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            if message and not _BLOCK.search(message):
                found.append((obs, f"{line.get('service') or '?'}: {message}"))
    return found


def edge_filters(board: Board) -> None:
    """A 401/403 a probe got is the answer of the filter whose own line blocks that path and names its rule: the filter (its ACL or rule) is the cause, cited with that line."""
    for probe in _refused(board.facts):
        block = next(iter(blocks(board.inv, board.facts, probe)), None)
        if block is None:
            continue
        rule = block.rule or "its rule"
        detail = f" ({block.match})" if block.match else ""
        c = board.get(
            layers.HTTP,
            block.component,
            f"{block.component}, a filter in front of {probe.host}, blocks its requests "
            f"with {rule}{detail}: the {probe.status} is the filter's answer, not {probe.host}'s",
        )
        c.cite(
            block.obs,
            short(f"search_logs(every service): {block.service}: {block.message}", 300),
        )
        c.cite(probe.obs, probe.fact)
        chain = [
            board.symptom(),
            f"{probe.host} answers HTTP {probe.status}",
            f"{block.service} logs: {short(block.message, 140)}",
        ]
        for obs, text in _changes(board.inv, block)[:2]:
            c.cite(obs, short(f"search_logs: {text}", 300))
            chain.append(f"the filter changed just before: {short(text, 120)}")
        c.status = "confirmed"
        c.confidence = 0.95 if len(chain) > 3 else 0.93
        c.chain = [*chain, c.statement]
        c.keywords = [layers.HTTP, str(probe.status), block.component, rule, "waf"]
        _explain(board, probe, c)


def _explain(board: Board, probe: Probe, cause: Candidate) -> None:
    """The host's own HTTP hypothesis is the filter's answer: ruled out, explained by it."""
    host = board.candidates.get(f"{layers.HTTP}:{probe.host}")
    if host is None or host is cause or host.status == "ruled_out":
        return
    for e in host.evidence:
        if not any(x.span_id == e.span_id and x.fact == e.fact for x in cause.evidence):
            cause.evidence.append(e)
    host.status, host.confidence = "ruled_out", min(host.confidence, 0.2)
    host.reason_ruled_out = f"explained by {cause.id}: {cause.statement}"
