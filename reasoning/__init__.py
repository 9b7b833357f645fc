"""Reasoning support that needs no web framework: today the one secret-masking module
(`reasoning.masking`) that the bundled MCP servers and the Django app both use. The package imports
the standard library only — no Django, no `diagnosis`, no `mcpclient` — so that every stdio server
can import it at start-up for the cost of a few compiled patterns."""
