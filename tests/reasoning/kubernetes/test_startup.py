"""Startup: scheduled pods whose containers cannot be created, configured, pulled or mounted."""

import pytest

from reasoning import layers
from reasoning.layered.kubernetes.cluster import Cluster
from reasoning.layered.kubernetes.stages.startup import startup
from reasoning.layered.kubernetes.workloads import workload_fault

from .answers import NS, cited, deployments, events, pods, view

POD = "checkout-84c6d9f7b5-m2n8q"
PULL_FAILED = (
    'Failed to pull image "registry.exmaple.com/shop/checkout:v3.1.0": dial tcp: lookup '
    "registry.exmaple.com on 10.96.0.10:53: no such host"
)


def checkout(status: str, *warnings: tuple[str, str]):
    return view(
        "deployment/checkout",
        deployments(("checkout", "0/1")),
        pods((POD, "0/1", status, "0")),
        events(
            *(
                ("Warning", reason, f"Pod/{POD}", message)
                for reason, message in warnings
            )
        ),
    )


@pytest.mark.rule("k8s.startup")
def test_an_image_that_cannot_be_pulled_blocks_the_workload_at_startup():
    f = startup(checkout("ImagePullBackOff", ("Failed", PULL_FAILED)))
    assert f is not None
    assert (f.stage, f.reason, f.component, f.layer) == (
        "startup",
        "ImagePullBackOff",
        "deployment/checkout",
        layers.PLATFORM,
    )
    assert "no such host" in f.statement
    assert "registry" in f.keywords


@pytest.mark.parametrize(
    ("warnings", "reason"),
    [
        ((("Failed", PULL_FAILED),), "ErrImagePull"),
        (
            (
                ("Failed", PULL_FAILED),
                ("BackOff", 'Back-off pulling image "checkout:v3.1.0"'),
            ),
            "ImagePullBackOff",
        ),
    ],
)
def test_pull_warnings_name_the_reason_while_the_pod_waits(warnings, reason):
    f = startup(checkout("ContainerCreating", *warnings))
    assert f is not None and (f.stage, f.reason) == ("startup", reason)


def test_a_missing_secret_is_a_configuration_error():
    v = checkout(
        "ContainerCreating", ("Failed", 'Error: secret "checkout-db" not found')
    )
    f = startup(v)
    assert f is not None
    assert (f.stage, f.reason) == ("startup", "CreateContainerConfigError")
    assert {"secret", "checkout-db"} <= set(f.keywords)
    warned = v.by_reason["Failed"][0].obs
    assert cited(f.evidence, warned)


def test_the_pods_status_names_the_reason_first():
    f = startup(checkout("CreateContainerConfigError", ("Failed", PULL_FAILED)))
    assert f is not None and f.reason == "CreateContainerConfigError"


def test_a_volume_that_cannot_be_mounted_while_the_pod_waits():
    f = startup(
        checkout(
            "ContainerCreating",
            (
                "FailedMount",
                'MountVolume.SetUp failed for volume "certs": secret "tls" not found',
            ),
        )
    )
    assert f is not None and (f.stage, f.reason) == ("startup", "FailedMount")


def test_a_mount_warning_on_a_running_pod_passes():
    f = startup(
        checkout(
            "Running", ("FailedMount", 'MountVolume.SetUp failed for volume "certs"')
        )
    )
    assert f is None


def test_a_running_pod_passes_startup():
    assert startup(checkout("Running")) is None


def test_startup_comes_before_runtime():
    cluster = Cluster.read(
        [
            deployments(("checkout", "0/1")),
            pods((POD, "0/1", "ImagePullBackOff", "2")),
        ]
    )
    f = workload_fault(cluster, NS, "deployment/checkout")
    assert f is not None and f.stage == "startup"
