"""Kubernetes MCP server, read-only: kubectl's own answers from a live cluster or a captured snapshot (`python -m mcpservers.kubernetes`)."""
