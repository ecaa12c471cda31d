"""bluefs.wal_used_bytes, read beside the other BlueFS counters on every path (the `scale counters`
command's manager reads, the mgr prometheus module's text, ceph-exporter's, which is the same
text): each release's captured value, and for a mutated one the right value, None where it is
not reported, or one input error naming the field, never a silent 0."""

from __future__ import annotations

import json
import random
import re

import pytest

from ceph_scale.core import inputs
from tests.unit.test_parser_oracles import FIXTURES, RELEASES, load, names

WAL = "bluefs.wal_used_bytes"


def perf_dump_counters(release: str) -> dict[str, dict]:
    """osd.0's counters as the manager hands them: `perf dump`'s sections flattened to paths."""
    dump = load(release, "osd_perf_dump_osd0.json")
    flat = {f"{section}.{name}": v for section, values in dump.items() for name, v in values.items()}
    return {"osd.0": {p: flat[p] for p in inputs.PERF_COUNTERS if p in flat}}


@pytest.mark.parametrize("release", RELEASES)
def test_every_release_reports_the_wal_counter_on_every_path(release):
    dump = load(release, "osd_perf_dump_osd0.json")
    (fs,) = inputs.perf_part(perf_dump_counters(release), 0.0).bluefs
    assert fs.wal_used_bytes == dump["bluefs"]["wal_used_bytes"] and fs.wal_used_bytes is not None
    for name in names(release, "mgr_prometheus_metrics*.txt"):
        text = load(release, name)
        reported = dict(re.findall(r'^ceph_bluefs_wal_used_bytes\{ceph_daemon="(osd\.\d+)"\} (\S+)$', text, re.M))
        assert reported, name
        bluefs = inputs.perf_part(inputs.counters_from_prometheus_text(text), 0.0).bluefs
        assert {f"osd.{c.osd_id}": c.wal_used_bytes for c in bluefs} == {
            d: int(float(v)) for d, v in reported.items()
        }, name


# Values a reply could carry, and what each must read as: a count, or an error.
VALID = {0: 0, 1: 1, 2_147_479_552: 2_147_479_552, 2**63 - 1: 2**63 - 1, 96.0 * 2**20: 96 * 2**20, "4096": 4096}
INVALID: list[object] = [-1, 1.5, float("nan"), float("inf"), True, None, "12 MB", "", [], {}]


@pytest.mark.parametrize("release", RELEASES)
def test_a_mutated_wal_counter_reads_right_or_fails_in_one_line_naming_it(release):
    rng = random.Random(f"wal:{release}")
    base = perf_dump_counters(release)
    for _ in range(200):
        counters = {"osd.0": dict(base["osd.0"])}
        action = rng.choice(["valid", "invalid", "delete", "alone"])
        if action == "delete":
            del counters["osd.0"][WAL]
            (fs,) = inputs.perf_part(counters, 0.0).bluefs
            assert fs.wal_used_bytes is None  # unread, never 0
            continue
        if action == "alone":  # the WAL's counter without the BlueFS set: a cut read
            counters["osd.0"] = {k: v for k, v in counters["osd.0"].items() if not k.startswith("bluefs.")}
            counters["osd.0"][WAL] = 0
            with pytest.raises(inputs.InputError) as e:
                inputs.perf_part(counters, 0.0)
            assert str(e.value).startswith("perf[osd.0].bluefs.db_total_bytes: missing") and "\n" not in str(e.value)
            continue
        value = rng.choice(list(VALID) if action == "valid" else INVALID)
        counters["osd.0"][WAL] = value
        if action == "valid":
            (fs,) = inputs.perf_part(counters, 0.0).bluefs
            assert fs.wal_used_bytes == VALID[value] and isinstance(fs.wal_used_bytes, int)
            assert (fs.db_used_bytes, fs.slow_used_bytes) == (
                base["osd.0"]["bluefs.db_used_bytes"],
                base["osd.0"]["bluefs.slow_used_bytes"],
            )
        else:
            with pytest.raises(inputs.InputError) as e:
                inputs.perf_part(counters, 0.0)
            assert str(e.value).startswith(f"perf[osd.0].{WAL}: ") and "\n" not in str(e.value), value


@pytest.mark.parametrize("release", RELEASES)
def test_a_mutated_wal_line_of_the_metrics_text_reads_right_or_names_the_line(release):
    text = load(release, "mgr_prometheus_metrics.txt")
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith('ceph_bluefs_wal_used_bytes{ceph_daemon="osd.0"}'))
    head = lines[at].rpartition(" ")[0]
    for value, want in (("1073741824.0", 1073741824), ("0.0", 0), ("abc", None), ("NaN", None), ("", None)):
        mutated = "\n".join(lines[:at] + [f"{head} {value}"] + lines[at + 1 :]) + "\n"
        if want is None:
            with pytest.raises(inputs.InputError, match=rf"^mgr prometheus line {at + 1}: "):
                inputs.counters_from_prometheus_text(mutated)
            continue
        bluefs = inputs.perf_part(inputs.counters_from_prometheus_text(mutated), 0.0).bluefs
        assert next(c for c in bluefs if c.osd_id == 0).wal_used_bytes == want
    # A negative size is read from the text, then refused by the perf part, naming the counter.
    mutated = "\n".join(lines[:at] + [f"{head} -5.0"] + lines[at + 1 :]) + "\n"
    with pytest.raises(inputs.InputError, match=re.escape(f"perf[osd.0].{WAL}: expected a count")):
        inputs.perf_part(inputs.counters_from_prometheus_text(mutated), 0.0)


def test_the_fixtures_this_reads_are_the_captured_ones():
    for release in RELEASES:
        assert json.loads((FIXTURES / release / "osd_perf_dump_osd0.json").read_text())["bluefs"]["wal_used_bytes"] >= 0
