"""What watching 5,000 buckets costs the real cluster, for the sidecar and the module [004].

5,000 buckets: 4,850 empty of 1 index shard, 100 empty of 11 shards, 50 of 1 shard holding
5 to 60 objects, owned by 48 owners in turn, half of them users of a tenant of their own
(`wtNN$watch`, as RGW names them), each making its buckets over S3. Each producer polls them
every INTERVAL seconds with a budget of RATE
RADOS reads per second (MAX_READS at most per poll), far below what one full bucket-stats
read costs (every shard of every bucket, and the metadata of each once RGW's cache no
longer holds it). The reads the buckets and reshard sources cause are counted at the
cluster, over several polls:

- through the RGW: the RGW's own RADOS client counters (`perf dump objecter`, `op`: every
  op it sent, the metadata listings' object listings included), less its background rate
  measured while nothing watched the buckets;
- directly (the reshard queue's omap reads, the generation probes' stats): the producer's
  own RADOS client counters: the sidecar runs as its own cephx user with an admin socket
  per client handle; the module's are the manager's, less the manager's background rate.

`ceph df detail` read-op deltas per pool say where the reads went (printed). A bucket
created while watched and filled at a steady rate past rgw_shard_warn_ratio is reported
past it within one poll of the moment it crossed.

Usage per tenant (signals/tenants) from the same reads, not one more: every tenant a producer
exposes is a real owner, labelled `tenant`/`user` as RGW writes it, never with more buckets or
objects than it owns, and exactly its own where the producer has read all its buckets. A tenant
whose buckets are made while watched (`wlate$ops`: read at once, as new buckets are) shows the
same figures from the sidecar and from the module, and the cluster's; its user quota, set as the
runbook sets one (`radosgw-admin quota set --quota-scope=user`), read by the same poll within the
same budget, gives it a runway to that quota (`quota="user_objects"`) from both producers.
"""

from __future__ import annotations

import glob
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest

from cluster import s3load
from cluster.commands import DOCUMENTED_CEPH_USER, DOCUMENTED_RGW_USER, SECURITY_DOC
from cluster.helpers import RGW_NAME, CephError
from demo.monitoring import wait_until
from demo.sidecar import Sidecar
from tests.conftest import ALL_RELEASES
from tests.mgr.test_mgr_cluster import Scale, store_documented_rgw_keys

# Seven minutes a release (half of it making and removing the buckets): Pacific's in every run;
# CEPH_SCALE_COST_RELEASES=pacific,reef,tentacle runs it on the others too.
COST_RELEASES = [r for r in os.environ.get("CEPH_SCALE_COST_RELEASES", "pacific").split(",") if r in ALL_RELEASES]
pytestmark = [pytest.mark.cluster, pytest.mark.parametrize("ceph_cluster", COST_RELEASES, indirect=True)]

BUCKETS = {"empty": 4850, "eleven": 100, "filled": 50}
INTERVAL = 15
RATE = 60.0  # RADOS reads/s: 900 a poll
MAX_READS = 1200
THRESHOLDS = {
    "rgw_bucket_reads_per_second": RATE,
    "rgw_bucket_poll_max_reads": MAX_READS,
    # Test buckets hold 100 objects per shard at most (rgw_max_objs_per_shard): a bucket never
    # seen growing is assumed to grow by at most one object in 100 s.
    "rgw_bucket_growth_floor": 0.01,
    # The late tenant's runway once four polls of it span this (its buckets live a few minutes).
    "forecast_min_span_seconds": 30,
}
HOT = {"sidecar": "watch-hot-sidecar", "mgr": "watch-hot-mgr"}
QUOTA_SYNC = ("rgw_bucket_quota_ttl", "rgw_user_quota_bucket_sync_interval", "rgw_user_quota_sync_interval")
# The owners of the 5,000 buckets, a bucket each in turn: users without a tenant and users of a
# tenant each (RGW's `tenant$user`, whose buckets are keyed `tenant/bucket`).
OWNERS = tuple(f"watch-u{i:02d}" for i in range(24)) + tuple(f"wt{i:02d}$watch" for i in range(24))
# Made while a producer watches, so it reads them at once: the largest tenant by bytes.
LATE_OWNER = "wlate$ops"
LATE_BUCKETS, LATE_OBJECTS, LATE_SIZE = 3, 4, 1 << 20
LATE_USER_QUOTA = 1000  # objects: its user quota, far above what it holds
TENANT_FAMILIES = ("ceph_scale_rgw_tenant_bytes", "ceph_scale_rgw_tenant_objects", "ceph_scale_rgw_tenant_buckets")
SEEN: dict[str, dict] = {}  # producer -> the late tenant's figures, for the two producers to agree


