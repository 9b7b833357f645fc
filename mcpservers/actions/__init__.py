"""Actions MCP server: idempotent `restart_workload` / `scale_workload` and `get_action_status` (`python -m mcpservers.actions`)."""
