"""A record writer deleting the record of a name that then fails to resolve (issue 21 classes 1 and 4), with invented names:
the writer (an external-dns with another cluster's owner id, a record janitor) is the DNS fault, not
the name nor the service behind it (`dns_records.deleted_records`).
"""

import pytest

from reasoning.layered.dns_records import (
    _OWNER,
    _deleted_name,
    is_ci_runner,
    search_pattern,
)
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    NO_NETCHECK,
    group,
    logged,
    run_with_schemas,
)

SHOP_FAILS = "synthetic GET https://shop.quokka.dev/healthz failed: getaddrinfo ENOTFOUND shop.quokka.dev"
LEDGER_FAILS = (
    "settle batch 88 failed: Post https://ledger.fintrail.io/v2/settle: "
    "dial tcp: lookup ledger.fintrail.io on 10.0.0.10:53: no such host"
)


def _lines(*entries):
    return {
        "lines": [
            {"service": s, "time": t, "level": lvl, "message": m, "labels": {}}
            for s, t, lvl, m in entries
        ]
    }


def _world(caller, failure, *entries):
    return World(
        {
            ("service_health", caller): health(caller, "unhealthy", FAILING),
            ("top_errors", caller): logged(
                caller,
                errors=[group(failure, count=40, first_seen="2030-01-01T10:12:00Z")],
            ),
            ("search_logs", ""): _lines(*entries),
        }
    )


def _run(world, service):
    _, _, report = run_with_schemas(
        world, incident(service, "customers cannot reach us"), names=NO_NETCHECK
    )
    return report


@pytest.mark.rule("board.deleted-record")
def test_an_external_dns_with_a_copied_owner_id_deleting_the_record_is_the_fault():
    world = _world(
        "uptime-checker",
        SHOP_FAILS,
        (
            "dns-sync-blue",
            "2030-01-01T10:11:40Z",
            "info",
            'time="2030-01-01T10:11:40Z" level=info msg="Desired change: DELETE '
            'shop.quokka.dev A [Id: /hostedzone/Z0QK4411ABCD]"',
        ),
        (
            "dns-sync-blue",
            "2030-01-01T10:11:39Z",
            "info",
            'msg="Desired change: DELETE a-shop.quokka.dev TXT [Id: /hostedzone/Z0QK4411ABCD]"',
        ),
        (
            "pulumi",
            "2030-01-01T10:05:00Z",
            "info",
            "up blue: external-dns chart values txtOwnerId=green-1, policy=sync, "
            "domainFilters=[quokka.dev]",
        ),
    )

    report = _run(world, "uptime-checker")

    searched = [a["query"] for t, a in world.arguments if t == "search_logs"]
    assert any("delet" in q and "shop\\.quokka\\.dev" in q for q in searched)
    assert report.top.id == "dns:dns-sync-blue"
    assert report.top.status == "confirmed" and report.conclusive
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "Desired change: DELETE shop.quokka.dev A" in facts
    assert "txtOwnerId=green-1" in report.top.statement
    leaf = next(h for h in report.hypotheses if h.id == "dns:shop.quokka.dev")
    assert leaf.status == "likely" and leaf.confidence <= 0.4


@pytest.mark.rule("board.deleted-record")
def test_a_record_janitor_deleting_a_record_set_is_the_fault():
    world = _world(
        "settlement",
        LEDGER_FAILS,
        (
            "record-janitor",
            "2030-01-01T10:10:00Z",
            "info",
            "Deleting record set ledger.fintrail.io. CNAME in zone fintrail-public "
            "(no owning source found)",
        ),
    )

    report = _run(world, "settlement")

    assert report.top.id == "dns:record-janitor"
    assert "ledger.fintrail.io" in report.top.statement


@pytest.mark.rule("board.pushed-deletion")
def test_a_ci_runner_pushing_a_zone_without_the_record_blames_the_record_not_the_runner():
    world = _world(
        "settlement",
        LEDGER_FAILS,
        (
            "gitlab-ci",
            "2030-01-01T10:10:00Z",
            "info",
            "job 4411 dns:apply (MR !12 'add SPF for mailer'): octodns-sync fintrail.io: "
            "Delete <CnameRecord CNAME 300, ledger.fintrail.io., lb-7.fintrail.net.> "
            "1 changes applied",
        ),
    )

    report = _run(world, "settlement")

    assert report.top.id == "dns:ledger.fintrail.io"
    assert report.top.status == "confirmed"
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "Delete <CnameRecord CNAME 300, ledger.fintrail.io." in facts
    assert all(h.id != "dns:gitlab-ci" for h in report.hypotheses)


@pytest.mark.rule("board.pushed-deletion")
def test_ci_runners_are_told_from_record_writers():
    for runner in (
        "github-actions",
        "jenkins",
        "atlantis",
        "buildkite-agent",
        "acme-ci",
    ):
        assert is_ci_runner(runner), runner
    for writer in (
        "external-dns",
        "dns-sync-blue",
        "record-janitor",
        "cicada",
        "octodns",
    ):
        assert not is_ci_runner(writer), writer


@pytest.mark.timeout(60)
def test_a_huge_service_name_is_no_ci_runner_quickly():
    assert not is_ci_runner("a-" * 200_000 + "x")
    assert not is_ci_runner("-" * 50 + "x" * 49)


