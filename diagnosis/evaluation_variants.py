"""Incidents reworded by a fixed rule set, for `manage.py evaluate --variants` (issue 21 item 7).

Each rule rewrites a scenario's incident.json the way people actually file incidents: the service
a user would name, a dashboard label, no symptoms, the alert's text only, a short title, all of
these at once, an alert's labels only. The rewordings a person types drop the scenario's alert
labels (`labels`); those that keep the alert keep them. A rule is a pure function of the incident (deterministic: no randomness, no clock)
and returns None when it would change nothing, so a variant never repeats its original.

It reads incident.json and nothing else and shares no code with the planner (`reasoning/`) or the
engine: a rewording that knew the rules the planner matches would measure nothing. The variant
folders are the originals' files (symlinked) with only incident.json rewritten, so `evaluate`
runs and scores them as any other scenario folder; their names are `<slug>+<rule>`.
Stdlib only.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from pathlib import Path

Incident = dict[str, Any]
SEPARATOR = "+"  # <slug>+<rule>: a variant folder's name

# Technical suffixes a user leaves out when naming a service ("checkout" for checkout-api).
TECHNICAL_SUFFIXES = (
    "api",
    "service",
    "svc",
    "server",
    "srv",
    "gw",
    "gateway",
    "backend",
    "bff",
    "web",
    "app",
)
# A remainder that names no service on its own ("api" of api-gateway): the suffix is kept instead.
GENERIC_WORDS = frozenset(TECHNICAL_SUFFIXES) | {"http", "rest", "grpc", "internal"}
# Words a dashboard label writes in capitals.
ACRONYMS = frozenset(
    {"api", "bff", "db", "dns", "gw", "http", "mcp", "tls", "ui", "k8s", "sso"}
)
SHORT_TITLE_WORDS = 3
# The service an alert's incident names when no label says one (the alert rules' default).
UNNAMED_SERVICE = "unknown"


@dataclass(frozen=True)
class Rule:
    name: str
    statement: str  # one sentence: what the rewording does
    apply: Callable[[Incident], Incident | None]


def user_service_name(service: str) -> str:
    """The name a user gives a service: its technical suffix dropped.

    `checkout-api` → `checkout`, `payments-gateway` → `payments`, `cartservice` → `cart`,
    `api-gateway` → `gateway` (the remainder `api` names nothing), `frontend` → `frontend`.
    """
    name = service.strip()
    lowered = name.lower()
    for suffix in TECHNICAL_SUFFIXES:
        for joiner in ("-", "_", "."):
            tail = joiner + suffix
            if lowered.endswith(tail) and len(lowered) > len(tail):
                rest = name[: -len(tail)]
                return suffix if rest.lower() in GENERIC_WORDS else rest
    for suffix in ("service", "server"):  # glued: cartservice, authserver
        rest = lowered.removesuffix(suffix)
        if rest != lowered and len(rest) >= 3 and rest not in GENERIC_WORDS:
            return name[: len(rest)]
    return name


def label_alias(service: str) -> str:
    """The service as a dashboard label writes it: `payments-api` → `Payments API`."""
    words = [w for w in re.split(r"[-_.\s]+", service.strip()) if w]
    return " ".join(
        w.upper() if w.lower() in ACRONYMS else w.capitalize() for w in words
    )


def short_title(title: str, *, words: int = SHORT_TITLE_WORDS) -> str:
    """At most `words` words of the title's first clause (cut at ':', ';', ',' or ' - ')."""
    clause = re.split(r"[:;,]| - ", title, maxsplit=1)[0].strip() or title.strip()
    return " ".join(clause.split()[:words])


def alert_text(description: str) -> str:
    """The alert's own sentence: the description's first sentence, at most 200 characters."""
    text = " ".join(description.split())
    match = re.match(r"(.+?[.!?])(?:\s|$)", text)
    sentence = (match.group(1) if match else text).rstrip(".")
    return sentence[:200].rstrip()


def first_clause(symptom: str) -> str:
    """A symptom as typed in a hurry: its first clause."""
    return re.split(r"[;,(]| - ", symptom, maxsplit=1)[0].strip() or symptom.strip()


def _changed(original: Incident, new: Incident) -> Incident | None:
    return None if new == original else new


