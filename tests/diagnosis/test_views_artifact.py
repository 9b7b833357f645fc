"""A span's full result in artifact storage: its download, linked from the trace and the page."""

import json

import pytest
from django.urls import reverse

from diagnosis import tracing
from diagnosis.artifacts import store_result
from diagnosis.models import SpanState
from tests import factories

pytestmark = pytest.mark.django_db

HOSTILE = "<script>window.pwned=1</script>"


@pytest.fixture
def artifacts_dir(settings, tmp_path):
    settings.STORAGES = {
        **settings.STORAGES,
        "artifacts": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path, "allow_overwrite": True},
        },
    }
    settings.DIAGNOSIS_RESULT_INLINE_BYTES = 256
    return tmp_path


@pytest.fixture
def logged_in(client, member):
    client.force_login(member.user)
    return client


def _span(task, span_id, value):
    span = tracing.span_start(
        task_id=task.id,
        span_id=span_id,
        attempt=1,
        agent="logs",
        server_name="logs",
        transport="stdio",
        tool_name="search_logs",
        arguments_redacted={"service": "checkout"},
        arguments_hash="0" * 64,
        replay_key=f"logs:{span_id}",
        deadline=None,
        principal="user:alice",
        granted_scopes=["tasks:read"],
    )
    stored = store_result(task_id=str(task.id), span_id=span_id, value=value)
    return tracing.span_finish(
        span=span,
        state=SpanState.OK,
        latency_ms=12.0,
        result=stored.result,
        result_hash=stored.sha256,
        result_size=stored.size,
        result_preview=stored.preview,
        result_uri=stored.uri,
    )


def _url(task, span):
    return reverse("diagnosis:span-artifact", args=[task.id, span.span_id])


def _big_result():
    lines = [f"{HOSTILE} line {n} password=hunter2" for n in range(40)]
    return {"text": "\n".join(lines), "api_key": "sk-live-abcdef0123456789"}


def test_download_is_the_redacted_stored_json_as_a_safe_attachment(
    logged_in, tenant, artifacts_dir
):
    _incident, task = factories.make_incident(tenant)
    span = _span(task, "00000000000000a1", _big_result())
    assert span.result_uri and span.result is None

    response = logged_in.get(_url(task, span))

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"] == (
        f'attachment; filename="span-{span.span_id}.json"'
    )
    assert response["X-Content-Type-Options"] == "nosniff"
    body = b"".join(response.streaming_content)
    assert len(body) == span.result_size
    stored = json.loads(body)
    assert (
        stored["api_key"] != "sk-live-abcdef0123456789"
    )  # redacted before it was written
    assert "hunter2" not in body.decode()
    assert HOSTILE in stored["text"]  # kept as data, served as an attachment


def test_trace_and_page_link_the_download(logged_in, tenant, artifacts_dir):
    incident, task = factories.make_incident(tenant)
    span = _span(task, "00000000000000a2", _big_result())
    url = _url(task, span)

    trace = logged_in.get(
        reverse("diagnosis:task-trace", args=[task.id]), {"span": span.span_id}
    ).content.decode()
    assert f'id="span-artifact" href="{url}"' in trace

    page = logged_in.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()
    assert f'data-field="artifact-link" href="{url}"' in page
    assert f'<a data-span="{span.span_id}" href="{url}">' in page  # for the script


def test_an_inline_result_has_no_download_and_no_link(logged_in, tenant, artifacts_dir):
    incident, task = factories.make_incident(tenant)
    span = _span(task, "00000000000000a3", {"text": "small"})
    assert not span.result_uri

    assert logged_in.get(_url(task, span)).status_code == 404
    page = logged_in.get(
        reverse("diagnosis:incident-detail", args=[incident.id])
    ).content.decode()
    assert _url(task, span) not in page


def test_another_tenants_span_is_not_found(client, tenant, other_tenant, artifacts_dir):
    _incident, theirs = factories.make_incident(other_tenant)
    span = _span(theirs, "00000000000000a4", _big_result())
    member = factories.make_member(tenant)
    client.force_login(member.user)
    assert client.get(_url(theirs, span)).status_code == 404
    # Nor through a task of one's own.
    _incident, ours = factories.make_incident(tenant)
    assert client.get(_url(ours, span)).status_code == 404


def test_an_artifact_gone_or_altered_is_not_served(logged_in, tenant, artifacts_dir):
    _incident, task = factories.make_incident(tenant)
    gone = _span(task, "00000000000000a5", _big_result())
    altered = _span(task, "00000000000000a6", _big_result())
    (artifacts_dir / gone.result_uri.removeprefix("artifacts:")).unlink()
    path = artifacts_dir / altered.result_uri.removeprefix("artifacts:")
    path.write_bytes(path.read_bytes().replace(b"line 1", b"line 9"))

    assert logged_in.get(_url(task, gone)).status_code == 404
    assert logged_in.get(_url(task, altered)).status_code == 404


def test_download_needs_a_login(client, tenant, artifacts_dir):
    _incident, task = factories.make_incident(tenant)
    span = _span(task, "00000000000000a7", _big_result())
    assert client.get(_url(task, span)).status_code == 302
