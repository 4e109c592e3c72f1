"""Error mapping: each server error type becomes its class, carrying type, message, hint and status."""

from __future__ import annotations

import unittest

from fake_server import FakeServer, Reply, Request, error_body

from polar_rollout import (
    CaptureUnavailable,
    Conflict,
    InvalidRequest,
    NotFound,
    PayloadTooLarge,
    PolarClient,
    PolarError,
    ServerError,
    Unauthorized,
)
from polar_rollout.errors import UNAUTHORIZED_HINT, error_from_response


class ErrorFromResponseTest(unittest.TestCase):
    def test_each_server_type_maps_to_its_class(self) -> None:
        cases = [
            (400, "invalid_request", InvalidRequest),
            (401, "unauthorized", Unauthorized),
            (404, "not_found", NotFound),
            (409, "conflict", Conflict),
            (409, "capture_unavailable", CaptureUnavailable),
            (413, "payload_too_large", PayloadTooLarge),
            (500, "internal", ServerError),
        ]
        for status, error_type, cls in cases:
            with self.subTest(error_type=error_type):
                body = f'{{"error":{{"type":"{error_type}","message":"m {status}","hint":"h {status}"}}}}'.encode()
                error = error_from_response(status, body, "GET /x")
                self.assertIs(type(error), cls)
                self.assertIsInstance(error, PolarError)
                self.assertEqual((error.type, error.message, error.hint, error.status), (error_type, f"m {status}", f"h {status}", status))

    def test_str_shows_message_then_hint(self) -> None:
        error = error_from_response(400, b'{"error":{"type":"invalid_request","message":"tasks[0]: missing","hint":"A row needs repo."}}', "POST /v1/rollouts")
        self.assertEqual(str(error), "tasks[0]: missing\nhint: A row needs repo.")
        self.assertEqual(str(PolarError("no hint")), "no hint")

    def test_unknown_type_falls_back_to_the_status(self) -> None:
        self.assertIs(type(error_from_response(404, b'{"error":{"type":"gone_fishing","message":"m"}}', "GET /x")), NotFound)
        self.assertIs(type(error_from_response(503, b'{"error":{"type":"overloaded","message":"m"}}', "GET /x")), ServerError)
        plain = error_from_response(418, b'{"error":{"type":"teapot","message":"short and stout"}}', "GET /x")
        self.assertIs(type(plain), PolarError)
        self.assertEqual((plain.type, plain.status), ("teapot", 418))

    def test_a_body_that_is_not_polar_json_is_quoted(self) -> None:
        error = error_from_response(502, b"<html>Bad Gateway</html>", "GET /v1/status")
        self.assertIs(type(error), ServerError)
        self.assertEqual(error.message, "GET /v1/status: HTTP 502: <html>Bad Gateway</html>")

    def test_unauthorized_without_a_hint_gets_the_clients(self) -> None:
        error = error_from_response(401, b'{"error":{"type":"unauthorized","message":"missing or invalid bearer token"}}', "GET /v1/status")
        self.assertEqual(error.hint, UNAUTHORIZED_HINT)
        self.assertIn("POLAR_SERVE_TOKEN", str(error))


class ErrorsOverHttpTest(unittest.TestCase):
    def test_the_client_raises_the_servers_error_and_sends_the_token(self) -> None:
        def script(request: Request, reply: Reply) -> None:
            if request.headers.get("authorization") != "Bearer right":
                reply.json(401, error_body("unauthorized", "missing or invalid bearer token"), {"WWW-Authenticate": "Bearer"})
            else:
                reply.json(404, error_body("not_found", "no batch b_nope", "List batches with GET /v1/rollouts"))

        with FakeServer(script) as server:
            with self.assertRaises(Unauthorized) as bad:
                PolarClient(server.url, token="wrong").status()
            self.assertEqual(bad.exception.status, 401)
            self.assertIn("POLAR_SERVE_TOKEN", bad.exception.hint or "")
            with self.assertRaises(NotFound) as missing:
                PolarClient(server.url, token="right").get("b_nope")
            self.assertEqual(missing.exception.hint, "List batches with GET /v1/rollouts")
            self.assertEqual(len(server.requests), 2, "4xx answers are not retried")


if __name__ == "__main__":
    unittest.main()
