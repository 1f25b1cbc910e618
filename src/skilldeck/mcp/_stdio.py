"""Serving one client over stdin and stdout.

The SDK's transport reads stdin on a worker thread that nothing can interrupt: a
server asked to stop (SIGTERM, Ctrl-C) waited in that read until the client wrote
again or closed its end. Here a daemon thread reads the lines (as the SDK does:
UTF-8, bytes that are not UTF-8 replaced) and hands them to the SDK's transport,
so a stop cancels the requests in flight, ends the runs they started (``_cancel``)
and returns; the reading thread ends with the process.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import signal
import threading
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any, cast

from skilldeck._json import loads

if TYPE_CHECKING:
    from anyio.lowlevel import EventLoopToken
    from anyio.streams.memory import MemoryObjectSendStream

    from skilldeck.mcp._server import SkillServer

__all__ = ["DRAIN_SECONDS", "MAX_IN_FLIGHT", "run_stdio"]

logger = logging.getLogger("skilldeck.mcp")


def run_stdio(server: SkillServer) -> None:
    """Serve one client over stdin/stdout until it disconnects (blocking).

    A request line the SDK refuses is answered, to its id where it can be read: the
    SDK drops such lines, so the client waited for a reply that never came (over
    HTTP the SDK answers them with a 400). JSON its parser cannot read (a lone
    surrogate such as ``"\\ud800"``, which JavaScript clients send, or nesting past
    its limit) is ``-32700``; a batch, a request of the wrong shape and an id it
    cannot keep are ``-32600`` (``_unparsable_replies``).

    A line longer than the SDK's HTTP body limit (4 MiB) is not held: the rest of it
    is read and dropped, and the request is answered ``-32600``, to its id when the
    id came before the large part (as the SDKs write it). The line was kept whole,
    however long: 300 MB of one line held a gigabyte of the server's memory.

    When stdin ends, every request read before it is still answered (for at most
    ``DRAIN_SECONDS``) before the server exits: a client that writes its requests
    and closes its end (``printf ... | skilldeck serve``) got only the replies that
    happened to be ready when the end of input was read, and waited for the rest.

    SIGTERM (a host stopping its server) and SIGINT end the server as the end of a
    request does: requests in flight are cancelled, a script they run is stopped with
    its process tree and its folders removed, then SIGTERM returns and SIGINT raises
    ``KeyboardInterrupt``. (SIGTERM used to kill the process where it stood, leaving
    a running script's folders behind; with a script running, SIGINT hung until the
    script's timeout.) Signals are caught only when called from the main thread. A
    client that closes its end of stdout ends the server the same way, quietly (a
    failed write printed a traceback and exited 1).
    """
    import anyio

    caught: list[int] = []
    anyio.run(_serve_stdio, server, caught)
    if signal.SIGINT in caught:
        raise KeyboardInterrupt


DRAIN_SECONDS = 30.0

#: Requests read and not yet answered: with this many, no more is read until one is
#: answered, so a client that writes requests and never reads the replies fills its
#: pipe instead of the server's memory (each request held its task and its reply).
MAX_IN_FLIGHT = 256


async def _until_signal(served: Any, watching: Any, caught: list[int]) -> None:
    """Cancel ``served`` (an anyio cancel scope) at SIGINT or SIGTERM (where the event
    loop can receive signals: not on Windows, where Ctrl-C interrupts as before)."""
    import anyio

    with (
        watching,
        contextlib.suppress(NotImplementedError),  # Windows: no receiver
        anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals,
    ):
        async for signum in signals:
            caught.append(signum)
            served.cancel()
            return


async def _serve_stdio(server: SkillServer, caught: list[int]) -> None:
    import anyio
    import anyio.lowlevel
    from mcp.server.stdio import stdio_server

    watching = anyio.CancelScope()
    taken: deque[str] = deque()  # lines the SDK took and the pipeline has not yet seen
    with _claim_stdin() as wire:
        send, lines = anyio.create_memory_object_stream[str](0)
        token = anyio.lowlevel.current_token()
        reader = threading.Thread(
            target=_read_lines,
            args=(wire, send, token, _message_limit()),
            name="skilldeck-stdin",
            daemon=True,
        )
        reader.start()
        with anyio.CancelScope() as served:
            async with lines, anyio.create_task_group() as tasks:
                if threading.current_thread() is threading.main_thread():
                    tasks.start_soon(_until_signal, served, watching, caught)
                try:
                    async with stdio_server(
                        stdin=cast(Any, _taking(lines, taken)) if wire is not None else None
                    ) as (read, write):
                        await _pipeline(server, read, write, taken)
                except* (BrokenPipeError, ConnectionResetError):
                    # the client closed its end of stdout: it went away, nobody to answer
                    logger.debug("the client closed its end of stdout")
                finally:
                    watching.cancel()


async def _taking(lines: AsyncIterable[str], taken: deque[str]) -> AsyncIterator[str]:
    """``lines``, each noted in ``taken`` as the SDK takes it: the pipeline pairs the
    SDK's item for a line (a message, or the error of a line it refused) with its text."""
    async for line in lines:
        taken.append(line)
        yield "" if isinstance(line, _Oversized) else line  # refused either way: not parsed


@contextlib.contextmanager
def _claim_stdin() -> Iterator[io.BufferedReader | None]:
    """The client's end of stdin, with fd 0 on an empty pipe meanwhile: a
    handler or program that reads stdin gets the end of input, never the client's
    requests. ``None`` when fd 0 cannot be copied (closed)."""
    try:
        private = os.dup(0)
    except OSError:
        yield None
        return
    ends, writer = os.pipe()  # a pipe with no writer: reading it is the end of input
    os.close(writer)
    os.dup2(ends, 0)
    os.close(ends)
    try:
        # closefd=False: the reading thread may still block on it after the server ends
        yield io.BufferedReader(io.FileIO(private, "rb", closefd=False))
    finally:
        os.dup2(private, 0)


def _read_lines(
    wire: io.BufferedReader | None,
    send: MemoryObjectSendStream[str],
    token: EventLoopToken,
    limit: int,
) -> None:
    """Hand each line of ``wire`` to the event loop (as the SDK reads it: UTF-8, bytes
    that are not UTF-8 replaced), then close ``send`` (the end of input).

    A line of more than ``limit`` bytes is handed over as its ``_Oversized`` start,
    the rest read and dropped, so no more than ``limit`` bytes are held.

    A line is handed over without a task when the SDK's reader already waits for it
    (most lines: a task per line cost a third more CPU per request), else it waits
    its turn, so no more than one line is ever held here.
    """
    import anyio
    import anyio.from_thread

    def offer(line: str) -> bool:
        try:
            send.send_nowait(line)
        except anyio.WouldBlock:
            return False
        return True

    try:
        while wire is not None:
            raw = wire.readline(limit + 1)
            if not raw:
                break
            line = raw.decode("utf-8", "replace")
            if len(raw) > limit and not raw.endswith(b"\n"):
                while (rest := wire.readline(limit)) and not rest.endswith(b"\n"):
                    pass  # the rest of the line, dropped as it comes
                line = _Oversized(line)
            if not anyio.from_thread.run_sync(offer, line, token=token):
                anyio.from_thread.run(send.send, line, token=token)
    except Exception:  # the server stopped listening (or stdin failed): nothing more to read
        logger.debug("stdin reader ended", exc_info=True)
    finally:
        with contextlib.suppress(Exception):
            anyio.from_thread.run_sync(send.close, token=token)


async def _pipeline(server: SkillServer, read: Any, write: Any, taken: deque[str]) -> None:
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

    lowlevel = server._lowlevel_server
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    replies, outgoing = anyio.create_memory_object_stream[SessionMessage](0)
    unanswered: set[str] = set()  # ids of requests read and not yet answered
    answered = [anyio.Event()]  # set (and replaced) whenever a reply goes out

    async def pump() -> None:
        async with send:
            async for item in read:
                line = taken.popleft() if taken else None  # the SDK sends one item a line
                if isinstance(line, _Oversized):
                    await write.send(SessionMessage(_oversized_reply(line)))
                    continue
                if isinstance(item, Exception):
                    for reply in _unparsable_replies(item, line):
                        await write.send(SessionMessage(reply))
                    continue
                if isinstance(item.message, JSONRPCNotification) and _has_id(line):
                    # an id the SDK cannot keep (null, 1.5, true, an object) made the
                    # request a notification: the client waits for a reply
                    await write.send(SessionMessage(_bad_id_reply()))
                    continue
                if isinstance(item.message, JSONRPCRequest):
                    while len(unanswered) >= MAX_IN_FLIGHT:  # the client reads no replies
                        await answered[0].wait()
                    unanswered.add(repr(item.message.id))
                elif (cancelled := _cancelled_id(item.message)) is not None:
                    unanswered.discard(cancelled)  # the SDK never answers it
                await send.send(item)
            with anyio.move_on_after(DRAIN_SECONDS):  # stdin ended: answer what was asked
                while unanswered:
                    await answered[0].wait()

    async def forward() -> None:
        async with outgoing, write:
            async for message in outgoing:
                await write.send(message)
                if isinstance(message.message, JSONRPCResponse | JSONRPCError):
                    unanswered.discard(repr(message.message.id))
                    answered[0].set()
                    answered[0] = anyio.Event()

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pump)
        tasks.start_soon(forward)
        async with replies:
            await lowlevel.run(receive, replies, lowlevel.create_initialization_options())


