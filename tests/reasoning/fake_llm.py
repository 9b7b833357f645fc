"""A scripted OpenAI-compatible chat completions server on 127.0.0.1, for the LLM planner's tests.

Each POST /v1/chat/completions gets the script's next reply: a chat completion wrapping an
assistant message, an HTTP error, a body that is not JSON, or no answer until the server closes
(for timeouts). Every request is recorded (path, headers, JSON body). A request past the end of
the script gets a 500 naming it, so a planner that asks more than the test expects fails.
"""

import contextlib
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def tool_call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    """A tool call as the API sends it: arguments are a JSON string (or raw text, to break it)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": name, "arguments": text},
    }


def assistant(*calls: dict[str, Any], content: str | None = None, tokens: int = 100):
    """A 200 reply: one assistant message making `calls`, with `tokens` as its usage."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if calls:
        message["tool_calls"] = list(calls)
    return {
        "status": 200,
        "body": {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": tokens - 10,
                "completion_tokens": 10,
                "total_tokens": tokens,
            },
        },
    }


def error(status: int, text: str = "upstream model overloaded") -> dict[str, Any]:
    return {"status": status, "body": {"error": {"message": text}}}


NOT_JSON = {"status": 200, "raw": b"<html>gateway says hello</html>"}
HANG = {"hang": True}


@dataclass
class FakeLLM:
    script: list[dict[str, Any]]
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    release: threading.Event = field(default_factory=threading.Event)

    def bodies(self) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests]


def _handler(fake: FakeLLM) -> type[BaseHTTPRequestHandler]:
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            with lock:
                fake.requests.append(
                    {
                        "path": self.path,
                        "headers": dict(self.headers.items()),
                        "body": json.loads(raw),
                    }
                )
                index = len(fake.requests) - 1
            if index >= len(fake.script):
                reply = error(500, f"script exhausted: request {index + 1}")
            else:
                reply = fake.script[index]
            if reply.get("hang"):
                fake.release.wait(timeout=60)  # until the server closes
                return
            payload = reply.get("raw") or json.dumps(reply["body"]).encode()
            self.send_response(reply["status"])
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


@contextlib.contextmanager
def fake_llm(script: list[dict[str, Any]]) -> Iterator[FakeLLM]:
    """Serve `script` on a free port of 127.0.0.1; `.url` is the base URL (…/v1)."""
    fake = FakeLLM(script=list(script))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    server.daemon_threads = True
    fake.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.release.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
