"""What hostile or broken peers can make each producer hold, measured in one run.

    .venv/bin/python -m bench.hostile            # ~2 minutes

Both producers' HTTP servers (the sidecar's and the module's, each in a process of its own
serving a study-scale exposition) get the probes of the hostile-peers review: header floods,
trickled headers, idle connections, garbage on the wire, bursts of scrapers. The RGW client
both producers share gets a fake RGW that streams without end, trickles, and redirects.
Every figure is printed with its target; docs/security.md records them. A command, not a
test: the tests (tests/mgr/test_hostile_servers.py, tests/unit/test_bounded_http.py) check the
limits themselves, this measures what they cost.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import http.client
import http.server
import io
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar, cast

REPO = Path(__file__).resolve().parent.parent
EXPOSITION_BYTES = 350_000  # the study-scale exposition (docs/benchmark.md)

_T = TypeVar("_T")


def rss_mb(pid: int | str = "self") -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        return int(next(line.split()[1] for line in f if line.startswith("VmRSS:"))) / 1024


def threads(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        return int(next(line.split()[1] for line in f if line.startswith("Threads:")))


# --- the servers under test, each in its own process -------------------------------------


def serve(kind: str) -> None:
    """Serve a study-sized exposition on a free port, print the port, run until stdin closes."""
    import logging

    sys.path.insert(0, str(REPO))
    logging.basicConfig(stream=sys.stderr, level=logging.INFO)
    line = b'ceph_scale_osd_fill_ratio{ceph_daemon="osd.%d",cluster="c"} 0.5\n'
    body = b"".join(line % i for i in range(EXPOSITION_BYTES // len(line % 100)))
    if kind == "sidecar":
        from exporter.sidecar.http_server import serve as serve_sidecar

        class Collector:
            exposition = body

        port = serve_sidecar("127.0.0.1:0", "/metrics", Collector(), None).server_address[1]
    else:
        import importlib

        from bench.canned_mgr import mgr_package

        mgr_package()
        webserver = importlib.import_module("_bench_mgr_scale.webserver")
        server = webserver.MetricsServer(lambda path: (200, "text/plain", body), logging.getLogger("scale"))
        server.start("127.0.0.1", 0)
        port = server._server.server_address[1]
    print(port, flush=True)
    sys.stdin.read()


class Target:
    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "bench.hostile", "--serve", kind],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        self.port = int(self.proc.stdout.readline())
        self.stderr = b""
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        # Popen's pipes are buffered readers (the default bufsize), which have read1.
        stderr = cast(io.BufferedReader, self.proc.stderr)
        assert stderr is not None
        for chunk in iter(lambda: stderr.read1(4096), b""):
            self.stderr += chunk

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.terminate()
        self.proc.wait(10)


def peak_while(pid: int, action: Callable[[], _T]) -> tuple[float, int, _T]:
    """Peak RSS (MB) and thread count of `pid` while `action()` runs, and its result."""
    peak, peak_threads, done = [rss_mb(pid)], [threads(pid)], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0], peak_threads[0] = max(peak[0], rss_mb(pid)), max(peak_threads[0], threads(pid))
            time.sleep(0.05)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        result = action()
    finally:
        done.set()
        sampler.join()
    return peak[0], peak_threads[0], result


def header_flood(port: int) -> None:
    """20 connections, each sending 96 headers of 65 KB (the review's probe)."""

    def one(_: int) -> None:
        with socket.create_connection(("127.0.0.1", port), timeout=30) as conn:
            try:
                conn.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
                for i in range(96):
                    conn.sendall(b"X-Pad-%d: " % i + b"a" * 65000 + b"\r\n")
                conn.recv(100)
            except OSError:
                pass

    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        list(pool.map(one, range(20)))


def closed_after(conns: list[socket.socket], send: bytes | None, every: float, limit: float) -> float:
    """Seconds until the server closed every connection (sending `send` every `every` s)."""
    started, open_ = time.monotonic(), list(conns)
    while open_ and time.monotonic() - started < limit:
        still = []
        for c in open_:
            c.settimeout(0.001)
            try:
                if send:
                    c.sendall(send)
                if c.recv(4096) == b"":
                    continue
            except (BlockingIOError, TimeoutError):
                pass
            except OSError:
                continue
            still.append(c)
        open_ = still
        time.sleep(every)
    return time.monotonic() - started


def scrape_burst(port: int, n: int) -> tuple[float, float, int]:
    """n scrapers at the same instant, each on a new connection: p50, p95 (s), failures."""
    barrier = threading.Barrier(n)

    def one(_: int) -> float | None:
        barrier.wait()
        started = time.monotonic()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", "/metrics", headers={"Accept-Encoding": "gzip"})
            r = conn.getresponse()
            r.read()
            conn.close()
            return time.monotonic() - started if r.status == 200 else None
        except OSError:
            return None

    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        took = list(pool.map(one, range(n)))
    ok = sorted(t for t in took if t is not None)
    if not ok:
        return float("nan"), float("nan"), n
    return statistics.median(ok), ok[int(0.95 * (len(ok) - 1))], n - len(ok)


def garbage(port: int, n: int) -> None:
    hello = bytes.fromhex("16030100c4010000c00303") + bytes(range(256))
    for _ in range(n):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as conn:
            try:
                conn.sendall(hello)
                conn.recv(100)
            except OSError:
                pass


def measure_server(kind: str) -> list[tuple[str, str, str, bool]]:
    from ceph_scale.io import http_serving as limits

    t = Target(kind)
    rows = []
    try:
        base = rss_mb(t.proc.pid)
        peak, _, _ = peak_while(t.proc.pid, lambda: header_flood(t.port))
        rows.append((f"{kind}: RSS growth, 20 x 96 headers of 65 KB", f"{peak - base:.0f} MB", "< 64 MB",
                     peak - base < 64))  # fmt: skip
        after = rss_mb(t.proc.pid)
        rows.append((f"{kind}: RSS kept afterwards", f"{after - base:.0f} MB", "< 32 MB", after - base < 32))
        conns = [socket.create_connection(("127.0.0.1", t.port), timeout=5) for _ in range(200)]
        for c in conns:
            c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        _, peak_threads, took = peak_while(t.proc.pid, lambda: closed_after(conns, b"a", 1.0, 60))
        limit = limits.HEADER_DEADLINE + 5
        rows.append((f"{kind}: 200 trickling clients (a byte/s) all cut off after", f"{took:.1f} s",
                     f"<= {limit:.0f} s", took <= limit))  # fmt: skip
        rows.append((f"{kind}: threads at most", str(peak_threads), f"<= {limits.MAX_CONNECTIONS + 10}",
                     peak_threads <= limits.MAX_CONNECTIONS + 10))  # fmt: skip
        for c in conns:
            c.close()
        conns = [socket.create_connection(("127.0.0.1", t.port), timeout=5) for _ in range(155)]
        took = closed_after(conns, None, 0.5, 60)
        limit = limits.IDLE_TIMEOUT + 5
        rows.append((f"{kind}: 155 idle connections closed after", f"{took:.1f} s", f"<= {limit:.0f} s",
                     took <= limit))  # fmt: skip
        for c in conns:
            c.close()
        for n in (50, 200):
            p50, p95, failed = scrape_burst(t.port, n)
            got = f"{p50 * 1000:.0f} / {p95 * 1000:.0f} ms, {failed} failed"
            rows.append((f"{kind}: {n} scrapers at once (new connections), p50 / p95", got, "none failed", failed == 0))
        before = len(t.stderr)
        garbage(t.port, 200)
        time.sleep(0.5)
        logged = len(t.stderr) - before
        rows.append((f"{kind}: log written for 200 garbage connections", f"{logged} B", "< 200 B", logged < 200))
    finally:
        t.stop()
    return rows


# --- the RGW client against a fake RGW --------------------------------------------------


class FakeRgw(http.server.BaseHTTPRequestHandler):
    mode = "stream"

    def do_GET(self) -> None:  # noqa: N802
        if self.mode == "redirect":
            self.send_response(302)
            self.send_header("Location", "http://127.0.0.1:1/admin/bucket")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        try:
            if self.mode == "stream":  # 25 MB/s for as long as the client reads
                chunk = b"[" + b'{"bucket":"b"},' * 65536
                while True:
                    self.wfile.write(chunk)
                    time.sleep(len(chunk) / 25e6)
            else:  # trickle: a byte every 2 s
                while True:
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(2)
        except OSError:
            pass

    def log_message(self, format: str, *args: object) -> None:
        pass


def measure_rgw_client() -> list[tuple[str, str, str, bool]]:
    from ceph_scale.io.admin_ops import AdminOps, AdminOpsError

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeRgw)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # The cap scaled down (rgw.max_response_mb), so the stream passes it within the run.
    client = AdminOps(f"http://127.0.0.1:{server.server_address[1]}", "AK", "SK", max_response_mb=64)
    rows = []
    timeout = 10.0

    def attempt() -> tuple[float, str]:
        started = time.monotonic()
        try:
            client.get_raw("/admin/bucket", {"stats": "true"}, timeout)
            return time.monotonic() - started, "accepted"
        except AdminOpsError as e:
            return time.monotonic() - started, str(e).rsplit("/admin/bucket: ", 1)[-1][:40]

    try:
        for mode in ("stream", "trickle", "redirect"):
            FakeRgw.mode = mode
            base = rss_mb()
            peak, _, (took, outcome) = peak_while(os.getpid(), attempt)
            rows.append((f"RGW client, {mode}: ended after", f"{took:.1f} s ({outcome})", f"<= {timeout + 1:.0f} s",
                         took <= timeout + 1 and outcome != "accepted"))  # fmt: skip
            if mode == "stream":
                cap = client.max_bytes / 2**20
                rows.append(("RGW client, stream at 25 MB/s: RSS growth", f"{peak - base:.0f} MB",
                             f"<= 3 x the cap ({cap:.0f} MB)", peak - base <= 3 * cap))  # fmt: skip
    finally:
        server.shutdown()
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--serve", choices=("sidecar", "module"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    rows = measure_server("sidecar") + measure_server("module") + measure_rgw_client()
    width = max(len(r[0]) for r in rows)
    for what, got, target, ok in rows:
        print(f"{what:<{width}}  {got:<44} {target:<24} {'PASS' if ok else 'MISS'}")
    return 0 if all(r[3] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
