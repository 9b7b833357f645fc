"""A demo environment's live listeners (the scenario's TLS, DNS, proxy … servers), lent to a diagnosis.

They come from the scenario folder's targets.json (any folder under the registry's
`[demo] scenarios_dir`, not only the bundled ones) and run on private 127.0.0.1 ports. One set
per folder and worker process (diagnosis.engine.shared_listeners) serves every diagnosis of
that folder: started by the first, kept while any diagnosis holds it and for
DEMO_LISTENERS_IDLE_SECONDS after, on the same ports all that time. So a diagnosis re-queued
after an approval probes the ports it probed before, and netcheck, given exactly that set's
listeners, allows them. Other environments pass through unchanged.
"""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from django.conf import settings

from diagnosis.engine import shared_listeners
from diagnosis.registry import Environment


@asynccontextmanager
async def environment_live(environment: Environment) -> AsyncIterator[Environment]:
    if environment.scenario is None:
        yield environment
        return
    folder = environment.scenario_path or environment.scenario
    sets = shared_listeners.process_sets(
        idle_seconds=settings.DEMO_LISTENERS_IDLE_SECONDS
    )
    async with sets.borrow_async(folder) as running:
        yield environment.bind_live(running.server_args())