def prefix(kind: str) -> str:
    return f"watch-{kind}"


def split_owner(owner: str) -> tuple[str, str]:
    tenant, sep, user = owner.partition("$")
    return (tenant, user) if sep else ("", owner)


def bucket_key(owner: str, name: str) -> str:
    tenant = split_owner(owner)[0]
    return f"{tenant}/{name}" if tenant else name


@dataclass
class Population:
    """The buckets made, by key, with their owners and what they hold, and each owner's S3 client."""

    owner_of: dict[str, str] = field(default_factory=dict)  # bucket key -> owner
    objects_of: dict[str, int] = field(default_factory=dict)
    clients: dict[str, Any] = field(default_factory=dict)  # owner -> boto3 S3 client

    def owned(self, owner: str) -> list[str]:
        return [k for k, o in self.owner_of.items() if o == owner]


def make_owners(c, owners, pop: Population) -> None:
    """Each owner as an RGW user with its keys (of a tenant where it has one), and its S3 client."""

    def make(owner: str) -> None:
        tenant, user = split_owner(owner)
        try:
            info = c.radosgw_admin("user", "info", "--uid", owner)
        except CephError:
            tenancy = ["--tenant", tenant] if tenant else []
            info = c.radosgw_admin("user", "create", "--uid", user, "--display-name", owner, *tenancy)
        keys = info["keys"][0]
        pop.clients[owner] = s3load.client(c.rgw_endpoint, keys["access_key"], keys["secret_key"], concurrency=32)

    with ThreadPoolExecutor(8) as ex:
        list(ex.map(make, owners))


def remove_owners(c, owners) -> None:
    with ThreadPoolExecutor(8) as ex:
        list(ex.map(lambda o: c.radosgw_admin("user", "rm", "--uid", o, fmt_json=False), owners))


