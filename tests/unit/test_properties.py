"""Bad input, property-based: never a crash, never an invalid exposition, a clear error.

Inputs are the real captured fixtures, mutated: random and truncated JSON,
wrong types, extra fields of unknown Ceph versions, huge and unicode label
values, tenants. What a parser accepts goes on through the derivation and the
exposition, which promtool must accept; what it refuses is one clear log line.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import logging
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from ceph_scale.core import inputs
from ceph_scale.core.config import Thresholds
from ceph_scale.core.derive import DerivationState, derive
from ceph_scale.core.exposition import render
from ceph_scale.core.snapshot import Bucket, BucketsPart, Snapshot
from ceph_scale.io.runner import Schedule, SourceRunner
from exporter.sidecar.ceph_client import CephCommandError, _decode

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "pacific"
PARSERS = {
    "osd_df.json": lambda d: inputs.osd_map_part(d, load("osd_dump.json"), load("osd_metadata.json"), 0),
    "osd_dump.json": lambda d: inputs.capacity_part(load("df_detail.json"), d, 0),
    "df_detail.json": lambda d: inputs.capacity_part(d, load("osd_dump.json"), 0),
    "pg_dump_pgs.json": lambda d: inputs.pg_part(d, 0),
    "health_detail.json": lambda d: inputs.health_part(d, 0),
    "admin_api_bucket_stats_queued.json": lambda d: inputs.buckets_part(d, 0),
    "reshard_list_queued.json": lambda d: inputs.reshard_part(d, 0),
    "config_get.json": lambda d: inputs.settings_part(d, 0),
}
# The snapshot field each parser's part fills.
FIELDS = {
    "osd_df.json": "osd_map",
    "osd_dump.json": "capacity",
    "df_detail.json": "capacity",
    "pg_dump_pgs.json": "pgs",
    "health_detail.json": "health",
    "admin_api_bucket_stats_queued.json": "buckets",
    "reshard_list_queued.json": "reshard",
    "config_get.json": "settings",
}
_cache: dict[str, object] = {}


def load(name: str):
    if name not in _cache:
        _cache[name] = json.loads((FIX / name).read_text())
    return copy.deepcopy(_cache[name])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=20,
)


def paths(obj, prefix=()):
    """Every (container, key) in a JSON document."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield obj, k
            yield from paths(v, prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield obj, i
            yield from paths(v, prefix + (i,))


def mutate(data, pick: int, action: str, value) -> None:
    """Delete or replace one place of `data`, or add a later Ceph's extra field next to it."""
    places = list(paths(data))
    if places:
        container, key = places[pick % len(places)]
        if action == "delete":
            del container[key]
        elif action == "replace":
            container[key] = value
        elif isinstance(container, dict):
            container[f"x_future_field_{pick % 7}"] = value


def accept_or_refuse(parse, data):
    """A parser either returns a part or raises InputError: nothing else."""
    try:
        return parse(data)
    except inputs.InputError as e:
        assert str(e), "an InputError must say what is wrong"
        return None


def promtool_accepts(text: str) -> None:
    proc = subprocess.run(["promtool", "check", "metrics"], input=text.encode(), capture_output=True)
    # promtool exits 1 on lint warnings too; only errors of the format fail here.
    out = (proc.stdout + proc.stderr).decode()
    assert "error while linting" not in out and "parse" not in out.lower(), out


def exposition_of(field: str, part) -> str:
    """A part that was accepted, through the derivation (twice, so rates and slopes run) and the exposition."""
    th = Thresholds()
    state = DerivationState(th)
    for t in (1.0, 31.0):
        snap = Snapshot(taken_at=t, fsid="f", **{field: part})
        text = render(derive(snap, state, th)).decode()
    list(text_string_to_metric_families(text))  # parses whole
    return text


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(PARSERS)), value=json_values)
def test_random_json_is_accepted_or_refused_cleanly(name, value):
    accept_or_refuse(PARSERS[name], value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(PARSERS)),
    pick=st.integers(min_value=0),
    action=st.sampled_from(["delete", "replace", "extra"]),
    value=json_values,
)
def test_mutated_fixtures_are_accepted_or_refused_cleanly(name, pick, action, value):
    data = load(name)
    mutate(data, pick, action, value)
    part = accept_or_refuse(PARSERS[name], data)
    if part is not None:
        text = exposition_of(FIELDS[name], part)
        if pick % 10 == 0:  # promtool costs a process: every tenth accepted mutation
            promtool_accepts(text)


