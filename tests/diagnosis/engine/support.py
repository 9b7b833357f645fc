"""What the engine tests share: who opens an incident, and MCP servers they start over HTTP."""

import re
import subprocess
import sys
from pathlib import Path

from diagnosis import environments, services
from diagnosis.principals import Principal, role_scopes
from diagnosis.registry import demo_environment_name
from tests import factories
from tests.livestack import wait_for

_URL = re.compile(r"(http://127\.0\.0\.1:\d+/mcp)")


def responder(tenant, username: str = "responder") -> Principal:
    """A responder of the tenant: its scopes let the engine call tools for its incidents."""
    member = factories.make_member(tenant, username=username)
    return Principal(
        user=member.user,
        tenant=tenant,
        role=member.role,
        scopes=role_scopes(member.role),
    )


def open_incident(tenant, **fields):
    """(incident, task) opened by a responder; fields override a plain checkout incident."""
    principal = fields.pop("principal", None) or responder(tenant)
    values = {
        "title": "checkout slow",
        "service": "checkout",
        "severity": "sev2",
        "symptoms": "p99 latency up",
        **fields,
    }
    return services.incident_create(
        tenant=tenant, user=principal.user, principal=principal, **values
    )


def open_demo_incident(tenant, scenario: str):
    """(incident, task) of a bundled scenario's demo environment, from its incident.json."""
    return open_incident(
        tenant,
        **environments.demo_incident_fields(
            tenant=tenant, name=demo_environment_name(scenario)
        ),
    )


def serve_http(module: str, args: list[str], log: Path) -> tuple[subprocess.Popen, str]:
    """`python -m module args --http 127.0.0.1:0`, stderr into `log`; its URL once it listens."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", module, *args, "--http", "127.0.0.1:0"],
            stdout=subprocess.DEVNULL,
            stderr=out,
            start_new_session=True,
        )
    found = wait_for(
        lambda: _URL.search(log.read_text(errors="replace")) or proc.poll() is not None,
        timeout=60,
        what=f"{module} to listen",
    )
    assert proc.poll() is None, log.read_text()
    return proc, found[1]
