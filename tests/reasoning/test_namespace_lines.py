"""Issue 21 classes 1 and 4: a namespace stuck Terminating seen in the logs alone
(reasoning/layered/namespace_lines.py): the namespace is the platform fault, not the operator or
pipeline that logs the refusals. Names are invented."""

import pytest

from reasoning import layers
from reasoning.layered.namespace_lines import named_namespace
from tests.reasoning.test_planner import World, health, incident
from tests.reasoning.test_warnings_and_changes import (
    FAILING,
    group,
    logged,
    run_with_schemas,
)

NAMES = ("service_health", "top_errors", "search_logs", "search_runbooks")
REFUSAL = (
    'apply storefront bundle: namespaces "shop-tenant-77" is forbidden: unable to create new '
    "content in namespace shop-tenant-77 because it is being terminated"
)
CONTROLLER = (
    "namespace_controller: deletion of namespace shop-tenant-77 failed: Discovery failed for "
    "some groups, 1 failing: unable to retrieve the complete list of server APIs: "
    "external.metrics.k8s.io/v1beta1: the server could not find the requested resource"
)


def _report(*answers):
    world = World(
        {
            ("service_health", "site-builder"): health(
                "site-builder", "unhealthy", FAILING
            ),
            **dict(answers),
        }
    )
    return run_with_schemas(
        world,
        incident("site-builder", "store-controller cannot set up the new shop"),
        names=NAMES,
    )[2]


@pytest.mark.rule("board.namespace-lines")
def test_a_refusal_and_the_controllers_failure_confirm_the_namespace():
    report = _report(
        (
            ("top_errors", "site-builder"),
            logged("site-builder", errors=[group(REFUSAL, count=40)]),
        ),
        (
            ("top_errors", "store-controller"),
            logged("store-controller", errors=[group(CONTROLLER, count=12)]),
        ),
    )

    top = report.top
    assert (top.layer, top.component) == (layers.PLATFORM, "namespace/shop-tenant-77")
    assert report.conclusive
    assert top.reason == "NamespaceDeletionDiscoveryFailure"
    assert "v1beta1.external.metrics.k8s.io" in top.statement


@pytest.mark.rule("board.namespace-lines")
def test_one_line_saying_a_namespace_is_being_deleted_is_a_lead():
    report = _report(
        (
            ("top_errors", "site-builder"),
            logged(
                "site-builder",
                errors=[
                    group(
                        "create configmap theme: object is being deleted: namespaces "
                        '"shop-tenant-77" is being deleted',
                        count=9,
                    )
                ],
            ),
        ),
    )

    lead = next(
        h for h in report.hypotheses if h.component == "namespace/shop-tenant-77"
    )
    assert lead.status == "likely" and not lead.conclusive


def test_the_namespace_a_line_names():
    assert named_namespace(REFUSAL) == "shop-tenant-77"
    assert named_namespace(CONTROLLER) == "shop-tenant-77"
    assert named_namespace("namespace billing stuck in Terminating for 2h") == "billing"
    assert (
        named_namespace('namespace "billing" still terminating after 5m') == "billing"
    )
    assert named_namespace("deleted namespace billing, waiting") is None
