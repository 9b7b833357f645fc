"""The runbooks MCP server: `runbook://<slug>` resources and the `search_runbooks` tool."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources import TextResource
from mcp.types import ToolAnnotations
from pydantic import Field

from mcpservers.runbooks.library import search, snippet

if TYPE_CHECKING:
    from mcpservers.runbooks.library import Runbook

MAX_SYMPTOMS_CHARS = 4000
MAX_RESULTS = 20


def build_server(library: dict[str, Runbook]) -> MCPServer[Any]:
    """The runbooks server over a loaded library (slug → runbook)."""
    server: MCPServer[Any] = MCPServer(
        "mcpservers-runbooks",
        version="0.1.0",
        instructions=(
            f"{len(library)} Markdown runbooks as runbook://<slug> resources. "
            "Call search_runbooks with the symptoms or exact error text, then read the best match."
        ),
        log_level="WARNING",
    )
    for runbook in sorted(library.values(), key=lambda r: r.slug):
        server.add_resource(
            TextResource(
                uri=runbook.uri,
                name=runbook.slug,
                title=runbook.title,
                description=runbook.summary,
                mime_type="text/markdown",
                text=runbook.text,
            )
        )

    # Concrete resources are matched first; this template only answers unknown slugs, with the known ones.
    @server.resource(
        "runbook://{slug}",
        name="runbook",
        mime_type="text/markdown",
        description="A runbook by slug.",
    )
    def unknown_runbook(slug: str) -> str:
        raise ResourceNotFoundError(
            f"no runbook {slug!r}; known: {', '.join(sorted(library)) or 'none'}"
        )

    @server.tool(
        annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False)
    )
    def search_runbooks(
        symptoms: Annotated[
            str,
            Field(
                description="Symptoms or exact error text, e.g. 'x509 certificate has expired 502 from gateway'."
            ),
        ],
        limit: Annotated[
            int,
            Field(description="Most runbooks to return (1..20).", ge=1, le=MAX_RESULTS),
        ] = 3,
    ) -> dict[str, Any]:
        """Rank the runbooks for the given symptoms (BM25 over title and body), best first."""
        if not symptoms.strip():
            raise ToolError(
                "symptoms is empty; describe what you see, e.g. 'pool exhausted, CLOSE_WAIT growing'"
            )
        if len(symptoms) > MAX_SYMPTOMS_CHARS:
            raise ToolError(
                f"symptoms is {len(symptoms)} characters; keep it under {MAX_SYMPTOMS_CHARS}"
            )
        matches = search(library, symptoms)
        results = [
            {
                "uri": m.runbook.uri,
                "slug": m.runbook.slug,
                "title": m.runbook.title,
                "score": round(m.score, 3),
                "matched_terms": m.matched,
                "snippet": snippet(m.runbook, m.matched),
            }
            for m in matches[:limit]
        ]
        notes = (
            []
            if results
            else ["no runbook matched; try the exact error text or broader words"]
        )
        return {"symptoms": symptoms, "results": results, "notes": notes}

    return server
