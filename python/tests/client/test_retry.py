"""Retries: the policy's decisions and delays, and the client over a real socket that resets, refuses or answers 503."""

from __future__ import annotations

import threading
import unittest
from typing import Callable, Dict, List

from fake_server import FakeServer, Reply, Request, free_port

from polar_rollout import ConnectionLost, PolarClient, RetryPolicy, ServerError
from polar_rollout.retry import CONNECT, RESOLVE, STATUS, TRANSFER, parse_retry_after


class RetryPolicyTest(unittest.TestCase):
    def test_what_is_retried(self) -> None:
        policy = RetryPolicy(max_retries=3)
        for phase, idempotent, expected in [
            (CONNECT, False, True),  # never reached the server: always safe
            (CONNECT, True, True),
            (TRANSFER, True, True),
            (TRANSFER, False, False),  # may have reached the server: only idempotent calls
            (STATUS, True, True),
            (STATUS, False, False),
            (RESOLVE, True, False),  # a wrong host name does not heal
        ]:
            with self.subTest(phase=phase, idempotent=idempotent):
                self.assertEqual(policy.should_retry(phase, idempotent=idempotent, attempt=1), expected)
        self.assertTrue(policy.should_retry(CONNECT, idempotent=True, attempt=3))
        self.assertFalse(policy.should_retry(CONNECT, idempotent=True, attempt=4), "max_retries repeats after the first try")

    def test_delay_doubles_is_capped_and_jittered(self) -> None:
        policy = RetryPolicy(backoff=0.5, max_backoff=3.0)
        self.assertEqual([policy.delay(n, rand=lambda: 0.0) for n in range(1, 6)], [0.25, 0.5, 1.0, 1.5, 1.5])
        self.assertEqual([policy.delay(n, rand=lambda: 1.0) for n in range(1, 6)], [0.5, 1.0, 2.0, 3.0, 3.0])
        self.assertEqual(policy.delay(1, retry_after=2.0), 2.0)
        self.assertEqual(policy.delay(1, retry_after=99.0), 3.0)

    def test_retry_after_header(self) -> None:
        self.assertEqual(parse_retry_after("3"), 3.0)
        self.assertIsNone(parse_retry_after("Wed, 21 Oct 2026 07:28:00 GMT"))
        self.assertIsNone(parse_retry_after(None))

    def test_bad_settings_are_refused(self) -> None:
        with self.assertRaises(ValueError):
            RetryPolicy(max_retries=-1)


def failing_then(failures: List[str], answer: Dict[str, object]) -> Callable[[Request, Reply], None]:
    """A script that answers the first requests with ``failures`` ('reset' or '503') and then ``answer``."""
    left = list(failures)

    def script(request: Request, reply: Reply) -> None:
        kind = left.pop(0) if left else None
        if kind == "reset":
            reply.reset()
        elif kind == "503":
            reply.json(503, {"error": {"type": "unavailable", "message": "starting"}}, {"Retry-After": "0"})
        else:
            reply.json(200, answer)

    return script


def client(url: str, retries: int = 4) -> PolarClient:
    return PolarClient(url, token="t", max_retries=retries, backoff=0.01, max_backoff=0.05)


class ClientRetryTest(unittest.TestCase):
    def test_a_get_is_retried_through_resets_and_503(self) -> None:
        with FakeServer(failing_then(["reset", "503", "reset"], {"generation": {}})) as server:
            with self.assertLogs("polar_rollout", level="WARNING") as logged:
                self.assertEqual(client(server.url).status(), {"generation": {}})
            self.assertEqual(len(server.requests), 4)
        self.assertEqual([line.split("; ")[-1].split(" in ")[0] for line in logged.output], ["retry 1 of 4", "retry 2 of 4", "retry 3 of 4"])
        self.assertIn("HTTP 503 starting", logged.output[1])

    def test_a_submit_is_retried_with_the_same_idempotency_key(self) -> None:
        with FakeServer(failing_then(["reset", "reset"], {"id": "b_1", "status": "queued", "created": True})) as server:
            batch = client(server.url).submit("pi", tasks=[{"instance_id": "a"}])
            self.assertEqual(batch.id, "b_1")
            keys = {request.headers["idempotency-key"] for request in server.requests}
            self.assertEqual(len(server.requests), 3)
            self.assertEqual(len(keys), 1, "every try carries the key of the first")

    def test_a_pause_is_not_sent_twice_after_a_reset(self) -> None:
        with FakeServer(failing_then(["reset"], {"paused": True})) as server:
            with self.assertRaises(ConnectionLost) as lost:
                client(server.url).pause(drain_timeout_ms=0)
            self.assertEqual(len(server.requests), 1)
            self.assertIn("may already have acted", lost.exception.message)
            self.assertIn("client.status()", lost.exception.hint or "")

    def test_a_pause_answered_503_reports_the_answer(self) -> None:
        with FakeServer(failing_then(["503"], {"paused": True})) as server:
            with self.assertRaises(ServerError) as answer:
                client(server.url).resume(policy_version=2)
            self.assertEqual((answer.exception.status, len(server.requests)), (503, 1))

    def test_giving_up_says_how_often_it_tried(self) -> None:
        with FakeServer(failing_then(["reset"] * 10, {})) as server:
            with self.assertRaises(ConnectionLost) as lost:
                client(server.url, retries=2).get("b_1")
            self.assertEqual((lost.exception.attempts, len(server.requests)), (3, 3))
            self.assertIn("gave up after 3 attempt(s)", str(lost.exception))

    def test_a_refused_connection_is_retried_for_any_call_until_the_server_is_up(self) -> None:
        port = free_port()
        servers: List[FakeServer] = []
        started = threading.Event()

        def start_later() -> None:
            servers.append(FakeServer(failing_then([], {"paused": False, "policy_version": 3}), port=port))
            started.set()

        timer = threading.Timer(0.3, start_later)
        timer.start()
        try:
            answer = PolarClient(f"http://127.0.0.1:{port}", max_retries=40, backoff=0.05, max_backoff=0.1).resume(policy_version=3)
            self.assertTrue(started.is_set())
            self.assertEqual(answer, {"paused": False, "policy_version": 3})
            self.assertEqual(len(servers[0].requests), 1, "a refused POST was never sent, so it is sent once the server is up")
        finally:
            timer.cancel()
            for server in servers:
                server.close()

    def test_a_read_timeout_is_retried_for_a_get(self) -> None:
        release = threading.Event()
        calls: List[int] = []

        def script(request: Request, reply: Reply) -> None:
            calls.append(1)
            if len(calls) == 1:
                release.wait(5)  # the client's 0.2 s read timeout fires first
            reply.json(200, {"rollouts": []})

        with FakeServer(script) as server:
            try:
                self.assertEqual(PolarClient(server.url, timeout=0.2, max_retries=2, backoff=0.01).list(), [])
            finally:
                release.set()
            self.assertEqual(len(calls), 2)


if __name__ == "__main__":
    unittest.main()