def _cancelled_id(message: Any) -> str | None:
    """The id (as ``_pipeline`` keeps it) of the request a ``notifications/cancelled``
    cancels, which the SDK never answers; ``None`` for any other notification."""
    from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params
    from mcp.types import JSONRPCNotification

    if not isinstance(message, JSONRPCNotification) or message.method != "notifications/cancelled":
        return None
    request_id = cancelled_request_id_from_params(message.params)
    return None if request_id is None else repr(request_id)


def _unparsable_replies(error: Exception, line: str | None) -> list[Any]:
    """The error replies to a line the SDK could not take (``line``: its text), one
    per request id it carries; none for a notification or a response.

    JSON the SDK's parser refuses (a lone surrogate, deep nesting) is ``-32700``; a
    batch (no protocol version since 2025-06-18 has them) and a request of the wrong
    shape (``params`` not an object, an id that is neither a string nor a number) are
    ``-32600``, answered to each id that could be read.
    """
    from mcp.types import ErrorData, JSONRPCError
    from pydantic import ValidationError

    if not isinstance(error, ValidationError) or not error.errors():
        return []
    first = error.errors()[0]
    if line is None:
        raw = first.get("input")
        line = raw if isinstance(raw, str) else None
    try:  # Python's parser reads what the SDK's refuses, lone surrogates included
        message = loads(line) if line is not None else _UNREADABLE
    except ValueError:
        message = _UNREADABLE
    if first.get("type") == "json_invalid" or message is _UNREADABLE:
        code, text, hint = _PARSE_ERROR, str(first.get("msg") or "invalid JSON"), _PARSE_HINT
        requests: list[dict[str, Any] | None] = [message] if isinstance(message, dict) else [None]
    elif isinstance(message, list):
        code, text, hint = _INVALID_REQUEST, "batches are not supported", _BATCH_HINT
        requests = [m for m in message if isinstance(m, dict)]
        requests = requests or [None]
    else:
        where = ".".join(str(p) for p in first.get("loc", ()))
        text = f"not a JSON-RPC request: {where}: {first.get('msg')}".replace(": : ", ": ")
        code, hint = _INVALID_REQUEST, _REQUEST_HINT
        requests = [message if isinstance(message, dict) else None]
    replies: list[Any] = []
    for request in requests:
        if request is not None and ("method" not in request or "id" not in request):
            continue  # a notification or a response: nothing to answer
        request_id = request["id"] if request is not None else None
        if isinstance(request_id, bool) or not isinstance(request_id, int | str):
            request_id = None  # JSON-RPC: the id could not be read, so the reply's is null
        data = {"code": "INVALID_ARGUMENTS", "hint": hint}
        replies.append(
            JSONRPCError(
                jsonrpc="2.0", id=request_id, error=ErrorData(code=code, message=text, data=data)
            )
        )
    return replies


