"""The generated dashboards: up to date, valid for the Grafana Foundation SDK's model, stable
uids, every query parses and uses catalogued names, and the conventions every panel keeps
(units, $__rate_interval, study thresholds, runbook links, the cluster variable)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import promql_parser
import pytest
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.cog.plugins import register_default_plugins
from grafana_foundation_sdk.cog.runtime import UnknownDataquery
from grafana_foundation_sdk.models import dashboard as dm
from grafana_foundation_sdk.models import prometheus as pm

from dashboards import build
from dashboards.boards import BOARDS
from dashboards.queries import JSON_DIR, all_queries, board_queries, load_boards, panels

REPO = Path(__file__).resolve().parents[2]
EXPECTED_UIDS = {
    "overview": "ceph-scale-overview",
    "bluefs": "ceph-scale-bluefs",
    "capacity": "ceph-scale-capacity",
    "rgw-resharding": "ceph-scale-rgw-resharding",
    "scrub": "ceph-scale-scrub",
    "load": "ceph-scale-load",
}
BOARD_FILES = sorted(JSON_DIR.glob("*.json"))
QUERIES = all_queries()


def test_committed_json_is_what_the_code_generates():
    generated = build.render_all()
    committed = {f.name: f.read_text() for f in BOARD_FILES}
    assert set(committed) == set(generated), "python -m dashboards.build adds or removes boards"
    stale = [n for n in generated if committed[n] != generated[n]]
    assert not stale, f"out of date, run `python -m dashboards.build`: {stale}"


def test_generation_is_deterministic():
    assert build.render_all() == build.render_all()


def test_build_check_mode(tmp_path):
    assert build.main(["--out", str(tmp_path)]) == 0
    assert build.main(["--out", str(tmp_path), "--check"]) == 0
    (tmp_path / "scrub.json").write_text("{}")
    assert build.main(["--out", str(tmp_path), "--check"]) == 1


@pytest.mark.parametrize("path", BOARD_FILES, ids=lambda p: p.stem)
def test_loads_back_through_the_sdk_dashboard_model(path):
    """Dashboard.from_json decodes every panel into its typed plugin models and every target into
    the Prometheus dataquery model; encoding that again gives the very same JSON (nothing unknown
    to the schema was dropped or added)."""
    register_default_plugins()
    raw = json.loads(path.read_text())
    board = dm.Dashboard.from_json(raw)
    assert json.loads(JSONEncoder(sort_keys=True).encode(board)) == raw
    assert board.schema_version >= 36 and board.uid and board.title
    typed = {
        "timeseries": "timeseries", "stat": "stat", "gauge": "gauge", "bargauge": "bargauge", "table": "table",
    }  # fmt: skip
    for p in board.panels or []:
        if isinstance(p, dm.RowPanel):
            continue
        assert p.type_val in typed, p.type_val
        assert type(p.options).__module__.endswith("models." + typed[p.type_val]), (p.title, type(p.options))
        assert p.targets, p.title
        for t in p.targets:
            assert not isinstance(t, UnknownDataquery) and isinstance(t, pm.Dataquery), (p.title, t)
            assert t.expr and t.ref_id
    assert [v.name for v in board.templating.list_val][:2] == ["datasource", "cluster"]


def test_uids_are_stable_and_unique():
    boards = load_boards()
    assert {stem: b["uid"] for stem, b in boards.items()} == EXPECTED_UIDS
    assert set(BOARDS) == set(EXPECTED_UIDS)
    for b in boards.values():
        assert re.fullmatch(r"[a-z0-9-]{8,40}", b["uid"]), b["uid"]
    assert len({b["title"] for b in boards.values()}) == len(boards)


def test_panel_ids_unique_and_grid_in_bounds_without_overlap():
    for stem, b in load_boards().items():
        ids = [p["id"] for p in b["panels"]]
        assert len(ids) == len(set(ids)), stem
        cells = set()
        for p in b["panels"]:
            g = p["gridPos"]
            assert 0 <= g["x"] and g["x"] + g["w"] <= 24 and g["h"] > 0, (stem, p["title"], g)
            for x in range(g["x"], g["x"] + g["w"]):
                for y in range(g["y"], g["y"] + g["h"]):
                    assert (x, y) not in cells, f"{stem}: {p['title']} overlaps another panel"
                    cells.add((x, y))


@pytest.mark.parametrize("q", QUERIES, ids=lambda q: q.name)
def test_every_query_parses(q):
    promql_parser.parse(q.resolved())


def test_a_broken_query_would_be_caught():
    with pytest.raises(ValueError):
        promql_parser.parse('sum(rate(ceph_scale_rgw_s3_ops_total{cluster=~".*"}[1m])')


def documented_names() -> set[str]:
    names = set(re.findall(r"^\| `(ceph_scale_[a-z0-9_]+)` \|", (REPO / "docs" / "metrics.md").read_text(), re.M))
    hist = {n + s for n in names for s in ("_bucket", "_sum", "_count")}
    return names | hist


def recorded_names() -> set[str]:
    path = REPO / "rules" / "recording.yml"
    if not path.exists():
        return set()
    import yaml

    return {r["record"] for g in yaml.safe_load(path.read_text())["groups"] for r in g["rules"] if "record" in r}


def selectors(expr: str) -> list:
    out = []

    def visit(node):
        if isinstance(node, promql_parser.VectorSelector):
            out.append(node)

    promql_parser.walk(promql_parser.parse(expr), visit)
    return out


def test_queries_use_only_catalogued_metrics_and_recording_rules():
    known = documented_names() | recorded_names() | {"ALERTS"}
    unknown = {(q.name, s.name) for q in QUERIES for s in selectors(q.resolved()) if s.name not in known}
    assert not unknown, unknown


def test_every_selector_filters_on_the_cluster_variable():
    for q in QUERIES:
        if q.panel == "variable: cluster":
            continue  # the one query that lists the clusters
        for s in selectors(q.expr.replace("$__rate_interval", "1m").replace("$osd", ".*").replace("$cluster", "X")):
            assert 'cluster=~"X"' in str(s), (q.name, str(s))


def test_every_rate_and_increase_uses_rate_interval():
    for q in QUERIES:
        for fn, window in re.findall(r"\b(rate|increase|irate|delta|deriv)\(.*?\[([^\]]+)\]", q.expr):
            assert window == "$__rate_interval", (q.name, fn, window)


def test_every_panel_has_a_unit_a_description_and_a_runbook_link():
    anchors = runbook_anchors()
    for stem, b in load_boards().items():
        for p in panels(b):
            d = p["fieldConfig"]["defaults"]
            assert d.get("unit"), f"{stem}: {p['title']} has no unit"
            assert p.get("description"), f"{stem}: {p['title']} has no description"
            links = [lk["url"] for lk in p.get("links", [])]
            assert len(links) == 1 and links[0].startswith("${runbook_base}#"), (stem, p["title"], links)
            if anchors is not None:
                assert links[0].split("#", 1)[1] in anchors, f"{stem}: {p['title']}: no section {links[0]}"
            for o in p["fieldConfig"].get("overrides", []):
                props = {pp["id"]: pp["value"] for pp in o["properties"]}
                if "custom.axisPlacement" in props:
                    assert props.get("unit"), f"{stem}: {p['title']}: a second axis without a unit"


def runbook_anchors() -> set[str] | None:
    path = REPO / "rules" / "runbooks.md"
    if not path.exists():
        return None
    text = path.read_text()
    anchors = set(re.findall(r'<a (?:id|name)="([^"]+)"', text))
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        anchors.add(slug)
    return anchors


def test_study_thresholds_are_drawn():
    """The study's reference values appear as drawn thresholds (or configured baseline series)."""
    drawn: dict[float, set[str]] = {}
    baselines = set()
    for stem, b in load_boards().items():
        for p in panels(b):
            d = p["fieldConfig"]["defaults"]
            for t in p.get("targets", []):
                baselines.update(re.findall(r"baseline_\(put\|get\)_(ops|bytes)_per_hdd", t["expr"]))
            mode = d.get("custom", {}).get("thresholdsStyle", {}).get("mode", "off")
            if p["type"] == "timeseries" and mode == "off":
                continue
            for s in d.get("thresholds", {}).get("steps", [])[1:]:
                drawn.setdefault(s["value"], set()).add(stem)
    assert {"overview", "capacity"} <= drawn[0.8] and {"overview", "capacity"} <= drawn[0.7] <= drawn[0.9]
    assert "bluefs" in drawn[0.04]
    assert {"overview", "load"} <= drawn[1.0]
    assert baselines == {"ops", "bytes"}


