"""A database's own error on a statement explains the callers whose same statement fails: the database is the origin, the callers its victims.

A caller whose insert or update fails often says only that it failed (`INSERT INTO payouts failed
for seller 42: DataError`); the database logs why, with the statement (`ERROR: nextval: reached
maximum value of sequence … STATEMENT: INSERT INTO payouts …`). Both are new errors of their own
services, so they tie; the database's line is the cause and the caller's its symptom when both name
the same statement on the same table (the verb and the table: `insert into payouts`).
"""

import re
from typing import Final

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import ErrorGroup, Errors
from reasoning.layered.reading import short

# A database's own message: its level prefix, an error code, a SQLSTATE.
_DB_MESSAGE: Final = re.compile(
    r"\b(?:ERROR|FATAL|PANIC):\s|\bERROR \d{4}\b|SQLSTATE|\bORA-\d{4,5}\b",
    re.IGNORECASE,
)
# A statement's verb and table: `INSERT INTO payouts`, `UPDATE balances`, `DELETE FROM carts`.
_STATEMENT: Final = re.compile(
    r"\b(insert\s{1,3}into|update|delete\s{1,3}from)\s{1,3}[\"`]?([a-z_][\w.]{0,80})",
    re.IGNORECASE,
)
_ORIGIN: Final = 0.85
_VICTIM: Final = 0.4


def _statements(text: str) -> set[tuple[str, str]]:
    return {
        (" ".join(m.group(1).lower().split()), m.group(2).lower())
        for m in _STATEMENT.finditer(text)
    }


def statement_errors(board: Board) -> None:
    """A service whose own new error is a database's message on a statement is the origin of the other services' new errors failing the same statement on the same table: it is confirmed, they become its symptoms."""
    groups = [
        (errors, group)
        for errors, group in board.facts.error_texts()
        if group.is_new and _statements(group.text)
    ]
    for errors, group in groups:
        if not _DB_MESSAGE.search(group.text):
            continue
        said = _statements(group.text)
        victims = [
            (e, g)
            for e, g in groups
            if e.service != errors.service
            and not _DB_MESSAGE.search(g.text)
            and _statements(g.text) & said
        ]
        if victims:
            _conclude(board, errors, group, victims)


def _conclude(
    board: Board,
    errors: Errors,
    group: ErrorGroup,
    victims: list[tuple[Errors, ErrorGroup]],
) -> None:
    origin = board.get(
        layers.APPLICATION, errors.service, f"{errors.service} itself fails"
    )
    if origin.status == "ruled_out":
        return
    origin.cite(errors.obs, errors.fact(group))
    names = []
    for e, g in victims:
        origin.cite(e.obs, e.fact(g))
        names.append(e.service)
        victim = board.candidates.get(f"{layers.APPLICATION}:{e.service}")
        if victim is not None and victim.status != "ruled_out":
            victim.status = "likely"
            victim.confidence = min(victim.confidence, _VICTIM)
            victim.statement += (
                f"; a symptom of {origin.id} (its database error on the same statement)"
            )
    origin.status, origin.confidence = "confirmed", max(origin.confidence, _ORIGIN)
    origin.statement += (
        f"; its error on the statement explains {', '.join(names)} failing the same "
        "statement"
    )
    origin.chain = [
        *(
            f"{e.service}: {short(g.sample or g.signature, 120)}"
            for e, g in victims[:1]
        ),
        f"{errors.service}: {short(group.sample or group.signature, 140)}",
        origin.statement,
    ]
