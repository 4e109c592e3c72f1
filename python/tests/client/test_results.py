"""Results pages: NDJSON rows read line by line, the Polar-* headers, query parameters, a cut-off body retried."""

from __future__ import annotations

import json
import unittest
from typing import Dict, Iterator, List, Optional

from fake_server import FakeServer, Reply, Request

from polar_rollout import InvalidResponse, PolarClient
from polar_rollout.results import iter_ndjson, parse_page_headers

HEADERS = {"Content-Type": "application/x-ndjson", "Polar-Next-Cursor": "7", "Polar-Groups": "2", "Polar-Batch-Status": "running"}


def ndjson(*rows: Dict[str, object]) -> bytes:
    return b"".join(json.dumps(row).encode() + b"\n" for row in rows)


class NdjsonTest(unittest.TestCase):
    def test_rows_blank_lines_and_crlf(self) -> None:
        rows = list(iter_ndjson([b'{"a":1}\n', b"\n", b'{"b":[1,2]}\r\n', b"   \n", b'{"c":null}']))
        self.assertEqual(rows, [{"a": 1}, {"b": [1, 2]}, {"c": None}])

    def test_a_broken_line_is_an_error_naming_it(self) -> None:
        with self.assertRaises(InvalidResponse) as bad:
            list(iter_ndjson([b'{"a":1}\n', b'{"a":\n']))
        self.assertIn("line 2", str(bad.exception))
        with self.assertRaises(InvalidResponse):
            list(iter_ndjson([b"[1,2]\n"]))

    def test_rows_are_parsed_as_lines_arrive(self) -> None:
        def lines() -> Iterator[bytes]:
            yield b'{"row":0}\n'
            raise AssertionError("the second line was read before the first row was taken")

        self.assertEqual(next(iter_ndjson(lines())), {"row": 0})


class HeadersTest(unittest.TestCase):
    def test_the_three_headers(self) -> None:
        self.assertEqual(parse_page_headers(HEADERS.get), (7, 2, "running"))

    def test_missing_or_bad_headers(self) -> None:
        for name, value in [("Polar-Next-Cursor", None), ("Polar-Groups", "-1"), ("Polar-Groups", "²"), ("Polar-Batch-Status", "")]:
            with self.subTest(name=name, value=value):
                headers: Dict[str, Optional[str]] = {**HEADERS, name: value}
                with self.assertRaises(InvalidResponse):
                    parse_page_headers(headers.get)


class ResultsOverHttpTest(unittest.TestCase):
    def test_a_page_with_its_query(self) -> None:
        seen: List[Request] = []

        def script(request: Request, reply: Reply) -> None:
            seen.append(request)
            reply.chunks(200, [ndjson({"group_id": "r/a", "reward": 1}), ndjson({"group_id": "r/a", "reward": 0}, {"group_id": "r/b", "reward": 1})], HEADERS)

        with FakeServer(script) as server:
            page = PolarClient(server.url, token="t").results("b_1", cursor=3, limit=2, format="verl", messages=False, min_reward=0.5, builder=None)
        self.assertEqual([row["reward"] for row in page.rows], [1, 0, 1])
        self.assertEqual((page.next_cursor, page.groups, page.batch_status, page.batch_terminal), (7, 2, "running", False))
        self.assertEqual(seen[0].path, "/v1/rollouts/b_1/results")
        self.assertEqual(seen[0].query, {"cursor": "3", "limit": "2", "format": "verl", "messages": "false", "min_reward": "0.5"})

    def test_a_body_cut_off_mid_stream_is_read_again_whole(self) -> None:
        def script(request: Request, reply: Reply) -> None:
            first = len(server.requests) == 1
            reply.chunks(200, [ndjson({"n": 1}), ndjson({"n": 2})], {**HEADERS, "Polar-Batch-Status": "finished"}, cut=first)

        with FakeServer(script) as server:
            page = PolarClient(server.url, token="t", backoff=0.01).results("b_1")
            self.assertEqual([row["n"] for row in page.rows], [1, 2])
            self.assertEqual(len(server.requests), 2)
        self.assertTrue(page.batch_terminal)

    def test_a_batch_id_is_percent_encoded(self) -> None:
        with FakeServer(lambda request, reply: reply.chunks(200, [], HEADERS)) as server:
            PolarClient(server.url).results("b/../x?")
            self.assertEqual(server.requests[0].path, "/v1/rollouts/b%2F..%2Fx%3F/results")


if __name__ == "__main__":
    unittest.main()
