"""Runbooks MCP server: `runbook://<slug>` resources and `search_runbooks` (`python -m mcpservers.runbooks`)."""
