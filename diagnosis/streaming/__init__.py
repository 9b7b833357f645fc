"""The resumable progress stream: GET /api/tasks/<id>/events as Server-Sent Events (DESIGN §6).

`consumer.EventStreamApp` is a plain ASGI app routed around Django's handler; `hub.Hub` holds one
wake-up subscription and one table reader per task per process; `wire` encodes the WHATWG format.
"""
