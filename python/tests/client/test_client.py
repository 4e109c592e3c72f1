"""Requests the client builds (submit body and key, routes, pause/resume bodies) and the batches it reads."""

from __future__ import annotations

import os
import unittest
from typing import Any, Dict, List
from unittest import mock

from fake_server import FakeServer, Reply, Request

from polar_rollout import RELOAD_WEIGHTS, Batch, ExcludedSession, InvalidResponse, PolarClient, TailCounts, WaitTimeout, disk_weights, lora_weights

DESCRIBED = {
    "id": "b_1", "status": "running", "status_reason": None, "run": "serve-b_1", "harness": "pi", "policy_version": 2,
    "created_at": "2026-11-26T10:00:00.000Z", "finished_at": None,
    "sessions": {"total": 4, "done": 1, "queued": 1, "running": 2, "by_status": {"completed": 1}},
    "groups": {"total": 2, "completed": 0}, "callback": None, "future_field": {"x": 1},
    "excluded": [{"session_id": 7, "group_id": "serve-b_1/a", "instance_id": "a", "sample_index": 1, "status": "infra_error", "status_reason": "upstream_5xx", "reason": "infra-error"},
                 {"session_id": 9, "group_id": "serve-b_1/b", "instance_id": "b", "sample_index": 0, "status": "eval_error", "status_reason": None, "reason": "eval-error"}],
}


def echo(answer: Dict[str, Any]) -> Any:
    def script(request: Request, reply: Reply) -> None:
        reply.json(200, answer)

    return script


class SubmitTest(unittest.TestCase):
    def test_body_leaves_out_none_and_passes_extra_fields(self) -> None:
        with FakeServer(echo({"id": "b_1", "status": "queued", "created": True})) as server:
            batch = PolarClient(server.url, token="t").submit(
                "pi", tasks=[{"instance_id": "a"}], samples=2, sampling={"temperature": 1.0}, policy_version=0, evaluate=False, future_option=3, dataset=None
            )
            request = server.requests[0]
        self.assertEqual((request.method, request.path), ("POST", "/v1/rollouts"))
        self.assertEqual(request.json(), {"harness": "pi", "samples": 2, "tasks": [{"instance_id": "a"}], "sampling": {"temperature": 1.0}, "policy_version": 0, "evaluate": False, "future_option": 3})
        self.assertEqual(request.headers["authorization"], "Bearer t")
        self.assertEqual(request.headers["content-type"], "application/json")
        self.assertTrue(request.headers["idempotency-key"].startswith("polar-rollout-"))
        self.assertEqual((batch.id, batch.status, batch.created), ("b_1", "queued", True))

    def test_target_groups_and_tail_are_sent_when_given(self) -> None:
        with FakeServer(echo({"id": "b_1", "status": "queued", "created": True})) as server:
            client = PolarClient(server.url)
            client.submit("pi", tasks=[{"instance_id": "a"}, {"instance_id": "b"}], target_groups=1, tail="carry")
            client.submit("pi", tasks=[{"instance_id": "a"}])
            bodies = [request.json() for request in server.requests]
        self.assertEqual((bodies[0]["target_groups"], bodies[0]["tail"]), (1, "carry"))
        self.assertNotIn("target_groups", bodies[1])
        self.assertNotIn("tail", bodies[1])

    def test_capture_is_sent_when_given_and_read_back(self) -> None:
        with FakeServer(echo({"id": "b_1", "status": "queued", "created": True, "capture": "token_in"})) as server:
            client = PolarClient(server.url)
            batch = client.submit("pi", tasks=[{"instance_id": "a"}], capture="token_in")
            client.submit("pi", tasks=[{"instance_id": "a"}])
            bodies = [request.json() for request in server.requests]
        self.assertEqual((bodies[0]["capture"], batch.capture), ("token_in", "token_in"))
        self.assertNotIn("capture", bodies[1])  # the server's default
        self.assertIsNone(Batch.from_json({"id": "b_2", "status": "queued"}).capture)  # a server from before capture modes

    def test_a_given_key_is_sent_and_a_fresh_one_each_submit_otherwise(self) -> None:
        with FakeServer(echo({"id": "b_1", "status": "queued", "created": False})) as server:
            client = PolarClient(server.url)
            self.assertIs(client.submit("pi", tasks=[], idempotency_key="step-3").created, False)
            client.submit("pi", tasks=[])
            client.submit("pi", tasks=[])
            keys = [request.headers["idempotency-key"] for request in server.requests]
        self.assertEqual(keys[0], "step-3")
        self.assertNotEqual(keys[1], keys[2])


