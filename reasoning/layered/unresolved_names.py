"""A service that fails because a name it looks up no longer resolves fails at the DNS layer, not by itself.

A connection string names a host or an SRV record (`mongodb+srv://…` looks up
`_mongodb._tcp.<cluster>`), and the service resolves it on each connect. When the record is gone (a
cluster deleted, a zone cleaned up, a stale parameter naming what was migrated away) the service's
own error lines say so in the resolver's words (`querySrv ENOTFOUND`, NXDOMAIN, `no such host`,
`UnknownHostException`), new since the window started, and its callers relay its failure. Read as
a service's own new message it looks like its own fault (an application one), but what failed is
the lookup: with no probe of that name and no other DNS fault in view, the name is the DNS
hypothesis, cited by those lines, and the service and its callers are its victims.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import hosts_in, short

_CONFIDENCE: Final = 0.88  # the service's own lines quote the resolver's answer
_MAX_TEXT: Final = 4000  # a line's head: where the failed lookup is said
# The resolver's answer that a name does not exist or cannot be resolved, in the words of the main
# runtimes (Node's ENOTFOUND and querySrv, glibc's EAI_NONAME, Go's `no such host`, Java's
# UnknownHostException, libpq's `could not translate host name`, curl's `Could not resolve host`).
UNRESOLVED: Final = re.compile(
    r"\bENOTFOUND\b|\bNXDOMAIN\b|\bno such host\b|\bcould not resolve(?: host)?\b|"
    r"\bname or service not known\b|\bnodename nor servname\b|\bUnknownHostException\b|"
    r"\bcould not translate host name\b|\bname does not resolve\b|"
    r"\btemporary failure in name resolution\b|\bquery(?:Srv|Txt|A|Aaaa|Cname) E[A-Z]+\b",
    re.IGNORECASE,
)
# An SRV record's name (`_mongodb._tcp.cluster0.ab1cd.example.net`): hosts_in skips the underscores.
_SRV: Final = re.compile(
    r"(?<![\w.-])(_[a-z0-9-]{1,63}\._(?:tcp|udp|tls)\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?"
    r"(?:\.[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?){1,8})(?![\w-])"
)


def unresolved_name(text: str) -> str | None:
    """The name a line says does not resolve (an SRV record's name first), None when it says none."""
    head = text[:_MAX_TEXT]
    if not UNRESOLVED.search(head):
        return None
    srv = _SRV.search(head)
    if srv is not None:
        return srv.group(1)
    named = [h for h in hosts_in(head) if "." in h]
    return named[0] if named else None


def _own_lookup(errors: Errors) -> tuple[ErrorGroup, str] | None:
    """The service's first new error line saying a name it looks up does not resolve, and that name."""
    for group in errors.groups:
        if not group.is_new:
            continue
        name = unresolved_name(group.sample or group.signature)
        if name is not None:
            return group, name
    return None


def unresolved_names(board: Board) -> None:
    """A service blamed by its own new errors that say a name it looks up does not resolve, with no probe of that name and no other DNS fault in view, fails at the DNS layer: the name is the fault, the service and its callers its victims."""
    if any(
        c.layer == layers.DNS and c.status != "ruled_out"
        for c in board.candidates.values()
    ):
        return  # a probe or another rule already speaks for the lookups
    probed = {p.host.lower() for p in board.facts.probes.values()}
    for service, errors in board.facts.errors.items():
        own = board.candidates.get(f"{layers.APPLICATION}:{service}")
        if own is None or own.status != "confirmed":
            continue
        found = _own_lookup(errors)
        if found is None or found[1] in probed:
            continue
        group, name = found
        line = group.sample or group.signature
        c = board.get(
            layers.DNS,
            name,
            f"{name} does not resolve: {service}'s lookups of it fail "
            f"({short(line, 120)})",
        )
        c.cite(errors.obs, errors.fact(group))
        c.status = "confirmed"
        c.confidence = max(c.confidence, _CONFIDENCE, own.confidence + 0.02)
        c.chain = [
            board.symptom(),
            f"{service} logs: {short(line, 160)}",
            c.statement,
        ]
        c.keywords = [layers.DNS, name, service, "nxdomain"]
        why = f"a symptom of {c.id} (its lookups of {name} fail)"
        for other in list(board.candidates.values()):
            if other.layer == layers.APPLICATION and (
                other is own or own.id in other.statement
            ):
                other.explained_by(c, why)
        return
