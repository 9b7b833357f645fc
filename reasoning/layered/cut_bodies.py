"""A response body cut after part of its promised length: the probe counted it, so it is direct evidence of the HTTP path's fault.

netcheck says how many bytes of the body arrived before the connection was reset and how many the
headers promised (`connection reset after N bytes of the body of the M promised`). Headers and the first
bytes passed, the rest did not: the fault is on the path to that host at the HTTP layer, whatever the
other answers from it (small ones may pass whole). A caller's log line naming the host and a reset
after part of a body is the same failure seen from the application: the two agree.
"""

import re

from reasoning import layers
from reasoning.layered.candidates import Board, Candidate, spans
from reasoning.layered.facts import Probe
from reasoning.layered.reading import short

# netcheck's words for a body reset part way, with the bytes it received and those promised.
CUT_BODY = re.compile(
    r"reset after (\d+) bytes of the body of the (\d+) promised", re.IGNORECASE
)
# A log line's words for the same: a reset after some of the bytes it expected.
_LOGGED_CUT = re.compile(
    r"reset\b[^;]{0,40}\bafter \d+ (?:of \d+ )?bytes|reset mid-body|connection reset\b[^;]{0,30}\bmid-?body",
    re.IGNORECASE,
)
_ALONE = 0.8  # the probe's own count of bytes: direct evidence
_AGREED = 0.9  # a caller's lines naming the host show the same cut


def cut_bodies(board: Board) -> None:
    """A probe whose body was reset after part of its promised length confirms the HTTP fault of its host; a caller's log line naming the host and the same cut makes it conclusive."""
    for probe in board.facts.probes.values():
        cut = _cut(probe)
        if cut is None:
            continue
        c = board.candidates.get(f"{layers.HTTP}:{probe.host}")
        if c is None or c.status == "ruled_out":
            continue
        _confirm(board, c, probe, cut)


def _cut(probe: Probe) -> tuple[int, int] | None:
    """(received, promised) when the probe's body was reset part way, else None."""
    if probe.layer != layers.HTTP or probe.reason != "connection_reset":
        return None
    for line in probe.evidence:
        match = CUT_BODY.search(line)
        if match is not None:
            received, promised = int(match.group(1)), int(match.group(2))
            if 0 < received < promised:
                return received, promised
    return None


def _confirm(board: Board, c: Candidate, probe: Probe, cut: tuple[int, int]) -> None:
    callers: list[str] = []
    for errors, group in board.facts.error_texts():
        text = group.text
        if probe.host in text.lower() and _LOGGED_CUT.search(text):
            c.cite(errors.obs, errors.fact(group))
            if errors.service not in callers:
                callers.append(errors.service)
    confidence = _AGREED if callers else _ALONE
    if c.status != "confirmed" or c.confidence < confidence:
        c.status = "confirmed"
        c.confidence = min(max(c.confidence, confidence) + 0.01 * (spans(c) - 2), 0.95)
    received, promised = cut
    line = (
        f"{probe.host} resets the connection after {received} of {promised} bytes of the body: "
        "headers and the first packets pass, the rest do not"
    )
    if line not in c.chain:
        logged = [f"{s} logs the same reset mid-body" for s in callers[:1]]
        c.chain = [board.symptom(), *logged, line, c.statement]
    c.keywords = [*c.keywords, "reset mid-body", "mtu"]
    c.statement = (
        c.statement
        if "mid-body" in c.statement
        else short(
            f"{c.statement}; the body is cut after {received} of {promised} bytes", 300
        )
    )
