"""Host names read from lines: an e-mail address, a query string's value and a percent-encoded
character are no hosts (reasoning/layered/reading.py); a throttled provider named by the word that
leads a client's request line (reasoning/layered/shared_limits.py).

Names and wordings are invented.
"""

import pytest

from reasoning.layered.reading import hosts_in
from reasoning.layered.shared_limits import _provider_named


@pytest.mark.parametrize(
    ("line", "hosts"),
    [
        ("zendesk GET /api/v2/users/search?query=ann%40corp.example -> 429", []),
        (
            "PUT /v1/members/ola.berg%40post.example 409 from crm.brightly.example",
            ["crm.brightly.example"],
        ),
        ("password reset mail to ola.berg@post.example bounced", []),
        ("GET /signin?next=portal.brightly.example&lang=en 302", []),
        (
            "redirect to https%3A%2F%2Fshop.brightly.example%2Fcart failed",
            ["shop.brightly.example"],
        ),
        ("dial tcp db.brightly.internal:5432: i/o timeout", ["db.brightly.internal"]),
        (
            "postgres://report@db.brightly.internal/reports refused",
            ["db.brightly.internal"],
        ),
        (
            "git@code.brightly.example:ops/deploy: permission denied",
            ["code.brightly.example"],
        ),
        ("?redirect_uri=https://cb.brightly.example/done", ["cb.brightly.example"]),
    ],
)
def test_hosts_are_not_read_from_mailboxes_query_values_or_encodings(line, hosts):
    assert hosts_in(line) == hosts


@pytest.mark.rule("board.shared-rate-limit")
@pytest.mark.parametrize(
    ("line", "provider"),
    [
        ("zendesk GET /api/v2/users/812 -> 429 Too Many Requests", "zendesk"),
        ("[hubspot] PATCH /crm/v3/objects/contacts/9: 429 rate limit", "hubspot"),
        ("twilio: POST /2010-04-01/Messages.json 429", "twilio"),
        ("request GET /v1/x 429", None),
        ("checkout GET /cart 429", None),  # a service the logs know: no provider
    ],
)
def test_a_provider_leading_a_request_line_is_named(line, provider):
    assert _provider_named(line, {"checkout"}) == provider


@pytest.mark.rule("board.shared-rate-limit")
@pytest.mark.timeout(60)
def test_long_lines_stay_linear():
    line = "a%40b.example x@y.example ?q=z.example GET /" * 5000
    hosts_in(line)
    _provider_named(line, set())
