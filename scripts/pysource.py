"""Python source to an AST, without CPython 3.11's false "AST constructor recursion depth mismatch".

CPython 3.11 resets a per-interpreter counter at the start of every AST construction (`ast.parse`)
and checks it at the end. When the garbage collector runs a finalizer in the middle of one
construction, and that finalizer parses too (an asyncio task's "exception was never retrieved"
log formats a traceback, and 3.11's traceback module parses the failing line for its ^^^ marks),
the inner construction leaves the counter deeper and the outer one raises SystemError
(python/cpython#106905 and the reports around it). Our scripts and tests parse source in a
process full of such garbage; collecting nothing while parsing keeps finalizers out of it.
tests/test_pysource.py fails when this is no longer needed or no longer enough.
"""

from __future__ import annotations

import ast
import gc


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    """`ast.parse(source, filename)` with the garbage collector paused."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(source, filename)
    finally:
        if was_enabled:
            gc.enable()
