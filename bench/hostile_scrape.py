"""An authenticated scraper's latency while hostile clients hold connections or fail auth.

    .venv/bin/python -m bench.hostile_scrape            # ~4 minutes

The sidecar's server (basic auth, bcrypt cost 10, a study-sized exposition) runs in a process
of its own, over plain HTTP and then TLS. The attackers run in another process: 300
connections held idle (over TLS: not even a handshake), 300 trickling a header byte a second
(over TLS: after the handshake), 300 the attacker drops and reopens at once, each dropped
one reopened as soon as the server closes it; then 50 clients failing auth, half with
unknown users, half with the right user, each with a new password every time. Two
authenticated scrapers measure, as Prometheus asks (gzip): one on a keep-alive connection,
one on a new connection per scrape. Each line gives p50 / p99 and failures beside the
no-attack baseline. Then the timing of a 401: an unknown user against a known one with a
wrong password. Loopback only; every phase is bounded in time.
"""

from __future__ import annotations

import argparse
import base64
import http.client
import os
import random
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
HOSTILE = 300
FAILING_CLIENTS = 50
MEASURE_SECONDS = 10.0
SCRAPES_PER_SECOND = 10
TARGET_HOSTILE_P99 = 1.0
TARGET_AUTH_P99 = 0.1
PASSWORD = "s3cret-scrape"
PHASES = {"baseline": "no attack", "idle": f"{HOSTILE} idle", "trickle": f"{HOSTILE} trickling",
          "churn": f"{HOSTILE} dropped and reopened", "auth": f"{FAILING_CLIENTS} failing auth"}  # fmt: skip


def serve(tls_dir: str) -> None:
    """Serve a study-sized exposition with basic auth (and TLS when tls_dir is not '-')."""
    import logging

    import bcrypt

    sys.path.insert(0, str(REPO))
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    from bench.hostile import EXPOSITION_BYTES
    from exporter.sidecar.http_server import serve as serve_sidecar

    line = b'ceph_scale_osd_fill_ratio{ceph_daemon="osd.%d",cluster="c"} 0.5\n'
    body = b"".join(line % i for i in range(EXPOSITION_BYTES // len(line % 100)))

    class Collector:
        exposition = body

    hashed = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt(rounds=10)).decode()
    work = tempfile.mkdtemp(prefix="hostile-scrape-")
    web = Path(work) / "web.yml"
    text = f"basic_auth_users:\n  prometheus: '{hashed}'\n"
    if tls_dir != "-":
        text += f"tls_server_config:\n  cert_file: {tls_dir}/tls.crt\n  key_file: {tls_dir}/tls.key\n"
    web.write_text(text)
    os.chmod(web, 0o600)
    port = serve_sidecar("127.0.0.1:0", "/metrics", Collector(), str(web)).server_address[1]
    print(port, flush=True)
    sys.stdin.read()


# --- the attackers, in a process of their own --------------------------------------------


def attack(kind: str, port: int, tls_dir: str, seconds: float) -> None:
    client = None
    if tls_dir != "-":
        client = ssl.create_default_context(cafile=f"{tls_dir}/tls.crt")
    if kind == "auth":
        fail_auth(port, client, seconds)
    else:
        hold(kind, port, client, seconds)


def open_one(kind: str, port: int, client: ssl.SSLContext | None) -> socket.socket | None:
    try:
        conn = socket.create_connection(("127.0.0.1", port), timeout=5)
        if kind == "trickle":
            if client is not None:
                conn = client.wrap_socket(conn, server_hostname="127.0.0.1")
            conn.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        conn.setblocking(False)
        return conn
    except OSError:
        return None


def hold(kind: str, port: int, client: ssl.SSLContext | None, seconds: float) -> None:
    """HOSTILE connections of `kind`, each reopened as soon as it is dropped."""
    end = time.monotonic() + seconds
    rng = random.Random(1)
    conns: list[socket.socket | None] = [open_one(kind, port, client) for _ in range(HOSTILE)]
    print("ready", flush=True)
    reopened, next_byte = 0, time.monotonic() + 1
    while time.monotonic() < end:
        trickle_now = kind == "trickle" and time.monotonic() >= next_byte
        for i, conn in enumerate(conns):
            dropped = conn is None
            if conn is not None:
                try:
                    if trickle_now:
                        conn.send(b"a")
                    dropped = conn.recv(4096) == b""
                except (BlockingIOError, ssl.SSLWantReadError, ssl.SSLWantWriteError):
                    pass
                except OSError:
                    dropped = True
            if kind == "churn" and not dropped and rng.random() < 0.2:
                dropped = True  # the attacker's own drop, reopened at once
            if dropped:
                if conn is not None:
                    conn.close()
                conns[i] = open_one(kind, port, client)
                reopened += 1
        if trickle_now:
            next_byte += 1
        time.sleep(0.05)
    print(f"reopened {reopened}", flush=True)


def fail_auth(port: int, client: ssl.SSLContext | None, seconds: float) -> None:
    end = time.monotonic() + seconds

    def one(i: int) -> None:
        conn = None
        n = 0
        while time.monotonic() < end:
            n += 1
            user = "prometheus" if i % 2 else f"intruder{i}"
            auth = base64.b64encode(f"{user}:wrong-{i}-{n}".encode()).decode()
            try:
                conn = conn or new_connection(port, client, 30)
                conn.request("GET", "/metrics", headers={"Authorization": f"Basic {auth}"})
                conn.getresponse().read()
            except (OSError, http.client.HTTPException):
                conn = None
                time.sleep(0.05)

    workers = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(FAILING_CLIENTS)]
    for w in workers:
        w.start()
    print("ready", flush=True)
    for w in workers:
        w.join(max(0.0, end - time.monotonic()) + 35)


