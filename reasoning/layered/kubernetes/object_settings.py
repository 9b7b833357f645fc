"""Objects whose settings, not their logs, stop or throttle the work they govern.

A workload can fail with nothing wrong in its own pods: the object that governs it is set so that
it never scales, never runs or is cut short. Rules:
- an autoscaler whose utilization target is far above what pods can run at (more than
  `SANE_TARGET_PCT` % of their request) while its pods already run above their request
  (`BUSY_PCT` %) and it holds no more than its minimum replicas never scales out: the workload it
  scales saturates (`TargetOutOfRange`). What shows it is the TARGETS cell (current/target) and the
  describe's metrics line; the annotations naming a change (a PR, a ticket) are cited with it;
- a ConfigMap setting naming what replicas share (a key, a prefix, a group, a queue …) whose value
  expands to each pod's own name (`$(HOSTNAME)`, `$(POD_NAME)` …) gives every replica keys of its
  own: a shared cache never hits, and its store takes the load (`PerPodSharedKey`);
- a job or cron job that stopped (suspended, cut at its deadline, failed) is relevant when the
  incident or another service's failing lines name its work (a word of its name, or a word that
  name abbreviates: `recon` of `reconciled`);
- the describe of a cron job, a job, a recently written ConfigMap or an autoscaler whose setting
  these rules or `jobs` blame is read (`setting_reads`), so that the finding cites the setting and
  the annotation that says who set it (`setting_lines`).
"""

import re
from collections.abc import Callable
from typing import Any, Final

from reasoning import layers
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.kubernetes.kubectl import age_seconds, ref
from reasoning.layered.kubernetes.path import Path
from reasoning.layered.kubernetes.performance import SLOW
from reasoning.layered.reading import short
from reasoning.observations import Observation, PlannedCall
from reasoning.tools import DESCRIBE

SANE_TARGET_PCT: Final = 300  # a target above 3x the request: the pods saturate first
BUSY_PCT: Final = 100  # pods past their request: the load wants more replicas
# One metric of the TARGETS cell: `cpu: 310%/900%`, `310%/900%`, `<unknown>/80%`.
_METRIC: Final = re.compile(r"(?:(\w+):\s*)?(?:(\d+)%|<unknown>)\s*/\s*(\d+)%")
# A describe line that says what a job, cron job or autoscaler is set to.
_SETTING: Final = re.compile(
    r"^\s*(?:Suspend|Active Deadline Seconds|resource \w+ on pods[^:]*)\s*:"
)
# An annotation continuation line (`  team.io/pr: #12`) only counts when it looks like a key.
_ANNOTATION_KEY: Final = re.compile(r"^\s+[\w.-]+/[\w.-]+:\s*\S")
_MAX_TEXT: Final = 20000

Call = Callable[[str, dict[str, Any], str], PlannedCall | None]


def target_metrics(cell: str) -> list[tuple[str, int | None, int]]:
    """The TARGETS cell's metrics as (name, current %, target %): current None when unknown."""
    out = []
    for m in _METRIC.finditer(cell[:500]):
        current = int(m.group(2)) if m.group(2) else None
        out.append((m.group(1) or "resource", current, int(m.group(3))))
    return out


def _held_low(row: dict[str, str]) -> tuple[str, int, int] | None:
    """The metric whose insane target keeps the autoscaler at its minimum, as (name, current,
    target), when the row shows one."""
    replicas, least = row.get("REPLICAS", ""), row.get("MINPODS", "")
    if not (replicas.isdigit() and least.isdigit()) or int(replicas) > int(least):
        return None
    for name, current, target in target_metrics(row.get("TARGETS", "")):
        if (
            target > SANE_TARGET_PCT
            and current is not None
            and BUSY_PCT < current < target
        ):
            return name, current, target
    return None


def unscalable_autoscalers(cluster: Cluster, ns: str) -> list[str]:
    """The listed autoscalers whose target keeps their busy workload at its minimum."""
    table = cluster.table("horizontalpodautoscalers", ns)
    return [
        row["NAME"]
        for row in (table.rows if table else ())
        if row.get("NAME") and _held_low(row) is not None
    ]