def test_a_deletion_of_another_name_a_pool_removal_a_failed_delete_or_a_retirement_is_no_writer_fault():
    other = _world(
        "uptime-checker",
        SHOP_FAILS,
        (
            "dns-sync-blue",
            "2030-01-01T10:11:40Z",
            "info",
            'msg="Desired change: DELETE old-shop.quokka.io A [Id: /hostedzone/Z0QK4411ABCD]"',
        ),
    )
    pool = _world(
        "uptime-checker",
        SHOP_FAILS,
        (
            "edge-lb",
            "2030-01-01T10:11:40Z",
            "info",
            "removed shop.quokka.dev:443 from upstream pool after 3 failed health checks",
        ),
    )
    failed = _world(
        "uptime-checker",
        SHOP_FAILS,
        (
            "dns-sync-blue",
            "2030-01-01T10:11:40Z",
            "error",
            "failed to delete record shop.quokka.dev A: AccessDenied",
        ),
    )

    retired = _world(
        "uptime-checker",
        SHOP_FAILS,
        (
            "infra-pipeline",
            "2030-01-01T10:11:40Z",
            "info",
            "run 88 'decommission shop host, moved to the new cluster': "
            "record shop.quokka.dev A 10.4.0.9 deleted; instance shop-vm-2 terminated",
        ),
    )

    for world, writer in (
        (other, "dns-sync-blue"),
        (pool, "edge-lb"),
        (failed, "dns-sync-blue"),
        (retired, "infra-pipeline"),
    ):
        report = _run(world, "uptime-checker")
        assert all(h.id != f"dns:{writer}" for h in report.hypotheses)


def test_the_deleted_name_includes_ownership_companions_only():
    names = ["shop.quokka.dev"]
    assert _deleted_name("Del records: txt.shop.quokka.dev. TXT", names) == (
        "shop.quokka.dev"
    )
    assert _deleted_name("deletions: [shop.quokka.dev. A 300]", names) == (
        "shop.quokka.dev"
    )
    assert _deleted_name("DELETE myshop.quokka.dev A", names) is None
    assert _deleted_name("created record shop.quokka.dev A", names) is None
    assert "shop\\.quokka\\.dev" in search_pattern(names)
    assert _OWNER.search("--txt-owner-id=edge-7").group(2) == "edge-7"


@pytest.mark.timeout(60)
def test_hostile_lines_are_read_in_linear_time():
    for hostile in (
        "delete " + "a." * 100_000 + "record",
        "owner_id" + "=" * 200_000,
        "DELETE " + "x-" * 100_000 + "shop.quokka.dev A",
    ):
        _deleted_name(hostile, ["shop.quokka.dev"])
        _OWNER.search(hostile)


# --- a search domain's wildcard answering an outside name ----------------------------------------

PAY_FAILS = (
    'charge failed: Post "https://api.paystream.io/v1/charges": tls: failed to verify '
    "certificate: x509: certificate is valid for wiki.corp.lemonade.net, not api.paystream.io"
)
GEO_FAILS = (
    "geocode failed: GET http://maps.geofox.org/v2/lookup: dial tcp 10.12.0.40:80: "
    "connect: connection refused"
)


@pytest.mark.rule("board.search-domain-capture")
def test_a_coredns_answer_with_a_wildcard_search_domain_appended_is_the_zones_fault():
    world = _world(
        "checkout",
        PAY_FAILS,
        (
            "coredns",
            "2030-01-01T10:12:00Z",
            "info",
            '[INFO] 10.2.1.7:40211 - 5120 "A IN api.paystream.io.corp.lemonade.net. udp 60 '
            'false 512" NOERROR qr,aa,rd 98 0.0020s',
        ),
        (
            "infoblox",
            "2030-01-01T09:40:00Z",
            "info",
            "record *.corp.lemonade.net A 10.9.0.4 created by netops (wiki short links)",
        ),
    )

    report = _run(world, "checkout")

    assert report.top.id == "dns:*.corp.lemonade.net"
    assert report.top.status == "confirmed"
    facts = " ".join(e.fact for e in report.top.evidence)
    assert "api.paystream.io.corp.lemonade.net" in facts


@pytest.mark.rule("board.search-domain-capture")
def test_a_dnsmasq_reply_for_a_suffixed_name_without_a_wildcard_line_names_the_zone():
    world = _world(
        "dispatch",
        GEO_FAILS,
        (
            "dnsmasq",
            "2030-01-01T10:12:00Z",
            "info",
            "reply maps.geofox.org.branch.example.com is 10.12.0.40",
        ),
    )

    report = _run(world, "dispatch")

    assert report.top.id == "dns:branch.example.com"


def test_a_suffixed_lookup_answered_nxdomain_or_a_cluster_suffix_is_the_search_path_working():
    nx = _world(
        "checkout",
        PAY_FAILS,
        (
            "coredns",
            "2030-01-01T10:12:00Z",
            "info",
            '"A IN api.paystream.io.corp.lemonade.net. udp 60 false 512" NXDOMAIN qr,aa,rd',
        ),
    )
    cluster = _world(
        "checkout",
        PAY_FAILS,
        (
            "coredns",
            "2030-01-01T10:12:00Z",
            "info",
            '"A IN api.paystream.io.payments.svc.cluster.local. udp 60 false 512" NOERROR',
        ),
    )
    for world in (nx, cluster):
        report = _run(world, "checkout")
        assert all(
            not h.id.startswith("dns:") or "paystream" in h.id
            for h in report.hypotheses
        )
