"""The fake Kubernetes API server (mcpservers/kubernetes/fakeapi.py) serving the tests' fixture
(fixtures/kubernetes/shop.json) unless told another."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from mcpservers.kubernetes import fakeapi
from mcpservers.kubernetes.fakeapi import human_duration

if TYPE_CHECKING:
    from collections.abc import Iterator
    from datetime import datetime

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "kubernetes"
__all__ = ["FIXTURES", "FakeKubeAPI", "fake_kube_api", "human_duration"]


class FakeKubeAPI(fakeapi.FakeKubeAPI):
    """The fake API server, serving the shop fixture by default."""

    def __init__(
        self, fixture: Path = FIXTURES / "shop.json", *, now: datetime | None = None
    ) -> None:
        super().__init__(fixture, now=now)


@contextlib.contextmanager
def fake_kube_api(
    fixture: Path = FIXTURES / "shop.json",
) -> Iterator[fakeapi.FakeKubeAPI]:
    with fakeapi.fake_kube_api(fixture) as api:
        yield api
