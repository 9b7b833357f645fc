"""LayeredPlanner, the deterministic planner (seed 000 §1.2): which calls next, the report, actions, verification.

Round 1 asks the service's health and errors, netcheck's targets, the runbooks by the symptoms and every service's own
series against the hour before (`metric_trends`); later rounds follow
what the answers name, probe layer by layer and search the runbooks with the findings. Stateless; pure Python, no I/O (its `Planner` methods are coroutines only to share the one protocol).
"""

import re
from collections.abc import Container, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from reasoning import layers
from reasoning.layered import (
    address_conflict,
    backend_gauges,
    cache_ceiling,
    cache_hits,
    certificates,
    changes,
    cited_lines,
    controller_actions,
    cors,
    denied_access,
    dns_facts,
    dns_records,
    dns_repointed,
    dns_search,
    dns_zones,
    dropping_policy,
    echoed_errors,
    edge_filters,
    egress_proxy,
    emptied_pools,
    expiry_wave,
    fan_out,
    fault_class_lines,
    fault_lines,
    flag_quota,
    host_exhaustion,
    host_facts,
    host_lines,
    immediate_retries,
    issuer_refusal,
    kubernetes,
    lb_draining,
    link_saturation,
    lock_holders,
    logged_delay,
    loopback_bind,
    lost_position,
    lowered_limit,
    mesh_mtls,
    metric_trends,
    named_lines,
    network_delay,
    node_pool_changes,
    path_elements,
    policy_lookups,
    proxy_queue,
    quiet_backend,
    quiet_changes,
    remedies,
    rerouted_path,
    retry_storms,
    route_backends,
    runtime_choice,
    shared_backend,
    shared_capacity,
    shared_limits,
    signed_lifetime,
    silent_lines,
    space_holders,
    stalled_output,
    start_failures,
    survey,
    unread_services,
    upstream_producer,
    workload_changes,
)
from reasoning.layered.analysis import Analysis
from reasoning.layered.candidates import dependency_services
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.reading import (
    APP_ERROR,
    STREAMY,
    arg,
    as_dict,
    as_list,
    belongs,
    call_key,
    host_of,
    hosts_in,
    incident_text,
    iso,
    short,
)
from reasoning.layered.resolution import (
    Known,
    Resolution,
    incident_labels,
    known_names,
    resolve,
)
from reasoning.observations import Investigation, PlannedCall, only_tool
from reasoning.report import Hypothesis, NextStep, Report
from reasoning.tools import (
    GET_RESOURCES,
    LIST_TARGETS,
    PROBE_URL,
    QUERY_METRIC,
    RESTART_WORKLOAD,
    SEARCH_LOGS,
    SEARCH_RUNBOOKS,
    SERVICE_HEALTH,
    TOP_ERRORS,
    agent_for,
)

__all__ = ["LayeredPlanner"]

_RUNBOOK_QUERY_CHARS = 500
# The hour before the window: what a service logged before the incident.
BASELINE_S = 3600
_CHANGE_SEARCHES = 3  # subjects whose changes are searched for, the first to fail first
# Kubernetes objects a caller's log lines name (by their service's or workload's name).
_SEARCHABLE_KINDS = frozenset({"deployment", "statefulset", "daemonset", "service"})


@dataclass(frozen=True)
class _Start:
    """Where the diagnosis starts: the incident as resolved, how, and the survey when unresolved."""

    inv: Investigation  # the incident's service replaced by the resolved (or surveyed) one
    resolution: Resolution
    known: Known
    ratios: dict[str, float] | None  # the survey's 5xx shares; None: not surveyed
    unhealthy: tuple[survey.Unhealthy, ...] = ()
    shown_unknown: bool = (
        False  # a data source answered about the name and did not know it
    )

    def lines(self) -> list[str]:
        """The report's lines on how the name was resolved (nothing to say when it was known as is)."""
        res = self.resolution
        if res.method == "exact" or not (res.is_resolved or self.shown_unknown):
            return []
        lines = [res.sentence()]
        if res.is_resolved:
            return lines
        if self.ratios is None:
            lines.append("no survey of the services was possible (no metrics query)")
        elif not self.unhealthy:
            lines.append("the survey of every service found none unhealthy")
        else:
            sick = ", ".join(f"{u.service} ({u.why})" for u in self.unhealthy[:6])
            lines.append(
                f"started from everything unhealthy: {sick}; {self.unhealthy[0].service}, "
                "failing most, stands for the incident's service"
            )
        return lines


