"""The scrapers of the benchmark's HTTP measurement: concurrent clients on raw sockets, in a
process of their own, asking as Prometheus asks (keep-alive, gzip) or as the worst clients do."""

from __future__ import annotations

import asyncio
import os
import random
import time
from typing import Any

# How the scrapers ask: keep-alive + gzip is what Prometheus does (the target is judged on it).
# "staggered": each scraper at a random moment of every half second (100 scrapes/s, ~30x what 50
# Prometheus servers at a 15 s interval send), instead of all at the same instant.
HTTP_MODES = ("keepalive-gzip", "keepalive", "new_connection-gzip", "staggered-keepalive-gzip")
STAGGER_PERIOD = 0.5


def worker_scrape(port: int, mode: str, scrapers: int, rounds: int, expect: int) -> dict:
    """`scrapers` clients, all scraping at the same instant each round (the worst alignment of
    that many Prometheus servers), over keep-alive connections as Prometheus keeps them, or a new
    connection per scrape. The client only counts the bytes (asyncio protocol, no buffering): it
    shares the two cores with the server, so it must cost as little as possible."""
    head = b"GET /metrics HTTP/1.1\r\nHost: bench\r\nAccept: text/plain\r\n"
    if mode.endswith("gzip"):
        head += b"Accept-Encoding: gzip\r\n"  # as Prometheus asks
    request_keepalive = head + b"\r\n"
    request_close = head + b"Connection: close\r\n\r\n"

    class Scraper(asyncio.Protocol):
        def __init__(self) -> None:
            self.transport: Any = None
            self.done: asyncio.Future | None = None
            self.head = b""
            self.left = -1
            self.closed = asyncio.get_running_loop().create_future()

        def connection_made(self, transport) -> None:
            self.transport = transport

        def connection_lost(self, exc) -> None:
            if not self.closed.done():
                self.closed.set_result(None)
            if self.done is not None and not self.done.done():
                self.done.set_exception(ConnectionError("closed before the whole response"))

        def get(self, request: bytes) -> asyncio.Future:
            self.done = asyncio.get_running_loop().create_future()
            self.head, self.left = b"", -1
            self.transport.write(request)
            return self.done

        def data_received(self, data: bytes) -> None:
            done = self.done
            assert done is not None, "data before any request"  # get() sets it before it writes
            if self.left < 0:
                self.head += data
                end = self.head.find(b"\r\n\r\n")
                if end < 0:
                    return
                head, rest = self.head[:end], len(self.head) - end - 4
                status = int(head.split(b" ", 2)[1])
                length = next(
                    int(line.split(b":", 1)[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                )
                if status != 200 or length != expect:
                    done.set_exception(RuntimeError(f"status {status}, {length} bytes"))
                    return
                self.left = length - rest
            else:
                self.left -= len(data)
            if self.left <= 0 and not done.done():
                done.set_result(None)

    async def connect() -> Scraper:
        loop = asyncio.get_running_loop()
        _, proto = await loop.create_connection(Scraper, "127.0.0.1", port)
        return proto

    async def one(slot: list, keepalive: bool, delay: float) -> float:
        if delay:
            await asyncio.sleep(delay)
        t0 = time.perf_counter()
        if not slot:
            slot.append(await connect())
        await slot[0].get(request_keepalive if keepalive else request_close)
        elapsed = time.perf_counter() - t0
        if not keepalive:
            proto = slot.pop()
            proto.transport.close()
            await proto.closed
        return elapsed

    async def main() -> list[float]:
        keepalive = "keepalive" in mode
        stagger = random.Random(7) if mode.startswith("staggered") else None
        slots: list[list] = [[] for _ in range(scrapers)]
        if keepalive:  # connected before the clock starts, as a running Prometheus is
            for slot in slots:
                slot.append(await connect())
        latencies: list[float] = []
        for _ in range(rounds):
            delays = [stagger.uniform(0, STAGGER_PERIOD) if stagger else 0.0 for _ in slots]
            started = time.perf_counter()
            latencies += await asyncio.gather(*(one(slot, keepalive, d) for slot, d in zip(slots, delays)))
            if stagger:
                await asyncio.sleep(max(0.0, STAGGER_PERIOD - (time.perf_counter() - started)))
        for slot in slots:
            for proto in slot:
                proto.transport.close()
        return latencies

    load = os.getloadavg()[0]
    lat = sorted(asyncio.run(main()))

    def pct(q: float) -> float:
        return lat[min(len(lat) - 1, int(round(q * (len(lat) - 1))))] * 1000

    return {
        "requests": len(lat),
        "p50_ms": pct(0.50),
        "p90_ms": pct(0.90),
        "p99_ms": pct(0.99),
        "max_ms": lat[-1] * 1000,
        "load_avg": load,
    }
