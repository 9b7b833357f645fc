"""/api/openapi.json against the server (issue 10 item 8): schemathesis over real HTTP to Daphne.

Every operation of the served document gets a bounded, derandomized set of generated requests
(positive and negative), authenticated with an admin token of tenant A, and every answer must
pass not_a_server_error, status_code_conformance, content_type_conformance and
response_schema_conformance; a positive (schema-valid) one must also pass
positive_data_acceptance: no 400 (or other refusal of its shape) to a request the document
allows. The document is fetched with the token, so its environment names are the tenant's. Half the examples aim at real rows (a finished task, so its SSE
stream closes; its incident; a pending approval) instead of random ids, so the 2xx bodies are
checked too. ./test runs this, and .ci/run runs ./test.
"""

import time
from datetime import datetime

import hypothesis
import pytest
import requests
import schemathesis
import schemathesis.specs.openapi.schemas  # at collection: see the note below
from hypothesis import HealthCheck, Phase, given
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from diagnosis.models import Approval, Role
from tests import factories
from tests.diagnosis.test_streaming_support import finish, start_daphne
from tests.livestack import redis_url_with_db

# schemathesis imports its schema module lazily, inside from_url, where pytest's assertion
# rewriter compiles it. On CPython 3.11.7 that compile can fail with "AST constructor recursion
# depth mismatch" once an earlier test in the process hit a RecursionError (our depth-limit
# tests do, on purpose; python/cpython#106905). Importing it at collection avoids the bug.

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

MAX_EXAMPLES = 25  # per operation and generation mode
TIME_BUDGET = (
    240.0  # seconds for the whole run (a guard against a hang, not a speed target)
)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    positive_data_acceptance,  # a no-op on negative cases
]
# What a schema-valid request may get besides a 2xx: refusals of the caller or of the state
# (schemathesis' defaults), and 422, an Idempotency-Key the run already used with another body.
# Never 400 or 413: those refuse the request's shape, which the document would then misstate.
ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "422", "429", "5xx"]
CONFIG = SchemathesisConfig.from_dict(
    {"checks": {"positive_data_acceptance": {"expected-statuses": ACCEPTED}}}
)


def _window_in_order(body):
    """window_end not before window_start: the one rule between two fields the document
    states in prose only (JSON Schema cannot compare values)."""
    if isinstance(body, dict):
        start, end = body.get("window_start"), body.get("window_end")
        if isinstance(start, str) and isinstance(end, str):
            try:
                reversed_ = datetime.fromisoformat(end) < datetime.fromisoformat(start)
            except ValueError:
                return
            if reversed_:
                body["window_start"], body["window_end"] = end, start


@pytest.fixture
def served(live_db_env, tenant):
    """Daphne on loopback (its broker a Redis database no worker reads), and real rows."""
    _incident, task = factories.make_incident(tenant)
    finish(task)
    approval = Approval.objects.create(task=task, action={"tool": "restart"})
    span = factories.make_span(task)
    token = factories.make_token(factories.make_member(tenant, role=Role.ADMIN))
    proc, base = start_daphne(ready_timeout=90, CELERY_BROKER_URL=redis_url_with_db(15))
    try:
        yield (
            base,
            token,
            {
                "incident_id": str(task.incident_id),
                "task_id": str(task.pk),
                "approval_id": str(approval.pk),
                "span_id": span.span_id,
            },
        )
    finally:
        proc.stop()


def _run(operation, mode, *, base, session, real, started):
    """Up to MAX_EXAMPLES derandomized cases of one operation in one generation mode."""

    @hypothesis.settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
        print_blob=False,
    )
    @given(case=operation.as_strategy(generation_mode=mode), aim=st.booleans())
    def check(case, aim):
        assert time.monotonic() - started < TIME_BUDGET, "over the time budget"
        if aim and case.path_parameters and mode is GenerationMode.POSITIVE:
            case.path_parameters = {name: real[name] for name in case.path_parameters}
        if mode is GenerationMode.POSITIVE:
            _window_in_order(case.body)
        if isinstance(case.query, dict) and "follow" in case.query:
            # ?follow=1 keeps even a finished task's stream open (the incident page follows
            # the incident past the diagnosis's end); a case reads its answer to the end.
            case.query = {k: v for k, v in case.query.items() if k != "follow"}
        case.call_and_validate(
            base_url=base, session=session, checks=CHECKS, timeout=15
        )

    try:
        check()
    except hypothesis.errors.Unsatisfiable:
        # Nothing to negate (no parameters, no body): only the positive cases apply.
        assert mode is GenerationMode.NEGATIVE, operation.label


@pytest.mark.fault("schemathesis: every operation of /api/openapi.json", kind="limit")
def test_the_document_matches_the_server(served, reliability_record):
    base, token, real = served
    schema = schemathesis.openapi.from_url(
        f"{base}/api/openapi.json",
        config=CONFIG,
        headers={"Authorization": f"Bearer {token}"},
    )
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {token}"
    started = time.monotonic()
    ran = []
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            _run(
                operation, mode, base=base, session=session, real=real, started=started
            )
        ran.append(operation.label)
    assert len(ran) >= len(schema.raw_schema["paths"])
    reliability_record(
        observed="no 5xx, every status, content type and body as the document says, positive "
        "and negative examples; no schema-valid request refused",
        figures={
            "operations": len(ran),
            "examples_per_mode": MAX_EXAMPLES,
            "server_errors": 0,
            "nonconforming": 0,
            "schema_valid_rejected": 0,
        },
    )
