"""A demo environment's live listeners (the scenario's TLS, DNS, proxy … servers) for one diagnosis.

They come from the scenario folder's targets.json (any folder under the registry's
`[demo] scenarios_dir`, not only the bundled ones) and run on private 127.0.0.1 ports for as
long as the diagnosis runs, so two demo diagnoses at once do not clash; netcheck is then
allowed exactly those listeners. Other environments pass through unchanged.
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

    folder = environment.scenario_path or environment.scenario
    async with scenarios.run(folder) as running:
        yield environment.bind_live(running.server_args())
