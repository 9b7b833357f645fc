"""A mesh route to a subset that selects no pod (`mesh_subsets`), and a workload failing because a name
it needs does not resolve (`lookup_victims`). Names, hosts and wordings are invented."""

from itertools import count

import pytest

from reasoning import layers
from reasoning.layered.candidates import Board
from reasoning.layered.facts import Facts
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.faults import Diagnosis
from reasoning.layered.kubernetes.finding import Finding
from reasoning.layered.lookup_victims import lookup_victims
from reasoning.layered.mesh_subsets import mesh_subsets, subset_failures
from reasoning.observations import IncidentBrief, Investigation, Observation

from .kubernetes.answers import NS, listing, pod_logs

_SPANS = count(1)
BASELINE = {"start": "2030-01-01T09:00:00Z", "end": "2030-01-01T10:00:00Z"}


def _obs(tool: str, arguments: dict, result: dict, server: str = "logs") -> Observation:
    return Observation(
        span_id=f"m{next(_SPANS)}",
        agent=server,
        server=server,
        tool=tool,
        arguments=arguments,
        is_ok=True,
        result=result,
    )


def _group(message: str, n: int = 40, before: int = 0) -> dict:
    return {
        "signature": message,
        "sample": message,
        "count": n,
        "first_seen": "2030-01-01T10:15:00Z",
        "before": before,
    }


def _errors(service: str, *, top=(), warnings=()) -> Observation:
    return _obs(
        "top_errors",
        {"service": service, "warnings": True},
        {
            "service": service,
            "top": list(top),
            "warnings": list(warnings),
            "baseline": BASELINE,
        },
    )


def _health(service: str, verdict: str) -> Observation:
    return _obs(
        "service_health",
        {"service": service},
        {"verdict": verdict, "summary": f"{verdict}: all signals", "findings": []},
        server="metrics",
    )


def _board(service: str, *observations: Observation) -> Board:
    inv = Investigation(
        incident=IncidentBrief(
            title=f"{service} failing", service=service, severity="sev2", symptoms=()
        ),
        tools=[],
        observations=list(observations),
    )
    return Board(inv, Facts.read(inv.observations))


# --- mesh subsets --------------------------------------------------------------------------------


def _sidecar(subset: str, host: str, flag: str = "UH no_healthy_upstream") -> str:
    return (
        f'[2030-01-01T10:20:00.000Z] "GET /v3/quote HTTP/1.1" 503 {flag} - "-" 0 19 0 - "-" '
        f'"okhttp/4.12" "9f1c" "{host}:9000" "-" outbound|9000|{subset}|{host} - 10.9.0.4:9000'
    )


CALLER_LINE = (
    "quote fetch failed: GET http://tariffs.billing.svc.cluster.local:9000/v3/quote: "
    "503 Service Unavailable: no healthy upstream"
)


@pytest.mark.rule("board.mesh-subset")
@pytest.mark.parametrize(
    ("subset", "flag"),
    [
        ("canary", "UH no_healthy_upstream"),
        ("stable", "UH no_healthy_upstream"),
        ("v7", "NC cluster_not_found"),
    ],
)
def test_sidecars_failing_on_a_subset_while_the_callee_serves_blame_its_destination_rule(
    subset, flag
):
    host = "tariffs.billing.svc.cluster.local"
    board = _board(
        "invoicing",
        _errors("envoy-sidecar", warnings=[_group(_sidecar(subset, host, flag), 300)]),
        _errors("invoicing-web", top=[_group(CALLER_LINE, 290)]),
        _health("tariffs", "healthy"),
    )
    for name in ("envoy-sidecar", "invoicing-web"):
        own = board.get(layers.APPLICATION, name, f"{name} itself fails")
        own.status, own.confidence = "likely", 0.55
    mesh_subsets(board)

    c = board.candidates[f"{layers.CONNECT}:destinationrule/tariffs"]
    assert (c.status, c.confidence) == ("confirmed", 0.9)
    assert subset in c.statement
    assert any(f"|{subset}|" in e.fact for e in c.evidence)
    assert any(e.tool == "service_health" for e in c.evidence)
    for name in ("envoy-sidecar", "invoicing-web"):
        victim = board.candidates[f"{layers.APPLICATION}:{name}"]
        assert victim.confidence <= 0.4 and c.id in victim.statement


