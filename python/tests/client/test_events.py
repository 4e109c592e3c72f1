"""Server-sent events: the SSE rules, events handed over as they arrive, reconnection after the stream ends."""

from __future__ import annotations

import threading
import unittest
from typing import List

from fake_server import FakeServer, Reply, Request, error_body

from polar_rollout import Event, InvalidResponse, PolarClient, Unauthorized
from polar_rollout.events import SseDecoder

HEADERS = {"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}


def decode(*lines: bytes) -> List[Event]:
    decoder = SseDecoder()
    events = [decoder.feed(line) for line in lines]
    return [event for event in events if event is not None]


class SseDecoderTest(unittest.TestCase):
    def test_fields_comments_and_blank_lines(self) -> None:
        events = decode(
            b": keep-alive\n",
            b"\n",
            b"event: group\n",
            b'data: {"batchId":"b_1",\n',
            b'data:"seq":4}\r\n',
            b"id: 7\n",
            b"\r\n",
            b'data: {"x":1}\n',
            b"\n",
        )
        self.assertEqual(events, [Event("group", {"batchId": "b_1", "seq": 4}), Event("message", {"x": 1})])

    def test_an_event_without_data_is_nothing(self) -> None:
        self.assertEqual(decode(b"event: hello\n", b"\n"), [])

    def test_data_that_is_not_a_json_object_is_an_error(self) -> None:
        for data in (b"data: not json\n", b"data: [1]\n"):
            with self.subTest(data=data), self.assertRaises(InvalidResponse):
                decode(b"event: batch\n", data, b"\n")


def sse(event: str, data: str) -> bytes:
    return f"event: {event}\ndata: {data}\n\n".encode()


class EventsOverHttpTest(unittest.TestCase):
    def test_an_event_is_handed_over_before_the_next_one_is_sent(self) -> None:
        taken = threading.Event()
        waited: List[bool] = []

        def script(request: Request, reply: Reply) -> None:
            def between(index: int) -> None:
                if index == 2:  # after hello and the first batch event: wait until the client has taken that one
                    waited.append(taken.wait(10))

            reply.chunks(200, [sse("hello", '{"generation":{}}'), b": keep-alive\n\n" + sse("batch", '{"batchId":"b_1"}'), sse("batch", '{"batchId":"b_2"}')], HEADERS, between=between)

        with FakeServer(script) as server:
            stream = PolarClient(server.url).events(reconnect=False)
            self.assertEqual(next(stream).type, "hello")
            self.assertEqual(next(stream).data, {"batchId": "b_1"})
            taken.set()
            self.assertEqual(next(stream).data, {"batchId": "b_2"})
            self.assertEqual(list(stream), [], "without reconnect, the stream's end ends the iteration")
        self.assertEqual(waited, [True], "the first batch event reached the caller while the server was still holding the second")

    def test_it_reconnects_when_the_stream_ends_or_breaks(self) -> None:
        def script(request: Request, reply: Reply) -> None:
            n = len(server.requests)
            reply.chunks(200, [sse("hello", f'{{"connection":{n}}}'), sse("group", f'{{"seq":{n}}}')], HEADERS, cut=n == 2)

        with FakeServer(script) as server:
            stream = PolarClient(server.url, backoff=0.01).events()
            got = [next(stream) for _ in range(6)]
            stream.close()
        self.assertEqual([(e.type, e.data) for e in got], [
            ("hello", {"connection": 1}), ("group", {"seq": 1}),
            ("hello", {"connection": 2}), ("group", {"seq": 2}),  # this connection was cut after its events
            ("hello", {"connection": 3}), ("group", {"seq": 3}),
        ])

    def test_a_refusal_is_raised_not_retried(self) -> None:
        with FakeServer(lambda request, reply: reply.json(401, error_body("unauthorized", "missing or invalid bearer token"))) as server:
            with self.assertRaises(Unauthorized):
                next(PolarClient(server.url, token="bad").events())
            self.assertEqual(len(server.requests), 1)


if __name__ == "__main__":
    unittest.main()
