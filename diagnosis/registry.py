"""The server registry: named environments of MCP servers, read from one TOML file (DESIGN §10).

Users pick an environment by name; they never type a URL or a command, so the app cannot be
turned into an SSRF or command-injection tool. The file is `settings.AGENTOPS_SERVERS` (default:
the bundled `diagnosis/servers.toml`) and is validated at start (`diagnosis.checks`). Pure
Python: no ORM, no Django.

File format::

    default_environment = "default"     # optional; the environment used when none is named
    tenant_defaults = { acme = "prod" } # optional; per-tenant override of default_environment

    [defaults]                          # optional; every server's fallback for these four fields
    connect_timeout = 10                # seconds: spawn/connect plus the handshake
    call_timeout = 30                   # seconds: one tool call (the engine trims it to the budget)
    max_concurrency = 4                 # calls in flight on one connection
    protocol_version = "2025-11-25"     # pin; absent = negotiate (mcpclient.KNOWN_VERSIONS)

    [demo]                              # optional; one environment per scenario folder
    scenarios_dir = "{here}/scenarios"  # optional; default the bundled mcpservers/scenarios
    tenants = ["acme"]                  # optional; default every tenant

    [environments.prod]
    description = "Production cluster"  # shown to users
    tenants = ["acme", "globex"]        # optional; absent = every tenant

    [environments.prod.servers.logs]    # the table key is the server's name
    transport = "stdio"                 # "stdio" (default when `command` is given) or "http"
    command = ["{python}", "-m", "mcpservers.logs", "--loki-url", "http://loki:3100"]
    env = ["LOKI_TOKEN"]                # worker variables passed to the child by name
    tools = ["search_logs", "top_errors"]  # optional allowlist; absent = every listed tool
    approval_required = []              # tools that always need a person, whatever annotations say
    tenants = ["acme"]                  # optional; absent = every tenant of the environment
    # connect_timeout, call_timeout, max_concurrency, protocol_version as in [defaults]

    [environments.prod.servers.metrics]
    transport = "http"
    url = "https://metrics-mcp.internal/mcp"   # http or https, no credentials in it
    auth_env = "METRICS_MCP_TOKEN"      # sent as "Authorization: Bearer <value>" at connect time

    [environments.prod.servers.grafana] # behind an identity provider: OAuth instead of auth_env
    transport = "http"
    url = "https://grafana-mcp.example.com/mcp"
    auth = { type = "oauth", grant = "client_credentials", client_id_env = "GRAFANA_CLIENT_ID",
             client_secret_env = "GRAFANA_CLIENT_SECRET", scope = "mcp:read" }
    # grant = "client_credentials" (the default): a service account; client_secret_env or
    #   private_key_env (the variable holding a PEM key's path, for private_key_jwt), not both.
    # grant = "connected": an admin connects the server once on the operations page (the
    #   authorization-code flow with PKCE); the refresh token is stored encrypted
    #   (OAUTH_TOKEN_KEYS) and every worker renews with it. client_id_env is optional there
    #   (absent: registration as the server's metadata allows).

    [alerts]                            # optional; how alerts become incidents (diagnosis.intake)
    service_labels = ["service", "job"] # the first of these labels with a value names the service
    default_service = "unknown"         # when no alert carries one of them
    severity_label = "severity"         # its value is looked up in severity_map
    default_severity = "sev3"           # for a value severity_map does not know
    symptom_annotations = ["summary", "description"]  # joined into the incident's symptoms
    severity_map = { critical = "sev1", error = "sev2", warning = "sev3", info = "sev4" }
    receivers = { payments-pager = "prod" }  # Alertmanager `receiver` → environment
    pagerduty_groups = { payments = "prod" } # PagerDuty `payload.group` → environment

    [webhooks.payments-pager]           # optional; the table key is the target's name
    tenant = "acme"                     # the tenant whose notifications it receives
    format = "generic"                  # "generic" (JSON signed with HMAC-SHA256) or "slack"
    url = "https://pager.example.com/agentops"  # http or https, no credentials, no query
    secret_env = "PAGER_WEBHOOK_SECRET" # the variable holding the HMAC-SHA256 key; absent: unsigned
    notices = ["approval_waiting"]      # optional; absent = every notice (diagnosis_finished,
                                        # approval_waiting, status_changed)

    [webhooks.payments-chat]
    tenant = "acme"
    format = "slack"
    url_env = "PAYMENTS_SLACK_WEBHOOK_URL"  # instead of url: the variable holding a URL that is
                                        # itself a credential (every Slack webhook URL is)

Names (environments, servers) are lowercase letters, digits, "-" and "_". In `command` and
`scenarios_dir`, `{python}` is the interpreter running the app and `{here}` the file's folder;
any other `{...}` is an error. A stdio child starts with PATH, HOME and LANG of the worker (plus
the few harmless names mcpclient always passes: LOGNAME, SHELL, TERM, USER) and the names in `env`;
nothing else, and never the app's own secrets (`env` may not name them). A bad entry is a
`RegistryError` naming the file, the entry, the field and the reason.

In `[alerts]`, every key is optional and the values above are the defaults (`receivers` and
`pagerduty_groups` default to empty: an alert they do not map goes to the tenant's default
environment). `severity_map` replaces the default map; its keys are compared without case, and a
label value that is itself a severity (`sev1`..`sev4`) is always taken as it is. The mapped
environments must be defined.

In `[webhooks]` (outgoing notifications, diagnosis.webhooks), the HMAC secret and a URL holding
a token are given by variable NAME, never inline: the worker reads them when it sends (so they
must be set in the worker's environment), and neither is stored in the database. An inline `url`
follows the admin's rules (an absolute http or https URL with a host) and may carry no
credentials and no query, and may not be a Slack or Discord webhook URL: any of those goes in a
variable named by `url_env`. Exactly one of `url` and `url_env` is required. A target in the
file is a row of the admin's list marked "registry file": read-only there (edit the file),
brought in step with the file by the reaper (within DIAGNOSIS_REAPER_INTERVAL_SECONDS of a
start) and when the admin's list is opened, and disabled, never deleted, once the file drops
it, so its delivery log stays. Targets made in the admin are left as they are. The tenant is
named by its slug; an entry for a tenant that does not exist yet waits for it.

Demo environments are named `demo-<6 hex digits>` from a hash of the scenario's folder name, so
the name (and the order, sorted by name) says nothing of the cause; the description is the
scenario's incident title. A server is in a demo environment only when the folder has its data
(`demo_servers()`: logs, metrics, runbooks, kubernetes read it with `--scenario <folder>`; netcheck
needs a targets.json); actions always. netcheck allows loopback only until
`Environment.bind_live()` gives it the live listeners' args.
"""

