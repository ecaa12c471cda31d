"""A small bounded S3 load generator (boto3): PUT then GET small objects."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass


@dataclass
class LoadResult:
    puts: int = 0
    gets: int = 0
    errors: int = 0
    put_seconds: float = 0.0
    get_seconds: float = 0.0

    @property
    def put_rate(self) -> float:
        return self.puts / self.put_seconds if self.put_seconds else 0.0

    @property
    def get_rate(self) -> float:
        return self.gets / self.get_seconds if self.get_seconds else 0.0


def client(endpoint: str, access: str, secret: str):
    import boto3
    from botocore.config import Config

    return boto3.client(
        "s3",
        endpoint_url=endpoint,
        aws_access_key_id=access,
        aws_secret_access_key=secret,
        region_name="us-east-1",
        config=Config(retries={"max_attempts": 2}, max_pool_connections=64, s3={"addressing_style": "path"}),
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
) -> LoadResult:
    """PUT `objects` objects of `size` bytes, then GET them back; bounded by count and time."""
    s3 = client(endpoint, access, secret)
    try:
        s3.create_bucket(Bucket=bucket)
    except s3.exceptions.BucketAlreadyOwnedByYou:
        pass
    body = os.urandom(size)
    result = LoadResult()
    lock = threading.Lock()
    deadline = time.monotonic() + max_seconds

    def put(i: int) -> None:
        if time.monotonic() > deadline:
            return
        try:
            s3.put_object(Bucket=bucket, Key=f"{prefix}-{i:08d}", Body=body)
            with lock:
                result.puts += 1
        except Exception:
            with lock:
                result.errors += 1

    def get(i: int) -> None:
        if time.monotonic() > deadline:
            return
        try:
            s3.get_object(Bucket=bucket, Key=f"{prefix}-{i:08d}")["Body"].read()
            with lock:
                result.gets += 1
        except Exception:
            with lock:
                result.errors += 1

    start = time.monotonic()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(put, range(objects)))
    result.put_seconds = time.monotonic() - start
    if gets:
        start = time.monotonic()
        with ThreadPoolExecutor(concurrency) as pool:
            list(pool.map(get, range(result.puts)))
        result.get_seconds = time.monotonic() - start
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cluster.s3load", description=run.__doc__)
    p.add_argument("--endpoint", required=True)
    p.add_argument("--keys-file", required=True, help='JSON {"access_key": ..., "secret_key": ...}')
    p.add_argument("--bucket", default="load")
    p.add_argument("--objects", type=int, default=200)
    p.add_argument("--size", type=int, default=65536)
    p.add_argument("--concurrency", type=int, default=8)
    p.add_argument("--max-seconds", type=float, default=120)
    args = p.parse_args(argv)
    keys = json.load(open(args.keys_file))
    r = run(args.endpoint, keys["access_key"], keys["secret_key"], args.bucket, args.objects, args.size,
            args.concurrency, args.max_seconds)  # fmt: skip
    print(json.dumps({**asdict(r), "put_rate": r.put_rate, "get_rate": r.get_rate}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
