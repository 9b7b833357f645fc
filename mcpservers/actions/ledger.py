"""The demo back end's side effects: an append-only JSON-lines ledger guarded by a file lock.

Each action is one line. Under an exclusive `flock` on `<ledger>.lock` we (1) read the ledger, (2) return
the first record when the idempotency key is already there, else (3) derive the workload's state from
earlier records, append the new record and fsync. The append is the action, so a key is in the ledger
if and only if the action happened, and no two processes can act on one key twice.
"""

from __future__ import annotations

import fcntl
import json
import os
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path


class KeyConflict(Exception):
    """The idempotency key was already used for a different action or target."""


@dataclass(frozen=True)
class Outcome:
    record: dict[str, Any]
    replayed: bool  # True when the key was found and nothing was done this time


class Ledger:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock_path = path.with_name(path.name + ".lock")
        path.parent.mkdir(parents=True, exist_ok=True)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        with self.lock_path.open("a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def records(self) -> list[dict[str, Any]]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        out = []
        for line in text.splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue  # a torn last line from a crash mid-write: that action did not complete
            if isinstance(record, dict) and "idempotency_key" in record:
                out.append(record)
        return out

    def find(self, key: str) -> dict[str, Any] | None:
        with self._locked():
            return next(
                (r for r in self.records() if r["idempotency_key"] == key), None
            )

    def perform(
        self,
        *,
        key: str,
        action: str,
        namespace: str,
        name: str,
        params: dict[str, Any],
        apply: Callable[[list[dict[str, Any]]], dict[str, Any]],
        now: str,
    ) -> Outcome:
        """Do `action` once per key: `apply(earlier records of this workload)` gives the result to record.

        Raises:
            KeyConflict: the key was used before for another action, target or parameters.
        """
        with self._locked():
            records = self.records()
            for record in records:
                if record["idempotency_key"] != key:
                    continue
                if (
                    record["action"],
                    record["namespace"],
                    record["name"],
                    record["params"],
                ) != (
                    action,
                    namespace,
                    name,
                    params,
                ):
                    raise KeyConflict(
                        f"idempotency key {key!r} was already used at {record['performed_at']} for "
                        f"{record['action']} of {record['namespace']}/{record['name']} {record['params']}; "
                        "use a new key for a different action"
                    )
                return Outcome(record, replayed=True)
            history = [
                r for r in records if (r["namespace"], r["name"]) == (namespace, name)
            ]
            record = {
                "seq": len(records) + 1,
                "idempotency_key": key,
                "action": action,
                "namespace": namespace,
                "name": name,
                "params": params,
                "status": "done",
                "performed_at": now,
                "result": apply(history),
            }
            with self.path.open("a", encoding="utf-8") as ledger:
                ledger.write(json.dumps(record, sort_keys=True) + "\n")
                ledger.flush()
                os.fsync(ledger.fileno())
            return Outcome(record, replayed=False)