def _typed(incident: Incident) -> Incident:
    """The incident as a person types it: no alert labels."""
    return {k: v for k, v in incident.items() if k != "labels"}


def _user_name(incident: Incident) -> Incident | None:
    typed = _typed(incident)
    return _changed(typed, {**typed, "service": user_service_name(incident["service"])})


def _label_alias(incident: Incident) -> Incident | None:
    typed = _typed(incident)
    return _changed(typed, {**typed, "service": label_alias(incident["service"])})


def _no_symptoms(incident: Incident) -> Incident | None:
    return _changed(incident, {**incident, "symptoms": []})


def _alert_only(incident: Incident) -> Incident | None:
    text = alert_text(str(incident.get("description") or ""))
    if not text:
        return None
    return _changed(
        incident, {**incident, "title": text, "symptoms": [], "description": text}
    )


def _short_title(incident: Incident) -> Incident | None:
    return _changed(incident, {**incident, "title": short_title(incident["title"])})


def _hurried(incident: Incident) -> Incident | None:
    symptoms = list(incident.get("symptoms") or [])
    typed = _typed(incident)
    return _changed(
        typed,
        {
            **typed,
            "service": user_service_name(incident["service"]),
            "title": short_title(incident["title"]),
            "symptoms": [first_clause(symptoms[0])] if symptoms else [],
            "description": "",
        },
    )


def alert_service_word(service: str) -> str:
    """What an alert's incident names when the alert says little: the user's word for the
    service, else (the service has no shorter name) UNNAMED_SERVICE."""
    word = user_service_name(service)
    return word if word.lower() != service.strip().lower() else UNNAMED_SERVICE


def _alert_labels_only(incident: Incident) -> Incident | None:
    labels = incident.get("labels")
    if not isinstance(labels, dict) or not labels:
        return None
    text = alert_text(str(incident.get("description") or ""))
    alertname = str(labels.get("alertname") or "")
    title = (
        f"{alertname}: {text}"
        if alertname and text
        else alertname or text or short_title(incident["title"])
    )
    return _changed(
        incident,
        {
            **incident,
            "service": alert_service_word(incident["service"]),
            "title": title,
            "symptoms": [],
            "description": text,
            "labels": dict(labels),
        },
    )


RULES: tuple[Rule, ...] = (
    Rule(
        "user-name",
        "The service as a user names it: a technical suffix (-api, -service, -gw, -gateway, "
        "-bff, -web …, or a glued 'service') dropped.",
        _user_name,
    ),
    Rule(
        "label-alias",
        "The service as a dashboard label writes it: words split on '-', '_' and '.', "
        "capitalised, acronyms in capitals (payments-api → Payments API).",
        _label_alias,
    ),
    Rule("no-symptoms", "The same incident with no symptoms at all.", _no_symptoms),
    Rule(
        "alert-only",
        "Only what the alert said: the description's first sentence as title and "
        "description, no symptoms.",
        _alert_only,
    ),
    Rule(
        "short-title",
        f"The title cut to its first clause, at most {SHORT_TITLE_WORDS} words.",
        _short_title,
    ),
    Rule(
        "hurried",
        "A hurried on-call engineer: the user's service name, the short title, only the "
        "first clause of the first symptom, no description.",
        _hurried,
    ),
    Rule(
        "alert-labels-only",
        "Only what an Alertmanager alert carries (scenarios with `labels` only): its labels, "
        "'alertname: the description's first sentence' as title and that sentence as "
        f"description, no symptoms, and the service as the user's word (else {UNNAMED_SERVICE!r}).",
        _alert_labels_only,
    ),
)
RULE_NAMES = tuple(rule.name for rule in RULES)


def rules_named(names: Iterable[str] | None) -> tuple[Rule, ...]:
    """The rules of `names` in the table's order (all of them for None).

    Raises:
        ValueError: a name that is not a rule; the message lists the rules.
    """
    if names is None:
        return RULES
    wanted = {n.strip() for n in names if n.strip()}
    unknown = sorted(wanted - set(RULE_NAMES))
    if unknown or not wanted:
        raise ValueError(
            f"unknown variant rule(s) {', '.join(unknown) or '(none given)'}; "
            f"the rules: {', '.join(RULE_NAMES)}"
        )
    return tuple(rule for rule in RULES if rule.name in wanted)


