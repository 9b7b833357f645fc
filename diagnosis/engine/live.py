"""A demo environment's live listeners (the scenario's TLS, DNS, proxy … servers) for one diagnosis.

They run on private 127.0.0.1 ports for as long as the diagnosis runs, so two demo diagnoses
at once do not clash; netcheck is then allowed exactly those listeners. Other environments
pass through unchanged.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from diagnosis.registry import Environment


@asynccontextmanager
async def environment_live(environment: Environment) -> AsyncIterator[Environment]:
    if environment.scenario is None:
        yield environment
        return
    # Imported here: only demo environments need the bundled scenarios (mcpservers extra).
    from mcpservers import scenarios

    async with scenarios.run(environment.scenario) as running:
        yield environment.bind_live(running.server_args())