def setting_lines(described: Observation | None) -> list[str]:
    """The describe's lines that say what the object is set to and who set it (annotations)."""
    if described is None:
        return []
    out = []
    in_annotations = False
    for line in described.text[:_MAX_TEXT].splitlines():
        if line.startswith("Annotations:"):
            in_annotations = True
            value = line.partition(":")[2].strip()
            if value and value != "<none>":
                out.append(" ".join(line.split()))
            continue
        if in_annotations and _ANNOTATION_KEY.match(line):
            out.append(" ".join(line.split()))
            continue
        in_annotations = False
        if _SETTING.match(line):
            out.append(" ".join(line.split()))
    return out


def cite_settings(f: Finding, cluster: Cluster, ns: str, kind: str, name: str) -> None:
    """Cite the object's described settings and annotations on `f` (when it was described)."""
    described = cluster.describe(kind, ns, name)
    for line in setting_lines(described):
        f.cite(described, f"describe {kind.rstrip('s')} {name}: {short(line, 200)}")


def _slow_workload(cluster: Cluster, ns: str, workload: str) -> bool:
    """The workload's pods' logs (as read) say requests are slow or time out."""
    return any(
        SLOW.search(text)
        for pod in cluster.pods_of(ns, workload)
        for _, text in cluster.log_text(ns, pod.name)
    )


def unscalable_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """An autoscaler whose utilization target is set far above what its pods can run at, while they already run past their request at its minimum replicas, never scales out: the workload it scales saturates."""
    table = cluster.table("horizontalpodautoscalers", ns)
    if table is None:
        return []
    out: list[Finding] = []
    for row in table.rows:
        name = row.get("NAME", "")
        held = _held_low(row)
        if not name or held is None:
            continue
        kind, _, target_name = row.get("REFERENCE", "").partition("/")
        target = ref(kind, target_name) if target_name else ""
        metric, current, goal = held
        f = Finding(
            "performance",
            "TargetOutOfRange",
            f"horizontalpodautoscaler/{name}",
            layers.APPLICATION,
            f"autoscaler {name} targets {goal}% {metric} utilization: {target or 'its target'}'s "
            f"pods already run at {current}% of their request, below that target, so it keeps "
            f"its minimum of {row.get('MINPODS', '?')} replicas and never scales out",
            ns,
        )
        f.cite(table.obs, f"get horizontalpodautoscalers: {table.line(name)}")
        cite_settings(f, cluster, ns, "horizontalpodautoscalers", name)
        f.explains = [target] if target else []
        f.is_relevant = bool(target) and (
            target in path.workloads or _slow_workload(cluster, ns, target)
        )
        f.depth = path.depth.get(target, 0)
        f.keywords = ["hpa", "averageUtilization", "target", name]
        f.chain = [
            f"{target} saturates at {row.get('REPLICAS', '?')} replicas",
            f.statement,
        ]
        out.append(f)
    return out


def _stopped_cronjobs(cluster: Cluster, ns: str) -> list[str]:
    """Listed cron jobs that are suspended and have not run for a day or more."""
    table = cluster.table("cronjobs", ns)
    return [
        row["NAME"]
        for row in (table.rows if table else ())
        if row.get("NAME")
        and row.get("SUSPEND", "").lower() == "true"
        and (age_seconds(row.get("LAST SCHEDULE", "")) or 0.0) >= 86400.0
    ]


def _cut_jobs(cluster: Cluster, ns: str) -> list[str]:
    """Jobs the controller stopped at their deadline (a `DeadlineExceeded` warning)."""
    return list(
        dict.fromkeys(
            e.name
            for e in cluster.warnings(ns)
            if e.kind == "job" and e.reason == "DeadlineExceeded"
        )
    )