@pytest.fixture(scope="module")
def many_buckets(ceph_cluster, clusters):
    """The 5,000 buckets, made once for both producers, removed afterwards (other tests'
    producers would otherwise spend minutes reading them). The session's sidecar is stopped
    meanwhile: its polls would count as ours."""
    c = ceph_cluster
    session_sidecar = clusters.sidecars.get(c.release.name)
    if session_sidecar is not None:
        session_sidecar.stop()
    c.radosgw_admin("user", "modify", "--uid", "loadgen", "--max-buckets", "100000")
    # The test cluster's RGW syncs its users' bucket stats every second (for resharding within
    # seconds): through 5,000 buckets that is thousands of reads a second, which would drown the
    # producers' in the counters. Ceph's defaults meanwhile (minutes, hours).
    for option in QUOTA_SYNC:
        c.ceph("config", "rm", "client.rgw", option, fmt_json=False)
    s3 = s3load.client(c.rgw_endpoint, *c.user_keys, concurrency=32)
    made = time.monotonic()
    pop = Population()
    names: list[tuple[str, str]] = []  # (owner, bucket name) in the order made

    def create(kind: str, n: int, shards: int) -> None:
        c.ceph("config", "set", "client.rgw", "rgw_override_bucket_index_max_shards", str(shards), fmt_json=False)
        time.sleep(2)  # the RGW reads it at each bucket creation, once the config reached it
        batch = [(OWNERS[(len(names) + i) % len(OWNERS)], f"{prefix(kind)}-{i:05d}") for i in range(n)]
        with ThreadPoolExecutor(32) as ex:
            list(ex.map(lambda ob: pop.clients[ob[0]].create_bucket(Bucket=ob[1]), batch))
        names.extend(batch)
        for owner, name in batch:
            pop.owner_of[bucket_key(owner, name)] = owner
            pop.objects_of[bucket_key(owner, name)] = 0

    try:
        make_owners(c, (*OWNERS, LATE_OWNER), pop)
        for action, *limit in (("set", f"--max-objects={LATE_USER_QUOTA}"), ("enable",)):
            c.radosgw_admin("quota", action, "--quota-scope=user", f"--uid={LATE_OWNER}", *limit, fmt_json=False)
        create("eleven", BUCKETS["eleven"], 11)
        create("empty", BUCKETS["empty"], 1)
        create("filled", BUCKETS["filled"], 1)
        filled = [(o, b) for o, b in names if b.startswith(prefix("filled"))]
        puts = [(o, b, f"o{j}") for i, (o, b) in enumerate(filled) for j in range(5 + i)]
        with ThreadPoolExecutor(32) as ex:
            list(ex.map(lambda p: pop.clients[p[0]].put_object(Bucket=p[1], Key=p[2], Body=b"x"), puts))
        for o, b, _ in puts:
            pop.objects_of[bucket_key(o, b)] += 1
        print(f"{len(names)} buckets of {len(OWNERS)} owners and {len(puts)} objects made in "
              f"{time.monotonic() - made:.0f} s")  # fmt: skip
        yield pop
    finally:
        c.ceph("config", "set", "client.rgw", "rgw_override_bucket_index_max_shards", "1", fmt_json=False)
        for option in QUOTA_SYNC:
            c.ceph("config", "set", "client.rgw", option, "1", fmt_json=False)
        removed = time.monotonic()
        gone = [(pop.clients.get(o), b) for o, b in names] + [(s3, b) for b in HOT.values()]
        with ThreadPoolExecutor(32) as ex:
            list(ex.map(lambda cb: empty_and_remove(cb[0], cb[1]), [(cl, b) for cl, b in gone if cl is not None]))
        remove_owners(c, [o for o in (*OWNERS, LATE_OWNER) if o in pop.clients])
        print(f"{len(gone)} buckets and {len(pop.clients)} owners removed in {time.monotonic() - removed:.0f} s")
        if session_sidecar is not None:
            session_sidecar.start()


def empty_and_remove(s3, bucket: str) -> None:
    """One call for an empty bucket (4,950 of the 5,000): its listing only where it holds objects."""
    try:
        try:
            s3.delete_bucket(Bucket=bucket)
            return
        except s3.exceptions.ClientError as e:
            if e.response.get("Error", {}).get("Code") != "BucketNotEmpty":
                raise
        for o in s3.list_objects_v2(Bucket=bucket).get("Contents", []):
            s3.delete_object(Bucket=bucket, Key=o["Key"])
        s3.delete_bucket(Bucket=bucket)
    except s3.exceptions.NoSuchBucket:
        pass


class ClusterReads:
    """RADOS ops sent by the RGW and by the producer's own clients, from their admin sockets."""

    def __init__(self, cluster, client_sockets) -> None:
        self.c = cluster
        self.client_sockets = client_sockets  # () -> admin socket names or paths of the producer's clients

    def objecter(self, daemon: str) -> int:
        """Ops sent by every RADOS client of the daemon (the manager has one per module that reads)."""
        dump = self.c.admin_socket(daemon, "perf", "dump")
        return sum(int(v["op"]) for k, v in dump.items() if k == "objecter" or k.startswith("objecter-"))

    def now(self) -> dict:
        return {
            "t": time.monotonic(),
            "rgw": self.objecter(RGW_NAME),
            "client": sum(self.objecter(s) for s in self.client_sockets()),
            "pools": {p["name"]: p["stats"]["rd"] for p in self.c.ceph("df", "detail")["pools"]},
        }

    def background(self, seconds: float) -> dict:
        a = self.now()
        time.sleep(seconds)
        b = self.now()
        span = b["t"] - a["t"]
        return {"rgw": (b["rgw"] - a["rgw"]) / span, "client": (b["client"] - a["client"]) / span}

    @staticmethod
    def caused(a: dict, b: dict, background: dict) -> dict:
        span = b["t"] - a["t"]
        rgw = b["rgw"] - a["rgw"] - background["rgw"] * span
        client = b["client"] - a["client"] - background["client"] * span
        pools = {k: v - a["pools"].get(k, 0) for k, v in b["pools"].items() if v != a["pools"].get(k, 0)}
        return {"seconds": span, "rgw": rgw, "client": client, "total": rgw + client, "pools": pools}


