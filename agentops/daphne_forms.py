"""Daphne passes every POST body to the app: Twisted must not judge form bodies in front of it.

twisted.web's Request parses a POST's multipart/form-data body into `request.args` before Daphne
runs, and when its parser refuses the body (curl -F's bodies included, Twisted 26.10) answers a
bare 400 with no body, so the API's JSON refusal never went out. Daphne never reads `args`: it
hands the raw body to the ASGI app, which refuses what it does not take. Requests Daphne makes
are built with `parsePOSTFormSubmission=False` (a Twisted Request parameter, within the range
pinned in pyproject.toml); tests/diagnosis/test_api_inputs.py posts such a body over real HTTP,
and tests/test_daphne_patches.py fails, naming the versions, when Twisted or Daphne change shape.
"""

import functools
import sys
from typing import Any

_MARK = "_agentops_form_parsing_off"


def install() -> None:
    """Turn Twisted's form parsing off for Daphne's requests; a no-op outside Daphne."""
    # Only when Daphne is what loaded us: importing daphne.http_protocol elsewhere would pull
    # Twisted's web stack into a process that never serves with it.
    module = sys.modules.get("daphne.http_protocol")
    if module is None or getattr(module.WebRequest, _MARK, False):
        return
    init = module.WebRequest.__init__

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("parsePOSTFormSubmission", False)
        init(self, *args, **kwargs)

    module.WebRequest.__init__ = __init__
    setattr(module.WebRequest, _MARK, True)
