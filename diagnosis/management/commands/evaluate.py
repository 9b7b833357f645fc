"""manage.py evaluate: every scenario end to end through the real stack, scored (issue 9 item 13).

Starts Daphne and a Celery worker (threads pool) as children on this command's database and
Redis, opens each scenario's demo incident over HTTP with an approver's token of the
`evaluation` tenant (made when absent; the token is revoked at the end), denies every approval
the diagnoses ask for, and scores the reports (diagnosis.evaluation). Prints one line per
scenario, `k/n` and the top-3 hits, or with --json one JSON object per line per scenario and
a last {"totals": ...} line. Exit status 0 when every scenario counted (or --min-counted of
them), 1 otherwise, 2 when the stack could not be started.

--scenarios DIR other than the registry's: the children get a registry file whose demo
environments are DIR's folders, each a scenario of data only (mcpservers/scenarios/README.md):
its servers, its targets.json listeners and its backend.json come from the folder itself.

--variants: every scenario also run with its incident reworded by each rule of
diagnosis.evaluation_variants (the service a user would name, a label alias, no symptoms,
alert-only text, a short title, all at once); the variant folders `<slug>+<rule>` are made in
the work folder, and the output adds right and conclusive counts per rule.

--generated N --seed S: N scenarios drawn by diagnosis.evaluation_generated from its catalogue
of topologies, fault classes and red herrings (deterministic for a seed) are run instead of
--scenarios; the output adds right / conclusive / counted per fault class. --keep keeps the
generated folders (and the work folder) and prints where.
"""

import asyncio
import json
import logging
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from agentops.stack import LocalStack, StackError
from diagnosis import (
    environments,
    evaluation,
    evaluation_generated,
    evaluation_variants,
)
from diagnosis.registry import RegistryError, bundled_scenarios_dir, load_registry

TENANT = "evaluation"
USERNAME = "evaluator"


