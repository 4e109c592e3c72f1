"""Group iteration: every completed group once and in order, a cursor to resume from, following until the batch ends."""

from __future__ import annotations

import json
import threading
import unittest
from typing import Any, Dict, List, Tuple

from fake_server import FakeServer, Reply, Request

from polar_rollout import Group, InvalidResponse, PolarClient
from polar_rollout.groups import group_identity


class FakeResults:
    """The results route of a batch whose groups complete one per request, like a running polar serve."""

    def __init__(self, groups: List[Tuple[int, List[Dict[str, Any]]]], *, reveal_per_request: int = 1) -> None:
        self.groups = groups  # (seq, rows), seq ascending
        self.visible = 0
        self.reveal = reveal_per_request
        self.lock = threading.Lock()

    def __call__(self, request: Request, reply: Reply) -> None:
        with self.lock:
            cursor, limit = int(request.query.get("cursor", "0")), int(request.query.get("limit", "1000"))
            done = [group for group in self.groups[: self.visible] if group[0] > cursor][:limit]
            status = "finished" if self.visible == len(self.groups) else "running"
            self.visible = min(len(self.groups), self.visible + self.reveal)
        body = b"".join(json.dumps(row).encode() + b"\n" for _, rows in done for row in rows)
        headers = {"Polar-Next-Cursor": str(done[-1][0] if done else cursor), "Polar-Groups": str(len(done)), "Polar-Batch-Status": status}
        reply.raw(200, body, headers)


def rows(instance: str, n: int = 2) -> List[Dict[str, Any]]:
    return [{"group_id": f"serve-b_1/{instance}", "sample_index": i, "reward": i} for i in range(n)]


class GroupIteratorTest(unittest.TestCase):
    def test_each_group_once_in_order_until_the_batch_ends(self) -> None:
        results = FakeResults([(4, rows("a")), (9, rows("b")), (10, rows("c", 3))])
        with FakeServer(results) as server:
            groups = PolarClient(server.url).groups("b_1", poll_interval=0.01, format="polar")
            seen: List[Group] = list(groups)
            self.assertTrue(all(request.query["limit"] == "1" and request.query["format"] == "polar" for request in server.requests))
        self.assertEqual([(g.instance_id, g.cursor, len(g.rows)) for g in seen], [("a", 4, 2), ("b", 9, 2), ("c", 10, 3)])
        self.assertEqual(seen[0].group_id, "serve-b_1/a")
        self.assertEqual((groups.cursor, groups.delivered, groups.batch_status), (10, 3, "finished"))
        self.assertEqual(list(groups), [], "an exhausted iterator stays exhausted")

    def test_resuming_from_a_stored_cursor_delivers_only_later_groups(self) -> None:
        results = FakeResults([(4, rows("a")), (9, rows("b")), (10, rows("c"))], reveal_per_request=3)
        with FakeServer(results) as server:
            client = PolarClient(server.url)
            first = client.groups("b_1", poll_interval=0.01)
            self.assertEqual(next(first).instance_id, "a")
            stored = first.cursor
            resumed = [group.instance_id for group in client.groups("b_1", cursor=stored, poll_interval=0.01)]
        self.assertEqual(resumed, ["b", "c"])

    def test_without_follow_it_stops_at_the_last_completed_group(self) -> None:
        results = FakeResults([(1, rows("a")), (2, rows("b")), (3, rows("c"))], reveal_per_request=0)
        results.visible = 1
        with FakeServer(results) as server:
            groups = PolarClient(server.url).groups("b_1", follow=False)
            self.assertEqual([group.instance_id for group in groups], ["a"])
            self.assertEqual(groups.batch_status, "running")

    def test_a_group_without_rows_is_still_delivered(self) -> None:
        results = FakeResults([(5, []), (6, rows("b"))], reveal_per_request=2)
        with FakeServer(results) as server:
            seen = list(PolarClient(server.url).groups("b_1", poll_interval=0.01))
        self.assertEqual([(g.group_id, g.instance_id, g.rows, g.cursor) for g in seen][0], ("serve-b_1#5", None, [], 5))
        self.assertEqual(seen[1].instance_id, "b")

    def test_a_server_that_breaks_the_contract_is_an_error(self) -> None:
        def two_groups(request: Request, reply: Reply) -> None:
            reply.raw(200, b"", {"Polar-Next-Cursor": "3", "Polar-Groups": "2", "Polar-Batch-Status": "running"})

        def stuck_cursor(request: Request, reply: Reply) -> None:
            reply.raw(200, b'{"group_id":"r/a"}\n', {"Polar-Next-Cursor": "0", "Polar-Groups": "1", "Polar-Batch-Status": "running"})

        for script in (two_groups, stuck_cursor):
            with self.subTest(script=script.__name__), FakeServer(script) as server:
                with self.assertRaises(InvalidResponse):
                    next(PolarClient(server.url).groups("b_1"))


class GroupIdentityTest(unittest.TestCase):
    def test_every_export_format(self) -> None:
        cases: List[Tuple[Dict[str, Any], str]] = [
            ({"group_id": "serve-b_1/x__y-1"}, "polar"),
            ({"uid": "serve-b_1/x__y-1", "extra_info": {"task_id": "x__y-1"}}, "verl"),
            ({"prompt": "x__y-1", "polar": {"group_id": "serve-b_1/x__y-1"}}, "openrlhf"),
            ({"messages": [], "metadata": {"group_id": "serve-b_1/x__y-1"}}, "sft"),
            ({"instance_id": "x__y-1", "model_patch": ""}, "swebench-predictions"),
        ]
        for row, name in cases:
            with self.subTest(format=name):
                self.assertEqual(group_identity("b_1", 3, [row]), ("serve-b_1/x__y-1", "x__y-1"))

    def test_rows_of_two_groups_are_refused(self) -> None:
        with self.assertRaises(InvalidResponse):
            group_identity("b_1", 3, [{"group_id": "r/a"}, {"group_id": "r/b"}])


if __name__ == "__main__":
    unittest.main()