import hashlib
import json
import math
import os
import re
import sys
import tomllib
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

import mcpclient
from diagnosis.incident_labels import labels_problem
from diagnosis.webhooks.rules import FORMATS, NOTICE_KINDS, url_error
from mcpservers import scenario_folder

__all__ = [
    "BUNDLED_FILE",
    "DEMO_SERVERS",
    "AlertRules",
    "Environment",
    "EnvironmentForbidden",
    "EnvironmentLookupError",
    "MissingGrant",
    "MissingSecret",
    "OAuthConfig",
    "Registry",
    "RegistryError",
    "ServerEntry",
    "UnknownEnvironment",
    "WebhookEntry",
    "bundled_scenarios_dir",
    "child_env",
    "client_server",
    "connect_server",
    "demo_environment_name",
    "demo_environments",
    "demo_servers",
    "load_registry",
]

BUNDLED_FILE = Path(__file__).resolve().parent / "servers.toml"
#: What a stdio child gets from the worker besides the names its entry declares.
CHILD_ENV = ("PATH", "HOME", "LANG")
#: A bundled server started as `python -m mcpservers.launch <name>` is forked by the fork server
#: whose socket this variable names (mcpservers/launch.py, diagnosis/engine/forkserver.py).
LAUNCHER_MODULE = "mcpservers.launch"
FORKSERVER_ENV = "AGENTOPS_FORKSERVER"
#: The app's own secrets: an entry may not pass them to a child, whatever it declares.
APP_SECRETS = frozenset(
    {
        "SECRET_KEY",
        "DATABASE_URL",
        "REDIS_URL",
        "CELERY_BROKER_URL",
        "CELERY_RESULT_BACKEND",
        "LLM_API_KEY",
        "AGENTOPS_SERVERS",
    }
)
#: The bundled servers a demo environment may run, in this order; each only when its scenario
#: folder has its data (`demo_servers()`), actions always.
DEMO_SERVERS = ("logs", "metrics", "runbooks", "kubernetes", "netcheck", "actions")
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_CALL_TIMEOUT = 30.0
DEFAULT_MAX_CONCURRENCY = 4
MAX_TIMEOUT = 3600.0
MAX_CONCURRENCY = 64  # mcpclient.connect's own bound

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,62}")
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
# Tenant.slug is a SlugField(max_length=64).
_TENANT = re.compile(r"[-a-zA-Z0-9_]{1,64}")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
# Demo netcheck before bind_live(): loopback may be probed, nothing else.
_DEMO_NETCHECK_ARGS = ("--allow-net", "127.0.0.1/32", "--allow", "127.0.0.1")

_TOP_KEYS = (
    "default_environment",
    "tenant_defaults",
    "defaults",
    "demo",
    "environments",
    "alerts",
    "webhooks",
)
_DEFAULT_KEYS = (
    "connect_timeout",
    "call_timeout",
    "max_concurrency",
    "protocol_version",
)
_DEMO_KEYS = ("scenarios_dir", "tenants")
_ALERT_KEYS = (
    "service_labels",
    "default_service",
    "severity_label",
    "default_severity",
    "symptom_annotations",
    "severity_map",
    "receivers",
    "pagerduty_groups",
)
#: diagnosis.models.Severity, repeated here to keep this module free of Django (a test checks).
SEVERITIES = ("sev1", "sev2", "sev3", "sev4")
DEFAULT_SEVERITY_MAP: Mapping[str, str] = {
    "critical": "sev1",
    "error": "sev2",
    "warning": "sev3",
    "info": "sev4",
}
_LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]{0,127}")  # a Prometheus label name
SERVICE_MAX = 100  # Incident.service
_ENV_KEYS = ("description", "tenants", "servers")
_WEBHOOK_KEYS = ("tenant", "format", "url", "url_env", "secret_env", "notices")
# A URL on these hosts is itself a credential (its path is the token): only in a variable.
_CREDENTIAL_HOSTS = ("hooks.slack.com", "discord.com", "discordapp.com")
_SERVER_KEYS = (
    "transport",
    "command",
    "env",
    "url",
    "auth_env",
    "auth",
    "tools",
    "approval_required",
    "tenants",
    *_DEFAULT_KEYS,
)


class RegistryError(Exception):
    """The registry file is unreadable or breaks the format; the message names file, entry, field."""

    def __init__(self, path: Path | str, entry: str, field: str, reason: str) -> None:
        where = ", ".join(
            part for part in (entry, field and f"field {field!r}") if part
        )
        super().__init__(f"{path}: {where}: {reason}" if where else f"{path}: {reason}")
        self.path, self.entry, self.field, self.reason = str(path), entry, field, reason


class EnvironmentLookupError(LookupError):
    """Base of `Registry.get` failures; an API answers both the same way (404)."""

    def __init__(self, name: str, tenant: str | None) -> None:
        super().__init__(name, tenant)
        self.name, self.tenant = name, tenant


class UnknownEnvironment(EnvironmentLookupError):
    def __str__(self) -> str:
        return f"no environment named {self.name!r}"


class EnvironmentForbidden(EnvironmentLookupError):
    def __str__(self) -> str:
        return f"tenant {self.tenant!r} may not use environment {self.name!r}"


class MissingSecret(RuntimeError):
    """An HTTP server's `auth_env` variable is unset or empty in this process."""

    def __init__(self, server: str, env_name: str) -> None:
        super().__init__(
            f"server {server!r}: environment variable {env_name} (its auth_env) is unset or empty"
        )
        self.server, self.env_name = server, env_name


_OAUTH_KEYS = (
    "type",
    "grant",
    "client_id_env",
    "client_secret_env",
    "private_key_env",
    "scope",
)


@dataclass(frozen=True, slots=True)
class OAuthConfig:
    """`auth = {type = "oauth", ...}` on an http server: how a worker obtains its token.

    grant "client_credentials": a service account, its id and secret (or private_key_jwt key path)
    read from the worker's environment by variable NAME; the file never holds a value.
    grant "connected": the authorization-code grant an admin connected in the web app, stored
    encrypted (diagnosis.oauth_grants) and refreshed by the workers.
    """

    grant: Literal["client_credentials", "connected"]
    client_id_env: str | None = None
    client_secret_env: str | None = None
    private_key_env: str | None = (
        None  # variable holding the PEM key's path (private_key_jwt)
    )
    scope: str | None = None