class Command(BaseCommand):
    help = "Run every scenario through the API, a worker and the MCP servers; score the reports."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--scenarios",
            type=Path,
            default=None,
            help="folder of scenario folders (default: the bundled mcpservers/scenarios)",
        )
        parser.add_argument("--json", action="store_true", help="JSON lines output")
        parser.add_argument(
            "--concurrency",
            type=int,
            default=5,
            help="scenarios run at once (also the worker's threads; default 5)",
        )
        parser.add_argument(
            "--timeout",
            type=float,
            default=300.0,
            help="seconds per scenario before its task is cancelled (default 300)",
        )
        parser.add_argument(
            "--min-counted",
            type=int,
            default=None,
            help="exit 0 when at least this many scenarios counted (default: all of them)",
        )
        parser.add_argument(
            "--variants",
            action="store_true",
            help="also run every scenario with its incident reworded by each variant rule",
        )
        parser.add_argument(
            "--variant-rules",
            default=None,
            help="comma-separated rules for --variants (default: all of "
            + ", ".join(evaluation_variants.RULE_NAMES)
            + ")",
        )

        parser.add_argument(
            "--generated",
            type=int,
            default=None,
            help="run N scenarios generated from the catalogue instead of --scenarios",
        )
        parser.add_argument(
            "--seed", type=int, default=1, help="seed of --generated (default 1)"
        )
        parser.add_argument(
            "--keep",
            action="store_true",
            help="keep the work folder (with the generated scenarios)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        root = (options["scenarios"] or bundled_scenarios_dir() or Path()).resolve()
        if not root.is_dir():
            raise CommandError(f"--scenarios: {root} is not a folder")
        if options["concurrency"] < 1 or options["timeout"] <= 0:
            raise CommandError("--concurrency and --timeout must be positive")
        rules = None
        if options["variants"] or options["variant_rules"]:
            names = options["variant_rules"]
            try:
                rules = evaluation_variants.rules_named(
                    None if names is None else names.split(",")
                )
            except ValueError as exc:
                raise CommandError(f"--variant-rules: {exc}") from exc
        if options["generated"] is not None and options["generated"] < 1:
            raise CommandError("--generated must be positive")
        work = Path(tempfile.mkdtemp(prefix="agentops-evaluate-"))
        try:
            if options["generated"] is not None:
                evaluation_generated.write(
                    evaluation_generated.generate(
                        options["generated"], options["seed"]
                    ),
                    work / "generated",
                )
                root = work / "generated"
                if options["keep"]:
                    self.stderr.write(f"generated scenarios in {root}")
            if rules is not None:
                evaluation_variants.build_variant_root(root, work / "variants", rules)
                root = work / "variants"
            scenarios = evaluation.load_scenarios(root)
        except ValueError as exc:
            shutil.rmtree(work, ignore_errors=True)
            raise CommandError(str(exc)) from exc
        if not scenarios:
            shutil.rmtree(work, ignore_errors=True)
            raise CommandError(f"no scenario with an expected.json under {root}")
        logging.getLogger("httpx").setLevel(
            logging.WARNING
        )  # a line per poll otherwise
        ok = False
        try:
            runs, elapsed = self._run(root, scenarios, work, options)
            ok = self._print(
                runs,
                elapsed,
                as_json=options["json"],
                need=options["min_counted"],
                variants=rules is not None,
                generated=options["generated"] is not None,
            )
        finally:
            if ok and not options["keep"]:
                shutil.rmtree(work, ignore_errors=True)
            else:
                self.stderr.write(f"children's logs kept in {work}")
        if not ok:
            raise CommandError("too few scenarios counted", returncode=1)

    def _run(
        self,
        root: Path,
        scenarios: list[evaluation.Scenario],
        work: Path,
        options: dict[str, Any],
    ) -> tuple[list[evaluation.Run], float]:
        servers = str(settings.AGENTOPS_SERVERS)
        registered = environments.registry().scenarios_dir
        if registered is None or Path(registered).resolve() != root:
            # The registry's demo environments are another folder's: give the children one
            # made of this folder's scenarios.
            path = work / "servers.toml"
            path.write_text(evaluation.registry_text(root), encoding="utf-8")
            try:
                load_registry(path)
            except RegistryError as exc:
                raise CommandError(str(exc)) from exc
            servers = str(path)
        secret = evaluation.evaluator_token_create(tenant=TENANT, username=USERNAME)
        started = time.monotonic()
        try:
            with LocalStack(work, env={"AGENTOPS_SERVERS": servers}) as stack:
                base = stack.start_web()
                stack.start_worker(
                    "evaluate", pool="threads", concurrency=options["concurrency"]
                )
                runs = asyncio.run(
                    evaluation.run_all(
                        base,
                        secret,
                        scenarios,
                        concurrency=options["concurrency"],
                        timeout=options["timeout"],
                    )
                )
        except StackError as exc:
            raise CommandError(str(exc), returncode=2) from exc
        finally:
            evaluation.evaluator_token_revoke(secret=secret)
        return runs, time.monotonic() - started

    def _print(
        self,
        runs: list[evaluation.Run],
        elapsed: float,
        *,
        as_json: bool,
        need: int | None,
        variants: bool = False,
        generated: bool = False,
    ) -> bool:
        summary = evaluation.totals(runs, elapsed_s=elapsed)
        outcomes = [
            evaluation_variants.Outcome(
                folder=run.scenario.folder,
                right=evaluation.score(run).counted,
                conclusive=run.report.get("conclusive") is True,
            )
            for run in runs
        ]
        by_variant = evaluation_variants.summary(outcomes) if variants else None
        by_fault = (
            evaluation_generated.summary(
                [(o.folder, o.right, o.conclusive) for o in outcomes]
            )
            if generated
            else None
        )
        if as_json:
            for run, outcome in zip(runs, outcomes, strict=True):
                line = evaluation.run_to_dict(run)
                line["conclusive"] = outcome.conclusive
                if variants:
                    line["variant"] = evaluation_variants.variant_of(outcome.folder)[1]
                self.stdout.write(json.dumps(line))
            last: dict[str, Any] = {"totals": summary}
            if by_variant is not None:
                last["variants"] = by_variant
            if by_fault is not None:
                last["generated"] = by_fault
            self.stdout.write(json.dumps(last))
        else:
            self.stdout.write(evaluation.table(runs))
            if by_variant is not None:
                for text in evaluation_variants.summary_lines(by_variant):
                    self.stdout.write(text)
            if by_fault is not None:
                for text in evaluation_generated.summary_lines(by_fault):
                    self.stdout.write(text)
        return bool(
            summary["counted"] >= (summary["scenarios"] if need is None else need)
        )