@pytest.mark.rule("board.mesh-subset")
def test_the_control_plane_saying_the_subset_has_no_endpoint_confirms_it():
    host = "ledger.money.svc.cluster.local"
    control = f"warn\tads\tcluster outbound|9000|blue|{host} has 0 endpoints (subset selector track=blue)"
    board = _board(
        "payouts",
        _errors("mesh-proxy", warnings=[_group(_sidecar("blue", host), 120)]),
        _errors("pilot", warnings=[_group(control, 4)]),
    )
    mesh_subsets(board)
    c = board.candidates[f"{layers.CONNECT}:destinationrule/ledger"]
    assert c.status == "confirmed"
    assert any("0 endpoints" in e.fact for e in c.evidence)


@pytest.mark.rule("board.mesh-subset")
def test_no_subset_a_stale_failure_or_no_corroboration_is_not_a_confirmed_subset_fault():
    host = "stock.depot.svc.cluster.local"
    plain = _sidecar("", host).replace("outbound|9000||", "outbound|9000||")
    board = _board("depot", _errors("sidecar", warnings=[_group(plain, 50)]))
    assert subset_failures(board) == []
    mesh_subsets(board)
    assert not any(
        c.id.startswith("connect:destinationrule") for c in board.candidates.values()
    )

    stale = _board(
        "depot",
        _errors("sidecar", warnings=[_group(_sidecar("v2", host), 50, before=40)]),
        _health("stock", "healthy"),
    )
    mesh_subsets(stale)
    assert "connect:destinationrule/stock" not in stale.candidates

    alone = _board(
        "depot", _errors("sidecar", warnings=[_group(_sidecar("v2", host), 50)])
    )
    mesh_subsets(alone)
    lead = alone.candidates["connect:destinationrule/stock"]
    assert (lead.status, lead.confidence) == ("likely", 0.6)


@pytest.mark.timeout(60)
def test_huge_sidecar_lines_are_read_fast():
    host = "a" * 60 + ".svc.cluster.local"
    noise = "outbound|" * 50_000 + " UH " + "|" * 100_000
    line = _sidecar("v1", host) + " " + "x|" * 200_000
    board = _board(
        "web",
        _errors("sidecar", warnings=[_group(noise, 10), _group(line, 10)]),
        _errors("pilot", warnings=[_group("0 endpoints " + "outbound|1|" * 50_000, 1)]),
    )
    mesh_subsets(board)
    assert f"{layers.CONNECT}:destinationrule/{'a' * 60}" in board.candidates


# --- a name that does not resolve behind a failing workload --------------------------------------

LOOKUP = 'sqlalchemy.exc.OperationalError: could not translate host name "vault-db.corp.example" to address: Name or service not known'


