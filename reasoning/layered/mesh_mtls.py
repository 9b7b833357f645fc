"""A service mesh requiring mutual TLS refusing a plaintext caller: a TLS fault of the mesh's policy (or of the unmeshed caller).

When a mesh's peer authentication goes STRICT (Istio's PeerAuthentication, a mesh-wide mTLS mode), a
callee's sidecar accepts only mutual TLS on its port; a caller without a sidecar still speaks
plaintext, the sidecar finds no filter chain for it (Envoy's access log: `NR filter_chain_not_found`)
and resets the connection, so the caller logs "connection reset by peer" right after connecting. The
reset looks like a connect fault of the callee, but the callee is healthy: the fault is at the TLS
layer, in the policy that changed (or, without a change in view, in the caller left out of the mesh).
When a caller's connections are reset, the planner searches every service's lines for the policy's
mode and for Envoy's refusal (`searches`); the refusal and the reset make the hypothesis, the policy
change names its component and makes it conclusive (`mesh_mtls`).
"""

import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts, parse_time
from reasoning.layered.reading import arg, as_dict, as_list, hosts_in, short
from reasoning.observations import Investigation, Observation, PlannedCall
from reasoning.tools import POD_LOGS, SEARCH_LOGS

RESET: Final = re.compile(
    r"connection reset|reset by peer|ECONNRESET|upstream reset|connection was reset",
    re.IGNORECASE,
)
# A sidecar refusing a connection it has no (plaintext) filter chain for.
REFUSED: Final = re.compile(
    r"filter_chain_not_found|\bNR\b.{0,20}filter_chain", re.IGNORECASE
)
POLICY_QUERY: Final = (
    r"peerauthentication|mtls[._ -]?mode|mtls.{0,40}\bstrict\b|\bstrict\b.{0,40}mtls"
)
REFUSAL_QUERY: Final = "filter_chain_not_found"
_POLICY: Final = re.compile(
    r"\bPeerAuthentication\b\W{0,3}(?:(?:name|resource)\W{0,3})?([a-z0-9][a-z0-9-]*(?:/[a-z0-9][a-z0-9-]*)?)",
    re.IGNORECASE,
)
_STRICT: Final = re.compile(r"\bSTRICT\b")
_LEAD: Final = timedelta(minutes=30)


def _resets(facts: Facts) -> list[tuple[str, str]]:
    """(caller, host) for each caller whose errors say its connections to a host were reset."""
    found: list[tuple[str, str]] = []
    for errors, group in facts.error_texts():
        if not RESET.search(group.text):
            continue
        for host in hosts_in(group.text)[:1]:
            if (errors.service, host) not in found:
                found.append((errors.service, host))
    return found


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """When a caller's connections are reset: every service's lines on the mesh's mTLS mode, and the sidecars' refusals."""
    if not _resets(facts):
        return []
    start = parse_time(window.get("start", ""))
    policy: dict[str, Any] = {
        "query": POLICY_QUERY,
        "regex": True,
        **window,
        "limit": 10,
    }
    if start is not None:
        policy["start"] = (start - _LEAD).isoformat().replace("+00:00", "Z")
    return [
        call(
            SEARCH_LOGS,
            policy,
            "connections are reset right after connecting: did a mesh's mTLS mode change",
        ),
        call(
            SEARCH_LOGS,
            {"query": REFUSAL_QUERY, **window, "limit": 5},
            "connections are reset: does a sidecar refuse plaintext (no filter chain)",
        ),
    ]


def _text(obs: Observation) -> str:
    if obs.text:
        return obs.text
    return json.dumps(obs.result) if obs.result is not None else ""


def _refusal(inv: Investigation) -> tuple[Observation, str] | None:
    """The first answer (pod logs or a log search) showing a sidecar refusing a connection."""
    for obs in inv.observations:
        if not obs.is_ok or obs.tool not in (POD_LOGS, SEARCH_LOGS):
            continue
        if obs.tool == SEARCH_LOGS:
            for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
                message = str(line.get("message") or "")
                if REFUSED.search(message):
                    return obs, f"search_logs: {line.get('service') or '?'}: {message}"
            continue
        text = _text(obs)
        match = REFUSED.search(text)
        if match is not None:
            begin = text.rfind("\n", 0, match.start()) + 1
            end = text.find("\n", match.end())
            found = text[begin : end if end >= 0 else None].strip()
            return obs, f"pod_logs({arg(obs, 'pod')}): {found}"
    return None


def _policy(inv: Investigation) -> tuple[Observation, str, str | None] | None:
    """The line setting the mesh's mTLS mode to STRICT, and the policy it names (namespace/name)."""
    for obs in inv.observations:
        if (
            obs.tool != SEARCH_LOGS
            or not obs.is_ok
            or arg(obs, "query") != POLICY_QUERY
        ):
            continue
        for line in map(as_dict, as_list(as_dict(obs.result).get("lines"))):
            message = str(line.get("message") or "")
            if not _STRICT.search(message) or REFUSED.search(message):
                continue
            named = _POLICY.search(message)
            name = f"peerauthentication/{named.group(1).lower()}" if named else None
            return obs, f"{line.get('service') or '?'}: {message}", name
    return None


def mesh_mtls(board: Board) -> None:
    """A caller whose connections are reset while the callee's sidecar refuses plaintext (no filter chain) is refused by the mesh's mTLS policy: a TLS fault of the policy that went STRICT, else of the caller outside the mesh."""
    resets = _resets(board.facts)
    refusal = _refusal(board.inv)
    if not resets or refusal is None:
        return
    caller, host = resets[0]
    policy = _policy(board.inv)
    component = policy[2] if policy is not None and policy[2] else caller
    c = board.get(
        layers.TLS,
        component,
        f"the mesh requires mutual TLS from {host}'s callers and {caller} speaks plaintext "
        "(no sidecar): the callee's sidecar finds no filter chain and resets its connections"
        + (f"; {component} was set to STRICT just before" if policy else ""),
    )
    refusal_obs, refusal_fact = refusal
    c.cite(refusal_obs, short(refusal_fact, 300))
    for errors, group in board.facts.error_texts():
        if errors.service == caller and RESET.search(group.text):
            c.cite(errors.obs, errors.fact(group))
            break
    chain = [
        board.symptom(),
        f"{caller}'s connections to {host} are reset right after connecting",
        f"the sidecar refuses plaintext: {short(refusal_fact, 120)}",
    ]
    if policy is not None:
        c.cite(policy[0], short(f"search_logs: {policy[1]}", 300))
        chain.append(f"the mTLS mode changed just before: {short(policy[1], 120)}")
    c.status = "confirmed" if policy is not None else "likely"
    c.confidence = 0.93 if policy is not None else 0.75
    c.chain = [*chain, c.statement]
    c.keywords = [layers.TLS, "mtls", "peerauthentication", "sidecar", caller]
    connect = board.candidates.get(f"{layers.CONNECT}:{host}")
    if connect is not None and connect.status != "ruled_out":
        connect.status, connect.confidence = "ruled_out", min(connect.confidence, 0.2)
        connect.reason_ruled_out = f"explained by {c.id}: {c.statement}"
