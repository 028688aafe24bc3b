"""The HTTP listener `loci serve` binds before start-up (`service.serving.bind_listener`)."""

from __future__ import annotations

import asyncio
import socket

from service.serving import bind_listener


async def test_connections_it_accepts_have_nagle_off() -> None:
    """asyncio sets TCP_NODELAY only on sockets whose proto is TCP; with proto 0 every
    keep-alive response waited ~40 ms on the client's delayed ACK."""
    listener = bind_listener("127.0.0.1", 0)
    listener.listen()
    accepted: asyncio.Queue[int] = asyncio.Queue()

    async def handle(_reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        sock = writer.get_extra_info("socket")
        await accepted.put(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
        writer.close()

    server = await asyncio.start_server(handle, sock=listener)
    try:
        _reader, writer = await asyncio.open_connection(*listener.getsockname()[:2])
        assert await asyncio.wait_for(accepted.get(), timeout=5) != 0
        writer.close()
    finally:
        server.close()
        await server.wait_closed()