class MissingGrant(RuntimeError):
    """A server uses the admin-connected OAuth grant and no stored grant was supplied."""

    def __init__(self, server: str) -> None:
        self.server = server
        super().__init__(
            f"server {server!r}: uses the admin-connected OAuth grant; "
            "an admin must Connect it on the environment's server page"
        )


@dataclass(frozen=True, slots=True)
class ServerEntry:
    """One MCP server of an environment, as the registry file declares it."""

    name: str
    transport: Literal["stdio", "http"]
    # stdio: program and arguments, placeholders expanded.
    command: tuple[str, ...] | None = None
    url: str | None = None  # http: the Streamable HTTP endpoint
    env: tuple[str, ...] = ()  # stdio: worker variables passed through by name
    auth_env: str | None = None  # http: variable holding the bearer token
    oauth: OAuthConfig | None = None  # http: OAuth instead of a static bearer token
    protocol_version: str | None = None  # None: negotiate
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    call_timeout: float = DEFAULT_CALL_TIMEOUT
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    tools: frozenset[str] | None = None  # None: every tool the server lists
    approval_required: frozenset[str] = frozenset()
    tenants: frozenset[str] | None = None  # None: every tenant of the environment

    def is_tool_allowed(self, tool: str) -> bool:
        return self.tools is None or tool in self.tools

    def is_approval_required(self, tool: str) -> bool:
        """True when the registry marks `tool`; annotations (destructiveHint) are the engine's check."""
        return tool in self.approval_required

    def is_usable_by(self, tenant: str) -> bool:
        return self.tenants is None or tenant in self.tenants


@dataclass(frozen=True, slots=True)
class Environment:
    """A named set of MCP servers an incident is diagnosed against."""

    name: str
    description: str
    servers: tuple[ServerEntry, ...]
    tenants: frozenset[str] | None = None  # None: every tenant
    # A demo environment's scenario folder name: for starting its live listeners, never for
    # the planner or the user (the name and description are what they see).
    scenario: str | None = field(default=None, repr=False)
    # The scenario folder itself (under the registry's scenarios_dir), for its live listeners.
    scenario_path: str | None = field(default=None, repr=False)

    def is_usable_by(self, tenant: str) -> bool:
        return self.tenants is None or tenant in self.tenants

    def server(self, name: str) -> ServerEntry:
        """The server called `name`.

        Raises:
            KeyError: no such server in this environment.
        """
        for entry in self.servers:
            if entry.name == name:
                return entry
        raise KeyError(name)

    def for_tenant(self, tenant: str) -> "Environment":
        """This environment with only the servers `tenant` may use."""
        servers = tuple(s for s in self.servers if s.is_usable_by(tenant))
        return self if servers == self.servers else replace(self, servers=servers)

    def bind_live(self, server_args: Mapping[str, Sequence[str]]) -> "Environment":
        """A demo environment whose bundled servers take these arguments instead of the static ones.

        `server_args` is `mcpservers.scenarios.LiveScenario.server_args()`: netcheck then allows
        exactly the running listeners, and logs may point at a live back end.

        Raises:
            ValueError: this is not a demo environment.
        """
        if self.scenario is None:
            raise ValueError(f"environment {self.name!r} is not a demo environment")
        servers = tuple(
            replace(s, command=(*_demo_prefix(s.name), *server_args[s.name]))
            if s.name in server_args and s.command is not None
            else s
            for s in self.servers
        )
        return replace(self, servers=servers)


@dataclass(frozen=True, slots=True)
class AlertRules:
    """The `[alerts]` table: how an alert's labels and annotations become an incident."""

    service_labels: tuple[str, ...] = ("service", "job")
    default_service: str = "unknown"
    severity_label: str = "severity"
    default_severity: str = "sev3"
    symptom_annotations: tuple[str, ...] = ("summary", "description")
    severity_map: Mapping[str, str] = field(
        default_factory=lambda: dict(DEFAULT_SEVERITY_MAP)
    )
    receivers: Mapping[str, str] = field(default_factory=dict)
    pagerduty_groups: Mapping[str, str] = field(default_factory=dict)

    def severity(self, value: str | None) -> str | None:
        """The severity a label value maps to, or None for an absent or unknown value."""
        if not value:
            return None
        key = value.strip().lower()
        if key in SEVERITIES:
            return key
        return self.severity_map.get(key)


@dataclass(frozen=True, slots=True)
class WebhookEntry:
    """A `[webhooks.<name>]` target: where one tenant's notifications go (diagnosis.webhooks).

    `url_env` and `secret_env` are worker variable names, read when a delivery is sent."""

    name: str
    tenant: str
    format: str = "generic"
    url: str | None = None  # inline: no credentials, no query
    url_env: str | None = None  # instead of url
    secret_env: str | None = None  # None: unsigned
    notices: tuple[str, ...] = ()  # empty: every notice


@dataclass(frozen=True, slots=True)
class Registry:
    """Every environment of the registry file, by name, and the defaults per tenant."""

    path: str
    environments: Mapping[str, Environment]
    default_environment: str | None = None
    tenant_defaults: Mapping[str, str] = field(default_factory=dict)
    # The folder the demo environments were made from ([demo] scenarios_dir); None without [demo].
    scenarios_dir: str | None = None
    alerts: AlertRules = field(default_factory=AlertRules)
    webhooks: tuple[WebhookEntry, ...] = ()

    def for_tenant(self, tenant: str) -> list[Environment]:
        """The environments `tenant` may use, each with only the servers it may use, by name."""
        return [
            env.for_tenant(tenant)
            for env in self.environments.values()
            if env.is_usable_by(tenant)
        ]

    def get(self, name: str, *, tenant: str) -> Environment:
        """The environment `name` as `tenant` may use it.

        Raises:
            UnknownEnvironment: no environment has that name.
            EnvironmentForbidden: it exists, but not for this tenant.
        """
        env = self.environments.get(name)
        if env is None:
            raise UnknownEnvironment(name, tenant)
        if not env.is_usable_by(tenant):
            raise EnvironmentForbidden(name, tenant)
        return env.for_tenant(tenant)

    def default_for(self, tenant: str) -> Environment | None:
        """The tenant's default environment (`tenant_defaults`, else `default_environment`).

        Raises:
            EnvironmentForbidden: the global default is closed to this tenant.
        """
        name = self.tenant_defaults.get(tenant, self.default_environment)
        return None if name is None else self.get(name, tenant=tenant)

    def scenario_folder(self, env: Environment) -> Path:
        """The scenario folder of a demo environment (its incident.json, data and expected answer).

        Raises:
            ValueError: `env` is not a demo environment of this registry.
        """
        if env.scenario is None or self.scenarios_dir is None:
            raise ValueError(f"environment {env.name!r} is not a demo environment")
        if env.scenario_path is not None:
            return Path(env.scenario_path)
        return Path(self.scenarios_dir) / env.scenario


