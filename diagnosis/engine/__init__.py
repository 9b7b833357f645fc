"""The diagnosis engine (DESIGN §10): an incident in, a report built on evidence out.

runtime   one asyncio program per diagnosis: servers connected once, DB writes in threads,
          the stop check on its own connection
planner   which tool to call next, from the incident and the results so far (no ORM)
agents    metrics, logs, network, runbook: a planner's calls grouped and run concurrently
executor  policy before every call, the call through mcpclient, its span and events
policy    allowlist, tenant, scopes, argument limits, budget, deadline
approvals risky actions wait for a person
report    hypotheses ranked by layer, each citing the spans that showed it
"""