class BatchTest(unittest.TestCase):
    def test_a_described_batch(self) -> None:
        batch = Batch.from_json(DESCRIBED)
        self.assertEqual((batch.run, batch.policy_version, batch.created), ("serve-b_1", 2, None))
        self.assertEqual((batch.sessions.total if batch.sessions else None, batch.sessions.by_status if batch.sessions else None), (4, {"completed": 1}))
        self.assertEqual((batch.groups.total, batch.groups.completed) if batch.groups else None, (2, 0))
        self.assertEqual(batch.raw["future_field"], {"x": 1})
        self.assertEqual(batch.excluded[0], ExcludedSession(7, "serve-b_1/a", "a", 1, "infra_error", "upstream_5xx", "infra-error"))
        self.assertEqual(batch.infra_session_ids, [7])
        self.assertEqual(Batch.from_json({"id": "b_2", "status": "queued"}).excluded, ())
        self.assertFalse(batch.terminal)
        self.assertTrue(Batch.from_json({**DESCRIBED, "status": "cancelled"}).terminal)

    def test_the_target_fields(self) -> None:
        batch = Batch.from_json({
            **DESCRIBED, "target_groups": 1, "tail": "cancel", "target_reached": True, "target_reached_at": "2026-11-26T10:01:00.000Z",
            "tail_counts": {"complete": 1, "cancelled": 2, "carried": 0},
            "excluded": [{"session_id": 3, "group_id": "serve-b_1/b", "instance_id": "b", "sample_index": 0, "status": "cancelled", "status_reason": "tail_cancelled", "reason": "cancelled"}],
        })
        self.assertEqual((batch.target_groups, batch.tail, batch.target_reached, batch.target_reached_at), (1, "cancel", True, "2026-11-26T10:01:00.000Z"))
        self.assertEqual(batch.tail_counts, TailCounts(complete=1, cancelled=2, carried=0))
        self.assertEqual(batch.excluded[0].status_reason, "tail_cancelled")
        older = Batch.from_json({"id": "b_2", "status": "queued"})  # a server from before targets
        self.assertEqual((older.target_groups, older.tail, older.target_reached, older.tail_counts), (None, None, None, None))

    def test_not_a_batch(self) -> None:
        for value in ({"status": "queued"}, {"id": 3, "status": "queued"}, [], None, {**DESCRIBED, "excluded": [{"session_id": 1}]}):
            with self.subTest(value=value), self.assertRaises(InvalidResponse):
                Batch.from_json(value)


class RoutesTest(unittest.TestCase):
    def test_get_list_cancel_status_pause_resume(self) -> None:
        answers: Dict[str, Any] = {
            "GET /v1/rollouts/b_1": DESCRIBED,
            "GET /v1/rollouts": {"rollouts": [DESCRIBED, {**DESCRIBED, "id": "b_2"}]},
            "DELETE /v1/rollouts/b_1": {**DESCRIBED, "status": "cancelled"},
            "GET /v1/status": {"generation": {"paused": False}},
            "POST /v1/generation/pause": {"paused": True, "drained": True, "in_flight": 0, "policy_version": 2},
            "POST /v1/generation/resume": {"paused": False, "policy_version": 3},
        }

        def script(request: Request, reply: Reply) -> None:
            reply.json(200, answers[f"{request.method} {request.path}"])

        with FakeServer(script) as server:
            client = PolarClient(server.url)
            self.assertEqual(client.get("b_1").sessions, Batch.from_json(DESCRIBED).sessions)
            self.assertEqual([batch.id for batch in client.list()], ["b_1", "b_2"])
            self.assertEqual(client.cancel("b_1").status, "cancelled")
            self.assertEqual(client.status(), {"generation": {"paused": False}})
            self.assertTrue(client.pause(drain_timeout_ms=5000, mode="keep")["paused"])
            self.assertEqual(client.pause()["policy_version"], 2)
            self.assertEqual(client.resume(policy_version=3, weights=disk_weights("/ckpt/3"))["policy_version"], 3)
            client.resume()
            client.pause(mode="hold", sleep=2)
            client.resume(policy_version=4, weights=RELOAD_WEIGHTS)
            client.resume(policy_version=5, weights=lora_weights("step-5", "/ckpt/5"))
            bodies: List[Any] = [request.json() for request in server.requests if request.method == "POST"]
        self.assertEqual(
            bodies,
            [
                {"drain_timeout_ms": 5000, "mode": "keep"},
                {},
                {"policy_version": 3, "weights": {"kind": "disk", "model_path": "/ckpt/3"}},
                {},
                {"mode": "hold", "sleep": 2},
                {"policy_version": 4, "weights": {"kind": "reload"}},
                {"policy_version": 5, "weights": {"kind": "lora", "lora_name": "step-5", "lora_path": "/ckpt/5"}},
            ],
        )


