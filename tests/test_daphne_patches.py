"""The Twisted and Daphne shapes agentops.daphne_forms and agentops.body_limit patch; fails, naming
the versions, when a release changes one.

daphne_forms: Twisted's Request takes ``parsePOSTFormSubmission`` and Daphne's WebRequest passes its
keyword arguments through. body_limit: Request's ``gotLength(length)``, ``handleContentChunk(data)``
and ``process()`` hooks, and HTTPChannel keeping the request target in ``_path`` while the headers
are read. (tests/diagnosis/test_api_inputs.py and test_body_limit.py check the behaviour over HTTP.)
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


def test_twisted_request_has_the_body_hooks_body_limit_wraps():
    request = twisted.web.http.Request
    for name, params in (
        ("gotLength", ["self", "length"]),
        ("handleContentChunk", ["self", "data"]),
        ("process", ["self"]),
    ):
        method = getattr(request, name, None)
        assert method is not None, (
            f"Twisted {twisted.__version__}: Request.{name} is gone"
        )
        assert list(inspect.signature(method).parameters) == params, (
            f"Twisted {twisted.__version__}: Request.{name}{inspect.signature(method)}"
        )
    for name in ("gotLength", "handleContentChunk", "process"):
        assert getattr(daphne.http_protocol.WebRequest, name, None) is not None


def test_twisted_channel_keeps_the_request_target_in_path_while_reading_headers():
    source = inspect.getsource(twisted.web.http.HTTPChannel)
    assigned = source.find("self._path = ")
    length = source.find(".gotLength(")
    assert 0 <= assigned < length, (
        f"Twisted {twisted.__version__}: HTTPChannel no longer sets _path before gotLength"
    )
