# The AgentOps app image: web (Daphne), worker and beat (Celery) all run from it.
# Not built on the machines where this was written (no Docker engine there).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=agentops.settings \
    AGENTOPS_DATA_DIR=/app/var \
    STATIC_ROOT=/app/var/staticfiles

WORKDIR /app
COPY . .
# Editable: settings find templates/ and static/ next to the packages (BASE_DIR), which a wheel
# does not carry. The servers extra: the worker starts the bundled MCP servers as children.
RUN pip install -e ".[servers]" \
    && mkdir -p static templates var \
    && SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput -v 0 \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin agentops \
    && chown -R agentops:agentops var

USER agentops
EXPOSE 8000
CMD ["daphne", "-b", "0.0.0.0", "-p", "8000", "agentops.asgi:application"]
