"""The diagnosis engine (DESIGN §10): runs a planner's calls against the servers and keeps the record.

What to ask and what the answers mean (the planners, observations, the report model, layers, the
tool table) is `reasoning/`; this package is the runtime around it.

runtime   one asyncio program per diagnosis: servers connected once, DB writes in threads,
          the stop check on its own connection; awaits the planner (reasoning.planner.Planner)
planners  which planner a diagnosis uses, from the Django settings
agents    a round's calls grouped by agent (metrics, logs, network …) and run concurrently
executor  policy before every call, the call through mcpclient, its span and events
policy    allowlist, tenant, scopes, argument limits, budget, deadline
sessions  the servers of one diagnosis, borrowed from the pool on first use
server_pool  the worker process's MCP sessions, shared by its diagnoses on one loop thread
connecting  the servers connected before the first round, each start and end an event
steering  what people added to the task, given to the planner before each round
outcomes  an action's status from its span (done, failed, unknown …)
artifacts what a span keeps of a result: redacted, hashed, inline or as an artifact
live      a demo environment's scenario listeners, lent to a diagnosis
shared_listeners  those listeners, one set per folder and process, kept idle for a while
markdown  the report as Markdown
"""
