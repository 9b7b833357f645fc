"""The rewording rules of `evaluate --variants` (diagnosis.evaluation_variants): each rule on its
own, determinism, a variant never equal to its original, and the variant folders `evaluate` runs."""

import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from diagnosis import evaluation_variants as variants
from diagnosis.registry import bundled_scenarios_dir, demo_environments

INCIDENT = {
    "title": "Orders cannot be placed: checkout-api 502 on POST /v2/checkout",
    "service": "checkout-api",
    "severity": "sev2",
    "symptoms": [
        "POST /v2/checkout returns 502 for about 70% of requests, since 14:05",
        "order-api pods restarted once",
    ],
    "description": "Alert CheckoutApiErrors fired for checkout-api in namespace orders. "
    "Customers see 'something went wrong'.",
    "started_offset_s": -1500,
    "window": {"start_offset_s": -2400, "end_offset_s": 0},
}


@pytest.mark.parametrize(
    ("service", "named"),
    [
        ("checkout-api", "checkout"),
        ("payments-gateway", "payments"),
        ("payments-gw", "payments"),
        ("mobile-bff", "mobile"),
        ("storefront-web", "storefront"),
        ("auth_service", "auth"),
        ("ledger.svc", "ledger"),
        ("cartservice", "cart"),
        ("api-gateway", "gateway"),  # "api" names nothing: the suffix stays
        ("frontend", "frontend"),
        ("adservice", "adservice"),  # "ad" is too short to be a name
        ("loki", "loki"),
    ],
)
def test_user_service_name_drops_the_technical_suffix(service, named):
    assert variants.user_service_name(service) == named


@pytest.mark.parametrize(
    ("service", "label"),
    [
        ("payments-api", "Payments API"),
        ("mobile-bff", "Mobile BFF"),
        ("orders_mcp", "Orders MCP"),
        ("frontend", "Frontend"),
        ("search.shop.internal", "Search Shop Internal"),
    ],
)
def test_label_alias(service, label):
    assert variants.label_alias(service) == label


@pytest.mark.parametrize(
    ("title", "short"),
    [
        ("Orders cannot be placed: checkout-api 502", "Orders cannot be"),
        ("Checkout slow, 503 after deploy", "Checkout slow"),
        ("Search down", "Search down"),
        ("Payments - refunds failing since noon", "Payments"),
    ],
)
def test_short_title(title, short):
    assert variants.short_title(title) == short


def test_alert_text_is_the_first_sentence():
    assert variants.alert_text(INCIDENT["description"]) == (
        "Alert CheckoutApiErrors fired for checkout-api in namespace orders"
    )
    assert variants.alert_text("  no full stop here ") == "no full stop here"
    assert variants.alert_text("x" * 300 + ".") == "x" * 200
    assert variants.alert_text("") == ""


def test_each_rule_rewords_only_its_fields():
    out = variants.reword(INCIDENT)
    # No labels: no alert-labels-only variant.
    assert list(out) == [r for r in variants.RULE_NAMES if r != "alert-labels-only"]
    assert out["user-name"] == {**INCIDENT, "service": "checkout"}
    assert out["label-alias"] == {**INCIDENT, "service": "Checkout API"}
    assert out["no-symptoms"] == {**INCIDENT, "symptoms": []}
    alert = "Alert CheckoutApiErrors fired for checkout-api in namespace orders"
    assert out["alert-only"] == {
        **INCIDENT,
        "title": alert,
        "description": alert,
        "symptoms": [],
    }
    assert out["short-title"] == {**INCIDENT, "title": "Orders cannot be"}
    assert out["hurried"] == {
        **INCIDENT,
        "service": "checkout",
        "title": "Orders cannot be",
        "symptoms": ["POST /v2/checkout returns 502 for about 70% of requests"],
        "description": "",
    }


LABELS = {"alertname": "BasketSlow", "namespace": "retail", "app": "basket-api"}
LABELLED = {
    "title": "Basket totals wrong for most shoppers",
    "service": "basket-api",
    "severity": "sev2",
    "symptoms": ["POST /basket answers 500"],
    "description": "Alert BasketSlow fired for basket-api. Shoppers give up.",
    "labels": LABELS,
}


def test_alert_labels_only_keeps_the_labels_and_what_the_alert_says():
    out = variants.reword(LABELLED)

    assert out["alert-labels-only"] == {
        **LABELLED,
        "service": "basket",
        "title": "BasketSlow: Alert BasketSlow fired for basket-api",
        "symptoms": [],
        "description": "Alert BasketSlow fired for basket-api",
        "labels": LABELS,
    }


def test_alert_labels_only_names_nothing_useful_when_the_service_has_no_shorter_name():
    out = variants.reword({**LABELLED, "service": "basket"})

    assert out["alert-labels-only"]["service"] == variants.UNNAMED_SERVICE


def test_alert_labels_only_needs_labels():
    assert "alert-labels-only" not in variants.reword({**LABELLED, "labels": {}})
    assert "alert-labels-only" not in variants.reword(INCIDENT)


def test_the_rewordings_a_person_types_drop_the_alert_labels():
    out = variants.reword(LABELLED)

    for rule in ("user-name", "label-alias", "hurried"):
        assert "labels" not in out[rule], rule
    for rule in ("no-symptoms", "alert-only", "short-title"):
        assert out[rule]["labels"] == LABELS, rule