# --- the measuring scrapers ----------------------------------------------------------------


def new_connection(port: int, client: ssl.SSLContext | None, timeout: float) -> http.client.HTTPConnection:
    if client is None:
        return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    return http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout, context=client)


AUTH = {"Authorization": "Basic " + base64.b64encode(f"prometheus:{PASSWORD}".encode()).decode(),
        "Accept-Encoding": "gzip"}  # fmt: skip


def scraper(port: int, client: ssl.SSLContext | None, keepalive: bool, seconds: float, out: list) -> None:
    """Scrape SCRAPES_PER_SECOND times a second; a failed scrape is recorded as None."""
    conn = None
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        started = time.perf_counter()
        try:
            conn = conn or new_connection(port, client, 10)
            conn.request("GET", "/metrics", headers=AUTH)
            r = conn.getresponse()
            r.read()
            out.append(time.perf_counter() - started if r.status == 200 else None)
        except (OSError, http.client.HTTPException):
            out.append(None)
            conn = None
        if not keepalive and conn is not None:
            conn.close()
            conn = None
        time.sleep(max(0.0, 1 / SCRAPES_PER_SECOND - (time.perf_counter() - started)))


def measure(port: int, client: ssl.SSLContext | None) -> dict[str, list]:
    # The verified credential is cached before the clock starts, as a running Prometheus' is.
    scraper(port, client, True, 0.2, [])
    got: dict[str, list] = {"keep-alive": [], "new connection": []}
    threads = [threading.Thread(target=scraper, args=(port, client, k == "keep-alive", MEASURE_SECONDS, v))
               for k, v in got.items()]  # fmt: skip
    for t in threads:
        t.start()
    for t in threads:
        t.join(MEASURE_SECONDS + 60)
    return got


def summary(took: list) -> tuple[str, float]:
    ok = sorted(t for t in took if t is not None)
    failed = len(took) - len(ok)
    if not ok:
        return f"all {failed} failed", float("inf")
    p99 = float("inf") if failed > len(took) // 100 else ok[min(len(ok) - 1, int(0.99 * len(took)))]
    return f"{statistics.median(ok) * 1000:7.1f} / {p99 * 1000:7.1f} ms, {failed} failed of {len(took)}", p99