def setting_reads(cluster: Cluster, ns: str, call: Call) -> list[PlannedCall | None]:
    """Describe the objects whose listed settings stop or throttle work (two of each at most): a
    suspended cron job long without a run, a job cut at its deadline (the newest warned), a
    ConfigMap written within the last hours, an autoscaler whose target keeps its busy workload
    at its minimum."""
    wanted = (
        (
            "cronjobs",
            "cronjob",
            _stopped_cronjobs(cluster, ns)[:2],
            "cron job {} is suspended: since when and by whom",
        ),
        (
            "jobs",
            "job",
            _cut_jobs(cluster, ns)[-2:][::-1],
            "job {} was stopped at its deadline: what deadline it has",
        ),
        (
            "configmaps",
            "configmap",
            recent_configmaps(cluster, ns)[:2],
            "ConfigMap {} was written within the last hours: what it sets",
        ),
        (
            "horizontalpodautoscalers",
            "horizontalpodautoscaler",
            unscalable_autoscalers(cluster, ns)[:2],
            "autoscaler {} holds its minimum while its pods run past their request: what it targets",
        ),
    )
    return [
        call(DESCRIBE, {"kind": kind, "name": name, "namespace": ns}, why.format(name))
        for plural, kind, names, why in wanted
        for name in names
        if cluster.describe(plural, ns, name) is None
    ]


# Words of a job's name that say nothing of its work.
_GENERIC: Final = frozenset(
    {"job", "jobs", "cron", "cronjob", "manual", "worker", "task", "batch", "run"}
    | {"daily", "nightly", "hourly", "weekly", "once", "retry"}
)
_STOPPED: Final = frozenset({"Suspended", "DeadlineExceeded", "BackoffLimitExceeded"})
_PREFIX_MIN: Final = 5  # a shorter word of the name is matched whole only


def _work_words(name: str) -> set[str]:
    """The words of a job's name that name its work (4 letters or more, not generic)."""
    return {
        w
        for w in re.findall(r"[a-z]+", name.lower())
        if len(w) >= 4 and w not in _GENERIC
    }


def names_work(name: str, text: str) -> str | None:
    """The word of `text` that names the work of the job called `name`: one of its name's words,
    or a longer word it abbreviates (`recon` of `reconciled`); None when none does."""
    mine = _work_words(name)
    if not mine:
        return None
    words: list[str] = re.findall(r"[a-z]+", text[: _MAX_TEXT * 10].lower())
    for word in words:
        for w in mine:
            if word == w or (len(w) >= _PREFIX_MIN and word.startswith(w)):
                return word
    return None


def failing_texts(facts: Facts, incident: str) -> list[tuple[str, str]]:
    """What fails, as (its service, text): the incident's words ("" for service), then the error
    and warning groups the logs server gave."""
    out = [("", incident)]
    for errors in facts.errors.values():
        out += [(errors.service, g.text) for g in (*errors.groups, *errors.warnings)]
    return out


def stopped_work_named(findings: list[Finding], texts: list[tuple[str, str]]) -> None:
    """A job or cron job that stopped (suspended, cut at its deadline, failed as a whole) is relevant when what fails names its work: a word of its name, or a word that name abbreviates, in the incident or another service's failing lines."""
    for f in findings:
        kind, _, name = f.component.partition("/")
        if f.is_relevant or kind not in ("job", "cronjob") or f.reason not in _STOPPED:
            continue
        for service, text in texts:
            if service and (name.startswith(service) or service.startswith(name)):
                continue  # the job's own lines name its work by themselves
            word = names_work(name, text)
            if word is not None:
                f.is_relevant = True
                f.chain.insert(
                    0, f"{service or 'the incident'} names {name}'s work ({word!r})"
                )
                break


# A value that expands to each pod's own name: Kubernetes' `$(VAR)` of a per-pod variable, a
# shell's `$VAR` / `${VAR}`, a template's `{{ hostname }}`.
_PER_POD: Final = re.compile(
    r"\$\(\s*(?:HOSTNAME|POD_NAME|POD_IP|MY_POD_NAME|MY_POD_IP)\s*\)"
    r"|\$\{?(?:HOSTNAME|POD_NAME|POD_IP|MY_POD_NAME)\b\}?"
    r"|\{\{\s*\.?(?:hostname|pod_?name)\s*\}\}",
    re.IGNORECASE,
)
# A setting that names what replicas share: a key, a prefix, a namespace, a group, a queue.
_SHARED_SETTING: Final = re.compile(
    r"(?:^|_)(?:KEY|KEYS|PREFIX|NAMESPACE|GROUP|QUEUE|TOPIC|BUCKET|CHANNEL)(?:_|$)",
    re.IGNORECASE,
)
_RECENT_S: Final = (
    7200.0  # a ConfigMap created this recently was (re)written in the incident
)
_DATA_KEY: Final = re.compile(r"^([A-Za-z_][\w.-]*):\s*$")