def test_a_rule_that_changes_nothing_makes_no_variant():
    plain = {
        "title": "Search down",
        "service": "frontend",
        "severity": "sev3",
        "symptoms": [],
        "description": "",
    }
    # user-name: nothing to strip; no-symptoms: none to drop; alert-only: no alert text;
    # short-title and hurried: already short and bare. Only the capitalised label is left.
    assert set(variants.reword(plain)) == {"label-alias"}


def test_rewording_is_deterministic_and_leaves_the_original_alone():
    before = json.dumps(INCIDENT, sort_keys=True)
    first = variants.reword(INCIDENT)
    second = variants.reword(json.loads(before))
    assert first == second
    assert json.dumps(INCIDENT, sort_keys=True) == before


def test_rules_named():
    assert variants.rules_named(None) == variants.RULES
    picked = variants.rules_named(["hurried", " user-name"])
    assert [r.name for r in picked] == ["user-name", "hurried"]
    with pytest.raises(
        ValueError, match=r"unknown variant rule.*nope.*the rules: user-name"
    ):
        variants.rules_named(["nope"])
    with pytest.raises(ValueError, match="none given"):
        variants.rules_named([""])


def test_every_rule_has_a_one_sentence_statement():
    for rule in variants.RULES:
        assert rule.statement.endswith(".") and rule.statement.count(". ") == 0, rule


def test_build_variant_root_makes_runnable_folders(tmp_path):
    source = bundled_scenarios_dir()
    root = tmp_path / "scenarios"
    root.mkdir()
    for slug in ("k8s-target-port-mismatch", "tls-expired"):
        shutil.copytree(source / slug, root / slug)
    (root / "no-expected").mkdir()
    (root / "no-expected" / "incident.json").write_text(json.dumps(INCIDENT))
    dest = tmp_path / "variants"
    made = variants.build_variant_root(root, dest, variants.RULES)
    # tls-expired's service "checkout" has no suffix: no user-name variant.
    assert made == {
        "k8s-target-port-mismatch": list(variants.RULE_NAMES),
        "tls-expired": [r for r in variants.RULE_NAMES if r != "user-name"],
    }
    folder = dest / "k8s-target-port-mismatch+user-name"
    incident = json.loads((folder / "incident.json").read_text())
    assert incident["service"] == "checkout"
    original = root / "k8s-target-port-mismatch"
    for name in ("expected.json", "kubernetes.json", "logs.jsonl", "runbooks"):
        assert (folder / name).resolve() == (original / name).resolve()
    assert (dest / "tls-expired").resolve() == (root / "tls-expired").resolve()
    # The registry reads them as demo environments, one each, originals included.
    names = sorted(e.scenario or "" for e in demo_environments(dest))
    assert len(names) == 1 + 7 + 1 + 6
    labelled = json.loads(
        (dest / "tls-expired+alert-labels-only" / "incident.json").read_text()
    )
    assert labelled["labels"]["service"] == "checkout"
    assert "labels" not in json.loads(
        (dest / "tls-expired+hurried" / "incident.json").read_text()
    )
    assert variants.variant_of("tls-expired+short-title") == (
        "tls-expired",
        "short-title",
    )
    assert variants.variant_of("tls-expired") == ("tls-expired", "original")


def test_build_variant_root_refuses_an_incident_without_a_service(tmp_path):
    root = tmp_path / "scenarios"
    (root / "bad").mkdir(parents=True)
    (root / "bad" / "incident.json").write_text(json.dumps({"title": "x"}))
    (root / "bad" / "expected.json").write_text("{}")
    with pytest.raises(ValueError, match="needs a title and a service"):
        variants.build_variant_root(root, tmp_path / "out", variants.RULES)


def test_summary_counts_per_rule_and_over_the_variants():
    outcomes = [
        variants.Outcome("a", right=True, conclusive=True),
        variants.Outcome("a+user-name", right=True, conclusive=False),
        variants.Outcome("b+user-name", right=False, conclusive=False),
        variants.Outcome("a+hurried", right=True, conclusive=True),
    ]
    result = variants.summary(outcomes)
    assert list(result["by_rule"]) == ["original", "user-name", "hurried"]
    assert result["by_rule"]["user-name"] == {
        "runs": 2,
        "right": 1,
        "conclusive": 0,
        "right_and_conclusive": 0,
        "right_rate": 0.5,
        "conclusive_rate": 0.0,
    }
    assert result["variants"]["runs"] == 3
    assert result["variants"]["right"] == 2
    assert result["variants"]["right_and_conclusive"] == 1
    lines = variants.summary_lines(result)
    assert lines[-1] == "all variants: 2/3 right (67%), 1/3 conclusive (33%), 1 both"


def test_bundled_scenarios_all_have_variants():
    """Every bundled incident is reworded by at least four rules (the rules are not vacuous)."""
    for path in sorted(Path(bundled_scenarios_dir()).glob("*/incident.json")):
        incident = json.loads(path.read_text())
        assert len(variants.reword(incident)) >= 4, path.parent.name


def test_evaluate_refuses_an_unknown_variant_rule():
    with pytest.raises(
        CommandError, match=r"--variant-rules: unknown variant rule.*nope"
    ):
        call_command("evaluate", "--variant-rules", "nope,hurried")


def test_evaluate_variants_of_a_folder_without_scenarios_is_refused(tmp_path):
    (tmp_path / "just-an-incident").mkdir()
    (tmp_path / "just-an-incident" / "incident.json").write_text(json.dumps(INCIDENT))
    with pytest.raises(CommandError, match=r"no scenario with an expected\.json"):
        call_command("evaluate", "--variants", "--scenarios", str(tmp_path))
