"""The HTTP worker: the real sidecar server serving the rendered exposition, scraped from another
process (bench/http_load.py) in each of its modes."""

from __future__ import annotations

import gc
import gzip
import json
import subprocess
import sys
import time
from pathlib import Path

from bench import synth
from bench.http_load import HTTP_MODES
from bench.stages import load_raws, primed_state, sidecar_source, snapshot, warm_parts
from ceph_scale.core import exposition
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import derive
from ceph_scale.core.registry import SOURCE_NAMES

REPO = Path(__file__).resolve().parent.parent


def worker_http(d: Path, scrapers: int, rounds: int) -> dict:
    """The real sidecar server, serving the rendered exposition; the scrapers run in another process."""
    from exporter.sidecar.collector import Collector
    from exporter.sidecar.http_server import serve

    manifest = json.loads((d / "manifest.json").read_text())
    now, fsid = manifest["now"], synth.FSID
    raws = load_raws(d)
    parts = {name: sidecar_source(name, raws, d, now) for name in SOURCE_NAMES}
    del raws
    state = primed_state(warm_parts(parts, now - 30), now - 30, fsid)
    body = exposition.render(derive(snapshot(parts, now, fsid), state))
    del parts, state
    gc.collect()
    collector = Collector([], Thresholds())
    collector.exposition = body
    server = serve("127.0.0.1:0", "/metrics", collector, None)
    try:
        port = server.server_address[1]
        results = {}
        gz = len(gzip.compress(body, compresslevel=6, mtime=0))
        for mode in HTTP_MODES:
            size = gz if mode.endswith("gzip") else len(body)
            cpu0 = time.process_time()
            proc = subprocess.run(
                [sys.executable, "-m", "bench.run", "--worker", "scrape", "--port", str(port), "--mode", mode,
                 "--scrapers", str(scrapers), "--rounds", str(rounds), "--expect-bytes", str(size)],
                capture_output=True, cwd=REPO, check=True, timeout=1800,
            )  # fmt: skip
            results[mode] = json.loads(proc.stdout.decode().strip().splitlines()[-1])
            results[mode]["server_cpu_ms_per_request"] = (time.process_time() - cpu0) / results[mode]["requests"] * 1e3
    finally:
        server.shutdown()
        server.server_close()
    return {"bytes": len(body), "gzip_bytes": gz, **results}
