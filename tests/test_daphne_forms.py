"""agentops.daphne_forms relies on two library shapes; this fails, naming the versions, when either changes.

Twisted's Request takes ``parsePOSTFormSubmission``, and Daphne's WebRequest passes its keyword
arguments through to it. (tests/diagnosis/test_api_inputs.py checks the behaviour over real HTTP.)
"""

from __future__ import annotations

import importlib.metadata
import inspect

import daphne.http_protocol
import twisted
import twisted.web.http


def test_twisted_request_takes_parse_post_form_submission():
    parameters = inspect.signature(twisted.web.http.Request.__init__).parameters
    assert "parsePOSTFormSubmission" in parameters, (
        f"Twisted {twisted.__version__}: Request no longer takes parsePOSTFormSubmission"
    )


def test_daphne_web_request_passes_keyword_arguments_to_twisted():
    init = daphne.http_protocol.WebRequest.__init__
    parameters = inspect.signature(init).parameters
    assert any(p.kind is p.VAR_KEYWORD for p in parameters.values()), (
        f"daphne {importlib.metadata.version('daphne')}: WebRequest.__init__ takes no **kwargs"
    )
    assert "http.Request.__init__(self, *args, **kwargs)" in inspect.getsource(init), (
        f"daphne {importlib.metadata.version('daphne')}: WebRequest no longer forwards its arguments"
    )
