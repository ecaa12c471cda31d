"""Prometheus' CPU profile of the rule rounds (bench/rules_pprof.py, `bench.rules --cpu-profile`):
taken from a real server, read by Go's own pprof, and summed into the parts the rules make it do.

prometheus-rules-cpu.pprof is the profile of the rounds measured by
`python -m bench.rules --clusters 100 --hours 1 --lead 420 --evaluations 8 --cpu-profile FILE`
(the shipped rules, all 100 clusters in the study's trouble; Debian 12's Prometheus, 2026-12-07)."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import pytest

from bench import rules as bench_rules
from bench import rules_pprof
from cluster.testcluster import free_port

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
FLEET = HERE / "prometheus-rules-cpu.pprof"


def test_the_fleets_profile_is_read_into_parts_each_within_its_whole():
    profile = rules_pprof.read(FLEET)
    parts = profile.parts
    assert profile.span == 240  # 8 rounds of 30 s
    assert set(parts) == {label for label, _, _ in rules_pprof.PARTS}
    assert all(v > 0 for v in parts.values()), parts
    # Each part is within the part it is indented under, and the top-level ones within the profile.
    whole: list[float] = []
    for label, depth, _ in rules_pprof.PARTS:
        whole[depth:] = [parts[label]]
        assert depth == 0 or parts[label] <= whole[depth - 1], (label, parts)
    assert sum(parts[label] for label, depth, _ in rules_pprof.PARTS if not depth) <= profile.total
    # What the benchmark reported for these rounds: the annotation templates are the alerts' main cost.
    assert parts["their templates (labels, annotations)"] > parts["alerting rules"] / 2, parts


def test_pprofs_text_is_read_with_its_units_and_a_text_without_a_total_is_refused_in_one_line():
    top = (
        "File: prometheus\n"
        "Duration: 2hrs, Total samples = 1.02hrs (51.00%)\n"
        "Showing nodes accounting for 3600s, 98.04% of 3672s total\n"
        "Dropped 266 nodes (cum <= 18.36s)\n"
        "      flat  flat%   sum%        cum   cum%\n"
        "         0     0%     0%      30.5s  0.83%  github.com/prometheus/prometheus/rules.(*Group).Eval\n"
        "     120ms  0.20%  0.20%     1500ms  0.04%  text/template.(*Template).Parse (inline)\n"
        "     120us  0.20%  0.20%      900us  0.01%  runtime.bgsweep (partial-inline)\n"
        "        0      0%  0.20%       2.5s  0.01%  runtime.gcBgMarkWorker\n"
    )
    profile = rules_pprof.parts(top)
    assert (profile.span, profile.total) == (7200, pytest.approx(3672))
    assert profile.parts["all rule groups"] == 30.5
    assert profile.parts["parsing the templates"] == 1.5
    assert profile.parts["garbage collection (background)"] == pytest.approx(2.5009)  # marking and sweeping
    assert profile.parts["the templates' queries"] == 0.0  # never ran: not in the profile
    with pytest.raises(rules_pprof.ProfileError) as e:
        rules_pprof.parts(top.replace("Duration: 2hrs, ", ""))
    assert "\n" not in str(e.value)
    with pytest.raises(rules_pprof.ProfileError):
        rules_pprof.seconds("12 parsecs")


def test_a_profile_is_taken_from_a_real_server_while_it_evaluates_the_shipped_rules(tmp_path):
    assert shutil.which("prometheus"), "prometheus is installed by scripts/bootstrap.sh"
    rule_files = [REPO / "rules" / "recording.yml", REPO / "rules" / "alerts.yml"]
    work = tmp_path / "server"  # removed with the server
    work.mkdir()
    config = bench_rules.prometheus_config(work, rule_files, "1s")
    port = free_port()
    proc = bench_rules.launched(config, work / "tsdb", port, work)
    try:
        bench_rules.until_answering(proc, work, port, "up", 60, data=False)
        saved = rules_pprof.Capture(port, 2).save(tmp_path / "cpu.pprof")
    finally:
        bench_rules.stopped(proc, work)
    assert gzip.decompress(saved.read_bytes())  # a pprof protobuf, gzipped as Go writes it
    # The span Go measured: the 2 s asked, and a little more on a loaded machine (2.01 in the test command)
    assert rules_pprof.read(saved).span == pytest.approx(2, abs=0.5)


def test_a_server_that_is_gone_is_said_in_one_line(tmp_path):
    capture = rules_pprof.Capture(free_port(), 1)
    with pytest.raises(rules_pprof.ProfileError) as e:
        capture.save(tmp_path / "cpu.pprof")
    assert str(e.value).startswith("the CPU profile was not taken: ")
    assert "\n" not in str(e.value)
    assert not (tmp_path / "cpu.pprof").exists()


def test_a_profile_pprof_cannot_read_is_said_in_one_line(tmp_path):
    bad = tmp_path / "cpu.pprof"
    bad.write_bytes(b"not a profile")
    with pytest.raises(rules_pprof.ProfileError) as e:
        rules_pprof.read(bad)
    assert str(e.value).startswith("go tool pprof: ")
    assert "\n" not in str(e.value)