def test_variables_and_links():
    for stem, b in load_boards().items():
        v = {x["name"]: x for x in b["templating"]["list"]}
        assert v["datasource"]["type"] == "datasource" and v["datasource"]["query"] == "prometheus"
        c = v["cluster"]
        assert c["query"] == "label_values(ceph_scale_build_info, cluster)" and c["multi"] and c["includeAll"]
        assert c["datasource"] == {"type": "prometheus", "uid": "${datasource}"}
        for p in panels(b):
            assert p["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, (stem, p["title"])
        kinds = {lk["type"]: lk for lk in b["links"]}
        assert kinds["dashboards"]["tags"] == ["ceph-scale"] and "ceph-scale" in b["tags"]
        assert kinds["dashboards"]["includeVars"] and kinds["dashboards"]["keepTime"]


def test_reshard_annotation_on_the_s3_ops_graph():
    for stem in ("overview", "rgw-resharding"):
        b = load_boards()[stem]
        (ann,) = b["annotations"]["list"]
        by_id = {p["id"]: p for p in panels(b)}
        (target,) = ann["filter"]["ids"]
        assert "ceph_scale_rgw_s3_ops_total" in by_id[target]["targets"][0]["expr"]
        assert "ceph_scale_rgw_reshard_events_total" in ann["expr"]


def test_query_inventory_covers_panels_annotations_and_variables():
    b = load_boards()["bluefs"]
    names = [q.panel for q in board_queries("bluefs", b)]
    assert "variable: osd" in names and "variable: cluster" in names
    assert len(QUERIES) > 90
