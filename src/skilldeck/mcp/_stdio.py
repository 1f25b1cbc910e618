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
import json
import logging
import os
import signal
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from anyio.lowlevel import EventLoopToken
    from anyio.streams.memory import MemoryObjectSendStream

    from skilldeck.mcp._server import SkillServer

__all__ = ["DRAIN_SECONDS", "run_stdio"]

logger = logging.getLogger("skilldeck.mcp")


def run_stdio(server: SkillServer) -> None:
    """Serve one client over stdin/stdout until it disconnects (blocking).

    A request line the SDK's parser refuses (a lone surrogate such as ``"\\ud800"``,
    which JavaScript clients send, or nesting past its limit) is answered with a
    ``-32700`` error for its id: the SDK drops such lines, so the client waited for
    a reply that never came. (Over HTTP the SDK answers them with a 400.)

    When stdin ends, every request read before it is still answered (for at most
    ``DRAIN_SECONDS``) before the server exits: a client that writes its requests
    and closes its end (``printf ... | skilldeck serve``) got only the replies that
    happened to be ready when the end of input was read, and waited for the rest.

    SIGTERM (a host stopping its server) and SIGINT end the server as the end of a
    request does: requests in flight are cancelled, a script they run is stopped with
    its process tree and its folders removed, then SIGTERM returns and SIGINT raises
    ``KeyboardInterrupt``. (SIGTERM used to kill the process where it stood, leaving
    a running script's folders behind; with a script running, SIGINT hung until the
    script's timeout.) Signals are caught only when called from the main thread.
    """
    import anyio

    caught: list[int] = []
    anyio.run(_serve_stdio, server, caught)
    if signal.SIGINT in caught:
        raise KeyboardInterrupt


DRAIN_SECONDS = 30.0


async def _until_signal(served: Any, watching: Any, caught: list[int]) -> None:
    """Cancel ``served`` (an anyio cancel scope) at SIGINT or SIGTERM."""
    import anyio

    with watching, anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            caught.append(signum)
            served.cancel()
            return


async def _serve_stdio(server: SkillServer, caught: list[int]) -> None:
    import anyio
    import anyio.lowlevel
    from mcp.server.stdio import stdio_server

    watching = anyio.CancelScope()
    with _claim_stdin() as wire:
        send, lines = anyio.create_memory_object_stream[str](0)
        token = anyio.lowlevel.current_token()
        reader = threading.Thread(
            target=_read_lines, args=(wire, send, token), name="skilldeck-stdin", daemon=True
        )
        reader.start()
        with anyio.CancelScope() as served:
            async with lines, anyio.create_task_group() as tasks:
                if threading.current_thread() is threading.main_thread():
                    tasks.start_soon(_until_signal, served, watching, caught)
                try:
                    async with stdio_server(
                        stdin=cast(Any, lines) if wire is not None else None
                    ) as (
                        read,
                        write,
                    ):
                        await _pipeline(server, read, write)
                finally:
                    watching.cancel()


@contextlib.contextmanager
def _claim_stdin() -> Iterator[io.TextIOWrapper | None]:
    """The client's end of stdin as text, with fd 0 on an empty pipe meanwhile: a
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
        binary = io.BufferedReader(io.FileIO(private, "rb", closefd=False))
        yield io.TextIOWrapper(binary, encoding="utf-8", errors="replace")
    finally:
        os.dup2(private, 0)


def _read_lines(
    wire: io.TextIOWrapper | None, send: MemoryObjectSendStream[str], token: EventLoopToken
) -> None:
    """Hand each line of ``wire`` to the event loop, then close ``send`` (the end of input)."""
    import anyio.from_thread

    try:
        if wire is not None:
            for line in wire:
                anyio.from_thread.run(send.send, line, token=token)
    except Exception:  # the server stopped listening (or stdin failed): nothing more to read
        logger.debug("stdin reader ended", exc_info=True)
    finally:
        with contextlib.suppress(Exception):
            anyio.from_thread.run_sync(send.close, token=token)


async def _pipeline(server: SkillServer, read: Any, write: Any) -> None:
    import anyio
    from mcp.shared.message import SessionMessage
    from mcp.types import JSONRPCError, JSONRPCRequest, JSONRPCResponse

    lowlevel = server._lowlevel_server
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    replies, outgoing = anyio.create_memory_object_stream[SessionMessage](0)
    unanswered: set[str] = set()  # ids of requests read and not yet answered
    answered = [anyio.Event()]  # set (and replaced) whenever a reply goes out

    async def pump() -> None:
        async with send:
            async for item in read:
                reply = _unparsable_reply(item) if isinstance(item, Exception) else None
                if reply is not None:
                    await write.send(SessionMessage(reply))
                    continue
                if isinstance(item, SessionMessage) and isinstance(item.message, JSONRPCRequest):
                    unanswered.add(repr(item.message.id))
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


def _unparsable_reply(error: Exception) -> Any:
    """The ``-32700`` reply to a request line the SDK could not parse, or ``None``
    (not a request: a notification or a response needs no reply)."""
    from mcp.types import ErrorData, JSONRPCError
    from pydantic import ValidationError

    if not isinstance(error, ValidationError) or not error.errors():
        return None
    first = error.errors()[0]
    raw = first.get("input")
    if not isinstance(raw, str):
        return None
    try:  # Python's parser reads what the SDK's refuses, lone surrogates included
        message = json.loads(raw)
    except (ValueError, RecursionError):
        message = None
    if isinstance(message, dict):
        if "method" not in message or "id" not in message:
            return None
        request_id = message["id"]
        if isinstance(request_id, bool) or not isinstance(request_id, int | str):
            request_id = None
    else:
        request_id = None  # JSON-RPC: the id could not be read, so the reply's is null
    data = {
        "code": "INVALID_ARGUMENTS",
        "hint": "send UTF-8 JSON without lone surrogates (\\ud800-\\udfff) and without "
        "deep nesting",
    }
    text = str(first.get("msg") or "invalid JSON")
    return JSONRPCError(
        jsonrpc="2.0", id=request_id, error=ErrorData(code=-32700, message=text, data=data)
    )
