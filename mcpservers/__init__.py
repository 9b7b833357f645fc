"""Bundled MCP servers (logs, metrics, netcheck, runbooks, actions) written with the official MCP SDK.

Run one with `python -m mcpservers.<name>` (stdio) or add `--http HOST:PORT`; see mcpservers/README.md.
"""
