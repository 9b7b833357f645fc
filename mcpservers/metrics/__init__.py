"""Metrics MCP server: `query_metric` and `service_health` over Prometheus or demo series (`python -m mcpservers.metrics`)."""
