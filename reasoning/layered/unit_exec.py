"""A process manager that cannot start a unit because its executable is missing: the unit's service is the fault, not the host or the front that refuses.

A configuration-management run removes or moves a runtime (a JDK, a Python, a Node) that a unit's
command still points at, a package upgrade renames a binary, a deploy leaves a script without its
interpreter: the process manager (systemd, supervisord, runit, s6, pm2) logs that it cannot find or
exec the unit's command (`claims.service: Failed to locate executable /opt/x/bin/java`,
`status=203/EXEC`, `spawnerr: can't find command`) and restarts it forever. The host then refuses
connections on the service's port, and the balancer in front answers 503: both are loud and both are
victims. The process manager's line names the unit, so the fault is the unit's service
(`missing_executable` reads the line, `unit_of` its name), confirmed with that line cited; a host the
line names (its syslog host) refusing connections is folded into it as a symptom.
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.cited_lines import _leveled
from reasoning.layered.reading import short
from reasoning.observations import Observation
from reasoning.tools import SEARCH_LOGS, TOP_ERRORS

_MAX_LINE: Final = 4000
# A process manager's words for a command it cannot find or exec.
_MISSING_EXEC: Final = re.compile(
    r"Failed to locate executable|Failed at step EXEC|status=203/EXEC|"
    r"can't find command|spawnerr: [^\n]{0,60}(?:no such file|not found|ENOENT)|"
    r"(?:executable|command|binary|interpreter|ExecStart)[^\n]{0,120}?"
    r"(?:not found|no such file or directory|does not exist|is not executable)|"
    r"unable to start [^\n]{0,80}?(?:file does not exist|no such file)",
    re.IGNORECASE,
)
# The unit a line is about: systemd's `name.service:`, supervisord's `program:name` or `'name'`
# before `spawnerr` / `gave up`, runit's `./name/run`.
_UNIT: Final = re.compile(
    r"(?<![\w@.-])([A-Za-z0-9][\w@.-]{0,99}?)\.service\b|"
    r"\bprogram[: ]['\"]?([A-Za-z0-9][\w.-]{0,99})|"
    r"\b(?:gave up|spawned|exited): ['\"]?([A-Za-z0-9][\w.-]{0,99})"
)
# An absolute path on the line (`/opt/jdk-17/bin/java`), not a status such as `203/EXEC`.
_PATH: Final = re.compile(r"(?<![\w/])/[\w.-]{1,100}/")
# A syslog-style head: `Dec 07 08:52 claims-01 systemd[1]:` names the host before the program.
_SYSLOG_HOST: Final = re.compile(
    r"^\s*(?:[A-Z][a-z]{2} {1,2}\d{1,2} \d\d:\d\d(?::\d\d)?|\d{4}-\d\d-\d\dT[\d:.]{5,18}Z?) "
    r"([a-z][a-z0-9-]{0,62}) [A-Za-z][\w./-]{0,63}\[\d{1,10}\]:"
)


def missing_executable(text: str) -> bool:
    """Whether `text` says a process manager cannot find or exec a unit's command."""
    return _MISSING_EXEC.search(text[:_MAX_LINE]) is not None


def unit_of(text: str) -> str | None:
    """The service a process manager's line is about (`claims-api` of `claims-api.service:`), None when it names none."""
    m = _UNIT.search(text[:_MAX_LINE])
    if m is None:
        return None
    return next(g for g in m.groups() if g).split("@", 1)[0]


def _lines(board: Board) -> dict[str, list[tuple[Observation, str, str]]]:
    """Per unit, the lines saying its command is missing: (observation, stream, message)."""
    found: dict[str, list[tuple[Observation, str, str]]] = {}
    for obs in board.inv.observations:
        if not obs.is_ok or obs.tool not in (SEARCH_LOGS, TOP_ERRORS):
            continue
        for service, _, message, _ in _leveled(obs):
            if not missing_executable(message):
                continue
            unit = unit_of(message)
            if unit is None:
                continue
            found.setdefault(unit, []).append((obs, service, message))
    return found


def missing_unit_executable(board: Board) -> None:
    """A process manager's line saying it cannot find or exec a unit's command (a removed runtime, a renamed binary) makes that unit's service the application fault: the host refusing connections and the front answering 503 are its victims."""
    for unit, lines in _lines(board).items():
        # The line naming the missing path first: it says what to restore.
        lines.sort(key=lambda x: _PATH.search(x[2][:_MAX_LINE]) is None)
        obs, stream, message = lines[0]
        c = board.get(
            layers.APPLICATION,
            unit,
            f"{unit} cannot start: {stream or 'its process manager'} cannot find or exec "
            "the command its unit points at; restore the executable or point the unit at "
            "the one installed",
        )
        c.cite(obs, short(f"{stream}: {message.strip()}", 300))
        if obs.tool == TOP_ERRORS:
            c.cite(obs, short(message.strip(), 300))
        for o, s, m in lines[1:2]:
            c.cite(o, short(f"{s}: {m.strip()}", 300))
        c.status = "confirmed"
        c.confidence = max(c.confidence, 0.9)
        c.chain = [
            board.symptom(),
            f"{stream} logs: {short(message, 160)}",
            c.statement,
        ]
        c.keywords = [layers.APPLICATION, unit, "ExecStart", "executable", "203/EXEC"]
        hosts = {
            head.group(1)
            for _, _, text in lines
            if (head := _SYSLOG_HOST.match(text)) is not None
        }
        for victim in list(board.candidates.values()):
            if victim is c or victim.layer != layers.CONNECT:
                continue
            if victim.component.split(".", 1)[0].lower() in hosts:
                victim.explained_by(
                    c, f"a symptom of {c.id}: nothing listens while {unit} cannot start"
                )
