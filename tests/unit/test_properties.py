"""Bad input, property-based: never a crash, never an invalid exposition, a clear error.

Inputs are the real captured fixtures, mutated: random and truncated JSON,
wrong types, extra fields of unknown Ceph versions, huge and unicode label
values, tenants.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client.parser import text_string_to_metric_families

from exporter.core import inputs
from exporter.core.config import Thresholds
from exporter.core.derive import DerivationState, derive
from exporter.core.exposition import render
from exporter.core.snapshot import Bucket, BucketsPart, Snapshot
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


def accept_or_refuse(parse, data) -> None:
    """A parser either returns a part or raises InputError: nothing else."""
    try:
        parse(data)
    except inputs.InputError as e:
        assert str(e), "an InputError must say what is wrong"


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
    places = list(paths(data))
    if places:
        container, key = places[pick % len(places)]
        if action == "delete":
            del container[key]
        elif action == "replace":
            container[key] = value
        elif isinstance(container, dict):
            container[f"x_future_field_{pick % 7}"] = value  # a later Ceph's extra field
    accept_or_refuse(PARSERS[name], data)


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(min_value=0, max_value=10_000))
def test_truncated_command_output_is_a_clear_command_error(cut):
    raw = (FIX / "osd_df.json").read_bytes()
    cut = cut % len(raw)
    try:
        _decode("osd df", raw[:cut])
    except CephCommandError as e:
        assert "invalid JSON" in str(e)


@settings(max_examples=60, deadline=None)
@given(cut=st.integers(min_value=0, max_value=20_000))
def test_truncated_mgr_metrics_are_refused_or_read_consistently(cut):
    text = (FIX / "mgr_prometheus_metrics.txt").read_text()
    try:
        counters = inputs.counters_from_prometheus_text(text[: cut % len(text)])
        inputs.perf_part(counters, 0)
    except inputs.InputError:
        pass


bucket_names = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=300
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