def test_truncated_command_output_is_a_clear_command_error():
    """Every cut of a real command's output: what is left of the document is a CephCommandError
    naming the command, never a value; a cut that leaves nothing is no output (None); the whole
    document, its trailing newline cut or not, is the document. The output is small: every cut
    is tried, not a sample of them."""
    raw = (FIX / "osd_df.json").read_bytes()
    whole = json.loads(raw)
    for cut in range(len(raw) + 1):
        left = raw[:cut]
        if not left.strip():
            assert _decode("osd df", left) is None, cut
        elif left.strip() == raw.strip():
            assert _decode("osd df", left) == whole, cut
        else:
            try:
                decoded = _decode("osd df", left)
            except CephCommandError as e:
                assert str(e).startswith("`ceph osd df` returned invalid JSON: "), (cut, str(e))
            else:
                raise AssertionError(f"{cut} of {len(raw)} bytes decoded as {decoded!r:.80}")


def _known_fields(record) -> dict:
    """A part's record as {field: value} without the fields it did not read (None)."""
    return {k: v for k, v in dataclasses.asdict(record).items() if v is not None}


def _perf_records(part) -> dict:
    return (
        {("bluefs", r.osd_id): r for r in part.bluefs}
        | {("osd_ops", r.osd_id): r for r in part.osd_ops}
        | {("rgw_ops", r.instance_id): r for r in part.rgw_ops}
    )


def test_truncated_mgr_metrics_are_refused_or_read_consistently():
    """Every cut of the mgr prometheus module's real /metrics (small: every cut is tried): the
    parser refuses it, or each counter it reads has the whole text's value; the perf part
    built from those counters is refused, or each of its records holds the whole text's values
    (a field the cut took unread, None, never a different number)."""
    text = (FIX / "mgr_prometheus_metrics.txt").read_text()
    whole = inputs.counters_from_prometheus_text(text)
    whole_records = _perf_records(inputs.perf_part(whole, 0))
    for cut in range(len(text) + 1):
        try:
            counters = inputs.counters_from_prometheus_text(text[:cut])
        except inputs.InputError:
            continue
        read = {(daemon, path): v for daemon, paths in counters.items() for path, v in paths.items()}
        differ = {k: (v, whole.get(k[0], {}).get(k[1])) for k, v in read.items() if v != whole.get(k[0], {}).get(k[1])}
        assert not differ, f"cut at {cut}: {text[max(0, cut - 60) : cut]!r} read {differ}"
        try:
            part = inputs.perf_part(counters, 0)
        except inputs.InputError:
            continue
        for key, record in _perf_records(part).items():
            known = _known_fields(record)
            assert known.items() <= dataclasses.asdict(whole_records[key]).items(), (cut, key, known)