class LayeredPlanner:
    """Plans rounds of read-only calls and builds the report from what they showed (the `Planner`)."""

    def __init__(
        self,
        *,
        max_rounds: int = 8,
        max_calls: int = 40,
        max_probes: int = 8,
        max_dependencies: int = 4,
        stream_watch_s: float = 6.0,
        probe_timeout_s: float | None = None,
        max_window: timedelta = timedelta(hours=6),
        runbook_limit: int = 3,
        max_survey: int = 6,
    ) -> None:
        self.max_rounds = max_rounds
        self.max_calls = max_calls
        self.max_probes = max_probes
        self.max_dependencies = max_dependencies
        self.stream_watch_s = stream_watch_s
        self.probe_timeout_s = probe_timeout_s
        self.max_window = max_window
        self.runbook_limit = runbook_limit
        self.max_survey = max_survey

    # Rounds.

    async def next_round(self, investigation: Investigation) -> list[PlannedCall]:
        """The calls worth asking now that were not asked yet; [] when nothing new is worth it.

        `investigation.round` is the number of rounds already run.
        """
        return self._next_round(investigation)

    def _next_round(self, inv: Investigation) -> list[PlannedCall]:
        budget = self.max_calls - len(inv.observations)
        if inv.round >= self.max_rounds or budget <= 0:
            return []
        facts = Facts.read(inv.observations)
        start = _start(inv, facts)
        asked = {call_key(o.tool, o.arguments) for o in inv.observations}
        calls = self._fresh(
            [*self._resolving(inv, facts, start), *self._wanted(start.inv, facts)],
            asked,
        )
        if not calls:
            calls = self._fresh(self._path_searches(start.inv, facts), asked)
        if not calls:
            calls = self._fresh(self._loss_searches(start.inv, facts), asked)
        if not calls:
            calls = self._fresh(self._survey_when_stuck(inv, facts, start), asked)
        if not calls:
            calls = self._fresh(self._findings_search(start.inv, facts), asked)
        return calls[:budget]

    def _survey_when_stuck(
        self, inv: Investigation, facts: Facts, start: _Start
    ) -> list[PlannedCall | None]:
        """Nothing asked so far explains the incident and nothing it named is left to read: survey
        every service the metrics know, then read the failing ones (issue 21: survey, not only the
        named service). The cause of a gateway's 5xx is often a service nobody named."""
        if not any(o.is_ok for o in inv.observations):
            return []  # nothing could be read (refused, failing): a survey would fare no better
        analysis = Analysis(start.inv, facts)
        if any(c.status == "confirmed" for c in analysis.candidates.values()):
            return []
        # Slow, and nothing explains it: the round trips between callers and callees.
        calls: list[PlannedCall | None] = network_delay.reads(
            start.inv,
            facts,
            partial(self._call, inv),
        )
        calls += self._unread_reads(inv, facts)
        calls += self._silent_search(
            inv,
            facts,
            "nothing read so far explains the incident: lines that say data went quietly "
            "wrong (replica lag, offsets reset, a traffic split)",
        )
        if start.ratios is not None:
            return (
                calls  # an unknown name already started from the survey (`_resolving`)
            )
        if inv.tools_named(GET_RESOURCES):
            calls += kubernetes.survey(
                inv,
                facts,
                partial(self._call, inv),
            )
        ratios = survey.error_ratios(inv)
        if ratios is None:
            return calls + self._survey_queries(
                inv,
                f"nothing read so far explains {inv.incident.service}'s failure: "
                "which services the metrics know, and their 5xx",
            )
        failing = [
            s
            for s in survey.surveyed(ratios, (), len(ratios))
            if ratios[s] >= survey.UNHEALTHY_RATIO
        ]
        return calls + self._read_services(
            inv,
            facts,
            (
                (
                    service,
                    f"survey: {service} answers {ratios[service]:.0%} 5xx and nothing read so "
                    "far explains the incident",
                )
                for service in failing[: self.max_survey]
            ),
        )

    def _silent_search(
        self, inv: Investigation, facts: Facts, why: str
    ) -> list[PlannedCall | None]:
        """Every service's lines of replica lag, offsets out of range and traffic weights
        (`silent_lines`), where the logs server searches every service by regex."""
        arguments = silent_lines.arguments(self._window(inv))
        if arguments is None or not self._searches_every_service(
            inv, facts, regex=True
        ):
            return []
        return [self._call(inv, SEARCH_LOGS, arguments, why)]

    def _unread_reads(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """Every service's errors and warnings at once, then the services never read whose own
        patterns are new since the start (`unread_services`): a quiet consumer no one named."""
        logs = only_tool(inv, TOP_ERRORS)
        if not unread_services.offered(inv) or (
            logs is not None and facts.is_backend_down(logs.server)
        ):
            return []
        asked = [o for o in inv.observations if unread_services.is_every_service(o)]
        if not asked:
            return [
                self._call(
                    inv,
                    TOP_ERRORS,
                    unread_services.arguments(self._window(inv), BASELINE_S),
                    "nothing read so far explains the incident: which services log errors or "
                    "warnings new since the start",
                )
            ]
        ratios = survey.error_ratios(inv)
        return self._read_services(
            inv,
            facts,
            (
                (lead.service, lead.why)
                for lead in unread_services.leads(inv, facts.errors)[
                    : self.max_dependencies
                ]
            ),
            metric_known=ratios if ratios is not None else (),
        )

    def _resolving(
        self, inv: Investigation, facts: Facts, start: _Start
    ) -> list[PlannedCall | None]:
        """An unknown service name: list what the metrics know, then read every service, most failing first."""
        if start.resolution.is_resolved or not start.shown_unknown:
            return []
        if start.ratios is None:
            return self._survey_queries(
                inv,
                f"{inv.incident.service} is unknown to the data: which services the metrics know, and their 5xx",
            )
        logged = [n for n, sources in start.known.services.items() if "logs" in sources]
        why = f"survey: {inv.incident.service} is unknown, so every service is read"
        return self._read_services(
            inv,
            facts,
            ((s, why) for s in survey.surveyed(start.ratios, logged, self.max_survey)),
            metric_known=start.ratios,
        )

    def _survey_queries(self, inv: Investigation, why: str) -> list[PlannedCall | None]:
        """The survey's metric queries: every service the metrics know, and its 5xx (survey.QUERIES)."""
        window = self._window(inv)
        return [
            self._call(
                inv, QUERY_METRIC, {"promql": promql, **window, "step": "60s"}, why
            )
            for promql in survey.QUERIES
        ]

    def _read_services(
        self,
        inv: Investigation,
        facts: Facts,
        reads: Iterable[tuple[str, str]],
        *,
        metric_known: Container[str] | None = None,
    ) -> list[PlannedCall | None]:
        """For each (service, why): its health (when the metrics know it; every one when
        `metric_known` is None) and its top errors (unless the logs back end is failing)."""
        window = self._window(inv)
        logs = only_tool(inv, TOP_ERRORS)
        logs_down = facts.is_backend_down(logs.server if logs else None)
        calls: list[PlannedCall | None] = []
        for service, why in reads:
            if metric_known is None or service in metric_known:
                calls.append(
                    self._call(inv, SERVICE_HEALTH, {"service": service, **window}, why)
                )
            if not logs_down:
                calls.append(self._top_errors(inv, service, why))
        return calls

    def _top_errors(
        self, inv: Investigation, service: str, why: str
    ) -> PlannedCall | None:
        """top_errors of `service` in the window, with its warnings apart and the hour before as a
        baseline where the logs server offers them (issue 21: warnings, new since the start)."""
        arguments: dict[str, Any] = {"service": service, **self._window(inv)}
        tool = only_tool(inv, TOP_ERRORS)
        offered = as_dict(tool.input_schema.get("properties")) if tool else {}
        if "warnings" in offered:
            arguments["warnings"] = True
        if "baseline_s" in offered:
            arguments["baseline_s"] = BASELINE_S
        return self._call(inv, TOP_ERRORS, arguments, why)

    @staticmethod
    def _searches_every_service(
        inv: Investigation, facts: Facts, *, regex: bool = False
    ) -> bool:
        """Whether the logs server, up, searches every service at once (its search_logs needs no
        service), and by regular expression when `regex`."""
        search = only_tool(inv, SEARCH_LOGS)
        if search is None or facts.is_backend_down(search.server):
            return False
        schema = search.input_schema
        return "service" not in as_list(schema.get("required")) and (
            not regex or "regex" in as_dict(schema.get("properties"))
        )

    @staticmethod
    def _regex_search(inv: Investigation, facts: Facts) -> bool:
        """Whether the logs server, up, searches by regular expression."""
        search = only_tool(inv, SEARCH_LOGS)
        if search is None or facts.is_backend_down(search.server):
            return False
        return "regex" in as_dict(search.input_schema.get("properties"))

    def _change_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """Every service's lines naming a failing host or service and a change word, in the half
        hour before its first failure (where the logs server searches every service by regex)."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        searched = {
            o.arguments.get("query") for o in inv.observations if o.tool == SEARCH_LOGS
        }
        found = changes.subjects(facts, _parse_time(self._window(inv)["start"]))
        found.sort(key=lambda s: s.first_failure)
        # One search per subject, even when a later read moves its first failure.
        room = _CHANGE_SEARCHES - sum(
            1 for s in found if changes.search_pattern(s.name) in searched
        )
        pending = [s for s in found if changes.search_pattern(s.name) not in searched]
        return [
            self._call(
                inv,
                SEARCH_LOGS,
                {
                    "query": changes.search_pattern(subject.name),
                    "regex": True,
                    "start": iso(subject.first_failure - changes.LEAD),
                    "end": iso(subject.first_failure),
                    "limit": 20,
                },
                f"changes to {subject.name} recorded in any log just before it began failing",
            )
            for subject in pending[: max(room, 0)]
        ]

    def _lifetime_search(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """Signed links or tokens refused as expired: every service's lines changing a lifetime
        setting in the half hour before the first refusal (`signed_lifetime`)."""
        first = signed_lifetime.first_refusal(facts)
        if first is None or not self._searches_every_service(inv, facts, regex=True):
            return []
        return [
            self._call(
                inv,
                SEARCH_LOGS,
                {
                    "query": signed_lifetime.SETTING_QUERY,
                    "regex": True,
                    "start": iso(first - signed_lifetime.LEAD),
                    "end": iso(first),
                    "limit": 20,
                },
                "signed links or tokens are refused as expired: which service changed the "
                "lifetime it signs them with",
            )
        ]

    def _fresh(
        self, calls: Iterable[PlannedCall | None], asked: set[str]
    ) -> list[PlannedCall]:
        out: list[PlannedCall] = []
        for call in calls:
            if call is None:
                continue
            key = call_key(call.tool, call.arguments)
            if key not in asked:
                asked.add(key)
                out.append(call)
        return out

    def _call(
        self, inv: Investigation, tool: str, arguments: dict[str, Any], why: str
    ) -> PlannedCall | None:
        info = only_tool(inv, tool)
        if info is None:
            return None
        return PlannedCall(
            agent=agent_for(info.server, tool),
            server=info.server,
            tool=tool,
            arguments=arguments,
            why=why,
        )

    def _window(self, inv: Investigation) -> dict[str, str]:
        start = inv.incident.window_start or "now-1h"
        end = inv.incident.window_end or "now"
        parsed_start, parsed_end = _parse_time(start), _parse_time(end)
        if parsed_start and parsed_end and parsed_end - parsed_start > self.max_window:
            start = (parsed_end - self.max_window).isoformat().replace("+00:00", "Z")
        return {"start": start, "end": end}

    def _wanted(self, inv: Investigation, facts: Facts) -> list[PlannedCall | None]:
        service = inv.incident.service
        window = self._window(inv)
        symptoms = short(" ".join(inv.incident.symptoms) or inv.incident.title, 3000)
        calls: list[PlannedCall | None] = [
            self._call(
                inv,
                SERVICE_HEALTH,
                {"service": service, **window},
                f"health of {service}, the incident's service",
            ),
            self._top_errors(inv, service, f"what {service} logs as errors"),
            self._call(inv, LIST_TARGETS, {}, "which network paths netcheck may probe"),
            self._call(
                inv,
                SEARCH_RUNBOOKS,
                {"symptoms": symptoms, "limit": self.runbook_limit},
                "runbooks for the symptoms",
            ),
        ]
        series = metric_trends.read(window)
        if series is not None:
            calls.append(
                self._call(
                    inv,
                    QUERY_METRIC,
                    series,
                    "every service's own series (goroutines, heap, rebalances, evictions …) "
                    "against the hour before the window",
                )
            )
        unlabelled = backend_gauges.read(window)
        if unlabelled is not None:
            calls.append(
                self._call(
                    inv,
                    QUERY_METRIC,
                    unlabelled,
                    "every exporter's series (disks, volumes, replicas …) against the hour "
                    "before the window",
                )
            )
        if inv.tools_named(GET_RESOURCES):
            calls += kubernetes.plan(
                inv,
                facts,
                partial(self._call, inv),
            )
            calls += policy_lookups.reads(inv, facts, partial(self._call, inv))
        if not inv.observations:
            return calls
        if any(g.kind == "lagging" for g in backend_gauges.gauges(inv, facts)):
            calls += self._silent_search(
                inv, facts, "a replica's lag climbs: what the databases log about it"
            )
        calls += self._read_services(
            inv,
            facts,
            (
                (dep, f"{dep} is named by the incident or {service}'s errors")
                for dep in dependency_services(inv, facts)[: self.max_dependencies]
            ),
        )
        calls += self._read_services(
            inv,
            facts,
            (
                (
                    issuer,
                    f"workloads fail to get an identity or certificate from {issuer}",
                )
                for issuer in certificates.issuers_waited_on(facts)
            ),
        )
        calls += self._probes(inv, facts)
        calls += self._read_services(
            inv,
            facts,
            (
                (s, f"{s}'s host refuses connections: does it fail to start")
                for s in start_failures.reads(facts)
            ),
            metric_known=(),
        )
        calls += self._change_searches(inv, facts)
        if self._searches_every_service(inv, facts, regex=True):
            calls += lost_position.searches(inv, partial(self._call, inv), window)
            calls += controller_actions.searches(inv, partial(self._call, inv), window)
        calls += self._lifetime_search(inv, facts)
        calls += self._echo_searches(inv, facts)
        calls += self._space_holder_searches(inv, facts)
        if self._searches_every_service(inv, facts, regex=True):
            calls += host_exhaustion.searches(
                inv, facts, partial(self._call, inv), window
            )
            calls += host_facts.searches(inv, facts, partial(self._call, inv), window)
            calls += cache_ceiling.searches(
                inv, facts, partial(self._call, inv), window
            )
            calls += dns_facts.searches(facts, partial(self._call, inv), window)
            calls += flag_quota.searches(facts, partial(self._call, inv), window)
            calls += emptied_pools.searches(facts, partial(self._call, inv), window)
            calls += node_pool_changes.searches(facts, partial(self._call, inv), window)
        calls += self._denial_searches(inv, facts)
        calls += self._egress_searches(inv, facts)
        calls += self._conflict_searches(inv, facts)
        calls += self._host_searches(inv, facts)
        if self._regex_search(inv, facts):
            calls += runtime_choice.searches(facts, partial(self._call, inv), window)
            calls += cache_hits.searches(inv, facts, partial(self._call, inv), window)
        if self._searches_every_service(inv, facts, regex=True):
            calls += fan_out.searches(facts, partial(self._call, inv), window)
        calls += self._drain_searches(inv, facts)
        calls += self._refusal_searches(inv, facts)
        calls += self._retry_reads(inv, facts)
        calls += self._read_services(
            inv,
            facts,
            (
                (s, f"{s} is retried with no wait between attempts: does it shed load")
                for s in immediate_retries.callees_to_read(facts)
            ),
        )
        calls += self._capacity_reads(inv, facts)
        calls += self._lock_reads(inv, facts)
        calls += self._read_services(
            inv,
            facts,
            (
                (
                    b,
                    f"{b} blocks its clients just after a client started something: was it failing before",
                )
                for b in filter(None, [shared_backend.backend_read(inv, facts)])
            ),
            metric_known=(),
        )
        calls += self._proxy_reads(inv, facts)
        calls += self._backend_search(inv, facts)
        calls += self._quiet_backend_searches(inv, facts)
        calls += self._route_search(inv, facts)
        if self._searches_every_service(inv, facts, regex=True):
            calls += route_backends.searches(inv, partial(self._call, inv), window)
            calls += fault_class_lines.searches(
                inv, Cluster.read(inv.observations), partial(self._call, inv)
            )
        if self._searches_every_service(inv, facts, regex=True):
            calls += network_delay.actor_searches(inv, partial(self._call, inv))
        calls += self._tenant_reads(inv, facts)
        calls += self._quiet_fault_searches(inv, facts)
        calls += self._quiet_change_searches(inv, facts)
        calls += self._read_services(
            inv,
            facts,
            (
                (s, f"{s}'s own series rose steadily or jumped against the hour before")
                for s in metric_trends.flagged(inv)[: self.max_dependencies]
            ),
        )
        analysis = Analysis(inv, facts)
        calls += fault_lines.reads(
            inv, cited_lines.leading(analysis), partial(self._call, inv)
        )
        calls += workload_changes.reads(analysis, partial(self._call, inv))
        if self._regex_search(inv, facts):
            calls += cited_lines.reads(
                analysis,
                partial(self._call, inv),
                window,
                every_service=self._searches_every_service(inv, facts, regex=True),
            )
        for c in analysis.candidates.values():
            if (
                c.layer != layers.APPLICATION
                or c.status == "ruled_out"
                or c.component in facts.log_lines
            ):
                continue
            errors = facts.errors.get(c.component)
            own = next(
                (
                    m
                    for g in (errors.groups if errors else ())
                    if (m := APP_ERROR.search(g.sample or g.signature))
                ),
                None,
            )
            search = only_tool(inv, SEARCH_LOGS)
            # The error's words up to its first number: the lines' numbers vary, the words do not.
            query = re.split(r"\d", own.group(0))[0].strip(" :=,") if own else ""
            if (
                query
                and search is not None
                and not facts.is_backend_down(search.server)
            ):
                calls.append(
                    self._call(
                        inv,
                        SEARCH_LOGS,
                        {
                            "service": c.component,
                            "query": query[:100],
                            **window,
                            "limit": 5,
                        },
                        f"lines of {c.component}'s own error, for their labels (pod, namespace)",
                    )
                )
        return calls

    def _loss_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """Once nothing else is wanted: work said to be missing, every service's lines about a
        policy dropping messages (`dropping_policy`); reads missing the cache, every service's
        lines naming a TTL (`expiry_wave`)."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        call, window = partial(self._call, inv), self._window(inv)
        return [
            *dropping_policy.searches(inv, facts, call, window),
            *expiry_wave.searches(inv, facts, call, window),
        ]

    def _quiet_change_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """No service logs an error of its own: every service's lines that change a setting before
        the incident, then every line naming what they touched (`quiet_changes`)."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        calls = quiet_changes.searches(
            inv,
            facts,
            partial(self._call, inv),
            self._window(inv),
            refused=bool(lowered_limit.refusals(facts)),
        )
        arguments = quiet_changes.search_arguments(self._window(inv))
        if not calls and arguments and rerouted_path.needs_change_search(inv):
            calls.append(
                self._call(
                    inv,
                    SEARCH_LOGS,
                    arguments,
                    "a hop's latency stepped up: which change moved where its traffic goes",
                )
            )
        return calls

    def _quiet_fault_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """A path element down while a service times out: every service's lines naming it; a quiet
        producer whose backlog climbs: its own lease and heartbeat lines (`named_lines`)."""
        window = self._window(inv)
        calls = self._read_services(
            inv,
            facts,
            (
                (
                    owner,
                    f"{owner}'s backlog climbs from the window's start: is it failing",
                )
                for owner in stalled_output.owners(inv)[:2]
            ),
        )
        if self._searches_every_service(inv, facts):
            calls += [
                self._call(
                    inv,
                    SEARCH_LOGS,
                    named_lines.element_search(element, window),
                    f"{element} reports itself down while calls time out: what the lines say of it",
                )
                for element in path_elements.searches(inv, facts)[:2]
            ]
        search = only_tool(inv, SEARCH_LOGS)
        regex = search is not None and "regex" in as_dict(
            search.input_schema.get("properties")
        )
        if search is not None and regex and not facts.is_backend_down(search.server):
            calls += [
                self._call(
                    inv,
                    SEARCH_LOGS,
                    named_lines.liveness_search(service, window),
                    f"{service}'s backlog climbs while it is quiet: its lease and heartbeat lines",
                )
                for service in stalled_output.searches(inv, facts)[:2]
            ]
        return calls

    def _conflict_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """Connections reset: every service's lines about an address claimed twice or taken over
        (`address_conflict`), where the logs server searches every service by regex."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        return address_conflict.searches(
            facts, partial(self._call, inv), self._window(inv)
        )

    def _egress_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """A caller's errors name a proxy they go via: every service's proxy settings and the
        proxy's tunnel lines (`egress_proxy`), where the logs server searches every service by regex."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        window = self._window(inv)
        return egress_proxy.searches(
            facts, partial(self._call, inv), window, _parse_time(window["end"])
        )

    def _echo_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """Every service's lines with a back end's exhaustion words a caller quotes (`echoed_errors`),
        where the logs server searches every service at once."""
        if not self._searches_every_service(inv, facts):
            return []
        return echoed_errors.searches(
            facts,
            partial(self._call, inv),
            self._window(inv),
        )

    def _space_holder_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """A service's own lines say its space is used up: every service's lines over the hours
        before naming it and what it retains (`space_holders`)."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        return space_holders.searches(
            facts, partial(self._call, inv), self._window(inv)
        )

    def _denial_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """A service's calls are denied a permission: every service's lines changing policies,
        principals or roles over the hours before (`denied_access`)."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        return denied_access.searches(
            facts, partial(self._call, inv), self._window(inv)
        )

    def _capacity_reads(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """A caller quoting a full back end: every service's lines with the capacity words, then
        the back end's own logs and the client it names (`shared_capacity`)."""
        calls = self._read_services(
            inv,
            facts,
            (
                (name, f"{name} is a full back end, or the client it names")
                for name in shared_capacity.to_read(inv, facts)[: self.max_dependencies]
            ),
        )
        if not (
            self._searches_every_service(inv, facts, regex=True)
            and shared_capacity.needs_search(inv, facts)
        ):
            return calls
        calls.append(
            self._call(
                inv,
                SEARCH_LOGS,
                {
                    "query": shared_capacity.SEARCH,
                    "regex": True,
                    **self._window(inv),
                    "limit": shared_capacity.SEARCH_LIMIT,
                },
                "a caller quotes a full back end: whose own lines say it is full",
            )
        )
        return calls

    def _proxy_reads(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """A service whose metrics show 5xx while its logs hold no error: its 5xx lines, for a
        proxy's own queue or connection limit (`proxy_queue`)."""
        search = only_tool(inv, SEARCH_LOGS)
        if search is None or facts.is_backend_down(search.server):
            return []
        return proxy_queue.reads(facts, partial(self._call, inv), self._window(inv))

    def _lock_reads(self, inv: Investigation, facts: Facts) -> list[PlannedCall | None]:
        """A caller's statements time out waiting on a database: every service's lock-wait lines
        (the database names the holder), then the holder's own lines about its runs over the
        window and the hour before (`lock_holders`)."""
        search = only_tool(inv, SEARCH_LOGS)
        if search is None or facts.is_backend_down(search.server):
            return []
        window = self._window(inv)
        calls: list[PlannedCall | None] = []
        if self._searches_every_service(
            inv, facts, regex=True
        ) and lock_holders.needs_search(inv, facts):
            calls.append(
                self._call(
                    inv,
                    SEARCH_LOGS,
                    {
                        "query": lock_holders.SEARCH,
                        "regex": True,
                        **window,
                        "limit": lock_holders.SEARCH_LIMIT,
                    },
                    "a caller's statements time out waiting on a database: whose lock they wait on",
                )
            )
        if "regex" not in as_dict(search.input_schema.get("properties")):
            return calls  # the holder's runs are found by a regular expression
        since = _parse_time(window["start"])
        start = iso(since - lock_holders.JOB_LOOKBACK) if since else window["start"]
        xid = (
            lock_holders.xid_search(inv, facts)
            if self._searches_every_service(inv, facts, regex=True)
            else None
        )
        if xid is not None:
            calls.append(
                self._call(
                    inv,
                    SEARCH_LOGS,
                    {
                        "query": xid,
                        "regex": True,
                        "start": start,
                        "end": window["end"],
                        "limit": lock_holders.XID_LIMIT,
                    },
                    "the lock waits name a transaction as the holder: what the logs say of it",
                )
            )
        for holder in lock_holders.to_search(inv, facts)[:1]:
            calls.append(
                self._call(
                    inv,
                    SEARCH_LOGS,
                    {
                        "service": holder,
                        "query": lock_holders.JOB_SEARCH,
                        "regex": True,
                        "start": start,
                        "end": window["end"],
                        "limit": lock_holders.JOB_LIMIT,
                    },
                    f"the database names {holder} as holding the locks: when its runs started and ended",
                )
            )
        return calls

    def _tenant_reads(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """A provider limits a service: every service's errors and warnings at once, for who else
        quotes its limit (`shared_limits`: a batch on the same key uses it up)."""
        logs = only_tool(inv, TOP_ERRORS)
        if (
            not unread_services.offered(inv)
            or (logs is not None and facts.is_backend_down(logs.server))
            or not shared_limits.needs_tenants(inv, facts)
        ):
            return []
        return [
            self._call(
                inv,
                TOP_ERRORS,
                unread_services.arguments(self._window(inv), BASELINE_S),
                "a provider limits a service: who else quotes its limit",
            )
        ]

    def _quiet_backend_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """An instance's gauges stepped up while callers fail: every service's lines naming it
        (`quiet_backend`); a reader rejects what it reads: every service's lines naming that
        input (`upstream_producer`), where the logs server searches every service."""
        if not self._searches_every_service(inv, facts):
            return []
        return quiet_backend.searches(
            inv,
            facts,
            partial(self._call, inv),
            self._window(inv),
            regex=self._searches_every_service(inv, facts, regex=True),
        ) + upstream_producer.searches(
            inv, facts, partial(self._call, inv), self._window(inv)
        )

    def _backend_search(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """A shared back end says it holds its clients and names none, or a shared link stepped up
        to its ceiling: every service's lines about starting something just before it began
        (`shared_backend`, `link_saturation`)."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        calls: list[PlannedCall | None] = []
        window = shared_backend.search_window(
            inv, facts
        ) or link_saturation.search_window(inv, facts)
        if window is not None:
            calls.append(
                self._call(
                    inv,
                    SEARCH_LOGS,
                    {
                        "query": shared_backend.START_SEARCH,
                        "regex": True,
                        **window,
                        "limit": shared_backend.SEARCH_LIMIT,
                    },
                    "a shared back end or link holds its clients: who started something just before",
                )
            )
        named = link_saturation.link_search(inv, facts)
        used = shared_backend.resource_search(inv, facts)
        clients = shared_backend.client_search(inv, facts, self._window(inv)["end"])
        for search, why in (
            (named, "a shared link stepped up to its ceiling: what the logs say of it"),
            (
                clients,
                "a shared back end holds its clients and its warnings name none: "
                "which client its own lines name",
            ),
            (
                used,
                "a shared back end's capacity is used up: "
                f"who used {used['query'] if used else ''} just before",
            ),
        ):
            if search is not None:
                calls.append(
                    self._call(
                        inv,
                        SEARCH_LOGS,
                        {**search, "regex": True, "limit": shared_backend.SEARCH_LIMIT},
                        why,
                    )
                )
        return calls

    def _route_search(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """A logged round trip rose well above its baseline: every service's lines about routes
        just before it (`logged_delay`)."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        search = logged_delay.route_search(inv, facts)
        if search is None:
            return []
        return [
            self._call(
                inv,
                SEARCH_LOGS,
                {**search, "regex": True, "limit": logged_delay.SEARCH_LIMIT},
                "a path's round trip rose above its baseline: what changed the route just before",
            )
        ]

    def _host_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """Every service's lines naming a host whose probe failed (`host_lines`), where the logs
        server searches every service at once."""
        if not self._searches_every_service(inv, facts):
            return []
        return (
            host_lines.searches(facts, partial(self._call, inv), self._window(inv))
            + loopback_bind.searches(facts, partial(self._call, inv), self._window(inv))
            + (
                issuer_refusal.searches(
                    facts, partial(self._call, inv), self._window(inv)
                )
                if self._regex_search(inv, facts)
                else []
            )
            + self._read_services(
                inv,
                facts,
                (
                    (s, f"{s}'s lines name a host whose probe failed")
                    for s in host_lines.naming_services(inv, facts)
                ),
            )
        )

    def _drain_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """A balancer's lines say requests were cut when their target drained: every service's
        lines that change a draining setting (`lb_draining`), where the logs server searches every
        service by regex."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        return lb_draining.searches(
            facts,
            partial(self._call, inv),
            self._window(inv),
        )

    def _refusal_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """Every service's lines of a filter blocking a refused path (`edge_filters`), of a CORS
        allow-list changing (`cors`), of a mesh refusing plaintext (`mesh_mtls`) and of a zone
        shadowing names that do not resolve (`dns_zones`) or of a writer deleting their records
        (`dns_records`) or of a search domain answering them (`dns_search`), and of a record edited
        to point where names fail to connect (`dns_repointed`), where the logs server searches every
        service by regex."""
        if not self._searches_every_service(inv, facts, regex=True):
            return []
        window = self._window(inv)
        call = partial(self._call, inv)
        return [
            *edge_filters.searches(inv, facts, call, window),
            *cors.searches(facts, call, window),
            *mesh_mtls.searches(facts, call, window),
            *dns_zones.searches(facts, call, window),
            *dns_records.searches(facts, call, window),
            *dns_repointed.searches(facts, call, window),
            *dns_search.searches(facts, call, window),
        ]

    def _retry_reads(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """The caller a jumped request rate names (its own lines), then its retry settings (`retry_storms`)."""
        window = self._window(inv)
        calls = self._read_services(
            inv,
            facts,
            (
                (caller, f"{caller} sends most of a request rate that jumped")
                for caller in retry_storms.callers(facts)
            ),
        )
        search = only_tool(inv, SEARCH_LOGS)
        if search is None or facts.is_backend_down(search.server):
            return calls
        since = _parse_time(window["start"])
        start = iso(since - timedelta(hours=1)) if since else window["start"]
        for caller in retry_storms.settings_searches(facts):
            calls.append(
                self._call(
                    inv,
                    SEARCH_LOGS,
                    {
                        "service": caller,
                        "query": retry_storms.RETRY_SETTINGS,
                        "regex": True,
                        "start": start,
                        "end": window["end"],
                        "limit": 5,
                    },
                    f"{caller} retries its calls: its retry settings",
                )
            )
        return calls

    def _path_searches(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """Once the Kubernetes reads are done and no fault is on the incident's path, the service's
        own log lines, at any level, are searched for each faulty object's name (and its victims'),
        so a failing call to it puts it on the path from the evidence (the incident's words need
        not name it)."""
        service = inv.incident.service
        search = only_tool(inv, SEARCH_LOGS)
        errors = facts.errors.get(service)
        if (
            search is None
            or facts.is_backend_down(search.server)
            or errors is None  # the logs do not know the name: nothing to search
            or not inv.tools_named(GET_RESOURCES)
        ):
            return []
        findings = kubernetes.diagnose(inv, facts)
        if any(f.is_relevant for f in findings):
            return []
        names: list[str] = []
        for finding in findings:
            if finding.victim_of:
                continue
            # An object that refuses workloads is reached through them: their names are searched.
            for component in (finding.component, *finding.explains):
                kind, _, name = component.partition("/")
                if (
                    kind not in _SEARCHABLE_KINDS
                    or name == service.lower()
                    or name in names
                ):
                    continue
                names.append(name)
        window = self._window(inv)
        return [
            self._call(
                inv,
                SEARCH_LOGS,
                {"service": service, "query": name, **window, "limit": 20},
                f"{name} fails and nothing on {service}'s known path does: do "
                f"{service}'s own lines (any level) fail calling it",
            )
            for name in names[: self.max_dependencies]
        ]

    def _probes(self, inv: Investigation, facts: Facts) -> list[PlannedCall | None]:
        asked = sum(1 for o in inv.observations if o.tool == PROBE_URL)
        room = self.max_probes - asked
        if room <= 0 or not facts.targets:
            return []
        deps = dependency_services(inv, facts)
        named = set(hosts_in(incident_text(inv)))
        for _, group in facts.error_texts():
            named.update(hosts_in(group.text))

        def priority(url: str) -> int:
            host = host_of(url) or ""
            if host in named:
                return 0
            if any(belongs(host, d) for d in deps):
                return 1
            if belongs(host, inv.incident.service):
                return 2
            return 3

        arguments: dict[str, Any] = {}
        if self.probe_timeout_s is not None:
            arguments["timeout_s"] = self.probe_timeout_s
        if STREAMY.search(incident_text(inv)):
            arguments["stream_s"] = self.stream_watch_s
        ordered = sorted(
            (u for u in facts.targets if u not in facts.probes), key=priority
        )
        calls = [
            self._call(
                inv,
                PROBE_URL,
                _probe_arguments(url, facts, arguments),
                f"which layer fails first on the way to {host_of(url)}",
            )
            for url in ordered[:room]
        ]
        return calls + self._stream_watches(inv, facts, room - len(calls))

    def _stream_watches(
        self, inv: Investigation, facts: Facts, room: int
    ) -> list[PlannedCall | None]:
        """A target that answered an event stream to a probe that did not watch it is probed again
        watching the stream: a stream cut by an idle timeout passes every layer until it is watched,
        whatever the incident's words say."""
        unwatched = [
            p
            for p in facts.probes.values()
            if p.is_stream
            and not p.is_watched
            and p.layer is None
            and p.url not in facts.mcp_endpoints
        ]
        arguments: dict[str, Any] = {"stream_s": self.stream_watch_s}
        if self.probe_timeout_s is not None:
            arguments["timeout_s"] = self.probe_timeout_s
        return [
            self._call(
                inv,
                PROBE_URL,
                {"url": p.url, **arguments},
                f"{p.host} answers an event stream: is it cut when watched",
            )
            for p in unwatched[: max(room, 0)]
        ]

    def _findings_search(
        self, inv: Investigation, facts: Facts
    ) -> list[PlannedCall | None]:
        """Rule 7: once the evidence stops growing, search the runbooks with what it showed."""
        query = self._findings_query(Analysis(inv, facts))
        if not query:
            return []
        return [
            self._call(
                inv,
                SEARCH_RUNBOOKS,
                {"symptoms": query, "limit": self.runbook_limit},
                "runbooks for the findings, not only the symptoms",
            )
        ]

    def _findings_query(self, analysis: Analysis) -> str:
        words: list[str] = []
        leads = [c for c in analysis.candidates.values() if c.status != "ruled_out"]
        leads.sort(
            key=lambda c: (c.status != "confirmed", -c.confidence, layers.rank(c.layer))
        )
        # A confirmed lead speaks for itself; otherwise the two strongest share the query.
        for c in leads[: 1 if leads and leads[0].status == "confirmed" else 2]:
            for word in c.keywords:
                if word and word not in words:
                    words.append(word)
        return short(" ".join(words), _RUNBOOK_QUERY_CHARS)

    # The report.

    async def conclude(self, investigation: Investigation) -> Report:
        """The report the observations support, ranked; honest when nothing is decisive (rule 8)."""
        facts = Facts.read(investigation.observations)
        start = _start(investigation, facts)
        inv = start.inv
        analysis = Analysis(inv, facts)
        report = Report(
            hypotheses=analysis.ranked(),
            open_questions=list(
                dict.fromkeys([*start.lines(), *analysis.open_questions])
            ),
            tool_calls=sum(1 for o in inv.observations if not o.refused),
            graph=analysis.graph.to_dict(),
        )
        report.next_steps = _next_steps(
            facts, analysis, report.top, runbooks=self.runbook_limit
        )
        report.partial = bool(self._next_round(investigation))
        report.summary = _summary(report, inv)
        return report

    async def actions(
        self, investigation: Investigation, report: Report
    ) -> list[PlannedCall]:
        """A restart, as a stop-gap, of a workload a confirmed application hypothesis shows leaking (rule 9)."""
        inv = investigation
        facts = Facts.read(inv.observations)
        analysis = Analysis(inv, facts)
        calls: list[PlannedCall] = []
        for h in report.hypotheses:
            if (
                h.layer != layers.APPLICATION
                or h.status != "confirmed"
                or h.component not in analysis.leaks
            ):
                continue
            call = self._call(
                inv,
                RESTART_WORKLOAD,
                {
                    "namespace": facts.namespace_of(h.component) or "default",
                    "name": h.component,
                },
                f"stop-gap for {h.id} ({h.statement}): a restart releases the leaked connections until the leak is fixed",
            )
            if call is not None:
                calls.append(call)
        return calls

    async def verify(
        self, investigation: Investigation, action: PlannedCall
    ) -> list[PlannedCall]:
        """After an action: the workload's health over the last minutes and a probe of its endpoint."""
        inv = investigation
        name = str(action.arguments.get("name") or inv.incident.service)
        facts = Facts.read(inv.observations)
        calls: list[PlannedCall | None] = [
            self._call(
                inv,
                SERVICE_HEALTH,
                {"service": name, "start": "now-10m", "end": "now"},
                f"is {name} healthy again after {action.tool}",
            )
        ]
        for url in facts.targets:
            host = host_of(url) or ""
            if belongs(host, name):
                calls.append(
                    self._call(
                        inv,
                        PROBE_URL,
                        _probe_arguments(url, facts, {}),
                        f"does {host} answer again after {action.tool}",
                    )
                )
                break
        return [c for c in calls if c is not None]

    def effect(self, investigation: Investigation, action: PlannedCall) -> str | None:
        """What the verification calls showed (the latest health and probe of the action's target)."""
        name = str(action.arguments.get("name") or investigation.incident.service)
        parts: list[str] = []
        for obs in reversed(investigation.observations):
            result = as_dict(obs.result)
            if obs.tool == SERVICE_HEALTH and arg(obs, "service") == name and obs.is_ok:
                parts.append(
                    f"{name} {result.get('verdict', 'unknown')}: {short(str(result.get('summary') or ''), 120)}"
                )
                break
        for obs in reversed(investigation.observations):
            if (
                obs.tool == PROBE_URL
                and obs.is_ok
                and belongs(host_of(arg(obs, "url")) or "", name)
            ):
                result = as_dict(obs.result)
                parts.append(
                    f"probe {arg(obs, 'url')}: failed_layer={result.get('failed_layer')} reason={result.get('reason')}"
                )
                break
        return "; ".join(parts) or None


def _start(inv: Investigation, facts: Facts) -> _Start:
    """The incident's service resolved onto the data; unresolved, the most failing service of the survey."""
    known = known_names(inv, facts)
    resolution = resolve(inv.incident.service, known, incident_labels(inv))
    if resolution.is_resolved:
        service = resolution.service
        assert service is not None
        return _Start(_renamed(inv, service), resolution, known, None)
    shown = _shown_unknown(inv, facts)
    ratios = survey.error_ratios(inv)
    if ratios is None:
        return _Start(inv, resolution, known, None, shown_unknown=shown)
    sick = tuple(survey.unhealthy(facts, ratios))
    focus = inv
    if sick:
        focus = _renamed(inv, sick[0].service, tuple(u.service for u in sick[1:]))
    return _Start(focus, resolution, known, ratios, sick, shown)


def _shown_unknown(inv: Investigation, facts: Facts) -> bool:
    """A data source answered about the incident's service and did not know it (not: it did not answer)."""
    named = inv.incident.service
    health = facts.health.get(named)
    return (health is not None and health.verdict == "unknown") or any(
        f.kind == "argument" and arg(f.obs, "service") == named for f in facts.failures
    )


def _renamed(
    inv: Investigation, service: str, others: tuple[str, ...] = ()
) -> Investigation:
    """The investigation starting from `service` (and `others`) instead of the incident's name."""
    if service == inv.incident.service and not others:
        return inv
    incident = replace(inv.incident, service=service, starting_services=others)
    return replace(inv, incident=incident)


def _parse_time(value: str) -> datetime | None:
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _next_steps(
    facts: Facts, analysis: Analysis, top: Hypothesis | None, *, runbooks: int
) -> list[NextStep]:
    """The fix the confirming rule names, how to check it, then runbook hits.

    Once a cause is confirmed, only runbooks about that cause count (`remedies.fits_cause`), not
    those the symptoms matched; otherwise the findings' hits come before the symptoms'.
    """
    steps: list[NextStep] = []
    if top is not None and top.conclusive and top.remediation:
        steps.append(NextStep(text=top.remediation))
    if top is not None:
        steps.append(NextStep(text=_check_step(facts, top)))
    symptom_query = short(
        " ".join(analysis.inv.incident.symptoms) or analysis.inv.incident.title, 3000
    )
    # Findings first (sorted is stable, so each search keeps its own ranking).
    hits = sorted(facts.runbooks, key=lambda qh: qh[0] == symptom_query)
    if top is not None and top.conclusive:
        lead = analysis.candidates.get(top.id)
        keywords = lead.keywords if lead is not None else []
        hits = [
            (query, hit)
            for query, hit in hits
            if remedies.fits_cause(hit, top, keywords=keywords)
        ]
    seen: set[str] = set()
    for query, hit in hits:
        uri = str(hit["uri"])
        if uri in seen or len(seen) >= runbooks:
            continue
        seen.add(uri)
        title = str(hit.get("title") or uri)
        basis = "the symptoms" if query == symptom_query else "the findings"
        steps.append(
            NextStep(
                text=f"Read the runbook '{title}' (matched {basis})",
                runbook_uri=uri,
                runbook_title=title,
            )
        )
    return steps


def _check_step(facts: Facts, top: Hypothesis) -> str:
    if top.stage is not None:
        return (
            f"After the fix, read {top.component} again (get, describe, events): "
            f"the {top.stage} stage must no longer show {top.reason}"
        )
    if top.layer in layers.NETWORK_LAYERS:
        url = next(
            (p.url for p in facts.probes.values() if p.host == top.component), None
        )
        where = url or top.component
        return f"After the fix, probe {where} again: the {top.layer} layer must pass"
    if top.layer == layers.APPLICATION:
        return f"After the fix, watch service_health({top.component}) return to healthy"
    if top.layer == layers.TOOL_BACKEND:
        return f"When {top.component} answers again, repeat the failed tool calls: what they were to show is still unknown"
    return f"Check the {top.component} MCP server itself (process, endpoint, version) before reading anything into its silence"


def _summary(report: Report, inv: Investigation) -> str:
    top = report.top
    calls = f"{report.tool_calls} tool call{'s' if report.tool_calls != 1 else ''}"
    if top is not None and top.conclusive:
        return f"{top.layer} failure at {top.component}: {top.statement} (confirmed by {len({e.span_id for e in top.evidence})} observations; {calls})"
    if top is not None:
        return (
            f"no decisive evidence after {calls}; the strongest lead is {top.id} "
            f"({top.statement}), {top.status} at confidence {top.confidence:.2f}"
        )
    checked = [h for h in report.hypotheses if h.status == "ruled_out"]
    tail = f"; ruled out: {', '.join(h.id for h in checked)}" if checked else ""
    return f"no decisive evidence after {calls}: nothing observed explains the incident on {inv.incident.service}{tail}"


def _probe_arguments(url: str, facts: Facts, extra: dict[str, Any]) -> dict[str, Any]:
    """probe_url's arguments for `url`: an MCP endpoint is probed up to its JSON-RPC layer (an
    `initialize` POST; a GET only gets Streamable HTTP's 405), and never watched as a stream."""
    if url in facts.mcp_endpoints:
        return {
            "url": url,
            "protocol": "mcp",
            **{k: v for k, v in extra.items() if k != "stream_s"},
        }
    return {"url": url, **extra}
