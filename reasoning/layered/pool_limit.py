"""A server that says it reached its own worker or connection ceiling: the pool's owner is the fault, not the host it runs on nor the proxy in front.

A process manager or server caps how many workers, children or connections it runs (PHP-FPM's
`pm.max_children`, Apache's `MaxRequestWorkers`, nginx's `worker_connections`, a database's
`max_connections`, a broker's client limit). When a change lowers the cap (a config-management run
resetting it to a default) or the load outgrows it, the server logs a warning, often not an error,
that it reached the setting; requests queue, and the proxy in front times out or cannot connect and
is the loud one. Gauges labelled with the machine step up too, so the host looks guilty. The server's
own line names the ceiling and whose it is (`limit_reached`): the service logging it is the fault at
the application layer, that line cited, when another line names the same setting (a change that
reset it, the start line stating it): the limit was set, not outgrown. Without such a line a full
pool is as often a symptom (slow storage, no room to scale out) and is only cited. An instance known
only by gauges of that product's prefix (`phpfpm_*` for `php-fpm`) is the same pool seen from its
host and is folded into it.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate
from reasoning.layered.cited_lines import _leveled
from reasoning.layered.reading import short
from reasoning.observations import Observation
from reasoning.tools import SEARCH_LOGS, TOP_ERRORS

_MAX_LINE: Final = 4000
# A server's own words for reaching its configured ceiling of workers, children or connections.
_REACHED: Final = re.compile(
    r"\breached\b[^\n]{0,40}?\b(?:pm\.)?(?:max|maximum|limit)\w*[^\n]{0,40}?\bsetting\b|"
    r"\bserver reached\b|\bworker_connections are not enough\b|"
    r"\b(?:max(?:imum)?|limit)(?: number of)? (?:children|workers|processes|clients|"
    r"connections|threads)\b[^\n]{0,40}?\breached\b|"
    r"\breached (?:the )?(?:max(?:imum)?|limit)(?: number of)? (?:children|workers|"
    r"processes|clients|connections|threads)\b",
    re.IGNORECASE,
)
# A rate limit or a quota is someone's allowance over time, not a pool's size.
_ALLOWANCE: Final = re.compile(
    r"\brate\b|\bquota\b|\bper (?:second|minute|hour|day)\b|\b429\b|too many requests",
    re.IGNORECASE,
)
_CONFIRMED: Final = 0.9
_MIN_LINES: Final = 3
# The setting a ceiling line names (`pm.max_children`, `MaxRequestWorkers`, `max_connections`).
_SETTING: Final = re.compile(
    r"\b((?:[A-Za-z][\w.]{0,40}?)?(?:max|Max|MAX|limit|Limit)[\w.]{0,40})\b"
)


def limit_reached(text: str) -> bool:
    """Whether `text` is a server saying it reached its configured ceiling of workers, children or connections."""
    head = text[:_MAX_LINE]
    return _REACHED.search(head) is not None and _ALLOWANCE.search(head) is None


def _norm(text: str) -> str:
    """Letters and digits only, lower case: `pm_max_children` and `pm.max_children` read alike."""
    return re.sub(r"[^a-z0-9]", "", text[:_MAX_LINE].lower())


def _changed_setting(board: Board, said: str) -> tuple[Observation, str] | None:
    """Another line naming the setting the ceiling line names (a change, a start line): the limit was set, not outgrown."""
    m = _SETTING.search(said[:_MAX_LINE])
    setting = _norm(m.group(1)) if m else ""
    if len(setting) < 6:
        return None
    for obs in board.inv.observations:
        if not obs.is_ok or obs.tool not in (SEARCH_LOGS, TOP_ERRORS):
            continue
        for service, _, message, _ in _leveled(obs):
            if setting in _norm(message) and not limit_reached(message):
                return obs, f"{service}: {message.strip()}" if service else message
    return None


def _product(name: str) -> str:
    """A service's name as a metric prefix spells it (`php-fpm` → `phpfpm`)."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _same_pool(victim: Candidate, owner: str, board: Board) -> bool:
    """`victim` is an instance known only by gauges of the owner's product (`phpfpm_*{web-01}`)."""
    if victim.layer != layers.APPLICATION or victim.component in board.facts.errors:
        return False
    prefix = _product(owner) + "_"
    return len(prefix) > 3 and any(
        prefix in e.fact[:_MAX_LINE].lower().replace("-", "") for e in victim.evidence
    )


def pool_limit_reached(board: Board) -> None:
    """A service whose own lines, new since the start, say it reached its configured ceiling of workers, children or connections, a setting another line names (a change that reset it), is the application fault: the proxy failing in front of it and the host its gauges are labelled with are its victims."""
    for errors in board.facts.errors.values():
        line = next(
            (
                g
                for g in (*errors.warnings, *errors.groups)
                if not g.is_stale and limit_reached(g.sample or g.signature)
            ),
            None,
        )
        if line is None:
            continue
        owner = errors.service
        said = line.sample or line.signature
        # A full pool is often a symptom (slow storage, no room to scale out): the owner is the
        # fault when another line names the setting, i.e. the limit itself was set or changed.
        changed = _changed_setting(board, said)
        if changed is None or line.count < _MIN_LINES:
            continue
        c = board.get(
            layers.APPLICATION,
            owner,
            f"{owner} reached its own ceiling of workers or connections: requests queue "
            "behind it and the proxy in front times out; raise the limit where it is set "
            "(or restore the value a change reset)",
        )
        c.cite(errors.obs, errors.fact(line))
        c.cite(errors.obs, short(said, 300))
        c.cite(changed[0], short(changed[1], 300))
        c.status = "confirmed"
        c.confidence = max(c.confidence, _CONFIRMED)
        c.chain = [
            board.symptom(),
            f"{owner} logs ({line.count} times): {short(said, 160)}",
            f"a line names the setting: {short(changed[1], 160)}",
            c.statement,
        ]
        c.keywords = [layers.APPLICATION, owner, "max children", "pool", "limit"]
        for victim in list(board.candidates.values()):
            if victim is not c and _same_pool(victim, owner, board):
                victim.explained_by(
                    c, f"the same pool as {c.id}: its gauges are {owner}'s on that host"
                )