def config_values(described: Observation) -> dict[str, str]:
    """A described ConfigMap's data as key -> value (the value's lines joined)."""
    out: dict[str, str] = {}
    lines = described.text[:_MAX_TEXT].splitlines()
    if "Data" not in [line.strip() for line in lines]:
        return out
    start = [line.strip() for line in lines].index("Data") + 2
    key: str | None = None
    value: list[str] = []
    for i in range(start, len(lines)):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        match = _DATA_KEY.match(line)
        if match and nxt.strip() == "----":
            if key is not None:
                out[key] = "\n".join(value).strip()
            key, value = match.group(1), []
            continue
        if line.strip() == "----" or key is None:
            continue
        if line.startswith(("BinaryData", "Events:")):
            break
        value.append(line)
    if key is not None:
        out[key] = "\n".join(value).strip()
    return out


def recent_configmaps(cluster: Cluster, ns: str) -> list[str]:
    """Listed ConfigMaps created within `_RECENT_S` (the namespace's CA bundle aside), newest first."""
    table = cluster.table("configmaps", ns)
    aged = [
        (age, row["NAME"])
        for row in (table.rows if table else ())
        if row.get("NAME") and row["NAME"] != "kube-root-ca.crt"
        if (age := age_seconds(row.get("AGE", ""))) is not None and age <= _RECENT_S
    ]
    return [name for _, name in sorted(aged)]


def _consumers(cluster: Cluster, ns: str, configmap: str) -> list[str]:
    """The workloads whose describe names the ConfigMap (env from it, or a volume of it)."""
    out = []
    for workload in cluster.workloads(ns):
        kind, _, name = workload.partition("/")
        described = cluster.describe(kind + "s", ns, name)
        if described is not None and re.search(
            rf"(?m)^\s*{re.escape(configmap)}\s+ConfigMap\b|ConfigMap \(a volume populated by a "
            rf"ConfigMap\)\s*\n\s*Name:\s*{re.escape(configmap)}\b",
            described.text[:_MAX_TEXT],
        ):
            out.append(workload)
    return out


def per_pod_key_faults(cluster: Cluster, ns: str, path: Path) -> list[Finding]:
    """A ConfigMap setting that names what replicas share (a cache key prefix, a consumer group, a queue) with a value that expands to each pod's own name gives every replica keys of its own: what they share is never shared, and the store behind them does the work a hit would have saved."""
    out: list[Finding] = []
    for name in cluster.names("configmaps", ns):
        described = cluster.describe("configmaps", ns, name)
        if described is None:
            continue
        for key, value in config_values(described).items():
            expands = _PER_POD.search(value)
            if expands is None or not _SHARED_SETTING.search(key):
                continue
            consumers = _consumers(cluster, ns, name)
            f = Finding(
                "runtime",
                "PerPodSharedKey",
                f"configmap/{name}",
                layers.APPLICATION,
                f"ConfigMap {name} sets {key} to {short(value, 80)}: {expands.group(0)} "
                "expands to each pod's own name, so every replica uses keys of its own and "
                "none finds what another stored",
                ns,
            )
            f.cite(described, f"describe configmap {name}: {key}: {short(value, 160)}")
            cite_settings(f, cluster, ns, "configmaps", name)
            for workload in consumers[:2]:
                kind, _, wname = workload.partition("/")
                wdesc = cluster.describe(kind + "s", ns, wname)
                line = next(
                    (
                        " ".join(line.split())
                        for line in (
                            wdesc.text[:_MAX_TEXT] if wdesc else ""
                        ).splitlines()
                        if line.strip().startswith(f"{key}:")
                    ),
                    None,
                )
                if wdesc is not None and line is not None:
                    f.cite(wdesc, f"describe {kind} {wname}: {short(line, 160)}")
            f.explains = consumers
            f.is_relevant = not path.resolved or any(
                w in path.workloads for w in consumers
            )
            f.depth = min((path.depth.get(w, 0) for w in consumers), default=0)
            f.keywords = [key, name, "configmap", "cache key"]
            f.chain = [
                f"{', '.join(consumers) or 'its consumers'} share nothing across replicas",
                f.statement,
            ]
            out.append(f)
            break
    return out