def fill_steadily(c, bucket: str, objects: int, per_second: float) -> dict:
    """PUT `objects` objects at a steady rate in the background; the times each count was reached."""
    reached: dict[int, float] = {}
    s3 = s3load.client(c.rgw_endpoint, *c.user_keys)

    def run() -> None:
        start = time.monotonic()
        for i in range(objects):
            time.sleep(max(0.0, start + i / per_second - time.monotonic()))
            s3.put_object(Bucket=bucket, Key=f"o{i}", Body=b"x")
            reached[i + 1] = time.time()

    threading.Thread(target=run, daemon=True).start()
    return reached


def late_buckets(pop: Population, producer: str) -> list[str]:
    """The late tenant's buckets, made now (while the producer watches), each holding LATE_OBJECTS."""
    s3 = pop.clients[LATE_OWNER]
    keys = []
    for i in range(LATE_BUCKETS):
        name = f"watch-late-{producer}-{i}"
        s3.create_bucket(Bucket=name)
        for j in range(LATE_OBJECTS):
            s3.put_object(Bucket=name, Key=f"o{j}", Body=b"l" * LATE_SIZE)
        keys.append(bucket_key(LATE_OWNER, name))
    return keys


def tenant_figures(metrics: dict) -> dict[str, dict[tuple[str, str], float]]:
    """{family: {(tenant, user): value}} of the producer's tenant families."""
    out: dict[str, dict[tuple[str, str], float]] = {}
    for name in (*TENANT_FAMILIES, "ceph_scale_rgw_tenant_stats_age_seconds"):
        for labels, v in metrics.get(name, {}).items():
            d = dict(labels)
            out.setdefault(name, {})[(d["tenant"], d["user"])] = v
    return out


def check_tenants(figures: dict, pop: Population, users: list[str]) -> None:
    """Every exposed tenant one of the cluster's users (`users`: `metadata list user`); ours with
    at most what they own, and exactly that where the producer read all their buckets; the late
    tenant read whole."""
    exposed = set(figures["ceph_scale_rgw_tenant_buckets"]) - {("", "(others)")}
    known = {split_owner(u) for u in users}
    assert exposed and exposed <= known, exposed - known
    assert any(t for t, _ in exposed), "a tenant's user among the exposed ones"
    owners = {split_owner(o): o for o in pop.owner_of.values()}
    whole = 0
    for who in exposed & set(owners):
        owner = owners[who]
        keys = pop.owned(owner)
        read = figures["ceph_scale_rgw_tenant_buckets"][who]
        assert 0 < read <= len(keys), (who, read, len(keys))
        assert figures["ceph_scale_rgw_tenant_objects"][who] <= sum(pop.objects_of[k] for k in keys), who
        if read == len(keys):
            whole += 1
            assert figures["ceph_scale_rgw_tenant_objects"][who] == sum(pop.objects_of[k] for k in keys), who
    late = split_owner(LATE_OWNER)
    assert figures["ceph_scale_rgw_tenant_buckets"][late] == LATE_BUCKETS
    assert figures["ceph_scale_rgw_tenant_objects"][late] == LATE_BUCKETS * LATE_OBJECTS
    assert figures["ceph_scale_rgw_tenant_bytes"][late] == LATE_BUCKETS * LATE_OBJECTS * LATE_SIZE
    assert whole >= 1
    print(f"{len(exposed)} tenants exposed, {whole} read whole")