class WaitTest(unittest.TestCase):
    def test_wait_polls_until_the_batch_ends(self) -> None:
        statuses = ["queued", "running", "finished"]

        def script(request: Request, reply: Reply) -> None:
            reply.json(200, {**DESCRIBED, "status": statuses[min(len(server.requests), 3) - 1]})

        with FakeServer(script) as server:
            self.assertEqual(PolarClient(server.url).wait("b_1", poll_interval=0.01).status, "finished")
            self.assertEqual(len(server.requests), 3)

    def test_wait_target_returns_once_the_target_is_reached_while_the_batch_runs(self) -> None:
        answers = [
            {**DESCRIBED, "status": "running", "target_reached": False},
            {**DESCRIBED, "status": "running", "target_reached": False},
            {**DESCRIBED, "status": "running", "target_reached": True, "tail": "carry", "tail_counts": {"complete": 2, "cancelled": 0, "carried": 3}},
        ]

        def script(request: Request, reply: Reply) -> None:
            reply.json(200, answers[min(len(server.requests), 3) - 1])

        with FakeServer(script) as server:
            batch = PolarClient(server.url).wait_target("b_1", poll_interval=0.01)
            self.assertEqual(len(server.requests), 3)
        self.assertEqual((batch.status, batch.target_reached, batch.tail_counts), ("running", True, TailCounts(2, 0, 3)))

    def test_wait_target_returns_a_batch_that_ended_short_and_gives_up_after_its_timeout(self) -> None:
        with FakeServer(echo({**DESCRIBED, "status": "cancelled", "target_reached": False})) as server:
            self.assertIs(PolarClient(server.url).wait_target("b_1", poll_interval=0.01).target_reached, False)
        with FakeServer(echo({**DESCRIBED, "target_reached": False})) as server:
            with self.assertRaises(WaitTimeout) as late:
                PolarClient(server.url).wait_target("b_1", poll_interval=0.01, timeout=0.05)
        self.assertIn("short of its target", str(late.exception))

    def test_wait_gives_up_after_its_timeout(self) -> None:
        with FakeServer(echo(DESCRIBED)) as server:
            with self.assertRaises(WaitTimeout) as late:
                PolarClient(server.url).wait("b_1", poll_interval=0.01, timeout=0.05)
        self.assertIn("still running", str(late.exception))


class ConfigurationTest(unittest.TestCase):
    def test_url_and_token_from_the_environment(self) -> None:
        with FakeServer(echo({"generation": {}})) as server:
            with mock.patch.dict(os.environ, {"POLAR_SERVE_URL": server.url + "/", "POLAR_SERVE_TOKEN": "from-env"}):
                client = PolarClient()
                client.status()
            self.assertEqual(client.url, server.url)
            self.assertEqual(server.requests[0].headers["authorization"], "Bearer from-env")

    def test_a_url_prefix_is_kept(self) -> None:
        with FakeServer(echo({"generation": {}})) as server:
            PolarClient(server.url + "/polar").status()
            self.assertEqual(server.requests[0].path, "/polar/v1/status")

    def test_not_a_url(self) -> None:
        with self.assertRaises(ValueError):
            PolarClient("127.0.0.1:8080")


if __name__ == "__main__":
    unittest.main()