# --- loading -----------------------------------------------------------------------------------


def load_registry(path: Path | str) -> Registry:
    """Read and validate a registry file (format in the module docstring).

    Raises:
        RegistryError: the file is unreadable, not TOML, or an entry breaks the format.
    """
    path = Path(path)
    try:
        with path.open("rb") as fh:
            doc = tomllib.load(fh)
    except OSError as exc:
        raise RegistryError(path, "", "", f"cannot read: {exc.strerror}") from exc
    except tomllib.TOMLDecodeError as exc:
        # Also how a name declared twice shows up: "Cannot overwrite a value (at line 9, ...)".
        raise RegistryError(path, "", "", f"not valid TOML: {exc}") from exc
    return _Loader(path).registry(doc)


class _Loader:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.here = str(path.resolve().parent)

    def fail(self, entry: str, field: str, reason: str) -> RegistryError:
        return RegistryError(self.path, entry, field, reason)

    def registry(self, doc: dict[str, Any]) -> Registry:
        self.check_keys(doc, _TOP_KEYS, "")
        defaults = self.table(doc, "defaults", "")
        self.check_keys(defaults, _DEFAULT_KEYS, "[defaults]")
        # Checked here so a bad default is reported as [defaults], not as the first server.
        self.seconds(defaults, "connect_timeout", "[defaults]", DEFAULT_CONNECT_TIMEOUT)
        self.seconds(defaults, "call_timeout", "[defaults]", DEFAULT_CALL_TIMEOUT)
        self.concurrency(defaults, "[defaults]")
        self.version(defaults, "[defaults]")
        environments: dict[str, Environment] = {}
        for name, body in self.table(doc, "environments", "").items():
            environments[name] = self.environment(name, body, defaults)
        scenarios_dir = None
        if "demo" in doc:
            root, demos = self.demo(self.table(doc, "demo", ""), defaults)
            scenarios_dir = str(root)
            for env in demos:
                if env.name in environments:
                    raise self.fail(
                        f"environment {env.name!r}",
                        "",
                        "the name is taken by a demo environment; choose another",
                    )
                environments[env.name] = env
        if not environments:
            raise self.fail("", "environments", "no environment is defined")
        return Registry(
            path=str(self.path),
            environments=environments,
            default_environment=self.default_name(doc, environments),
            tenant_defaults=self.tenant_defaults(doc, environments),
            scenarios_dir=scenarios_dir,
            alerts=self.alerts(self.table(doc, "alerts", ""), environments),
            webhooks=tuple(
                self.webhook(name, body)
                for name, body in self.table(doc, "webhooks", "").items()
            ),
        )

    def webhook(self, name: str, body: Any) -> WebhookEntry:
        entry = f"webhook {name!r}"
        if not _NAME.fullmatch(name):
            raise self.fail(entry, "", _name_reason())
        if not isinstance(body, dict):
            raise self.fail(entry, "", "must be a table")
        self.check_keys(body, _WEBHOOK_KEYS, entry)
        tenant = body.get("tenant")
        if not isinstance(tenant, str) or not _TENANT.fullmatch(tenant):
            raise self.fail(
                entry, "tenant", f"must be a tenant slug (required), got {tenant!r}"
            )
        format = body.get("format", "generic")
        if format not in FORMATS:
            raise self.fail(
                entry,
                "format",
                f"must be one of {', '.join(FORMATS)}, got {format!r}",
            )
        if ("url" in body) == ("url_env" in body):
            raise self.fail(
                entry,
                "url",
                "give exactly one of url and url_env (a variable holding the URL)",
            )
        url = body.get("url")
        if url is not None:
            self.webhook_url(url, entry)
        notices = body.get("notices", [])
        if not isinstance(notices, list) or any(n not in NOTICE_KINDS for n in notices):
            raise self.fail(
                entry, "notices", f"must be a list of {', '.join(NOTICE_KINDS)}"
            )
        if len(set(notices)) != len(notices):
            raise self.fail(entry, "notices", "names a notice twice")
        return WebhookEntry(
            name=name,
            tenant=tenant,
            format=format,
            url=url,
            url_env=self.variable(body, "url_env", entry),
            secret_env=self.variable(body, "secret_env", entry),
            notices=tuple(notices),
        )

    def webhook_url(self, url: Any, entry: str) -> None:
        reason = url_error(url)
        if reason is not None:
            raise self.fail(entry, "url", reason)
        parsed = urlsplit(url)
        if parsed.username is not None or parsed.password is not None:
            raise self.fail(
                entry,
                "url",
                "must not carry credentials; put the URL in a variable named by url_env",
            )
        if parsed.query:
            raise self.fail(
                entry,
                "url",
                "must not have a query (it may hold a token); put the URL in a variable "
                "named by url_env",
            )
        if parsed.hostname in _CREDENTIAL_HOSTS:
            raise self.fail(
                entry,
                "url",
                f"a {parsed.hostname} webhook URL is itself a credential; put it in a variable "
                "named by url_env",
            )

    def variable(self, body: Mapping[str, Any], key: str, entry: str) -> str | None:
        """A worker variable's NAME (never a value), not one of the app's own secrets."""
        value = body.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not _ENV_NAME.fullmatch(value):
            raise self.fail(
                entry,
                key,
                "must be a variable name (never the value)"
                if isinstance(value, str)
                else f"must be a variable name, got a {type(value).__name__}",
            )
        if value in APP_SECRETS:
            raise self.fail(
                entry, key, f"{value} is the app's own secret and never leaves it"
            )
        return value

    def alerts(
        self, body: dict[str, Any], environments: Mapping[str, Environment]
    ) -> AlertRules:
        entry = "[alerts]"
        self.check_keys(body, _ALERT_KEYS, entry)
        defaults = AlertRules()
        default_service = body.get("default_service", defaults.default_service)
        if (
            not isinstance(default_service, str)
            or not default_service.strip()
            or len(default_service) > SERVICE_MAX
        ):
            raise self.fail(
                entry,
                "default_service",
                f"must be a non-empty string of at most {SERVICE_MAX} characters",
            )
        severity_label = body.get("severity_label", defaults.severity_label)
        if not isinstance(severity_label, str) or not _LABEL.fullmatch(severity_label):
            raise self.fail(
                entry, "severity_label", f"{severity_label!r} is not a label name"
            )
        default_severity = body.get("default_severity", defaults.default_severity)
        if default_severity not in SEVERITIES:
            raise self.fail(
                entry,
                "default_severity",
                f"must be one of {', '.join(SEVERITIES)}, got {default_severity!r}",
            )
        severity_map: dict[str, str] = {}
        for value, severity in (
            self.table(body, "severity_map", entry).items()
            or DEFAULT_SEVERITY_MAP.items()
        ):
            if severity not in SEVERITIES:
                raise self.fail(
                    f"{entry} severity_map.{value}",
                    "",
                    f"must be one of {', '.join(SEVERITIES)}, got {severity!r}",
                )
            severity_map[value.strip().lower()] = severity
        return AlertRules(
            service_labels=self.label_names(body, "service_labels", entry),
            default_service=default_service.strip(),
            severity_label=severity_label,
            default_severity=default_severity,
            symptom_annotations=self.label_names(body, "symptom_annotations", entry),
            severity_map=severity_map,
            receivers=self.environment_map(body, "receivers", environments),
            pagerduty_groups=self.environment_map(
                body, "pagerduty_groups", environments
            ),
        )

    def label_names(
        self, body: Mapping[str, Any], key: str, entry: str
    ) -> tuple[str, ...]:
        value = body.get(key, getattr(AlertRules(), key))
        if (
            not isinstance(value, list | tuple)
            or not value
            or not all(isinstance(v, str) and _LABEL.fullmatch(v) for v in value)
        ):
            raise self.fail(
                entry,
                key,
                "must be a non-empty list of label or annotation names "
                "(letters, digits and '_', not starting with a digit)",
            )
        if len(set(value)) != len(value):
            raise self.fail(entry, key, "names one twice")
        return tuple(value)

    def environment_map(
        self,
        body: Mapping[str, Any],
        key: str,
        environments: Mapping[str, Environment],
    ) -> dict[str, str]:
        out: dict[str, str] = {}
        for name, env in self.table(body, key, "[alerts]").items():
            if not isinstance(env, str) or env not in environments:
                raise self.fail(
                    f"[alerts] {key}.{name}",
                    "",
                    f"must name a defined environment, got {env!r}",
                )
            out[name] = env
        return out

    def default_name(
        self, doc: dict[str, Any], environments: Mapping[str, Environment]
    ) -> str | None:
        name = doc.get("default_environment")
        if name is None:
            return None
        if not isinstance(name, str) or name not in environments:
            raise self.fail(
                "",
                "default_environment",
                f"must name a defined environment, got {name!r}",
            )
        return name

    def tenant_defaults(
        self, doc: dict[str, Any], environments: Mapping[str, Environment]
    ) -> dict[str, str]:
        out: dict[str, str] = {}
        for tenant, name in self.table(doc, "tenant_defaults", "").items():
            entry = f"tenant_defaults.{tenant}"
            if not _TENANT.fullmatch(tenant):
                raise self.fail(entry, "", "not a tenant slug")
            if not isinstance(name, str) or name not in environments:
                raise self.fail(
                    entry, tenant, f"must name a defined environment, got {name!r}"
                )
            if not environments[name].is_usable_by(tenant):
                raise self.fail(
                    entry, tenant, f"environment {name!r} is closed to this tenant"
                )
            out[tenant] = name
        return out

    def environment(
        self, name: str, body: Any, defaults: Mapping[str, Any]
    ) -> Environment:
        entry = f"environment {name!r}"
        if not _NAME.fullmatch(name):
            raise self.fail(entry, "", _name_reason())
        if not isinstance(body, dict):
            raise self.fail(entry, "", "must be a table")
        self.check_keys(body, _ENV_KEYS, entry)
        description = body.get("description", "")
        if not isinstance(description, str):
            raise self.fail(entry, "description", "must be a string")
        tenants = self.tenants(body, entry)
        servers_doc = self.table(body, "servers", entry)
        if not servers_doc:
            raise self.fail(
                entry, "servers", "an environment needs at least one server"
            )
        servers = tuple(
            self.server(name, server_name, server_body, defaults, tenants)
            for server_name, server_body in servers_doc.items()
        )
        return Environment(
            name=name, description=description, servers=servers, tenants=tenants
        )

    def server(
        self,
        env_name: str,
        name: str,
        body: Any,
        defaults: Mapping[str, Any],
        env_tenants: frozenset[str] | None,
    ) -> ServerEntry:
        entry = f"environment {env_name!r}, server {name!r}"
        if not _NAME.fullmatch(name):
            raise self.fail(entry, "", _name_reason())
        if not isinstance(body, dict):
            raise self.fail(entry, "", "must be a table")
        self.check_keys(body, _SERVER_KEYS, entry)
        transport = body.get("transport", "http" if "url" in body else "stdio")
        if transport not in ("stdio", "http"):
            raise self.fail(
                entry, "transport", f'must be "stdio" or "http", got {transport!r}'
            )
        other = (
            ("url", "auth_env", "auth") if transport == "stdio" else ("command", "env")
        )
        for key in other:
            if key in body:
                raise self.fail(
                    entry, key, f"does not apply to transport {transport!r}"
                )
        tenants = self.tenants(body, entry)
        if tenants is not None and env_tenants is not None:
            stray = sorted(tenants - env_tenants)
            if stray:
                raise self.fail(
                    entry,
                    "tenants",
                    f"{', '.join(stray)} may not use the environment itself",
                )
        tools = self.names(body, "tools", entry)
        approval = self.names(body, "approval_required", entry) or frozenset()
        if tools is not None and not approval <= tools:
            raise self.fail(
                entry,
                "approval_required",
                f"names tools outside the allowlist: {', '.join(sorted(approval - tools))}",
            )
        settings = {**defaults, **body}
        common: dict[str, Any] = {
            "name": name,
            "protocol_version": self.version(settings, entry),
            "connect_timeout": self.seconds(
                settings, "connect_timeout", entry, DEFAULT_CONNECT_TIMEOUT
            ),
            "call_timeout": self.seconds(
                settings, "call_timeout", entry, DEFAULT_CALL_TIMEOUT
            ),
            "max_concurrency": self.concurrency(settings, entry),
            "tools": tools,
            "approval_required": approval,
            "tenants": tenants,
        }
        if transport == "stdio":
            return ServerEntry(
                transport="stdio",
                command=self.command(body, entry),
                env=self.env_names(body, entry),
                **common,
            )
        return ServerEntry(
            transport="http",
            url=self.url(body, entry),
            auth_env=self.auth_env(body, entry),
            oauth=self.oauth(body, entry),
            **common,
        )

    def demo(
        self, body: dict[str, Any], defaults: Mapping[str, Any]
    ) -> tuple[Path, list[Environment]]:
        self.check_keys(body, _DEMO_KEYS, "[demo]")
        tenants = self.tenants(body, "[demo]")
        raw = body.get("scenarios_dir")
        if raw is None:
            root = bundled_scenarios_dir()
        elif isinstance(raw, str) and raw:
            root = Path(self.expand(raw, "[demo]", "scenarios_dir"))
        else:
            raise self.fail("[demo]", "scenarios_dir", "must be a non-empty string")
        if root is None or not root.is_dir():
            raise self.fail(
                "[demo]", "scenarios_dir", f"{root or 'mcpservers'} is not a directory"
            )
        try:
            return root, demo_environments(
                root,
                tenants=tenants,
                connect_timeout=self.seconds(
                    defaults, "connect_timeout", "[defaults]", DEFAULT_CONNECT_TIMEOUT
                ),
                call_timeout=self.seconds(
                    defaults, "call_timeout", "[defaults]", DEFAULT_CALL_TIMEOUT
                ),
                max_concurrency=self.concurrency(defaults, "[defaults]"),
                protocol_version=self.version(defaults, "[defaults]"),
            )
        except ValueError as exc:
            raise self.fail("[demo]", "scenarios_dir", str(exc)) from exc

    # --- fields --------------------------------------------------------------------------------

    def check_keys(
        self, body: Mapping[str, Any], known: Sequence[str], entry: str
    ) -> None:
        for key in body:
            if key not in known:
                raise self.fail(entry, key, f"unknown key (known: {', '.join(known)})")

    def table(self, body: Mapping[str, Any], key: str, entry: str) -> dict[str, Any]:
        value = body.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(entry, key, "must be a table")
        return value

    def tenants(self, body: Mapping[str, Any], entry: str) -> frozenset[str] | None:
        if "tenants" not in body:
            return None
        value = body["tenants"]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(
                entry, "tenants", "must be a list of tenant slugs (strings)"
            )
        if not value:
            raise self.fail(
                entry, "tenants", "an empty list admits no tenant; leave it out for all"
            )
        for slug in value:
            if not _TENANT.fullmatch(slug):
                raise self.fail(entry, "tenants", f"{slug!r} is not a tenant slug")
        return frozenset(value)

    def names(
        self, body: Mapping[str, Any], key: str, entry: str
    ) -> frozenset[str] | None:
        if key not in body:
            return None
        value = body[key]
        if not isinstance(value, list) or not all(
            isinstance(v, str) and v for v in value
        ):
            raise self.fail(
                entry, key, "must be a list of tool names (non-empty strings)"
            )
        if len(set(value)) != len(value):
            raise self.fail(entry, key, "names a tool twice")
        return frozenset(value)

    def version(self, body: Mapping[str, Any], entry: str) -> str | None:
        value = body.get("protocol_version")
        if value is None or value in mcpclient.KNOWN_VERSIONS:
            return value
        raise self.fail(
            entry,
            "protocol_version",
            f"{value!r} is not a known version ({', '.join(mcpclient.KNOWN_VERSIONS)})",
        )

    def seconds(
        self, body: Mapping[str, Any], key: str, entry: str, default: float
    ) -> float:
        value = body.get(key, default)
        if (
            not isinstance(value, int | float)
            or isinstance(value, bool)
            or not math.isfinite(value)
            or not 0 < value <= MAX_TIMEOUT
        ):
            raise self.fail(
                entry,
                key,
                f"must be a number of seconds, > 0 and <= {MAX_TIMEOUT:g}, got {value!r}",
            )
        return float(value)

    def concurrency(self, body: Mapping[str, Any], entry: str) -> int:
        value = body.get("max_concurrency", DEFAULT_MAX_CONCURRENCY)
        if (
            not isinstance(value, int)
            or isinstance(value, bool)
            or not 1 <= value <= MAX_CONCURRENCY
        ):
            raise self.fail(
                entry,
                "max_concurrency",
                f"must be an integer from 1 to {MAX_CONCURRENCY}, got {value!r}",
            )
        return value

    def command(self, body: Mapping[str, Any], entry: str) -> tuple[str, ...]:
        if "command" not in body:
            raise self.fail(entry, "command", "required for transport 'stdio'")
        value = body["command"]
        if (
            not isinstance(value, list)
            or not value
            or not all(isinstance(v, str) for v in value)
        ):
            raise self.fail(
                entry,
                "command",
                "must be a non-empty list of strings (program, args...)",
            )
        if any("\0" in v for v in value):
            raise self.fail(entry, "command", "contains a NUL character")
        command = tuple(self.expand(v, entry, "command") for v in value)
        program = command[0]
        if not program.strip():
            raise self.fail(entry, "command", "the program (first element) is empty")
        # A bare name is looked up on PATH when the server starts; a path must be absolute so
        # the meaning does not depend on the worker's current directory.
        if "/" in program and not Path(program).is_absolute():
            raise self.fail(
                entry,
                "command",
                f"program {program!r} must be a bare name (found on PATH) or an absolute path",
            )
        return command

    def env_names(self, body: Mapping[str, Any], entry: str) -> tuple[str, ...]:
        value = body.get("env", [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.fail(
                entry, "env", "must be a list of environment variable names"
            )
        for name in value:
            if not _ENV_NAME.fullmatch(name):
                raise self.fail(entry, "env", f"{name!r} is not a variable name")
            if name in APP_SECRETS:
                raise self.fail(
                    entry,
                    "env",
                    f"{name} is the app's own secret and never reaches a server",
                )
        if len(set(value)) != len(value):
            raise self.fail(entry, "env", "names a variable twice")
        return tuple(value)

    def url(self, body: Mapping[str, Any], entry: str) -> str:
        if "url" not in body:
            raise self.fail(entry, "url", "required for transport 'http'")
        value = body["url"]
        if not isinstance(value, str) or not value:
            raise self.fail(entry, "url", "must be a non-empty string")
        try:
            parsed = httpx.URL(value)
        except httpx.InvalidURL as exc:
            raise self.fail(entry, "url", f"not a URL: {exc}") from exc
        if parsed.scheme not in ("http", "https"):
            raise self.fail(
                entry, "url", f"scheme must be http or https, got {parsed.scheme!r}"
            )
        if not parsed.host:
            raise self.fail(entry, "url", "has no host")
        if parsed.userinfo:
            raise self.fail(
                entry, "url", "must not carry credentials; name a variable in auth_env"
            )
        if parsed.fragment:
            raise self.fail(entry, "url", "must not have a fragment")
        return value

    def auth_env(self, body: Mapping[str, Any], entry: str) -> str | None:
        value = body.get("auth_env")
        if value is None:
            return None
        if not isinstance(value, str) or not _ENV_NAME.fullmatch(value):
            raise self.fail(
                entry, "auth_env", f"must be a variable name, got {value!r}"
            )
        if value in APP_SECRETS:
            raise self.fail(
                entry,
                "auth_env",
                f"{value} is the app's own secret and never leaves it",
            )
        return value

    def oauth(self, body: Mapping[str, Any], entry: str) -> OAuthConfig | None:
        if "auth" not in body:
            return None
        value = body["auth"]
        if not isinstance(value, dict):
            raise self.fail(entry, "auth", "must be a table")
        if "auth_env" in body:
            raise self.fail(entry, "auth", "give either auth or auth_env, not both")
        for key in value:
            if key not in _OAUTH_KEYS:
                raise self.fail(
                    entry,
                    f"auth.{key}",
                    f"unknown key (known: {', '.join(_OAUTH_KEYS)})",
                )
        if value.get("type") != "oauth":
            raise self.fail(
                entry, "auth.type", f'must be "oauth", got {value.get("type")!r}'
            )
        grant = value.get("grant", "client_credentials")
        if grant not in ("client_credentials", "connected"):
            raise self.fail(
                entry,
                "auth.grant",
                f'must be "client_credentials" or "connected", got {grant!r}',
            )
        names: dict[str, str | None] = {}
        for key in ("client_id_env", "client_secret_env", "private_key_env"):
            raw = value.get(key)
            if raw is None:
                names[key] = None
                continue
            if not isinstance(raw, str) or not _ENV_NAME.fullmatch(raw):
                raise self.fail(
                    entry,
                    f"auth.{key}",
                    f"must be a variable name (never the value), got a {type(raw).__name__}"
                    if not isinstance(raw, str)
                    else "must be a variable name (never the value)",
                )
            if raw in APP_SECRETS:
                raise self.fail(
                    entry,
                    f"auth.{key}",
                    f"{raw} is the app's own secret and never leaves it",
                )
            names[key] = raw
        scope = value.get("scope")
        if scope is not None and (not isinstance(scope, str) or not scope.strip()):
            raise self.fail(entry, "auth.scope", "must be a non-empty string")
        if grant == "client_credentials":
            if names["client_id_env"] is None:
                raise self.fail(
                    entry,
                    "auth.client_id_env",
                    "required for grant 'client_credentials'",
                )
            if (names["client_secret_env"] is None) == (
                names["private_key_env"] is None
            ):
                raise self.fail(
                    entry,
                    "auth.client_secret_env",
                    "give exactly one of client_secret_env and private_key_env",
                )
        return OAuthConfig(
            grant=grant,
            client_id_env=names["client_id_env"],
            client_secret_env=names["client_secret_env"],
            private_key_env=names["private_key_env"],
            scope=scope,
        )

    def expand(self, value: str, entry: str, field: str) -> str:
        def one(match: re.Match[str]) -> str:
            key = match.group(1)
            if key == "python":
                return sys.executable
            if key == "here":
                return self.here
            raise self.fail(
                entry,
                field,
                f"unknown placeholder {{{key}}} (known: {{python}}, {{here}})",
            )

        return _PLACEHOLDER.sub(one, value)


def _name_reason() -> str:
    return "the name must be 1-63 lowercase letters, digits, '-' or '_', starting with a letter or digit"


# --- demo environments -------------------------------------------------------------------------


def bundled_scenarios_dir() -> Path | None:
    """The bundled scenarios folder (mcpservers/scenarios), found without importing mcpservers."""
    spec = find_spec("mcpservers")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "scenarios"


def demo_environment_name(scenario: str) -> str:
    """A neutral, stable name for a scenario's environment: `demo-` and 6 hex digits of a hash."""
    digest = hashlib.sha256(
        f"agentops demo environment:{scenario}".encode()
    ).hexdigest()
    return f"demo-{digest[:6]}"


def _demo_prefix(server: str) -> tuple[str, ...]:
    # Through the launcher, so the worker's fork server can start it (diagnosis/engine/forkserver.py).
    return (sys.executable, "-m", LAUNCHER_MODULE, server)


def demo_environments(
    root: Path,
    *,
    tenants: frozenset[str] | None = None,
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
    call_timeout: float = DEFAULT_CALL_TIMEOUT,
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
    protocol_version: str | None = None,
) -> list[Environment]:
    """One environment per scenario folder under `root` (a folder with an incident.json).

    Raises:
        ValueError: an incident.json without a title or with malformed `labels` (not an object
            of strings within diagnosis.incident_labels' bounds), or two scenarios whose names
            collide.
    """
    out: dict[str, Environment] = {}
    for folder in sorted(root.iterdir()):
        if folder.name[0] in "._" or not (folder / "incident.json").is_file():
            continue
        try:
            incident = json.loads(
                (folder / "incident.json").read_text(encoding="utf-8")
            )
        except (OSError, ValueError) as exc:
            raise ValueError(f"{folder / 'incident.json'}: unreadable: {exc}") from exc
        title = incident.get("title") if isinstance(incident, dict) else None
        if not isinstance(title, str) or not title:
            raise ValueError(f"{folder / 'incident.json'}: no title")
        problem = labels_problem(incident.get("labels", {}))
        if problem is not None:
            raise ValueError(f"{folder / 'incident.json'}: {problem}")
        name = demo_environment_name(folder.name)
        if name in out:
            raise ValueError(
                f"scenarios {folder.name!r} and another share the name {name}"
            )
        servers = tuple(
            ServerEntry(
                name=server,
                transport="stdio",
                command=(*_demo_prefix(server), *_demo_args(server, folder)),
                protocol_version=protocol_version,
                connect_timeout=connect_timeout,
                call_timeout=call_timeout,
                max_concurrency=max_concurrency,
                approval_required=_DEMO_APPROVALS.get(server, frozenset()),
            )
            for server in demo_servers(folder)
        )
        out[name] = Environment(
            name=name,
            description=title,
            servers=servers,
            tenants=tenants,
            scenario=folder.name,
            scenario_path=str(folder),
        )
    return [out[name] for name in sorted(out)]


# The actions server's writes need a person even if a server's annotations said otherwise.
_DEMO_APPROVALS = {"actions": frozenset({"restart_workload", "scale_workload"})}


def demo_servers(folder: Path) -> tuple[str, ...]:
    """The servers of a scenario folder's demo environment: those it has data for
    (`mcpservers.scenario_folder`, the one owner of that rule), and actions.

    Raises:
        ValueError: the folder's backend.json is unreadable or not an object.
    """
    return (*scenario_folder.data_servers(folder), "actions")


def _demo_args(server: str, folder: Path) -> tuple[str, ...]:
    if server in ("logs", "metrics", "runbooks", "kubernetes"):
        # A path, not the slug: `--scenario` takes either, and a path also serves a custom root.
        return ("--scenario", str(folder))
    if server == "netcheck":
        return _DEMO_NETCHECK_ARGS
    return ()


# --- to mcpclient --------------------------------------------------------------------------------


def launched(entry: ServerEntry) -> bool:
    """Whether `entry` starts a bundled server through `mcpservers.launch` (a fork server can)."""
    command = entry.command or ()
    return entry.transport == "stdio" and tuple(command[1:3]) == ("-m", LAUNCHER_MODULE)


def child_env(entry: ServerEntry, environ: Mapping[str, str]) -> dict[str, str]:
    """The variables a stdio entry passes on top of mcpclient's minimal default: LANG, then `env`;
    a launched one also the fork server's socket, when `environ` names one."""
    names = (*CHILD_ENV, *entry.env, *((FORKSERVER_ENV,) if launched(entry) else ()))
    return {name: environ[name] for name in names if name in environ}


def client_server(
    entry: ServerEntry,
    *,
    environ: Mapping[str, str] | None = None,
    http_client: httpx.AsyncClient | None = None,
    auth: httpx.Auth | None = None,
) -> mcpclient.StdioServer | mcpclient.HttpServer:
    """The mcpclient server spec for `entry`; HTTP auth is read from `environ` now.

    `auth`: the stored admin-connected grant's httpx.Auth (diagnosis.oauth_grants); without
    it an OAuth entry's client-credentials grant is built from `environ`.

    Raises:
        MissingSecret: `auth_env` is set but the variable is unset or empty.
        MissingGrant: a connected-grant entry and no `auth`.
    """
    environ = os.environ if environ is None else environ
    if entry.transport == "stdio":
        assert entry.command is not None  # the loader guarantees it
        return mcpclient.StdioServer(
            command=list(entry.command),
            env=child_env(entry, environ),
            inherit_env=False,
            name=entry.name,
        )
    assert entry.url is not None
    headers: dict[str, str] = {}
    if auth is None and entry.oauth is not None:
        auth = oauth_auth(entry, environ)
    if entry.auth_env is not None:
        token = environ.get(entry.auth_env, "").strip()
        if not token:
            raise MissingSecret(entry.name, entry.auth_env)
        headers["Authorization"] = f"Bearer {token}"
    return mcpclient.HttpServer(
        url=entry.url,
        headers=headers or None,
        name=entry.name,
        http_client=http_client,
        auth=auth,
    )


def oauth_auth(entry: ServerEntry, environ: Mapping[str, str]) -> httpx.Auth:
    """The httpx.Auth for an `auth = {type = "oauth"}` entry's client-credentials grant.

    Raises:
        MissingSecret: a named variable is unset or empty, or the key file is unreadable.
        MissingGrant: the entry uses the admin-connected grant (the web app's store supplies it).
    """
    config = entry.oauth
    assert config is not None
    if config.grant == "connected":
        raise MissingGrant(entry.name)

    def value(name: str) -> str:
        found = environ.get(name, "").strip()
        if not found:
            raise MissingSecret(entry.name, name)
        return found

    assert config.client_id_env is not None  # the loader guarantees it
    client_id = value(config.client_id_env)
    if config.client_secret_env is not None:
        return mcpclient.ClientCredentials(
            client_id, client_secret=value(config.client_secret_env), scope=config.scope
        )
    assert config.private_key_env is not None
    key_path = value(config.private_key_env)
    try:
        private_key = Path(key_path).read_text()
    except OSError as exc:
        raise MissingSecret(entry.name, config.private_key_env) from exc
    return mcpclient.ClientCredentials(
        client_id, private_key=private_key, scope=config.scope
    )


@asynccontextmanager
async def connect_server(
    entry: ServerEntry,
    *,
    environ: Mapping[str, str] | None = None,
    http_client: httpx.AsyncClient | None = None,
    observer: Callable[[mcpclient.CallRecord], None] | None = None,
    breaker: mcpclient.CircuitBreaker | None = None,
    auth: httpx.Auth | None = None,
) -> AsyncIterator[mcpclient.ClientSession]:
    """`mcpclient.connect` with the entry's version pin, connect timeout and concurrency bound.

    `breaker`: one shared by every session to the same server (the process's session pool
    keeps one per server, so a replaced session keeps its server's failure count).

    The session's default call timeout is `connect_timeout`; pass `entry.call_timeout` (trimmed
    to the budget) to each `call_tool`.

    Raises:
        MissingSecret: see `client_server`.
        mcpclient.McpError: the server could not be started, reached or spoken to.
    """
    spec = client_server(entry, environ=environ, http_client=http_client, auth=auth)
    async with mcpclient.connect(
        spec,
        protocol_version=entry.protocol_version,
        timeout=entry.connect_timeout,
        max_concurrency=entry.max_concurrency,
        observer=observer,
        breaker=breaker,
    ) as session:
        yield session
