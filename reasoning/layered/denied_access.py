"""A caller denied by a policy or a permission (issue 21 class 4): the policy or the identity is the culprit, not the caller that fails nor the host it serves.

When a service's own new lines say a call it made was refused for want of a permission (`403
Forbidden: RBAC: access denied` from a mesh's authorization policy, `AccessDenied: User:
…/assumed-role/app-role/… is not authorized to perform: s3:GetObject on resource …`, gRPC
`PERMISSION_DENIED`), the caller is healthy and the callee answers others: what changed is who may
call. The planner searches every service's lines over the hours before the window for changes to
policies, principals, roles and instance profiles (`searches`); the policy object the newest such
change names (an `AuthorizationPolicy ns/name`, a `name.yaml` of rules) is the fault, else the
identity the denial names (a role, a service account) whose grants a change touched (a profile
swapped, a role replaced). A denial with no such change in view blames nothing here. It is an http-layer fault (the call is
refused by an answer); the denied caller, crash-looping or logging loudly, is its victim, and so is
a probe of the host the caller serves.
"""

import re
from collections.abc import Callable
from typing import Any, Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.facts import ErrorGroup, Errors, Facts
from reasoning.layered.reading import every_service_lines, short
from reasoning.layered.space_holders import lookback
from reasoning.observations import PlannedCall
from reasoning.tools import SEARCH_LOGS

# A call refused for want of a permission, in a mesh's, a cloud API's or an RPC's words.
DENIED: Final = re.compile(
    r"\brbac: access denied\b|\brbac_access_denied|\b403\b[^\n]{0,60}\b(?:forbidden|access denied)\b|"
    r"\bAccessDenied(?:Exception)?\b|\bis not authorized to perform\b|\bPERMISSION_DENIED\b|"
    r"\b(?:forbidden|denied) by (?:the )?(?:authorization |access )?polic(?:y|ies)\b",
    re.IGNORECASE,
)
# Changes to who may call: policies, principals, roles, profiles, bindings (RE2, ≤ 500 chars).
SEARCH: Final = (
    r"(?i)(authorizationpolic|authorization ?polic|accesspolic|principals|rolebinding|"
    r"iam_instance_profile|instance[ _-]profile|iam[ _-]role|assume[ _-]?role|\bpolicy\b|"
    r"\bpolicies\b|\bacl\b).{0,300}(->|=>|→|configured|created|updated|changed|applied|"
    r"merged|attached|detached|replaced|modif)"
)
_SEARCH_LIMIT: Final = 20
# The policy object a change names: `AuthorizationPolicy ns/name`, `authorizationpolicy/name`,
# a policy file `ns/name.yaml`.
_POLICY: Final = re.compile(
    r"(?i:[a-z]*polic(?:y|ies))(?:\.[\w.]{1,60})?[ /]{1,3}(?:[a-z0-9-]{1,63}/)?"
    r"([a-z0-9][a-z0-9.-]{0,62}[a-z0-9])(?![\w/])|"
    r"(?:[a-z0-9-]{1,63}/)?([a-z0-9][a-z0-9-]{0,62})\.ya?ml\b"
)
_NOT_POLICY: Final = frozenset(
    {"configured", "created", "updated", "changed", "applied"}
)
# The identity a denial names: an assumed role, a role, a user, a service account, a principal.
_IDENTITY: Final = re.compile(
    r"assumed-role/([\w+=,.@-]{1,64})/|:role/([\w+=,.@-]{1,64})\b|:user/([\w+=,.@-]{1,64})\b|"
    r"serviceaccount[:/]([a-z0-9-]{1,63}:)?([a-z0-9-]{1,63})\b|"
    r"/sa/([a-z0-9-]{1,63})\b"
)
_WITH_CHANGE: Final = (
    0.92  # the denial, and a change to the policy or identity before it
)


