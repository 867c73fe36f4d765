"""What needs no Worker: retries and Idempotency-Keys against a local stub, problem errors, the
event-stream parser, and the copy of the idempotent writes against client/openapi.json."""

from __future__ import annotations

import http.server
import json
import pathlib
import threading
import unittest
from typing import Any, Dict, List, Tuple

from praxis_client import Praxis, PraxisConnectionError, PraxisError, RetryOptions
from praxis_client._idempotency import IDEMPOTENT_WRITES
from praxis_client.client import _sse

SNAPSHOT = pathlib.Path(__file__).resolve().parents[3] / "client" / "openapi.json"


class Stub:
    """An HTTP server answering from a script of (status, headers, body) and recording requests."""

    def __init__(self, script: List[Tuple[int, Dict[str, str], Any]]) -> None:
        self.script = list(script)
        self.requests: List[Dict[str, Any]] = []
        stub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                stub.requests.append({"method": self.command, "path": self.path, "headers": dict(self.headers.items()), "body": body})
                status, headers, payload = stub.script.pop(0) if stub.script else (500, {}, {"detail": "script exhausted"})
                raw = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", headers.pop("content-type", "application/json"))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PUT = do_DELETE = _answer

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


PROBLEM_503 = {"type": "https://praxis.dev/problems/unavailable", "title": "Unavailable", "status": 503, "detail": "busy"}
FAST = RetryOptions(retries=2, base_delay_s=0.01)


class RetryTest(unittest.TestCase):
    def stub(self, script: List[Tuple[int, Dict[str, str], Any]]) -> Stub:
        s = Stub(script)
        self.addCleanup(s.close)
        return s

    def test_an_idempotent_write_is_retried_with_one_key(self) -> None:
        s = self.stub([(503, {"retry-after": "0"}, PROBLEM_503), (502, {}, {}), (200, {}, {"reward": 1.0, "updated": [], "uncited": [], "replayed": False})])
        r = Praxis(s.url, "pxk_test", retry=FAST).agent("bot").reward(retrieval_id="ret_1", outcome="success")
        self.assertEqual(r["reward"], 1.0)
        keys = {req["headers"].get("Idempotency-Key") or req["headers"].get("idempotency-key") for req in s.requests}
        self.assertEqual(len(s.requests), 3)
        self.assertEqual(len(keys), 1)
        self.assertRegex(keys.pop() or "", r"^[0-9a-f-]{36}$")
        self.assertEqual(s.requests[0]["path"], "/v1/agents/bot/rewards")
        self.assertEqual(json.loads(s.requests[0]["body"]), {"retrievalId": "ret_1", "outcome": "success"})
        self.assertEqual(s.requests[0]["headers"].get("Authorization"), "Bearer pxk_test")

    def test_a_write_without_a_key_is_sent_once(self) -> None:
        s = self.stub([(503, {}, PROBLEM_503), (200, {}, {})])
        ep = Praxis(s.url, "k", retry=FAST).agent("bot").episode("t")
        ep._id = "ep_1"
        with self.assertRaises(PraxisError) as caught:
            ep.attempt("tried", ok=True)
        self.assertEqual(caught.exception.status, 503)
        self.assertEqual(len(s.requests), 1)

    def test_a_not_configured_503_is_not_retried(self) -> None:
        problem = {"type": "https://praxis.dev/problems/llm-not-configured", "title": "No LLM", "status": 503, "detail": "Set LLM_BASE_URL"}
        s = self.stub([(503, {}, problem), (200, {}, {})])
        with self.assertRaises(PraxisError) as caught:
            Praxis(s.url, "k", retry=FAST).request("GET", "/v1/agents")
        self.assertEqual(caught.exception.code, "llm-not-configured")
        self.assertEqual(len(s.requests), 1)

    def test_reads_give_up_after_the_retries(self) -> None:
        s = self.stub([(429, {}, {**PROBLEM_503, "status": 429})] * 3)
        with self.assertRaises(PraxisError) as caught:
            Praxis(s.url, "k", retry=FAST).agents()
        self.assertEqual(caught.exception.status, 429)
        self.assertEqual(len(s.requests), 3)

    def test_path_parameters_are_escaped_and_query_nones_dropped(self) -> None:
        s = self.stub([(200, {}, {"prompt": "", "mode": "ranked", "experienceIds": [], "caseIds": [], "retrievalId": "r", "estimatedTokens": 0})])
        Praxis(s.url, "k").agent("a/b").prompt("x y", max_cases=2)
        self.assertEqual(s.requests[0]["path"], "/v1/agents/a%2Fb/prompt?query=x+y&maxCases=2")

    def test_a_prompt_filter_is_sent_as_json(self) -> None:
        s = self.stub([(200, {}, {"prompt": "", "mode": "ranked", "experienceIds": [], "caseIds": [], "retrievalId": "r", "estimatedTokens": 0})])
        Praxis(s.url, "k").agent("a").prompt("x", filter={"tags": ["billing"]})
        self.assertEqual(s.requests[0]["path"], "/v1/agents/a/prompt?query=x&filter=%7B%22tags%22%3A+%5B%22billing%22%5D%7D")

    def test_an_unreachable_api_raises_a_connection_error(self) -> None:
        with self.assertRaises(PraxisConnectionError) as caught:
            Praxis("http://127.0.0.1:9", "k", retry=RetryOptions(retries=1, base_delay_s=0.01)).agents()
        self.assertIn("Could not reach http://127.0.0.1:9", str(caught.exception))


class ProblemTest(unittest.TestCase):
    def test_formats_a_validation_problem_as_one_line(self) -> None:
        body = {
            "type": "https://praxis.dev/problems/validation-failed",
            "title": "Validation failed",
            "status": 400,
            "detail": "The request is invalid",
            "requestId": "req-1",
            "errors": [{"path": "text", "message": "Too small", "code": "too_small"}],
        }
        err = PraxisError(400, body)
        self.assertEqual(err.code, "validation-failed")
        self.assertEqual(err.errors[0].path, "text")
        self.assertEqual(str(err), "400 validation-failed: The request is invalid [text: Too small] (request req-1)")

    def test_a_non_problem_answer_keeps_its_text(self) -> None:
        err = PraxisError(502, "Bad gateway", "req-2")
        self.assertEqual((err.status, err.type, err.detail, err.request_id), (502, "about:blank", "Bad gateway", "req-2"))


class EventStreamTest(unittest.TestCase):
    def test_parses_events_with_ids_multiline_data_and_comments(self) -> None:
        lines = [": keep-alive", "id: 1", "event: stage", 'data: {"stage":', 'data: "rollout"}', "", "id: 2", "event: end", "data: {}", ""]
        events = list(_sse(iter(lines)))
        self.assertEqual(events, [{"id": "1", "event": "stage", "data": '{"stage":\n"rollout"}'}, {"id": "2", "event": "end", "data": "{}"}])


@unittest.skipUnless(SNAPSHOT.exists(), "client/openapi.json is not beside this checkout")
class IdempotencyCopyTest(unittest.TestCase):
    def test_matches_the_writes_that_take_an_idempotency_key_in_the_openapi_document(self) -> None:
        doc = json.loads(SNAPSHOT.read_text())
        expected = {
            f"{method.upper()} {route}"
            for route, ops in doc["paths"].items()
            for method, op in ops.items()
            if any(p.get("in") == "header" and p.get("name", "").lower() == "idempotency-key" for p in op.get("parameters", []))
        }
        self.assertEqual(set(IDEMPOTENT_WRITES), expected)


if __name__ == "__main__":
    unittest.main()