bucket_names = st.text(
    alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), min_size=1, max_size=300
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    buckets=st.lists(
        st.tuples(bucket_names, bucket_names | st.just(""), st.integers(0, 10**12), st.integers(1, 65521)),
        min_size=1,
        max_size=30,
    )
)
def test_any_bucket_names_give_a_valid_exposition(buckets):
    part = BucketsPart(
        collected_at=1.0,
        buckets=tuple(
            Bucket(name=n, tenant=t, bucket_id=f"id{i}", num_shards=s, num_objects=o, marker=f"m{i}")
            for i, (n, t, o, s) in enumerate(buckets)
        ),
    )
    th = Thresholds()
    families = derive(Snapshot(taken_at=1.0, buckets=part), DerivationState(th), th, cluster='c"\\\n1')
    text = render(families).decode()
    parsed = {f.name: f for f in text_string_to_metric_families(text)}
    top = parsed["ceph_scale_rgw_top_bucket_objects"]
    names = {(s.labels["tenant"], s.labels["bucket"]) for s in top.samples}
    assert names <= {(t, n) for n, t, _, _ in buckets}
    assert {s.labels["cluster"] for s in top.samples} == {'c"\\\n1'}


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    piece=st.text(alphabet=st.characters(exclude_categories=["Cs"]), min_size=1, max_size=300),
    size=st.integers(min_value=50_000, max_value=100_000),
    tenant=st.sampled_from(["", "tenant-ä", 'te"nant\\', "\u202e\n"]),
)
def test_huge_label_values_give_an_exposition_promtool_accepts(piece, size, tenant):
    name = (piece * (size // len(piece) + 1))[:size]
    part = BucketsPart(1.0, (Bucket(name=name, tenant=tenant, bucket_id="i", num_shards=1, num_objects=5, marker="m"),))
    text = exposition_of("buckets", part)
    assert len(text) > 50_000
    promtool_accepts(text)


class FailingSource:
    """Stands for a source whose command answers garbage every time."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw

    def __call__(self, timeout: float):
        return inputs.pg_part(json.loads(self.raw), 0.0)


@settings(max_examples=20, deadline=None)
@given(cut=st.integers(min_value=1, max_value=5_000))
def test_a_source_fed_bad_input_logs_one_clear_line_and_keeps_its_last_part(cut):
    good = (FIX / "pg_dump_pgs.json").read_bytes()
    logger = logging.getLogger("property-runner")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record):
            records.append(record)

    handler = Keep()
    logger.addHandler(handler)
    try:
        source = FailingSource(good)
        runner = SourceRunner("pgs", source, logger)
        schedule = Schedule(interval=1, timeout=5, stale_after=60)
        runner.run_once(schedule)
        assert runner.success and runner.part is not None
        kept = runner.part
        source.raw = good[: cut % len(good)] if cut % 3 else b'{"pg_stats": "nope"}'
        for _ in range(3):
            runner.run_once(schedule)
        assert not runner.success and runner.failures == 3
        assert runner.part is kept  # the last good part, not a half-built or empty one
        failed = [r.getMessage() for r in records if "failed" in r.getMessage()]
        assert len(failed) == 1, failed  # one line for the change of state, not one per cycle
        assert failed[0].startswith("source pgs failed: ") and ("JSON" in failed[0] or "InputError" in failed[0])
    finally:
        logger.removeHandler(handler)


def _module_adapters():
    import importlib

    # First the fake mgr_module and the module package on the path, then the module: in this
    # order, which an import sorter would not keep for plain imports.
    importlib.import_module("tests.mgr.conftest")
    sources = importlib.import_module("scale.sources")
    from tests.mgr.fake_mgr import FakeMgrBase, load_fixture_data

    mgr = FakeMgrBase()
    load_fixture_data(mgr)
    return sources, mgr


MODULE_DATA = ("osd_map", "osd_stats", "osd_map_crush", "osd_metadata", "df", "pg_stats", "health")


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    key=st.sampled_from(MODULE_DATA),
    pick=st.integers(min_value=0),
    action=st.sampled_from(["delete", "replace", "extra", "whole"]),
    value=json_values,
)
def test_the_modules_adapters_accept_or_refuse_the_managers_data_cleanly(key, pick, action, value):
    """The manager hands Python objects, which a Ceph upgrade may reshape: the module's
    adapters return a part or raise a clear error, like the sidecar's parsers."""
    sources, mgr = _module_adapters()
    data = mgr.data[key]
    if action == "whole":
        mgr.data[key] = value
    else:
        mutate(data, pick, action, value)
    collect = {
        "osd_map": sources.collect_osd_map,
        "osd_stats": sources.collect_osd_map,
        "osd_map_crush": sources.collect_osd_map,
        "osd_metadata": sources.collect_osd_map,
        "df": sources.collect_capacity,
        "pg_stats": sources.collect_pgs,
        "health": sources.collect_health,
    }[key]
    try:
        collect(mgr)
    except (sources.inputs.InputError, sources.SourceError) as e:  # the module's own copy of the core
        assert str(e)
