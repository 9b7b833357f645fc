"""Write docs/reliability.md: every fault and limit test, what it observed, its figures.

    python -m scripts.reliability_report              run `./test -m fault`, then write the doc
    python -m scripts.reliability_report --from FILE  write the doc from a run's JSON lines

A fault or limit test is marked `@pytest.mark.fault("title", kind="fault" | "limit")` and calls
the `reliability_record` fixture (tests/conftest.py), which appends one JSON line per test to the
file named by AGENTOPS_RELIABILITY_OUT. The doc is written only when every marked test ran, passed
and recorded; tests/test_reliability_doc.py checks that the doc and the markers agree.
"""

import argparse
import ast
import datetime
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from scripts import pysource

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "reliability.md"
RUN_OUT = ROOT / "var" / "reliability" / "run.jsonl"
COMMAND = "python -m scripts.reliability_report"
HEADER = "| Fault or limit | Kind | Test | Observed | Figures |"


@dataclass(frozen=True)
class Marked:
    """A test function carrying @pytest.mark.fault, found in its source."""

    test: str  # path::function (path::Class::function in a class), no parameters
    title: str
    kind: str


def _fault_marker(decorator: ast.expr) -> tuple[str, str] | None:
    if not (
        isinstance(decorator, ast.Call) and isinstance(decorator.func, ast.Attribute)
    ):
        return None
    func = decorator.func
    if not (
        func.attr == "fault"
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "mark"
    ):
        return None
    if not (decorator.args and isinstance(decorator.args[0], ast.Constant)):
        raise ValueError(
            f"fault marker without a literal title: {ast.unparse(decorator)}"
        )
    kind = "fault"
    for keyword in decorator.keywords:
        if keyword.arg == "kind" and isinstance(keyword.value, ast.Constant):
            kind = str(keyword.value.value)
    return str(decorator.args[0].value), kind


def marked_tests(root: Path = ROOT) -> dict[str, Marked]:
    """Every test under tests/ marked fault, by path::function, read from the source."""
    found: dict[str, Marked] = {}
    for path in sorted((root / "tests").rglob("test_*.py")):
        module = pysource.parse(path.read_text(encoding="utf-8"), str(path))
        relative = path.relative_to(root).as_posix()
        scopes: list[tuple[str, list[ast.stmt]]] = [(relative, module.body)]
        scopes += [
            (f"{relative}::{node.name}", node.body)
            for node in module.body
            if isinstance(node, ast.ClassDef)
        ]
        for prefix, body in scopes:
            for node in body:
                if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for decorator in node.decorator_list:
                    marker = _fault_marker(decorator)
                    if marker is not None:
                        test = f"{prefix}::{node.name}"
                        found[test] = Marked(test, *marker)
    return found


def base_test(nodeid: str) -> str:
    """tests/x.py::test_y[param] -> tests/x.py::test_y"""
    return nodeid.split("[", 1)[0]


def read_run(path: Path) -> list[dict[str, object]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def check_run(records: list[dict[str, object]], marked: dict[str, Marked]) -> list[str]:
    """What keeps this run from making the doc: failures, marked tests missing, strays."""
    problems = [
        f"{r['nodeid']}: {r['outcome']}" for r in records if r["outcome"] != "passed"
    ]
    seen = {base_test(str(r["nodeid"])) for r in records}
    problems += [f"{t}: marked fault but no record" for t in sorted(set(marked) - seen)]
    problems += [f"{t}: recorded but not marked" for t in sorted(seen - set(marked))]
    return problems


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _merge(records: list[dict[str, object]]) -> tuple[str, str]:
    """One row for a test's parameter cases: distinct observations, each figure's distinct values."""
    observed = list(dict.fromkeys(str(r["observed"]) for r in records))
    values: dict[str, list[str]] = {}
    for r in records:
        figures = r["figures"]
        if isinstance(figures, dict):
            for key, value in figures.items():
                seen = values.setdefault(str(key), [])
                if str(value) not in seen:
                    seen.append(str(value))
    figures_text = ", ".join(f"{k} = {' / '.join(v)}" for k, v in values.items())
    if len(records) > 1:
        figures_text = f"cases = {len(records)}" + (
            f", {figures_text}" if values else ""
        )
    return "; ".join(observed), figures_text or "—"


def render(records: list[dict[str, object]], generated: datetime.datetime) -> str:
    by_test: dict[str, list[dict[str, object]]] = {}
    for r in sorted(records, key=lambda r: str(r["nodeid"])):
        by_test.setdefault(base_test(str(r["nodeid"])), []).append(r)
    rows = sorted(by_test.items(), key=lambda item: (str(item[1][0]["kind"]), item[0]))
    lines = [
        "# Reliability: faults and limits",
        "",
        f"Generated by `{COMMAND}` on {generated:%Y-%m-%dT%H:%M:%SZ} from a run of the suite's "
        f"fault and limit tests (`./test -m fault`): {len(rows)} tests ({len(records)} cases), "
        "all passed. Do not edit by hand: run the command again. `tests/test_reliability_doc.py` "
        "fails when a test marked `@pytest.mark.fault` is missing here or a row names a test "
        "that is not marked.",
        "",
        "Each test runs against the real stack on 127.0.0.1 (PostgreSQL, Redis, Daphne, Celery "
        "as the test needs), bounded in time. Figures are from that one run on the machine that "
        "generated this file; timings are what was measured there, not bounds. A parametrized "
        "test is one row: its cases' distinct observations and figure values.",
        "",
        HEADER,
        "|---|---|---|---|---|",
    ]
    for test, cases in rows:
        observed, figures = _merge(cases)
        cells = [cases[0]["fault"], cases[0]["kind"], f"`{test}`", observed, figures]
        lines.append("| " + " | ".join(map(_cell, cells)) + " |")
    return "\n".join(lines) + "\n"


def run_suite(out: Path, pytest_args: list[str]) -> int:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.unlink(missing_ok=True)
    env = {**os.environ, "AGENTOPS_RELIABILITY_OUT": str(out)}
    argv = [str(ROOT / "test"), "-m", "fault", *pytest_args]
    return subprocess.run(argv, cwd=ROOT, env=env, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--from", dest="source", type=Path, help="a run's JSON lines")
    parser.add_argument("--doc", type=Path, default=DOC)
    parser.add_argument("pytest_args", nargs="*", help="extra arguments for ./test")
    args = parser.parse_args(argv)
    source: Path = args.source or RUN_OUT
    if args.source is None:
        code = run_suite(source, args.pytest_args)
        if code != 0:
            sys.stderr.write(f"./test -m fault failed ({code}); doc not written\n")
            return code
    records = read_run(source)
    problems = check_run(records, marked_tests())
    if problems:
        sys.stderr.write("doc not written:\n" + "".join(f"  {p}\n" for p in problems))
        return 1
    now = datetime.datetime.now(datetime.UTC)
    args.doc.parent.mkdir(parents=True, exist_ok=True)
    args.doc.write_text(render(records, now), encoding="utf-8")
    sys.stderr.write(f"wrote {args.doc} ({len(records)} rows)\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
