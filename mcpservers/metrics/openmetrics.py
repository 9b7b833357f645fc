"""Write scenario series as OpenMetrics text, for `promtool tsdb create-blocks-from openmetrics`.

    python -m mcpservers.metrics.openmetrics --scenario NAME > series.om
    promtool tsdb create-blocks-from openmetrics series.om DATA_DIR

Offsets become absolute timestamps at the moment this runs, so load the blocks right away.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from mcpservers._common import UsageError, fail, scenario_dir
from mcpservers.metrics.backends import ScenarioDataError, load_metrics_json

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from mcpservers.metrics.promql import Series


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return repr(value)


def openmetrics_lines(series: Iterable[Series]) -> Iterator[str]:
    """OpenMetrics exposition lines, samples grouped per metric family, ending with `# EOF`.

    No `# TYPE` lines: every family is "unknown", which promtool accepts for any sample name
    (a typed counter family would have to be named without its `_total` suffix).
    """
    by_name: dict[str, list[Series]] = {}
    for s in series:
        by_name.setdefault(s.labels["__name__"], []).append(s)
    for name in sorted(by_name):
        for s in by_name[name]:
            labels = ",".join(
                f'{k}="{_escape(v)}"'
                for k, v in sorted(s.labels.items())
                if k != "__name__"
            )
            selector = f"{name}{{{labels}}}" if labels else name
            for ts, value in zip(s.ts, s.values, strict=True):
                yield f"{selector} {_number(value)} {ts:.3f}"
    yield "# EOF"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="mcpservers.metrics.openmetrics", description=__doc__.splitlines()[0]
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--scenario", metavar="NAME|DIR")
    source.add_argument("--file", metavar="PATH", help="a metrics.json file")
    args = parser.parse_args(argv)
    prog = parser.prog
    try:
        path = (
            scenario_dir(args.scenario) / "metrics.json"
            if args.scenario
            else Path(args.file)
        )
        series = load_metrics_json(path, now=time.time())
    except (UsageError, ScenarioDataError) as exc:
        fail(prog, str(exc))
    for line in openmetrics_lines(series):
        sys.stdout.write(line + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
