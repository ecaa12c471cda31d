"""A small bounded S3 load generator (boto3): PUT N small objects, then GET them back.

Bounded by count and by time: `run()` never issues more than `objects` PUTs and
`objects` GETs and stops starting new requests after `max_seconds`.

    python -m cluster.s3load --endpoint http://127.0.0.1:PORT --keys-file DIR/keys.json --bucket load \
        --objects 200 --size 65536 --concurrency 8
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field


@dataclass
class LoadResult:
    puts: int = 0
    gets: int = 0
    errors: int = 0
    put_seconds: float = 0.0
    get_seconds: float = 0.0
    put_bytes: int = 0
    get_bytes: int = 0
    error_samples: list[str] = field(default_factory=list)

    @property
    def put_rate(self) -> float:
        """PUTs per second over the PUT phase."""
        return self.puts / self.put_seconds if self.put_seconds else 0.0

    @property
    def get_rate(self) -> float:
        """GETs per second over the GET phase."""
        return self.gets / self.get_seconds if self.get_seconds else 0.0

    def as_dict(self) -> dict:
        return {**asdict(self), "put_rate": round(self.put_rate, 1), "get_rate": round(self.get_rate, 1)}


def client(endpoint: str, access: str, secret: str, concurrency: int = 16):
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=access,
        aws_secret_access_key=secret,
        region_name="us-east-1",
        config=Config(
            retries={"max_attempts": 2},
            max_pool_connections=max(10, concurrency),
            s3={"addressing_style": "path"},
            connect_timeout=10,
            read_timeout=60,
        ),
    )


def run(
    endpoint: str,
    access: str,
    secret: str,
    bucket: str,
    objects: int = 200,
    size: int = 65536,
    concurrency: int = 8,
    max_seconds: float = 120.0,
    gets: bool = True,
    prefix: str = "obj",
    puts: bool = True,
) -> LoadResult:
    """PUT `objects` objects of `size` bytes into `bucket` (created if missing) with `concurrency`
    threads, then GET them back; bounded by count and by `max_seconds` for both phases together.

    Keys are f"{prefix}-{i:08d}". puts=False only GETs existing keys (e.g. after an earlier run).
    """
    s3 = client(endpoint, access, secret, concurrency)
    if puts:
        try:
            s3.create_bucket(Bucket=bucket)
        except (s3.exceptions.BucketAlreadyOwnedByYou, s3.exceptions.BucketAlreadyExists):
            pass
    body = os.urandom(size)
    result = LoadResult()
    lock = threading.Lock()
    deadline = time.monotonic() + max_seconds

    def failed(e: Exception) -> None:
        with lock:
            result.errors += 1
            if len(result.error_samples) < 5:
                result.error_samples.append(f"{type(e).__name__}: {e}"[:200])

    def put(i: int) -> None:
        if time.monotonic() > deadline:
            return
        try:
            s3.put_object(Bucket=bucket, Key=f"{prefix}-{i:08d}", Body=body)
            with lock:
                result.puts += 1
                result.put_bytes += size
        except Exception as e:
            failed(e)

    def get(i: int) -> None:
        if time.monotonic() > deadline:
            return
        try:
            n = len(s3.get_object(Bucket=bucket, Key=f"{prefix}-{i:08d}")["Body"].read())
            with lock:
                result.gets += 1
                result.get_bytes += n
        except Exception as e:
            failed(e)

    if puts:
        start = time.monotonic()
        with ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(put, range(objects)))
        result.put_seconds = time.monotonic() - start
    if gets:
        start = time.monotonic()
        with ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(get, range(result.puts if puts else objects)))
        result.get_seconds = time.monotonic() - start
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cluster.s3load", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--endpoint", required=True)
    p.add_argument(
        "--keys-file",
        required=True,
        help='JSON {"access_key": ..., "secret_key": ...}, or the cluster\'s keys.json (its "user" keys are used)',
    )
    p.add_argument("--bucket", default="load")
    p.add_argument("--objects", type=int, default=200)
    p.add_argument("--size", type=int, default=65536)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--max-seconds", type=float, default=120)
    p.add_argument("--no-gets", action="store_true")
    args = p.parse_args(argv)
    with open(args.keys_file) as f:
        keys = json.load(f)
    keys = keys.get("user", keys)
    r = run(args.endpoint, keys["access_key"], keys["secret_key"], args.bucket, args.objects, args.size,
            args.concurrency, args.max_seconds, gets=not args.no_gets)  # fmt: skip
    print(json.dumps(r.as_dict()))
    return 0 if r.errors == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