def reword(incident: Incident, rules: Sequence[Rule] = RULES) -> dict[str, Incident]:
    """{rule name: the reworded incident} for every rule that changes `incident`."""
    out = {}
    for rule in rules:
        new = rule.apply(dict(incident))
        if new is not None:
            out[rule.name] = new
    return out


def build_variant_root(
    root: Path, dest: Path, rules: Sequence[Rule] = RULES
) -> dict[str, list[str]]:
    """Fill `dest` with every scenario folder of `root` (a symlink) and its variants.

    A variant folder `<slug>+<rule>` holds symlinks to the original's files and its own
    incident.json. Folders without an expected.json are left out (nothing to score).
    Returns {slug: [rule names made]}.

    Raises:
        ValueError: an incident.json that is not an object with a title and a service.
    """
    dest.mkdir(parents=True, exist_ok=True)
    made: dict[str, list[str]] = {}
    for folder in sorted(root.iterdir()):
        if folder.name[0] in "._" or not (folder / "expected.json").is_file():
            continue
        if not (folder / "incident.json").is_file():
            continue
        path = folder / "incident.json"
        try:
            incident = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ValueError(f"{path}: unreadable: {exc}") from exc
        if not isinstance(incident, dict) or not all(
            isinstance(incident.get(k), str) and incident.get(k)
            for k in ("title", "service")
        ):
            raise ValueError(f"{path}: needs a title and a service")
        (dest / folder.name).symlink_to(folder.resolve(), target_is_directory=True)
        made[folder.name] = []
        for rule_name, reworded in reword(incident, rules).items():
            variant = dest / f"{folder.name}{SEPARATOR}{rule_name}"
            variant.mkdir()
            for entry in sorted(folder.iterdir()):
                if entry.name != "incident.json":
                    (variant / entry.name).symlink_to(
                        entry.resolve(), target_is_directory=entry.is_dir()
                    )
            (variant / "incident.json").write_text(
                json.dumps(reworded, indent=2, ensure_ascii=False) + "\n",
                encoding="utf-8",
            )
            made[folder.name].append(rule_name)
    return made


def variant_of(folder: str) -> tuple[str, str]:
    """(original slug, rule name) of a folder name; the rule is "original" for an original."""
    slug, separator, rule = folder.rpartition(SEPARATOR)
    return (slug, rule) if separator else (folder, "original")


@dataclass(frozen=True)
class Outcome:
    """One run as the variants summary counts it."""

    folder: str
    right: bool  # evaluation's score: counted
    conclusive: bool  # the report said conclusive


def summary(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """Per rule and over all variants (originals apart): runs, right, conclusive, both, rates."""

    def count(group: Sequence[Outcome]) -> dict[str, Any]:
        n = len(group)
        right = sum(o.right for o in group)
        conclusive = sum(o.conclusive for o in group)
        both = sum(o.right and o.conclusive for o in group)
        return {
            "runs": n,
            "right": right,
            "conclusive": conclusive,
            "right_and_conclusive": both,
            "right_rate": round(right / n, 3) if n else 0.0,
            "conclusive_rate": round(conclusive / n, 3) if n else 0.0,
        }

    by_rule: dict[str, list[Outcome]] = {}
    for outcome in outcomes:
        by_rule.setdefault(variant_of(outcome.folder)[1], []).append(outcome)
    order = ["original", *RULE_NAMES]
    return {
        "by_rule": {
            name: count(by_rule[name])
            for name in sorted(
                by_rule, key=lambda n: (order.index(n) if n in order else 99, n)
            )
        },
        "variants": count(
            [o for o in outcomes if variant_of(o.folder)[1] != "original"]
        ),
    }


def summary_lines(result: Mapping[str, Any]) -> list[str]:
    """The summary as text lines, one per rule, then all variants."""
    lines = []
    rows = {**result["by_rule"], "all variants": result["variants"]}
    for name, c in rows.items():
        lines.append(
            f"{name}: {c['right']}/{c['runs']} right ({c['right_rate']:.0%}), "
            f"{c['conclusive']}/{c['runs']} conclusive ({c['conclusive_rate']:.0%}), "
            f"{c['right_and_conclusive']} both"
        )
    return lines
