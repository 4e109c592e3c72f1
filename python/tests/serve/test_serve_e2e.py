"""The client against a real ``polar serve`` (the simulator's oracle as upstream, the real Pi harness in Docker).

Run by test/python/python-client.e2e.test.ts, which builds the example task's image, installs this package
into a fresh venv and sets POLAR_TEST_SERVE_COMMAND, POLAR_TEST_TASKS and POLAR_TEST_DIR. The steps run in
order on one server and database (unittest sorts the methods by name):

1. a bad token and a malformed task row are refused with the server's typed errors and hints;
2. a batch is submitted while generation is paused (twice with one idempotency key: one batch), its calls
   are held, and a resume with policy version 1 releases them;
3. its groups are iterated while the server is killed with -9 and restarted on the same database and port:
   the client retries, and every group arrives exactly once;
4. the results cursor, limits, formats and a resume from a stored cursor;
5. a cancel; 6. the event stream across the restart; 7. examples/async_grpo.py runs to its end.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import unittest
from typing import Any, ClassVar, Dict, List, Optional

from serve_process import ServeProcess

import polar_rollout
from polar_rollout import Batch, Event, Group, InvalidRequest, NotFound, PolarClient, Unauthorized

TOKEN = "python-client-e2e-token"
UPSTREAM = "sim:oracle?first-token-ms=300&per-token-ms=2"
COMMAND = os.environ.get("POLAR_TEST_SERVE_COMMAND")


@unittest.skipUnless(COMMAND, "needs POLAR_TEST_SERVE_COMMAND: run by test/python/python-client.e2e.test.ts (Docker, the Pi harness, the example task image)")
class ServeEndToEndTest(unittest.TestCase):
    server: ClassVar[ServeProcess]
    client: ClassVar[PolarClient]
    tasks: ClassVar[List[Dict[str, Any]]]
    events: ClassVar[List[Event]] = []
    events_error: ClassVar[List[BaseException]] = []
    connected: ClassVar[threading.Event]
    collector: ClassVar[threading.Thread]
    batch: ClassVar[Batch]
    groups: ClassVar[List[Group]] = []
    cancelled: ClassVar[Optional[str]] = None

    @classmethod
    def setUpClass(cls) -> None:
        work = os.environ["POLAR_TEST_DIR"]
        with open(os.environ["POLAR_TEST_TASKS"], encoding="utf-8") as file:
            cls.tasks = [json.loads(line) for line in file if line.strip()]
        cls.server = ServeProcess(json.loads(COMMAND or "[]"), db=os.path.join(work, "polar.db"), log=os.path.join(work, "serve.log"), token=TOKEN, upstream=UPSTREAM, extra=["--timeout", "120", "--concurrency", "2", "--max-batches", "1"])
        cls.server.start()
        cls.client = PolarClient(cls.server.url, TOKEN)  # default retries: about a minute of outage
        cls.connected = threading.Event()
        cls.collector = threading.Thread(target=cls._collect_events, daemon=True)
        cls.collector.start()
        if not cls.connected.wait(30):
            raise RuntimeError(f"no hello event from /v1/events: {cls.events_error}")

    @classmethod
    def tearDownClass(cls) -> None:
        cls.server.stop()

    @classmethod
    def _collect_events(cls) -> None:
        """Every event until the cancelled batch's, reconnecting across the kill -9."""
        try:
            for event in cls.client.events():
                cls.events.append(event)
                cls.connected.set()
                if event.type == "batch" and event.data.get("status") == "cancelled" and event.data.get("batchId") == cls.cancelled:
                    return
        except BaseException as error:  # reported by test_60
            cls.events_error.append(error)

    def until(self, what: str, probe: Any, timeout: float = 180.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = probe()
            if value:
                return value
            time.sleep(0.2)
        self.fail(f"timed out waiting for {what}; server log:\n{self.server.tail()}")

    def test_00_the_installed_package_is_under_test(self) -> None:
        expected = os.environ.get("POLAR_TEST_EXPECT_PREFIX")
        if expected:
            self.assertTrue(polar_rollout.__file__.startswith(expected), f"{polar_rollout.__file__} is not under {expected}")

    def test_10_a_bad_token_is_unauthorized_with_a_hint(self) -> None:
        with self.assertRaises(Unauthorized) as refused:
            PolarClient(self.server.url, "not-the-token").status()
        error = refused.exception
        self.assertEqual((error.status, error.type), (401, "unauthorized"))
        self.assertIn("bearer token", error.message)
        self.assertIn("POLAR_SERVE_TOKEN", error.hint or "")
        self.assertIn("\nhint: ", str(error))

    def test_11_a_malformed_row_is_an_invalid_request_with_the_servers_hint(self) -> None:
        row = {key: value for key, value in self.tasks[0].items() if key != "problem_statement"}
        with self.assertRaises(InvalidRequest) as refused:
            self.client.submit("pi", tasks=[row])
        error = refused.exception
        self.assertEqual((error.status, error.type), (400, "invalid_request"))
        self.assertIn("tasks[0]", error.message)
        self.assertIn("problem_statement", error.message)
        self.assertIn("problem_statement", error.hint or "", "the server's hint lists the columns a row needs")
        self.assertEqual(self.client.list(), [], "a refused submit makes no batch")

    def test_20_submit_while_paused_then_resume_with_a_policy_version(self) -> None:
        paused = self.client.pause(drain_timeout_ms=30_000)
        self.assertEqual((paused["paused"], paused["drained"], paused["policy_version"]), (True, True, 0))
        cls = type(self)
        cls.batch = self.client.submit("pi", tasks=self.tasks[:2], samples=2, idempotency_key="python-e2e-batch-a")
        again = self.client.submit("pi", tasks=self.tasks[:2], samples=2, idempotency_key="python-e2e-batch-a")
        self.assertEqual((self.batch.created, again.created, again.id), (True, False, self.batch.id))
        self.assertEqual([batch.id for batch in self.client.list()], [self.batch.id])
        held = self.until("a model call held by the pause", lambda: self.client.status()["generation"]["held"] > 0)
        self.assertTrue(held)
        resumed = self.client.resume(policy_version=1)
        self.assertEqual((resumed["paused"], resumed["policy_version"], resumed["weights"]), (False, 1, None))

    def test_30_groups_arrive_once_across_a_kill_9_and_restart(self) -> None:
        groups = self.client.groups(self.batch.id, format="polar", poll_interval=0.2)
        first = next(groups)
        self.assertEqual(self.client.get(self.batch.id).status, "running", "the kill is meant to land mid-batch")
        self.server.kill9()
        restart = threading.Timer(1.5, self.server.start)  # the client's next request finds the port closed
        restart.start()
        with self.assertLogs("polar_rollout", level="WARNING") as retries:
            rest = list(groups)
        restart.join()
        refused = [line for line in retries.output if "/results" in line and "ConnectionRefusedError" in line]
        self.assertTrue(refused, f"the client met the dead server and retried: {retries.output}")
        self.assertEqual(self.server.starts, 2)
        delivered = [first, *rest]
        type(self).groups = delivered
        instances = [task["instance_id"] for task in self.tasks[:2]]
        self.assertEqual(sorted(group.instance_id or "" for group in delivered), sorted(instances), "each group exactly once")
        self.assertEqual([group.group_id for group in delivered], [f"serve-{self.batch.id}/{group.instance_id}" for group in delivered])
        self.assertEqual([group.cursor for group in delivered], sorted({group.cursor for group in delivered}), "cursors strictly increase")
        self.assertEqual((groups.cursor, groups.batch_status), (delivered[-1].cursor, "finished"))
        for group in delivered:
            self.assertEqual(sorted(row["sample_index"] for row in group.rows), [0, 1], group.group_id)
            for row in group.rows:
                self.assertEqual(row["group_id"], group.group_id)
                self.assertEqual(row["policy_versions"], [1], "every call was sent after the resume to version 1")
                self.assertEqual(len(row["logprobs"]), len(row["response_ids"]))
        # The idempotency key outlived the restart (it is in the database).
        self.assertEqual(self.client.submit("pi", tasks=self.tasks[:2], samples=2, idempotency_key="python-e2e-batch-a").id, self.batch.id)

    def test_40_results_cursor_limit_format_and_resume(self) -> None:
        first, last = self.groups[0], self.groups[-1]
        self.assertEqual(self.client.wait(self.batch.id, timeout=60).status, "finished")
        page = self.client.results(self.batch.id)
        self.assertEqual((page.groups, page.next_cursor, page.batch_status), (2, last.cursor, "finished"))
        self.assertEqual(page.rows, [row for group in self.groups for row in group.rows])
        one = self.client.results(self.batch.id, limit=1, messages=False)
        self.assertEqual((one.groups, one.next_cursor), (1, first.cursor))
        self.assertIsInstance(page.rows[0]["messages"], list)
        self.assertIsNone(one.rows[0]["messages"], "messages=False is sent as the query's messages=false")
        done = self.client.results(self.batch.id, cursor=last.cursor)
        self.assertEqual((done.rows, done.groups, done.next_cursor), ([], 0, last.cursor))
        verl = self.client.results(self.batch.id, format="verl")
        self.assertEqual({row["uid"] for row in verl.rows}, {group.group_id for group in self.groups})
        resumed = list(self.client.groups(self.batch.id, cursor=first.cursor, follow=False))
        self.assertEqual([group.cursor for group in resumed], [group.cursor for group in self.groups[1:]])
        with self.assertRaises(InvalidRequest) as refused:
            self.client.results(self.batch.id, format="parquet")
        self.assertIn("format must be one of", refused.exception.message)

    def test_50_cancel(self) -> None:
        with self.assertRaises(NotFound):
            self.client.get("b_0000000000000000")
        batch = self.client.submit("pi", tasks=self.tasks[2:3], samples=1)
        type(self).cancelled = batch.id
        cancelled = self.client.cancel(batch.id)
        self.assertEqual(cancelled.status, "cancelled")
        self.assertEqual(self.client.wait(batch.id, timeout=60).status, "cancelled")
        self.assertEqual(self.client.cancel(batch.id).status, "cancelled", "cancelling an ended batch returns it as it is")

    def test_60_events_across_the_restart(self) -> None:
        self.collector.join(60)
        self.assertFalse(self.collector.is_alive(), f"the event stream never showed the cancel; errors: {self.events_error}")
        kinds = [event.type for event in self.events]
        self.assertGreaterEqual(kinds.count("hello"), 2, "the stream reconnected after the kill -9")
        generation = [(event.data["paused"], event.data["policyVersion"]) for event in self.events if event.type == "generation"]
        self.assertEqual(generation[:2], [(True, 0), (False, 1)])
        first = self.groups[0]
        self.assertIn((self.batch.id, first.cursor, first.instance_id), [(e.data["batchId"], e.data["seq"], e.data["instanceId"]) for e in self.events if e.type == "group"])

    def test_70_the_python_trainer_example_runs(self) -> None:
        tasks = os.path.join(os.environ["POLAR_TEST_DIR"], "example-tasks.jsonl")
        with open(tasks, "w", encoding="utf-8") as file:
            file.write(json.dumps(self.tasks[3]) + "\n")
        example = os.path.join(os.environ["POLAR_TEST_REPO"], "examples", "async_grpo.py")
        env = {**os.environ, "POLAR_SERVE_URL": self.server.url, "POLAR_SERVE_TOKEN": TOKEN}
        before = self.client.status()["generation"]["policy_version"]
        done = subprocess.run([sys.executable, example, tasks, "--steps", "2", "--samples", "2", "--sync-seconds", "0.2"], env=env, capture_output=True, text=True, timeout=600)
        self.assertEqual(done.returncode, 0, f"{done.stdout}\n{done.stderr}\n{self.server.tail()}")
        lines = done.stdout.strip().splitlines()
        self.assertEqual(len(lines), 2, done.stdout)
        for step, line in enumerate(lines):
            self.assertRegex(line, rf"^step {step}: batch b_\w+ groups=1 rows=[1-9]\d* trained_tokens=[1-9]\d* mean_reward=1\.000 .* -> policy v{before + step + 1}$")
        self.assertEqual(self.client.status()["generation"], {**self.client.status()["generation"], "paused": False, "policy_version": before + 2})


if __name__ == "__main__":
    unittest.main()
