"""The app's own telemetry: Prometheus metrics (/metrics, the worker's exporter) and JSON logs.

metrics     metric definitions and the hooks the engine and the worker call
collectors  scrape-time series: the SSE hub's counters, tasks and approvals from the database
exposition  who may scrape, the /metrics view and the worker's exporter
http        the request middleware (route pattern, status, latency)
worker      Celery signals: task timings and the log context of a diagnosis run
logs        structlog over stdlib logging: JSON lines or a human format, context, redaction
"""
