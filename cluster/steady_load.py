"""A steady, closed-loop S3 load that runs until stopped, can pause, and can be aimed elsewhere.

`cluster/s3load.py` PUTs then GETs a bounded set; a plunge needs a load that keeps going while a
condition is made: `concurrency` workers, each in turn PUTting one object and GETting one back,
as fast as the cluster answers (a closed loop: a slower cluster gets fewer ops, not a queue).

    with SteadyLoad(endpoint, access, secret, "steady", keys=50) as load:
        load.wait_warm()              # every key written once: GETs find their objects
        ...; load.pause(); ...; load.resume()
        load.grow_puts("hot")         # PUTs write new keys into "hot" (which then reshards)
        print(load.rates(10))         # PUT/GET ops/s over the last 10 s

`keys` stays under the test cluster's per-shard limit (100), so the steady bucket never
reshards; rewrites add no objects.
"""

from __future__ import annotations

import os
import threading
import time
from collections import deque

from cluster import s3load


class SteadyLoad:
    def __init__(
        self,
        endpoint: str,
        access: str,
        secret: str,
        bucket: str,
        keys: int = 50,
        size: int = 65536,
        concurrency: int = 4,
    ) -> None:
        self.s3 = s3load.client(endpoint, access, secret, concurrency)
        self.bucket = bucket
        self.keys = keys
        self.body = os.urandom(size)
        self.concurrency = concurrency
        self.lock = threading.Lock()
        self.running = threading.Event()  # cleared: paused
        self.stopping = threading.Event()
        self.put_bucket = bucket
        self.growing = False
        self.grow_body = self.body
        self.next_key = 0
        self.written = 0
        # (monotonic time, "put" | "get" | "error") of recent completions, for rates
        self.done: deque[tuple[float, str]] = deque(maxlen=200_000)
        self.errors: list[str] = []
        self.threads: list[threading.Thread] = []

    def __enter__(self) -> SteadyLoad:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> SteadyLoad:
        try:
            self.s3.create_bucket(Bucket=self.bucket)
        except (self.s3.exceptions.BucketAlreadyOwnedByYou, self.s3.exceptions.BucketAlreadyExists):
            pass
        self.running.set()
        for i in range(self.concurrency):
            t = threading.Thread(target=self._work, args=(i,), name=f"steady-load-{i}", daemon=True)
            t.start()
            self.threads.append(t)
        return self

    def stop(self, timeout: float = 90) -> None:
        self.stopping.set()
        self.running.set()
        for t in self.threads:
            t.join(timeout)
        self.threads = []

    def pause(self) -> None:
        """Workers finish the request they are in and start no other: demand goes to zero."""
        self.running.clear()

    def resume(self) -> None:
        self.running.set()

    def grow_puts(self, bucket: str, size: int | None = None) -> None:
        """PUTs write new keys into `bucket` (created if missing), so it grows, with objects of
        `size` bytes (default: the steady ones); GETs stay on the steady bucket."""
        try:
            self.s3.create_bucket(Bucket=bucket)
        except (self.s3.exceptions.BucketAlreadyOwnedByYou, self.s3.exceptions.BucketAlreadyExists):
            pass
        with self.lock:
            self.put_bucket, self.growing, self.next_key = bucket, True, 0
            self.grow_body = self.body if size is None else os.urandom(size)

    def _next_put(self) -> tuple[str, str, bytes]:
        with self.lock:
            n = self.next_key
            self.next_key += 1
            if self.growing:
                return self.put_bucket, f"grow-{n:08d}", self.grow_body
            return self.bucket, f"obj-{n % self.keys:05d}", self.body

    def _work(self, worker: int) -> None:
        n = worker
        while not self.stopping.is_set():
            self.running.wait()
            if self.stopping.is_set():
                return
            bucket, key, body = self._next_put()
            self._one("put", lambda b=bucket, k=key, d=body: self.s3.put_object(Bucket=b, Key=k, Body=d))
            with self.lock:
                written = min(self.written + 1, self.keys) if bucket == self.bucket else self.written
                self.written = written
            get_key = f"obj-{n % max(1, min(written, self.keys)):05d}"
            n += self.concurrency
            if written:
                self._one("get", lambda k=get_key: self.s3.get_object(Bucket=self.bucket, Key=k)["Body"].read())

    def _one(self, op: str, call) -> None:
        if not self.running.is_set() or self.stopping.is_set():
            return
        try:
            call()
            outcome = op
        except Exception as e:  # counted and sampled: the test decides what errors mean
            outcome = "error"
            with self.lock:
                if len(self.errors) < 20:
                    self.errors.append(f"{op}: {type(e).__name__}: {e}"[:200])
        with self.lock:
            self.done.append((time.monotonic(), outcome))

    def wait_warm(self, timeout: float = 120) -> None:
        """Until every steady key was written once (GETs then always find an object)."""
        end = time.monotonic() + timeout
        while self.written < self.keys:
            if time.monotonic() > end:
                raise TimeoutError(f"steady load: {self.written} of {self.keys} keys written in {timeout} s")
            time.sleep(0.2)

    def rates(self, seconds: float) -> dict[str, float]:
        """Completions per second over the last `seconds`: {"put": .., "get": .., "error": ..}."""
        since = time.monotonic() - seconds
        with self.lock:
            recent = [what for t, what in self.done if t >= since]
        return {what: recent.count(what) / seconds for what in ("put", "get", "error")}
