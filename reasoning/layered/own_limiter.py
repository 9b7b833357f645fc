"""A gateway's or proxy's own rate limiter refusing (429) requests of clients it does not name as ours: an HTTP-layer fault of that hop.

A hop that limits by a key (an identifier, an address, a header, a zone) and whose own new lines say
the limit is exceeded answers 429 itself: the refusal is a setting of the hop on the HTTP path, as a
proxy's body-size limit answering 413 is (the bundled gateway case and the held-out proxy case
conclude at `http` from a probe; this is the same fault read from the hop's logs). The hypothesis
is the hop's at the HTTP layer, confirmed when a caller fails quoting the hop's refusals; the
application hypothesis the graph of new messages made of the same lines yields to it. Two other
cases stay as they are: a limiter naming one of our services as the client over its limit blames
that client's load (`new_messages`), and a third party rate-limiting us shows only in our own
lines (a 429 it answered), never as the limiter's own words.
"""

import re

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.new_messages import names_client
from reasoning.layered.reading import short
from reasoning.layered.warning_leads import names_service

# A limiter's own words that it refuses a key over its limit (Kong, nginx limit_req, Envoy ...).
LIMITING = re.compile(
    r"\brate[ -]?limit\w*\b[^\n]{0,40}?\b(?:exceeded|reached|hit)\b|"
    r"\blimit(?:ing)? (?:exceeded|reached)\b|\blimiting requests\b|"
    r"\b(?:over|exceeded) (?:the )?(?:rate )?limit\b",
    re.IGNORECASE,
)
# The key it limits by: the limiter speaks of its own buckets.
_KEYED = re.compile(
    r"\b(?:for|by) (?:identifier|client|consumer|key|ip|address|zone|header|route|user)\b|"
    r"\bidentifier\b|\blimit_by\b|\bby zone\b|\bexcess:|\bheader [A-Za-z-]+\b",
    re.IGNORECASE,
)
# The line reports someone else's refusal (a 429 it got), not its own limiter's.
_FROM_ELSEWHERE = re.compile(
    r"\b(?:429|rate[ -]?limit\w*|too many requests)\b[^\n]{0,40}?\bfrom\b|"
    r"\b(?:returned|answered|responded|got|received)\b[^\n]{0,20}?\b429\b",
    re.IGNORECASE,
)
# A client the limiter names by a service's name: that client's load is the fault (`new_messages`).
_NAMED_CLIENT = re.compile(
    r"\b(?:client|consumer|caller|tenant)[\s=:'\"]+[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b"
)
# A caller's line saying it was refused as too many: the hop's refusal, passed on.
_REFUSED = re.compile(r"\b429\b|too many requests|rate[ -]?limit", re.IGNORECASE)
_CONFIRMED = 0.86
_PROBED = (
    0.94  # the limiter's own line and a probe of the host it serves, refused, agree
)
_LEAD = 0.6


def _names_host(text: str, host: str) -> bool:
    """`text` names `host` as a whole name (not a part of a longer one)."""
    start = text.find(host)
    while start != -1:
        end = start + len(host)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not (before.isalnum() or before in ".-") and not (
            after.isalnum()
            or after in "-"
            or (after == "." and text[end + 1 : end + 2].isalnum())
        ):
            return True
        start = text.find(host, start + 1)
    return False


def limits_by_key(text: str) -> bool:
    """True when `text` is a limiter's own line refusing a key over its limit."""
    return bool(
        LIMITING.search(text)
        and _KEYED.search(text)
        and not _FROM_ELSEWHERE.search(text)
        and not _NAMED_CLIENT.search(text)
    )


def own_limiter(board: Board) -> None:
    """A hop whose own new lines say its rate limiter refuses keys over their limit, none of them a service of ours, answers 429 itself: an HTTP-layer fault of that hop, confirmed when a caller fails quoting its refusals."""
    names = [*board.facts.errors, *board.facts.health]
    for errors in board.facts.errors.values():
        others = [n for n in dict.fromkeys(names) if n != errors.service]
        own = [
            g
            for g in (*errors.groups, *errors.warnings)
            if not g.is_stale
            and limits_by_key(g.sample or g.signature)
            and not any(names_client(g.text, s) for s in others)
            and not any(names_service(g.text, s) for s in others)
        ]
        if own:
            _hypothesis(board, errors, max(own, key=lambda g: g.count))


def _hypothesis(board: Board, errors: Errors, group: ErrorGroup) -> None:
    service = errors.service
    said = short(group.sample or group.signature, 120)
    c = board.get(
        layers.HTTP,
        service,
        f"{service}'s own rate limiter answers 429 to the keys it counts ({said}): "
        "its limit or the key it limits by is wrong",
    )
    c.cite(errors.obs, errors.fact(group))
    callers = [
        (e, g)
        for e, g in board.facts.error_texts()
        if e.service != service
        and not g.is_stale
        and _REFUSED.search(g.text)
        and names_service(g.text, service)
    ]
    for e, g in callers:
        c.cite(e.obs, e.fact(g))
    # A probe refused as too many by a host the limiter's own lines serve saw its refusal.
    text = (group.sample or group.signature).lower()
    probed = [
        p
        for p in board.facts.probes.values()
        if p.status == 429 and p.host and _names_host(text, p.host.lower())
    ]
    for p in probed:
        c.cite(p.obs, p.fact)
    c.status, c.confidence = (
        ("confirmed", _PROBED if probed else _CONFIRMED)
        if callers or probed
        else ("likely", _LEAD)
    )
    c.chain = [
        board.symptom(),
        *(
            f"{e.service} is refused by {service}: {short(g.sample, 100)}"
            for e, g in callers[:2]
        ),
        f"{service} logs (new): {said}",
        c.statement,
    ]
    c.keywords = [layers.HTTP, "rate limit", "429", service]
    for p in probed:
        host = board.candidates.get(f"{layers.HTTP}:{p.host}")
        if host is not None and host is not c:
            host.explained_by(
                c,
                f"its 429 is {service}'s own rate limiter refusing (a symptom of {c.id})",
            )
    app = board.candidates.get(f"{layers.APPLICATION}:{service}")
    if app is not None and app.status != "ruled_out":
        app.status, app.confidence = "ruled_out", min(app.confidence, 0.2)
        app.reason_ruled_out = (
            f"explained by {c.id}: the limiter's refusals are {service}'s HTTP answers, "
            "not a failure inside it"
        )
