"""System check: the server registry (settings.AGENTOPS_SERVERS) loads, or start-up fails with its error."""

from collections.abc import Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Error

from diagnosis.registry import BUNDLED_FILE, RegistryError, load_registry


def check_server_registry(
    *,
    app_configs: Sequence[AppConfig] | None,
    databases: Sequence[str] | None,
    **kwargs: Any,
) -> list[CheckMessage]:
    """`diagnosis.E001` naming file, entry and field when the registry file is bad."""
    path = getattr(settings, "AGENTOPS_SERVERS", None) or BUNDLED_FILE
    try:
        load_registry(path)
    except RegistryError as exc:
        return [
            Error(
                str(exc),
                hint="Fix the entry, or point AGENTOPS_SERVERS at another file (format: diagnosis/registry.py).",
                id="diagnosis.E001",
            )
        ]
    return []