def denied(facts: Facts) -> list[tuple[Errors, ErrorGroup]]:
    """Each service's first new error group that says a call of its was denied a permission."""
    found = []
    for errors in facts.errors.values():
        group = next(
            (
                g
                for g in (*errors.groups, *errors.warnings)
                if not g.is_stale and DENIED.search(g.text[:4000])
            ),
            None,
        )
        if group is not None:
            found.append((errors, group))
    return found


def searches(
    facts: Facts,
    call: Callable[[str, dict[str, Any], str], PlannedCall | None],
    window: dict[str, str],
) -> list[PlannedCall | None]:
    """A call denied a permission: every service's lines changing policies, principals or roles,
    over the hours before the window."""
    if not denied(facts):
        return []
    return [
        call(
            SEARCH_LOGS,
            {
                "query": SEARCH,
                "regex": True,
                **lookback(window),
                "limit": _SEARCH_LIMIT,
            },
            "a call was denied a permission: what changed a policy, a principal or a role "
            "(hours before the window)",
        )
    ]


def policy_named(message: str) -> str | None:
    """The policy object a change line names, if any."""
    for m in _POLICY.finditer(message[:4000]):
        name = m.group(1) or m.group(2)
        if name and name.lower() not in _NOT_POLICY:
            return name
    return None


def identity_named(text: str) -> str | None:
    """The role, user or service account a denial names, if any."""
    m = _IDENTITY.search(text[:4000])
    if m is None:
        return None
    return next((g for g in reversed(m.groups()) if g and not g.endswith(":")), None)


def denied_access(board: Board) -> None:
    """A service whose new lines say its calls are denied a permission (403 RBAC access denied, AccessDenied, not authorized to perform) is the victim of the policy a change before it names, else of the identity the denial names when a change touched its grants: an http-layer fault that outranks the caller."""
    found = denied(board.facts)
    if not found:
        return
    errors, group = found[0]
    text = group.sample or group.signature
    changes = [
        (obs, line)
        for obs, line in every_service_lines(board.inv, SEARCH)
        if str(line.get("level") or "").lower() not in ("error", "fatal")
    ]
    identity = identity_named(text)
    policy = next(
        (
            (obs, line, name)
            for obs, line in reversed(changes)
            if (name := policy_named(str(line.get("message") or "")))
        ),
        None,
    )
    if policy is not None:
        component, cited = policy[2], [(policy[0], policy[1])]
    elif identity is not None and changes:
        # No policy object named: the identity the denial names, and the change to its grants.
        component, cited = identity, changes[-1:]
    else:
        return  # no change to who may call in view: a denial alone is no policy's fault
    c = board.get(
        layers.HTTP,
        component,
        f"{errors.service}'s calls are denied by {component}: {short(text, 160)}",
    )
    c.cite(errors.obs, errors.fact(group))
    for obs, line in cited:
        c.cite(
            obs,
            short(
                f"search_logs: {line.get('service') or '?'} logs a change: "
                f"{line.get('message') or ''}",
                300,
            ),
        )
    c.status = "confirmed"
    c.confidence = max(c.confidence, _WITH_CHANGE)
    c.keywords = [component, errors.service, "access denied", "policy", layers.HTTP]
    c.chain = [
        board.symptom(),
        f"{errors.service} logs (new): {short(text, 140)}",
        *(
            f"{line.get('service')} logs a change: {short(str(line.get('message')), 140)}"
            for _, line in cited
        ),
        c.statement,
    ]
    _victims(board, c, [e.service for e, _ in found])


def _victims(board: Board, cause: Candidate, callers: list[str]) -> None:
    """The denied callers' own hypotheses (and their workloads') are explained by the cause."""
    for other in list(board.candidates.values()):
        if other is cause or (other.layer == layers.HTTP and "." in other.component):
            continue
        name = other.component.partition("/")[2] or other.component
        if name in callers:
            other.explained_by(cause, f"its calls are denied by {cause.id}")
