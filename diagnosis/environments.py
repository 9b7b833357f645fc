"""Which environments a tenant may diagnose against: the registry loaded once per process.

`registry()` reads settings.AGENTOPS_SERVERS the first time it is asked (the system check
`diagnosis.E001` has already refused a bad file at start) and keeps it; a change of the setting
(tests: `override_settings`, the pytest `settings` fixture) drops the cached copy. Tenants are
named in the registry by `Tenant.slug`.
"""

import json
import threading
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.utils import timezone

from diagnosis.exceptions import ValidationFailed
from diagnosis.fields import DESCRIPTION_MAX
from diagnosis.incident_labels import labels_problem
from diagnosis.models import Severity, Tenant
from diagnosis.registry import (
    BUNDLED_FILE,
    Environment,
    EnvironmentLookupError,
    Registry,
    load_registry,
)

__all__ = [
    "default_for",
    "demo_environments_for",
    "demo_incident_fields",
    "environment_resolve",
    "environments_for",
    "registry",
    "reset",
]

_lock = threading.Lock()
_cached: tuple[str, Registry] | None = None


def _path() -> str:
    return str(getattr(settings, "AGENTOPS_SERVERS", None) or BUNDLED_FILE)


def registry() -> Registry:
    """The registry of settings.AGENTOPS_SERVERS, loaded on first use and kept.

    Raises:
        RegistryError: the file is bad (start-up checks normally stop the process first).
    """
    global _cached
    path = _path()
    cached = _cached
    # Keyed by path as well, so a setting changed without the signal is still honoured.
    if cached is not None and cached[0] == path:
        return cached[1]
    with _lock:
        if _cached is None or _cached[0] != path:
            _cached = (path, load_registry(path))
        return _cached[1]


def reset() -> None:
    """Forget the loaded registry; the next `registry()` reads the file again."""
    global _cached
    with _lock:
        _cached = None


@receiver(setting_changed)
def _on_setting_changed(*, setting: str, **kwargs: Any) -> None:
    if setting == "AGENTOPS_SERVERS":
        reset()


def environments_for(tenant: Tenant) -> list[Environment]:
    """The environments `tenant` may use, each with only the servers it may use, in the file's
    order (demo environments last)."""
    return registry().for_tenant(tenant.slug)


def demo_environments_for(tenant: Tenant) -> list[Environment]:
    """The demo environments (one per scenario) `tenant` may use, by their neutral name."""
    return [env for env in environments_for(tenant) if env.scenario is not None]


def default_for(tenant: Tenant) -> Environment | None:
    """The tenant's default environment, or None when the registry names none it may use."""
    try:
        return registry().default_for(tenant.slug)
    except EnvironmentLookupError:
        return None


def _choices(tenant: Tenant) -> str:
    names = sorted(env.name for env in environments_for(tenant))
    return f"one of: {', '.join(names)}" if names else "this tenant may use none"


def environment_resolve(*, tenant: Tenant, name: str | None) -> Environment:
    """The environment `name` as `tenant` may use it; None or "" is the tenant's default.

    An unknown name and one closed to the tenant get the same answer, so that the reason does
    not tell one tenant the environments of another.

    Raises:
        ValidationFailed: {"environment": reason} for an unknown or forbidden name, or when
            none is named and the tenant has no default; the reason lists the names it may use.
    """
    if not name:
        env = default_for(tenant)
        if env is None:
            raise ValidationFailed(
                {
                    "environment": "required: this tenant has no default environment; "
                    + _choices(tenant)
                }
            )
        return env
    try:
        return registry().get(name, tenant=tenant.slug)
    except EnvironmentLookupError:
        raise ValidationFailed(
            {
                "environment": f"no environment {name!r} for this tenant; {_choices(tenant)}"
            }
        ) from None


def demo_incident_fields(
    *, tenant: Tenant, name: str, now: datetime | None = None
) -> dict[str, Any]:
    """The incident of demo environment `name`, from its scenario's incident.json, as keyword
    arguments of services.incident_create (environment included).

    The window's offsets are taken from `now` (default: the current time), as the scenario's
    data is: its log lines and metric points are also relative to now.

    Raises:
        ValidationFailed: {"environment": reason}: unknown, forbidden or not a demo
            environment, or a scenario whose incident.json is unusable.
    """
    env = environment_resolve(tenant=tenant, name=name)
    reg = registry()
    if env.scenario is None:
        demos = sorted(e.name for e in demo_environments_for(tenant))
        raise ValidationFailed(
            {
                "environment": f"{name!r} is not a demo environment; "
                + (f"one of: {', '.join(demos)}" if demos else "this tenant has none")
            }
        )
    path = reg.scenario_folder(env) / "incident.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        fields = _incident_fields(doc, now or timezone.now())
    except (OSError, ValueError, TypeError, KeyError) as exc:
        # Server-side data, checked by the registry at load; a broken file is still no 500.
        raise ValidationFailed(
            {"environment": f"the demo scenario of {name!r} is unusable: {exc}"}
        ) from exc
    return {**fields, "environment": env.name}


def _incident_fields(doc: Any, now: datetime) -> dict[str, Any]:
    if not isinstance(doc, dict):
        raise ValueError("incident.json is not an object")
    title, service, severity = doc["title"], doc["service"], doc["severity"]
    if not all(isinstance(v, str) and v for v in (title, service)):
        raise ValueError("title and service must be non-empty strings")
    if severity not in Severity.values:
        raise ValueError(f"unknown severity {severity!r}")
    symptoms = doc.get("symptoms", [])
    if not isinstance(symptoms, list) or not all(isinstance(s, str) for s in symptoms):
        raise ValueError("symptoms must be a list of strings")
    description = doc.get("description", "")
    if not isinstance(description, str):
        raise ValueError("description must be a string")
    labels = doc.get("labels", {})
    problem = labels_problem(labels)
    if problem is not None:
        raise ValueError(problem)
    window = doc.get("window")
    start = end = None
    if window is not None:
        start = now + timedelta(seconds=_offset(window, "start_offset_s"))
        end = now + timedelta(seconds=_offset(window, "end_offset_s"))
    return {
        "title": title,
        "service": service,
        "severity": severity,
        "symptoms": "\n".join(symptoms),
        "description": description[:DESCRIPTION_MAX],
        "labels": dict(labels),
        "window_start": start,
        "window_end": end,
    }


def _offset(window: Any, key: str) -> float:
    value = window[key]
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise ValueError(f"window.{key} must be a number of seconds")
    return float(value)
