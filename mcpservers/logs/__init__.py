"""Logs MCP server: `search_logs` and `top_errors` over Loki or a JSON-lines file (`python -m mcpservers.logs`)."""