def spawn(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "bench.hostile_scrape", *args], cwd=REPO, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)  # fmt: skip


def timing(port: int, client: ssl.SSLContext | None, rounds: int = 60) -> tuple[float, float]:
    """Median time of a 401 for an unknown user and for a known one with a wrong password,
    asked in turn (which first alternates), so that the host's own load falls on both."""
    known: list[float] = []
    unknown: list[float] = []
    conn = new_connection(port, client, 30)
    for i in range(rounds):
        pair = [("prometheus", known), (f"nobody{i}", unknown)]
        for user, into in pair if i % 2 else pair[::-1]:
            auth = base64.b64encode(f"{user}:wrong{i}".encode()).decode()
            started = time.perf_counter()
            conn.request("GET", "/metrics", headers={"Authorization": f"Basic {auth}"})
            r = conn.getresponse()
            r.read()
            into.append(time.perf_counter() - started)
            assert r.status == 401, r.status
    conn.close()
    return statistics.median(unknown), statistics.median(known)


def run_scheme(scheme: str, tls_dir: str) -> tuple[list[tuple[str, str, str, bool]], tuple[float, float]]:
    client = ssl.create_default_context(cafile=f"{tls_dir}/tls.crt") if scheme == "https" else None
    server = spawn("--serve", tls_dir if client else "-")
    assert server.stdout is not None and server.stdin is not None
    port = int(server.stdout.readline())
    rows = []
    try:
        medians = timing(port, client)  # before any attack: nothing queued for bcrypt
        for kind in PHASES:
            attacker = None
            if kind != "baseline":
                seconds = str(MEASURE_SECONDS + 15)
                attacker = spawn("--attack", kind, str(port), tls_dir if client else "-", seconds)
                assert attacker.stdout is not None
                attacker.stdout.readline()  # "ready": every hostile connection opened
                time.sleep(2)
            got = measure(port, client)
            if attacker is not None:
                attacker.terminate()
                attacker.wait(30)
            what = PHASES[kind]
            target = TARGET_AUTH_P99 if kind == "auth" else TARGET_HOSTILE_P99
            for mode, took in got.items():
                text, p99 = summary(took)
                ok = p99 < target or kind == "baseline"
                rows.append((f"{scheme}, {what}, {mode}", text, f"p99 < {target * 1000:.0f} ms", ok))
    finally:
        server.stdin.close()
        server.terminate()
        server.wait(10)
    return rows, medians


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--serve", metavar="TLS_DIR", help=argparse.SUPPRESS)
    p.add_argument("--attack", nargs=4, metavar=("KIND", "PORT", "TLS_DIR", "SECONDS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    if args.attack:
        kind, port, tls_dir, seconds = args.attack
        attack(kind, int(port), tls_dir, float(seconds))
        return 0
    with tempfile.TemporaryDirectory(prefix="hostile-scrape-") as tls_dir:
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
             "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", f"{tls_dir}/tls.key", "-out", f"{tls_dir}/tls.crt"],
            check=True, capture_output=True,
        )  # fmt: skip
        rows, timings = [], {}
        for scheme in ("http", "https"):
            scheme_rows, timings[scheme] = run_scheme(scheme, tls_dir)
            rows += scheme_rows
    print("authenticated scraper, p50 / p99 (a failed scrape counts as past any target)")
    width = max(len(r[0]) for r in rows)
    for what, got, target, ok in rows:
        print(f"{what:<{width}}  {got:<40} {target:<16} {'PASS' if ok else 'MISS'}")
    print("a 401's median time (bcrypt cost 10), unknown user / known user with a wrong password")
    for scheme, (unknown, known) in timings.items():
        ratio = unknown / known
        ok = 0.8 < ratio < 1.25
        print(f"{scheme}: {unknown * 1000:.1f} ms / {known * 1000:.1f} ms (ratio {ratio:.2f})  "
              f"{'PASS' if ok else 'MISS'} (within 0.8-1.25)")  # fmt: skip
        rows.append(("", "", "", ok))
    return 0 if all(r[3] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