def watch_and_count(c, producer: str, reads: ClusterReads, background: dict, value, metrics, pop: Population) -> None:
    """Drive a new bucket past the warn line at a steady rate while the producer polls, then
    check the cluster reads over those polls and how soon the producer showed the crossing;
    and the tenants' figures from the same reads."""

    def poll_time() -> float:
        return value("ceph_scale_source_last_success_timestamp_seconds", source="buckets") or 0

    def estimated() -> float:
        kinds = ("list", "meta", "stats", "probe", "quota")
        return sum(value("ceph_scale_rgw_bucket_poll_reads_total", kind=k) or 0 for k in kinds)

    hot = HOT[producer]
    limit = int(c.ceph("config", "get", "client.rgw", "rgw_max_objs_per_shard"))
    line = int(0.8 * limit)  # rgw_shard_warn_ratio, 1 shard
    first = poll_time()
    wait_until(lambda: poll_time() > first, 3 * INTERVAL, what="a bucket poll")
    start, polls_from, estimated_from = reads.now(), poll_time(), estimated()
    s3load.client(c.rgw_endpoint, *c.user_keys).create_bucket(Bucket=hot)
    # New: read at once, and at the next poll, which sees its growth (1.5 objects/s).
    reached = fill_steadily(c, hot, line + 5, 1.5)
    late = late_buckets(pop, producer)
    for key in late:
        pop.owner_of[key], pop.objects_of[key] = LATE_OWNER, LATE_OBJECTS
    wait_until(lambda: line in reached, 3 * line, what=f"{hot} past {line} objects")
    crossed = reached[line]
    wait_until(lambda: (value("ceph_scale_rgw_top_bucket_objects", bucket=hot) or 0) >= line, 3 * INTERVAL,
               what=f"the producer to show {hot} past the warn line")  # fmt: skip
    seen = time.time() - crossed
    polls = max(1, round((poll_time() - polls_from) / INTERVAL))
    caused = ClusterReads.caused(start, reads.now(), background)
    check(caused, seen, polls, estimated() - estimated_from, hot)
    assert value("ceph_scale_rgw_bucket_stats_overdue") == 0
    assert value("ceph_scale_rgw_bucket_stats_unread") > 0  # 5,000 buckets at this budget take minutes
    late_owner = dict(zip(("tenant", "user"), split_owner(LATE_OWNER)))
    wait_until(lambda: value("ceph_scale_rgw_tenant_buckets", **late_owner) == LATE_BUCKETS, 3 * INTERVAL,
               what=f"the producer to show {LATE_OWNER}'s buckets")  # fmt: skip
    figures = tenant_figures(metrics())
    check_tenants(figures, pop, c.radosgw_admin("metadata", "list", "user"))
    # Its user quota, read by the poll once (within the budget checked above), and its runway to it.
    user_quota = {**late_owner, "quota": "user_objects"}
    wait_until(lambda: value("ceph_scale_rgw_tenant_quota_runway_seconds", **user_quota) is not None, 6 * INTERVAL,
               what=f"the producer to show {LATE_OWNER}'s runway to its user quota")  # fmt: skip
    assert value("ceph_scale_rgw_tenant_quota", **user_quota) == LATE_USER_QUOTA
    assert value("ceph_scale_rgw_bucket_poll_reads_total", kind="quota") > 0
    SEEN[producer] = {name: figures[name][split_owner(LATE_OWNER)] for name in TENANT_FAMILIES}
    for other, seen_there in SEEN.items():  # the sidecar's, when it ran before in this module
        assert seen_there == SEEN[producer], (other, producer)
    for key in late:
        empty_and_remove(pop.clients[LATE_OWNER], key.rpartition("/")[2])
        del pop.owner_of[key], pop.objects_of[key]


def check(caused: dict, seen: float, polls: int, estimated: float, hot: str) -> None:
    print(
        f"over {polls} polls ({caused['seconds']:.0f} s): {caused['total']:.0f} RADOS ops "
        f"({caused['rgw']:.0f} through the RGW, {caused['client']:.0f} direct; the producer estimated "
        f"{estimated:.0f}); pools' read ops {caused['pools']}; {hot} shown {seen:.1f} s after it crossed"
    )
    # Every poll within its budget, and on average the rate (plus the first poll's full budget).
    assert caused["total"] <= polls * MAX_READS
    assert caused["total"] <= MAX_READS + RATE * caused["seconds"] * 1.1
    # The cost model the budget is spent by holds on the cluster (RGW's cache makes it cheaper).
    assert caused["total"] <= 1.2 * estimated + 100
    # A full read every poll would have cost one read per shard at least
    shards = BUCKETS["empty"] + 11 * BUCKETS["eleven"] + BUCKETS["filled"]
    assert caused["total"] < 0.25 * polls * shards
    assert seen <= INTERVAL + 10  # one poll, and the poll's own duration


