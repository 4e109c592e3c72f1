"""HTTP calls to ``polar serve`` over ``http.client``: auth, JSON bodies, typed errors, retries.

One connection per call (no pool): a kept-alive socket the server has since closed cannot fail a call, and
a call that streams (results, events) owns its socket until it is read.
"""

from __future__ import annotations

import http.client
import json
import logging
import socket
import time
from typing import Any, Callable, Dict, Mapping, Optional, Tuple, TypeVar, Union
from urllib.parse import quote, urlencode, urlsplit

from .errors import ConnectionLost, InvalidResponse, PolarError, error_from_response
from .retry import CONNECT, RESOLVE, RETRY_STATUSES, STATUS, TRANSFER, RetryPolicy, parse_retry_after

T = TypeVar("T")
QueryValue = Union[str, int, float, bool, None]

USER_AGENT = "polar-rollout (python)"

#: Retries are logged here at WARNING (the standard library's logging; silent unless the application configures it).
logger = logging.getLogger("polar_rollout")


class Failure(Exception):
    """A call that failed before an answer could be read: where (``phase``), why (``cause``)."""

    def __init__(self, phase: str, cause: BaseException, retry_after: Optional[float] = None) -> None:
        super().__init__(f"{phase}: {cause}")
        self.phase = phase
        self.cause = cause
        self.retry_after = retry_after


class Transport:
    """Sends calls to one ``polar serve`` base URL with a bearer token and a :class:`RetryPolicy`."""

    def __init__(self, base_url: str, token: Optional[str], *, timeout: float, policy: RetryPolicy, sleep: Callable[[float], None] = time.sleep) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r} (e.g. http://127.0.0.1:8080)")
        self.base_url = base_url.rstrip("/")
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._token = token
        self.timeout = timeout
        self.policy = policy
        self._sleep = sleep

    def call(
        self,
        method: str,
        path: str,
        read: Callable[[http.client.HTTPResponse], T],
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        body: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
        idempotent: bool,
        timeout: Optional[float] = None,
    ) -> T:
        """Sends the call, retrying as :class:`RetryPolicy` allows, and returns ``read(response)`` of a 2xx answer."""
        attempt = 0
        while True:
            attempt += 1
            try:
                connection, response = self.open(method, path, query=query, body=body, headers=headers, timeout=timeout)
                try:
                    return read(response)
                except (OSError, http.client.HTTPException) as error:
                    raise Failure(TRANSFER, error) from error
                finally:
                    connection.close()
            except Failure as failure:
                if not self.policy.should_retry(failure.phase, idempotent=idempotent, attempt=attempt):
                    raise self.gave_up(method, path, failure, attempt, idempotent=idempotent) from failure.cause
                self.wait_before_retry(method, path, failure, attempt)

    def open(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, QueryValue]] = None,
        body: Optional[Mapping[str, Any]] = None,
        headers: Optional[Mapping[str, str]] = None,
        timeout: Optional[float] = None,
    ) -> Tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
        """One try: the open connection and its 2xx response (the caller reads and closes).

        Raises :class:`Failure` when the connection failed or a 502/503/504 came back, the typed
        :class:`PolarError` for any other error answer.
        """
        target = self._prefix + path + (("?" + urlencode(_query_items(query))) if query else "")
        payload = None if body is None else json.dumps(body, separators=(",", ":"), allow_nan=False).encode("utf-8")
        sent = {"Accept": "application/json, application/x-ndjson, text/event-stream", "User-Agent": USER_AGENT}
        if self._token:
            sent["Authorization"] = f"Bearer {self._token}"
        if payload is not None:
            sent["Content-Type"] = "application/json"
        sent.update(headers or {})
        connection = self._connection(self.timeout if timeout is None else timeout)
        try:
            connection.connect()
        except socket.gaierror as error:
            connection.close()
            raise Failure(RESOLVE, error) from error
        except OSError as error:
            connection.close()
            raise Failure(CONNECT, error) from error
        try:
            connection.request(method, target, body=payload, headers=sent)
            response = connection.getresponse()
            if response.status < 400:
                return connection, response
            answer = response.read()
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            raise Failure(TRANSFER, error) from error
        connection.close()
        refusal = error_from_response(response.status, answer, f"{method} {path}")
        if response.status in RETRY_STATUSES:
            raise Failure(STATUS, refusal, parse_retry_after(response.getheader("Retry-After")))
        raise refusal

    def wait_before_retry(self, method: str, path: str, failure: Failure, attempt: int) -> None:
        """Logs the retry and sleeps the policy's delay before repeat number ``attempt``."""
        delay = self.policy.delay(attempt, retry_after=failure.retry_after)
        logger.warning("%s %s%s: %s; retry %d of %d in %.2f s", method, self.base_url, path, describe(failure.cause), attempt, self.policy.max_retries, delay)
        self._sleep(delay)

    def gave_up(self, method: str, path: str, failure: Failure, attempts: int, *, idempotent: bool) -> PolarError:
        """The error for a call that will not be sent again."""
        where = f"{method} {self.base_url}{path}"
        cause = describe(failure.cause)
        if failure.phase == STATUS and isinstance(failure.cause, PolarError) and not idempotent:
            return failure.cause  # a non-idempotent call answered 502/503/504: report the answer as it is
        if failure.phase == RESOLVE:
            return ConnectionLost(f"{where}: the host does not resolve ({cause})", hint="Check the URL (url= or POLAR_SERVE_URL).", attempts=attempts)
        if failure.phase == CONNECT or idempotent:
            lost = ConnectionLost(
                f"{where}: {cause}; gave up after {attempts} attempt(s)",
                hint=f"Is polar serve running at {self.base_url}? To wait longer across a restart, raise max_retries or backoff.",
                attempts=attempts,
            )
            if isinstance(failure.cause, PolarError):
                lost.status = failure.cause.status
            return lost
        return ConnectionLost(
            f"{where}: {cause}; not sent again, since the server may already have acted on it",
            hint="Check the server's state (client.status(), client.get(batch_id)) before sending it again.",
            attempts=attempts,
        )

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        if self._https:
            return http.client.HTTPSConnection(self._host, self._port, timeout=timeout)
        return http.client.HTTPConnection(self._host, self._port, timeout=timeout)


def route(*parts: str) -> str:
    """A path from fixed segments and ids, each id percent-encoded (``route("/v1/rollouts", id)``)."""
    head, *ids = parts
    return head + "".join("/" + quote(part, safe="") for part in ids)


def read_json(response: http.client.HTTPResponse) -> Dict[str, Any]:
    """The body as a JSON object (an :class:`InvalidResponse` when it is not one)."""
    raw = response.read()
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as error:
        raise InvalidResponse(f"the answer is not JSON ({error}): {raw[:200]!r}") from error
    if not isinstance(value, dict):
        raise InvalidResponse(f"the answer is not a JSON object: {raw[:200]!r}")
    return value


def describe(error: BaseException) -> str:
    """A short cause for a message: the error's class and text."""
    if isinstance(error, socket.timeout):
        return "timed out"
    if isinstance(error, PolarError):
        return f"HTTP {error.status} {error.message}"
    text = str(error)
    return f"{error.__class__.__name__}: {text}" if text else error.__class__.__name__


def _query_items(query: Mapping[str, QueryValue]) -> Dict[str, str]:
    items: Dict[str, str] = {}
    for key, value in query.items():
        if value is None:
            continue
        items[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return items
