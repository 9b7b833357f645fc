"""The runbooks server: runbook:// resources from folders, and deterministic BM25 ranking for symptoms."""

from __future__ import annotations

import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from mcpservers.runbooks.__main__ import BUNDLED
from mcpservers.runbooks.library import RunbookError, load_folders, search, tokens
from mcpservers.runbooks.server import build_server
from tests.mcpservers._support import error_text, structured

SLUGS = {
    "connection-pool-exhaustion",
    "dns-nxdomain",
    "expired-tls-certificate",
    "http-5xx-triage",
    "log-backend-timeouts",
    "proxy-idle-timeout-sse",
}


@pytest.fixture(scope="module")
def library():
    return load_folders([BUNDLED])


def test_bundled_library_has_the_six_runbooks(library) -> None:
    assert set(library) == SLUGS
    assert all(len(r.text) > 800 for r in library.values())


@pytest.mark.anyio
async def test_resources_list_and_read(library) -> None:
    async with Client(build_server(library)) as client:
        listed = (await client.list_resources()).resources
        read = await client.read_resource("runbook://connection-pool-exhaustion")
    assert {str(r.uri) for r in listed} == {f"runbook://{slug}" for slug in SLUGS}
    pool = next(
        r for r in listed if str(r.uri) == "runbook://connection-pool-exhaustion"
    )
    assert pool.mime_type == "text/markdown"
    assert (
        pool.title == "Connection-pool exhaustion and CLOSE_WAIT growth after a deploy"
    )
    assert read.contents[0].text == library["connection-pool-exhaustion"].text


@pytest.mark.anyio
async def test_unknown_runbook_is_not_found_with_the_known_slugs(library) -> None:
    async with Client(build_server(library)) as client:
        with pytest.raises(MCPError, match="known: connection-pool-exhaustion"):
            await client.read_resource("runbook://no-such-runbook")


@pytest.mark.parametrize(
    ("symptoms", "best"),
    [
        (
            "502 from gateway, x509: certificate has expired or is not yet valid",
            "expired-tls-certificate",
        ),
        (
            "lookup payments.internal: no such host (NXDOMAIN) since the resolver change",
            "dns-nxdomain",
        ),
        (
            "timeout acquiring connection from pool; CLOSE_WAIT sockets growing after deploy",
            "connection-pool-exhaustion",
        ),
        (
            "SSE stream to the browser disconnects every 60 seconds",
            "proxy-idle-timeout-sse",
        ),
        ("search_logs failed: log back end timeout, Loki 504", "log-backend-timeouts"),
        ("error ratio alert, 500 and 503 responses, no idea why", "http-5xx-triage"),
    ],
)
def test_search_ranks_the_matching_runbook_first(
    library, symptoms: str, best: str
) -> None:
    assert search(library, symptoms)[0].runbook.slug == best


def test_search_is_deterministic_with_ties_broken_by_slug(library) -> None:
    first = [(m.runbook.slug, m.score) for m in search(library, "timeout")]
    assert first == [(m.runbook.slug, m.score) for m in search(library, "timeout")]
    assert first == sorted(first, key=lambda item: (-item[1], item[0]))


def test_tokens_drop_stopwords_and_plural_s() -> None:
    assert tokens("The timeouts of DNS lookups, class 5xx") == [
        "timeout",
        "dns",
        "lookup",
        "class",
        "5xx",
    ]


@pytest.mark.anyio
async def test_search_tool_returns_uri_snippet_and_limit(library) -> None:
    async with Client(build_server(library)) as client:
        data = structured(
            await client.call_tool(
                "search_runbooks", {"symptoms": "certificate has expired", "limit": 2}
            )
        )
    assert len(data["results"]) == 2
    top = data["results"][0]
    assert top["uri"] == "runbook://expired-tls-certificate"
    assert "certificate" in top["matched_terms"]
    assert "expired" in top["snippet"]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"symptoms": "   "}, "symptoms is empty"),
        ({"symptoms": "x" * 4001}, "keep it under 4000"),
        ({"symptoms": "dns", "limit": 0}, "greater than or equal to 1"),
        ({}, "symptoms"),
    ],
)
async def test_search_tool_bad_arguments_are_tool_errors(
    library, arguments: dict, expected: str
) -> None:
    async with Client(build_server(library)) as client:
        assert expected in error_text(
            await client.call_tool("search_runbooks", arguments)
        )


@pytest.mark.anyio
async def test_no_match_is_an_empty_result_with_a_hint(library) -> None:
    async with Client(build_server(library)) as client:
        data = structured(
            await client.call_tool("search_runbooks", {"symptoms": "zebra quokka"})
        )
    assert data["results"] == []
    assert "no runbook matched" in data["notes"][0]


def test_later_folder_overrides_by_slug(tmp_path) -> None:
    (tmp_path / "dns-nxdomain.md").write_text(
        "# Scenario DNS runbook\n\nResolver 10.0.0.53 was replaced.\n"
    )
    (tmp_path / "extra-one.md").write_text("# Extra\n\nBody.\n")
    library = load_folders([BUNDLED, tmp_path])
    assert library["dns-nxdomain"].title == "Scenario DNS runbook"
    assert "extra-one" in library


@pytest.mark.parametrize("name", ["Bad Name.md", "under_score.md"])
def test_bad_runbook_file_name_is_refused(tmp_path, name: str) -> None:
    (tmp_path / name).write_text("# x\n")
    with pytest.raises(RunbookError, match="lowercase letters, digits and dashes"):
        load_folders([tmp_path])
