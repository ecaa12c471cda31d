"""The docs users read must say what the code does."""

from __future__ import annotations

import re
from pathlib import Path

from ceph_scale.core.config import SETTINGS
from ceph_scale.io.served import ServedExposition

REPO = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `(ceph_scale_[a-z0-9_]+)` \| (gauge|counter|histogram) \|([a-z_, ]*)\|")


def documented_families() -> dict[str, tuple[str, tuple[str, ...]]]:
    out = {}
    for line in (REPO / "docs" / "metrics.md").read_text().splitlines():
        m = ROW.match(line)
        if m:
            labels = tuple(x.strip() for x in m.group(3).split(",") if x.strip())
            out[m.group(1)] = (m.group(2), labels)
    return out


def exposed_name(family) -> str:
    return family.name + "_total" if family.kind == "counter" else family.name


def check_documented(families) -> list[str]:
    """Problems with families that are emitted but not documented as emitted."""
    docs = documented_families()
    problems = []
    for f in families:
        name = exposed_name(f)
        if name not in docs:
            problems.append(f"{name} is emitted but not in docs/metrics.md")
            continue
        kind, labels = docs[name]
        if kind != f.kind:
            problems.append(f"{name}: docs say {kind}, code emits {f.kind}")
        emitted = tuple(n for n in f.label_names if n != "cluster")
        if set(emitted) != set(labels):
            problems.append(f"{name}: docs say labels {labels}, code emits {emitted}")
    return problems


def test_metric_catalog_parses():
    docs = documented_families()
    assert len(docs) > 60
    assert docs["ceph_scale_rgw_reshard_events_total"] == ("counter", ())


def test_configuration_doc_lists_every_setting_with_its_default():
    text = (REPO / "docs" / "configuration.md").read_text()
    for s in SETTINGS:
        default = s.default if isinstance(s.default, str) else f"{s.default:g}"
        assert f"| `{s.name}` | {default} |" in text, s.name


def test_configuration_doc_says_where_every_ceph_option_is_read():
    from ceph_scale.core import inputs

    text = (REPO / "docs" / "configuration.md").read_text().split("## Where each Ceph option is read")[1]
    for option in (*inputs.SETTING_OPTIONS, *inputs.RGW_RUNNING_OPTIONS):
        assert f"| `{option}` |" in text, option


def test_every_family_of_a_study_scale_snapshot_is_documented():
    from tests.unit.study_snapshot import rich_families

    served = ServedExposition()  # the derivation's own record, served beside the derived families
    served.succeeded(b"", 1.0, {"cluster": "study"})
    families = rich_families() + served.record_families()
    assert check_documented(families) == []
    # ...and every documented family has a scenario that emits it.
    assert set(documented_families()) - {exposed_name(f) for f in families} == set()
    # Every family at once, the runway's (3 per limit, the PG plan of 7 pools, 5 pre-shard buckets)
    # and a plunge's (a score per cause) and the bucket poll's included; the benchmark's 1x state,
    # where not every family emits, stays under 3,000. The usage per tenant and bucket has a budget
    # of its own (signals/tenants), held whatever the number of buckets and tenants.
    from ceph_scale.core.config import Thresholds
    from ceph_scale.core.signals.tenants.derive import series_budget, usage_family

    core = [f for f in families if not usage_family(f.name)]
    usage = [f for f in families if usage_family(f.name)]
    # +12 for the per-class hot HDD OSDs (top-K, hottest, count) the hot-spot alert reads instead of
    # recording ~640 per-OSD series per cluster.
    assert sum(len(f.samples) for f in core) <= 3120
    assert 0 < sum(len(f.samples) for f in usage) <= series_budget(Thresholds())


STUDY = REPO / "docs" / "study.md"
SOURCE_ID = re.compile(r"\[(\d{3})\]")


def _study_sources() -> set[str]:
    text = STUDY.read_text()
    return set(re.findall(r"^\| \[(\d{3})\] \|", text.split("## Sources", 1)[1], re.M))


def test_every_source_a_threshold_cites_is_a_source_of_the_study_page():
    cited = {sid for s in SETTINGS for sid in SOURCE_ID.findall(s.doc)}
    assert cited, "no threshold cites a study document"
    missing = cited - _study_sources()
    assert not missing, f"thresholds cite {sorted(missing)}, which docs/study.md does not list"


def _as_study_states_it(setting) -> list[str]:
    """The ways docs/study.md may write a default: a ratio as a percentage, bytes/s as MB/s."""
    value = setting.default
    if isinstance(value, str):
        return [value]
    if setting.name.endswith("_ratio") and isinstance(value, float) and value < 1:
        return [f"{value * 100:g} %"]
    if setting.name.endswith("_bytes"):
        return [f"{value / 1024**2:g} MB"]
    if setting.name.endswith("_bytes_per_hdd"):
        return [f"{value / 1e6:g} MB/s", f"{value / 1e6:g} / "]
    return [f"{value:,g}", f"{value:g}"]


# Settings whose doc cites a study for the effect they watch, while the number is the project's.
CITE_THE_EFFECT_ONLY = {
    "plunge_deep_scrub_above_usual_ratio": "deep-scrub storms cut ops [001]; the multiple is a detector's choice",
    "plunge_slow_osd_factor": "an EC write waits for its slowest chunk [003]; the multiple is a detector's choice",
    "plunge_cause_hold_seconds": "a reshard held the writes 53 minutes [000]; the 4 hours are a detector's choice",
    "plunge_held_min_demand": "the mixed load's share of writes [000]; the least demand judged is a detector's choice",
}


def test_every_default_drawn_from_a_study_is_stated_on_the_study_page():
    text = STUDY.read_text()
    unstated = [
        f"{s.name}={s.default}"
        for s in SETTINGS
        if SOURCE_ID.search(s.doc)
        and s.name not in CITE_THE_EFFECT_ONLY
        and not any(form in text for form in _as_study_states_it(s))
    ]
    assert not unstated, f"docs/study.md does not state these study defaults: {unstated}"


def test_the_readme_sends_readers_to_the_study_page_not_outside_the_repository():
    readme = (REPO / "README.md").read_text()
    assert "docs/study.md" in readme
    assert "shared/STUDY.md" not in readme