def _cluster(log: str) -> Cluster:
    return Cluster.read(
        [
            listing(
                "pods",
                ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS"),
                (
                    "ledger-api-5c6d7-aaaaa",
                    "0/1",
                    "Running",
                    "0",
                    "20m",
                    "10.1.0.5",
                    "node-a",
                    "app=ledger-api",
                ),
            ),
            listing(
                "deployments",
                ("NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "SELECTOR"),
                ("ledger-api", "0/1", "1", "0", "90d", "app=ledger-api"),
            ),
            listing(
                "services",
                (
                    "NAME",
                    "TYPE",
                    "CLUSTER-IP",
                    "EXTERNAL-IP",
                    "PORT(S)",
                    "AGE",
                    "SELECTOR",
                ),
                (
                    "ledger-api",
                    "ClusterIP",
                    "10.0.3.3",
                    "<none>",
                    "80/TCP",
                    "90d",
                    "app=ledger-api",
                ),
            ),
            pod_logs("ledger-api-5c6d7-aaaaa", f"booting\n{log}\n"),
        ]
    )


def _unhealthy() -> Finding:
    f = Finding(
        "runtime",
        "Unhealthy",
        "deployment/ledger-api",
        layers.APPLICATION,
        "deployment/ledger-api's probes fail: Readiness probe failed: HTTP probe failed with statuscode: 503",
        NS,
    )
    f.is_relevant = True
    return f


def _lookup_board(log: str, *findings: Finding, logs_line: str = LOOKUP) -> Board:
    board = _board("ledger", _errors("ledger-api", top=[_group(logs_line, 200)]))
    board.cluster = Diagnosis(_cluster(log), findings=list(findings))
    workload = board.get(layers.APPLICATION, "deployment/ledger-api", "probes fail")
    workload.status, workload.confidence = "confirmed", 0.92
    dns = board.get(
        layers.DNS,
        "vault-db.corp.example",
        "DNS resolution of vault-db.corp.example fails",
    )
    dns.cite(board.inv.observations[0], "top_errors(ledger-api): " + logs_line)
    dns.status, dns.confidence = "likely", 0.6
    return board


@pytest.mark.rule("board.lookup-victims")
@pytest.mark.parametrize(
    "line",
    [
        LOOKUP,
        "getaddrinfo ENOTFOUND vault-db.corp.example",
        "java.net.UnknownHostException: vault-db.corp.example: Name or service not known",
        "dial tcp: lookup vault-db.corp.example on 10.0.0.10:53: no such host",
    ],
)
def test_a_workload_failing_on_a_name_that_does_not_resolve_is_its_victim(line):
    board = _lookup_board(line, _unhealthy())
    lookup_victims(board)
    dns = board.candidates["dns:vault-db.corp.example"]
    workload = board.candidates["application:deployment/ledger-api"]
    assert (dns.status, dns.confidence) == ("confirmed", 0.9)
    assert {"logs", "kubernetes"} <= dns.sources
    assert workload.status == "likely" and workload.confidence <= 0.4
    assert dns.id in workload.statement


@pytest.mark.rule("board.lookup-victims")
def test_cluster_names_and_a_dns_fault_of_the_cluster_are_left_to_their_own_rules():
    inside = 'could not translate host name "vault-db.data.svc.cluster.local": Name or service not known'
    board = _lookup_board(inside, _unhealthy())
    lookup_victims(board)
    assert board.candidates["application:deployment/ledger-api"].confidence == 0.92

    resolver = Finding(
        "runtime", "x", "deployment/ledger-api-dns", layers.DNS, "resolver", NS
    )
    board = _lookup_board(LOOKUP, _unhealthy(), resolver)
    lookup_victims(board)
    assert board.candidates["application:deployment/ledger-api"].confidence == 0.92

    board = _lookup_board(LOOKUP, _unhealthy())
    zone = board.get(layers.DNS, "corp.example", "a zone shadows it")
    zone.status, zone.confidence = "confirmed", 0.9
    lookup_victims(board)
    assert board.candidates["dns:vault-db.corp.example"].status == "likely"


@pytest.mark.timeout(60)
def test_a_huge_pod_log_of_lookup_failures_is_read_fast():
    flood = (LOOKUP + " " + "a." * 5000 + "\n") * 3000
    board = _lookup_board(flood, _unhealthy())
    lookup_victims(board)
    assert board.candidates["dns:vault-db.corp.example"].status == "confirmed"


# --- a credential refused because its sync controller stopped --------------------------------------

from reasoning.layered.secret_sync import stale_secret  # noqa: E402

REFUSAL = 'FATAL:  password authentication failed for user "ledger_rw"'
SYNC_DOWN = (
    'E0301 reflector.go:158] Failed to watch *v1.SecretProviderClass: Get "https://172.30.0.1:443/apis": '
    "dial tcp 172.30.0.1:443: i/o timeout"
)


def _survey(*groups: dict) -> Observation:
    return _obs(
        "top_errors",
        {"service": "", "warnings": True},
        {"service": "", "top": list(groups), "warnings": [], "baseline": BASELINE},
    )


def _secret_board(sync_line: str, service: str, *, before: int = 30) -> Board:
    board = _board(
        "ledger",
        _errors("mariadb", top=[_group(REFUSAL, 200)]),
        _errors(
            "ledger-api", top=[_group(f"ConnectionNotEstablished: {REFUSAL}", 200)]
        ),
        _survey({**_group(sync_line, 24, before=before), "service": service}),
    )
    for name, conf in (("mariadb", 0.5), ("ledger-api", 0.35)):
        c = board.get(layers.APPLICATION, name, f"{name} itself fails")
        c.status, c.confidence = "likely", conf
    return board


@pytest.mark.rule("board.stale-secret")
@pytest.mark.parametrize(
    ("service", "line", "layer"),
    [
        ("csi-secrets-store", SYNC_DOWN, layers.CONNECT),
        (
            "secret-syncer",
            "sync secrets failed: lookup vault.corp.example: no such host",
            layers.DNS,
        ),
        ("vault-agent", "error renewing token: permission denied", layers.APPLICATION),
    ],
)
def test_refusals_after_a_sync_controller_stopped_blame_the_controller(
    service, line, layer
):
    board = _secret_board(line, service)
    stale_secret(board)
    cause = board.candidates[f"{layer}:{service}"]
    assert (cause.status, cause.confidence) == ("confirmed", 0.86)
    for name in ("mariadb", "ledger-api"):
        victim = board.candidates[f"{layers.APPLICATION}:{name}"]
        assert victim.confidence <= 0.4 and cause.id in victim.statement


@pytest.mark.rule("board.stale-secret")
def test_no_controller_or_one_failing_only_after_the_refusals_blames_nothing():
    board = _secret_board("payment worker failed: timeout", "batch-runner")
    stale_secret(board)
    assert board.candidates["application:mariadb"].confidence == 0.5

    board = _secret_board(SYNC_DOWN, "csi-secrets-store", before=0)
    for group in board.facts.errors["mariadb"].groups:
        assert group.first_seen  # the refusals and the controller began together
    stale_secret(board)
    assert "connect:csi-secrets-store" not in board.candidates


@pytest.mark.timeout(60)
def test_huge_refusal_and_sync_lines_are_read_fast():
    board = _secret_board(
        "ExternalSecret sync timeout " + "sync secret " * 30_000, "syncd"
    )
    stale_secret(board)
    assert any(c.component == "syncd" for c in board.candidates.values())


# --- a Service selecting read-only replicas ------------------------------------------------------

from reasoning.layered.role_selectors import role_selectors  # noqa: E402

POD_HEAD = ("NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE", "LABELS")
SVC_HEAD = ("NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR")


def _store(selector: str, roles: tuple[str, ...], ip: str = "10.0.5.5") -> Cluster:
    return Cluster.read(
        [
            listing(
                "pods",
                POD_HEAD,
                *(
                    (
                        f"cart-db-{i}",
                        "1/1",
                        "Running",
                        "0",
                        "30m",
                        f"10.1.0.{i + 2}",
                        "node-a",
                        f"app=cart-db,member-role={role}",
                    )
                    for i, role in enumerate(roles)
                ),
            ),
            listing(
                "services",
                SVC_HEAD,
                ("cart-db", "ClusterIP", ip, "<none>", "5432/TCP", "30m", selector),
            ),
        ]
    )


@pytest.mark.rule("board.role-selector")
@pytest.mark.parametrize(
    "line",
    [
        "psycopg.errors.ReadOnlySqlTransaction: cannot execute UPDATE in a read-only transaction",
        "READONLY You can't write against a read only replica.",
        "MongoServerError: NotWritablePrimary",
    ],
)
def test_writes_refused_by_replicas_blame_a_service_selecting_every_member(line):
    board = _board("cart", _errors("cart-api", top=[_group(line, 300)]))
    board.cluster = Diagnosis(_store("app=cart-db", ("primary", "standby", "standby")))
    own = board.get(layers.APPLICATION, "cart-api", "cart-api itself fails")
    own.status, own.confidence = "likely", 0.5
    role_selectors(board)
    c = board.candidates["connect:service/cart-db"]
    assert (c.status, c.confidence) == ("confirmed", 0.9)
    assert "member-role" in c.statement
    assert own.confidence <= 0.4


@pytest.mark.rule("board.role-selector")
def test_a_selector_with_the_role_a_headless_service_or_no_refusal_blames_nothing():
    line = "READONLY You can't write against a read only replica."
    for cluster in (
        _store("app=cart-db,member-role=primary", ("primary", "standby")),
        _store("app=cart-db", ("primary", "standby"), ip="None"),
        _store("app=cart-db", ("blue", "green")),
    ):
        board = _board("cart", _errors("cart-api", top=[_group(line, 300)]))
        board.cluster = Diagnosis(cluster)
        role_selectors(board)
        assert "connect:service/cart-db" not in board.candidates
    board = _board("cart", _errors("cart-api", top=[_group("timeout", 300)]))
    board.cluster = Diagnosis(_store("app=cart-db", ("primary", "standby")))
    role_selectors(board)
    assert "connect:service/cart-db" not in board.candidates


@pytest.mark.timeout(60)
def test_a_huge_refusal_line_is_read_fast():
    line = "not " * 100_000 + "READONLY" + " x" * 100_000
    board = _board("cart", _errors("cart-api", top=[_group(line, 3)]))
    board.cluster = Diagnosis(_store("app=cart-db", ("primary", "standby")))
    role_selectors(board)
