"""What to ask and what the answers mean, with no web framework: no Django, no ORM rows, no
`diagnosis`, no `mcpclient` (the standard library and httpx only; import-linter keeps it so).

observations  what a planner sees: the incident, the tools, the finished calls (no ORM)
planner       the one async Planner protocol the engine's runtime awaits
tools         the one tool table: tool → agent and what its back end serves; AmbiguousTool
layered/      the deterministic planner: a differential diagnosis, layer by layer
llm_planner   the optional planner behind an OpenAI-compatible chat completions API
report        the report model: hypotheses ranked by layer, each citing its spans
layers        the one layer vocabulary (report, spans, netcheck, mcpclient, expected.json)
masking       the one secret masking, used by the bundled MCP servers and the Django app

This file imports nothing, so a stdio server that imports `reasoning.masking` at start-up pays
for a few compiled patterns only.
"""