def test_the_sidecar_watches_5000_buckets_within_its_read_budget(ceph_cluster, many_buckets, scratch):
    c = ceph_cluster
    user = "bucket-watch"
    keyring = c.dir / f"{user}.keyring"
    # The documented user's command and caps, under a name of its own: its own admin sockets
    # (below) count its reads alone, not the session sidecar's, which runs as the documented name.
    c.create_documented_user(SECURITY_DOC, f"client.{DOCUMENTED_CEPH_USER}", keyring, as_name=f"client.{user}")
    # Its own admin socket per client handle ($cctid), to count its own reads.
    conf = c.dir / f"{user}.conf"
    sockets = c.dir / "run" / f"client.{user}"
    conf.write_text(c.conf_path.read_text() + f"\n[client.{user}]\nadmin_socket = {sockets}.$pid.$cctid.asok\n")
    reads = ClusterReads(c, lambda: glob.glob(f"{sockets}.*.asok"))
    background = reads.background(INTERVAL)
    only = {"enabled": False}
    sidecar = Sidecar(
        c, scratch, ceph_user=user, thresholds=THRESHOLDS,
        rgw_credentials=c.create_documented_rgw_user(SECURITY_DOC, DOCUMENTED_RGW_USER),
        sources={"buckets": {"interval": INTERVAL, "timeout": INTERVAL - 3},
                 "reshard": {"interval": INTERVAL, "timeout": 10}, "settings": {"interval": 10, "timeout": 10},
                 **{s: only for s in ("osd_map", "capacity", "perf", "pgs", "health")}},
        extra_args=["--ceph-keyring", str(keyring), f"--ceph-conf={conf}"],
    ).start()  # fmt: skip
    try:
        wait_until(lambda: glob.glob(f"{sockets}.*.asok"), 30, what="the sidecar's admin sockets")
        watch_and_count(c, "sidecar", reads, background, sidecar.value, sidecar.metrics, many_buckets)
    finally:
        sidecar.stop()


def test_the_module_watches_5000_buckets_within_its_read_budget(ceph_cluster, many_buckets):
    c = ceph_cluster
    scale = Scale(c)
    scale.set("server_addr", "127.0.0.1")
    for ident, port in scale.ports.items():
        scale.set(f"{ident}/server_port", port)
    store_documented_rgw_keys(c)  # as docs/mgr-module.md has operators give them
    settings = {"rgw_interval": INTERVAL, "rgw_timeout": INTERVAL - 3, "rgw_source": "off",
                "rgw_endpoint": c.rgw_endpoint, **THRESHOLDS}  # fmt: skip
    for key, value in settings.items():
        scale.set(key, value)
    c.ceph("mgr", "module", "enable", "scale", fmt_json=False)
    try:
        wait_until(lambda: c.ceph("mgr", "stat", timeout=10).get("available"), 120, what="an active manager")
        wait_until(lambda: "ceph_scale_build_info" in scale.text(), 120, interval=2, what="the module's /metrics")
        c.refresh_active_mgr()
        # The manager's own RADOS client: the module's direct reads, and the manager's other ones
        # (measured while the module watches no bucket).
        reads = ClusterReads(c, lambda: [f"mgr.{c.active_mgr}"])
        background = reads.background(INTERVAL)
        scale.set("rgw_source", "admin_api")
        watch_and_count(c, "mgr", reads, background, scale.value, scale.metrics, many_buckets)
    finally:
        c.ceph("mgr", "module", "disable", "scale", fmt_json=False)
        for key in settings:
            c.ceph("config", "rm", "mgr", f"mgr/scale/{key}", fmt_json=False)