def _message_limit() -> int:
    """The most bytes one message may have: the SDK's limit of an HTTP body, so both
    transports take the same messages."""
    from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE

    return DEFAULT_MAX_REQUEST_BODY_SIZE


class _Oversized(str):
    """The start of a line longer than the limit of a message (its rest was dropped)."""

    __slots__ = ()


def _oversized_reply(start: str) -> Any:
    """The ``-32600`` reply to a line over the limit: to the request's id when the id
    could be read from ``start`` (before the first value that does not end there)."""
    from mcp.types import ErrorData, JSONRPCError

    limit = _message_limit()
    text = f"the message is larger than {limit:,} bytes, the limit of one message"
    hint = "send less in one request: read a large file in parts, pass large data as a file"
    data = {"code": "INVALID_ARGUMENTS", "hint": hint, "limit": limit}
    return JSONRPCError(
        jsonrpc="2.0",
        id=_leading_id(start),
        error=ErrorData(code=_INVALID_REQUEST, message=text, data=data),
    )


def _leading_id(start: str) -> str | int | None:
    """The ``id`` of a JSON object cut short, when its members up to the id are whole."""
    import json

    decoder = json.JSONDecoder()
    at = len(start) - len(start.lstrip())
    if not start.startswith("{", at):
        return None
    at += 1
    try:
        while True:
            key, at = decoder.raw_decode(start, _skip(start, at))
            at = _skip(start, at)
            if not isinstance(key, str) or not start.startswith(":", at):
                return None
            value, at = decoder.raw_decode(start, _skip(start, at + 1))
            if key == "id":
                ok = isinstance(value, int | str) and not isinstance(value, bool)
                return value if ok else None
            at = _skip(start, at)
            if not start.startswith(",", at):
                return None
            at += 1
    except ValueError:  # the value cut short: the id was not before it
        return None


def _skip(text: str, at: int) -> int:
    """The index of the first character at or after ``at`` that is not JSON whitespace."""
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _has_id(line: str | None) -> bool:
    """Whether the line of a message the SDK read as a notification has an ``id``."""
    if line is None or '"id"' not in line:
        return False
    try:
        message = loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and "id" in message


def _bad_id_reply() -> Any:
    from mcp.types import ErrorData, JSONRPCError

    text = "not a JSON-RPC request: the id must be a string or an integer"
    data = {"code": "INVALID_ARGUMENTS", "hint": _REQUEST_HINT}
    return JSONRPCError(
        jsonrpc="2.0", id=None, error=ErrorData(code=_INVALID_REQUEST, message=text, data=data)
    )


_UNREADABLE = object()
_PARSE_ERROR = -32700
_INVALID_REQUEST = -32600
_PARSE_HINT = "send UTF-8 JSON without lone surrogates (\\ud800-\\udfff) and without deep nesting"
_BATCH_HINT = "send each request as a JSON object on a line of its own"
_REQUEST_HINT = (
    'a request is {"jsonrpc": "2.0", "id": <string or number>, "method": <string>, '
    '"params": <object>}'
)
