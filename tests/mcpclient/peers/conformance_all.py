"""Every client scenario of the conformance suite at every version it names, with our client.

    .venv/bin/python -m tests.mcpclient.peers.conformance_all [-j N] [-k SUBSTRING] [-v]

Prints one line per run (PASS/FAIL and why), then the count. Runs N at a time (default 3): each
run is a Node process plus our client, and the machine is shared. Not part of the test suite
(tests/mcpclient/test_conformance.py runs the listed passing subset).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from .conformance import collect, listed_runs, start


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("-j", type=int, default=3, help="runs at once")
    parser.add_argument("-k", default="", help="only scenarios containing this")
    parser.add_argument(
        "-v", action="store_true", help="print each failing run's output"
    )
    args = parser.parse_args()
    runs = [run for run in listed_runs() if args.k in run[0]]
    passed = 0
    with tempfile.TemporaryDirectory() as tmp:
        pending = list(enumerate(runs))
        active: list[tuple[int, object, Path]] = []
        results: dict[int, list[str]] = {}
        while pending or active:
            while pending and len(active) < args.j:
                index, (scenario, version, forced) = pending.pop(0)
                out = Path(tmp) / str(index)
                out.mkdir()
                active.append(
                    (index, start(scenario, version, [], out, force=forced), out)
                )
            index, proc, out = active.pop(0)
            run = collect(proc, out)  # type: ignore[arg-type]
            problems = run.problems()
            results[index] = problems
            scenario, version, forced = runs[index]
            label = f"{scenario}@{version}{' (forced)' if forced else ''}"
            if problems:
                print(f"FAIL {label}: {'; '.join(problems)[:300]}", flush=True)
                if args.v:
                    print(run.summary(), flush=True)
            else:
                passed += 1
                print(f"PASS {label}", flush=True)
    print(f"{passed} of {len(runs)} runs pass")
    return 0 if passed == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
