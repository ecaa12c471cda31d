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
    "runway": "ceph-scale-runway",
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
    # Grafana's Prometheus annotation fields that the SDK's AnnotationQuery does not model
    # (dashboards/annotations.py PrometheusAnnotation): the only ones allowed outside the schema.
    unmodelled = {"titleFormat", "textFormat", "tagKeys", "useValueForTime"}
    for a in raw.get("annotations", {}).get("list", []):
        if "titleFormat" in a:
            assert set(a) & unmodelled == unmodelled, a
            for key in unmodelled:
                del a[key]
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
    config_lines: dict[str, set[str]] = {}
    for stem, b in load_boards().items():
        for p in panels(b):
            d = p["fieldConfig"]["defaults"]
            for t in p.get("targets", []):
                baselines.update(re.findall(r"baseline_\(put\|get\)_(ops|bytes)_per_hdd", t["expr"]))
                for option in re.findall(r'ceph_scale_config\{[^}]*option=~?"([^"]+)"', t["expr"]):
                    config_lines.setdefault(option, set()).add(stem)
            mode = d.get("custom", {}).get("thresholdsStyle", {}).get("mode", "off")
            if p["type"] == "timeseries" and mode == "off":
                continue
            for s in d.get("thresholds", {}).get("steps", [])[1:]:
                drawn.setdefault(s["value"], set()).add(stem)
    assert {"overview", "capacity"} <= drawn[0.8] and {"overview", "capacity"} <= drawn[0.7] <= drawn[0.9]
    assert "bluefs" in config_lines["bluefs_db_share_min_ratio"]  # the 4 % line, moved by the setting
    assert "capacity" in config_lines["fill_target_ratio"]  # headroom of the fullest OSDs to 80 %
    assert {"overview", "load"} <= drawn[1.0]
    assert baselines == {"ops", "bytes"}


def _timeseries():
    for stem, b in load_boards().items():
        for p in panels(b):
            if p["type"] == "timeseries":
                yield stem, p


def _matches(p: dict, name: str) -> dict:
    """The override properties that apply to a series called `name`."""
    props = {}
    for o in p["fieldConfig"].get("overrides", []):
        if o["matcher"]["id"] == "byRegexp" and re.fullmatch(o["matcher"]["options"], name):
            props.update({pp["id"]: pp["value"] for pp in o["properties"]})
    return props


def test_threshold_lines_are_on_screen():
    """Grafana does not widen an axis for a threshold line: a panel that draws lines has a max or
    a soft max reaching the highest one, so they show on a healthy cluster too."""
    checked = 0
    for stem, p in _timeseries():
        d = p["fieldConfig"]["defaults"]
        custom = d.get("custom", {})
        if custom.get("thresholdsStyle", {}).get("mode", "off") == "off":
            continue
        highest = max(s["value"] for s in d["thresholds"]["steps"][1:])
        top = d.get("max", custom.get("axisSoftMax"))
        assert top is not None and top >= highest, f"{stem}: {p['title']}: lines up to {highest}, axis to {top}"
        checked += 1
    assert checked >= 6


def test_fill_lines_follow_the_settings_rather_than_static_steps():
    """The fill panels draw the lines in force (fill_*_ratio from ceph_scale_config), which move
    with fill_target_ratio; static 70/80/90 % steps would not."""
    fill_panels = [
        (stem, p)
        for stem, p in _timeseries()
        if any(
            "ceph_scale_cluster_used_ratio" in t["expr"] or "ceph_scale_pool_used_ratio" in t["expr"]
            for t in p["targets"]
        )
    ]
    assert {stem for stem, _ in fill_panels} >= {"capacity", "overview"}
    for stem, p in fill_panels:
        assert any('option=~"fill_(warn|target|critical)_ratio"' in t["expr"] for t in p["targets"]), (stem, p["title"])
        assert p["fieldConfig"]["defaults"].get("custom", {}).get("thresholdsStyle", {}).get("mode", "off") == "off"


def test_reference_lines_are_dashed_and_distinct():
    """Threshold lines are dashed, never solid (a solid line in a step colour reads as a series);
    every reference series (a configured value, a boundary, a mean) is dashed in a fixed colour,
    and configured limits are red."""
    for stem, p in _timeseries():
        mode = p["fieldConfig"]["defaults"].get("custom", {}).get("thresholdsStyle", {}).get("mode", "off")
        assert mode in ("off", "dashed"), (stem, p["title"], mode)
        for o in p["fieldConfig"].get("overrides", []):
            props = {pp["id"]: pp["value"] for pp in o["properties"]}
            if "custom.lineStyle" in props:
                assert props["custom.lineStyle"]["fill"] == "dash", (stem, p["title"])
                assert props["color"]["mode"] == "fixed", (stem, p["title"])
        for t in p["targets"]:
            if "ceph_scale_config" in t["expr"]:
                name = t["legendFormat"].replace("{{cluster}}", "c").replace("{{option}}", "some_option")
                props = _matches(p, name)
                assert props.get("custom.lineStyle", {}).get("fill") == "dash", (stem, p["title"], name)
                assert props["color"] == {"mode": "fixed", "fixedColor": "red"}, (stem, p["title"], name)


def test_table_renames_name_the_columns_grafana_makes():
    """A table-format query's value column is "Value" when the panel has one query and
    "Value #<refId>" with several; a rename of any other name is dead."""
    tables = [(stem, p) for stem, b in load_boards().items() for p in panels(b) if p["type"] == "table"]
    assert len(tables) >= 3
    for stem, p in tables:
        refs = [t["refId"] for t in p["targets"]]
        expected = {"Value"} if len(refs) == 1 else {f"Value #{r}" for r in refs}
        organize = next(t["options"] for t in p["transformations"] if t["id"] == "organize")
        assert set(organize["renameByName"]) == expected, (stem, p["title"])
        assert expected <= set(organize["includeByName"]), (stem, p["title"])


def test_capacity_shows_headroom_to_80_for_the_fullest_osds():
    b = load_boards()["capacity"]
    (p,) = [p for p in panels(b) if p["title"] == "Fullest OSDs: headroom to the fill target"]
    (t,) = p["targets"]
    assert 'option="fill_target_ratio"' in t["expr"] and "ceph_scale_osd_used_ratio" in t["expr"]
    assert "{{cluster}}" in t["legendFormat"] and "{{ceph_daemon}}" in t["legendFormat"]
    assert p["fieldConfig"]["defaults"]["unit"] == "percentunit"
    titles = [p["title"] for p in panels(b)]
    assert "Time to the fill target" in titles and any("time to the target" in c for c in _table_columns(b))
    # Titles follow fill_target_ratio: none names the default 80 %.
    assert not [t for t in titles if "80 %" in t]


def test_no_title_names_the_default_fill_lines_and_static_fill_colours_say_so():
    """fill_*_ratio moves the lines, so no title says 70 / 80 / 90 %; a gauge or bar gauge can only
    colour at static steps, and its description says they are the defaults, not the lines in force."""
    static = 0
    for stem, b in load_boards().items():
        for p in panels(b):
            assert not re.search(r"\b(70|80|90) ?%", p["title"]), (stem, p["title"])
            steps = [s["value"] for s in p["fieldConfig"]["defaults"].get("thresholds", {}).get("steps", [])[1:]]
            if p["type"] in ("gauge", "bargauge") and steps == [0.7, 0.8, 0.9]:
                assert "static" in p["description"] and "fill_*_ratio" in p["description"], (stem, p["title"])
                static += 1
    assert static == 4  # the raw fill gauges and the fullest-OSD bars of the overview and capacity boards


def _table_columns(board: dict) -> list[str]:
    out = []
    for p in panels(board):
        for t in p.get("transformations", []):
            if t["id"] == "organize":
                out.extend(t["options"]["renameByName"].values())
    return out


def test_histogram_says_it_sums_the_selected_clusters():
    b = load_boards()["rgw-resharding"]
    (p,) = [p for p in panels(b) if "sum by (le)" in p["targets"][0]["expr"]]
    assert "clusters" in p["title"] and "summed over the selected clusters" in p["description"]


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
        (ann,) = [a for a in b["annotations"]["list"] if a["name"] == "Reshards"]
        by_id = {p["id"]: p for p in panels(b)}
        (target,) = ann["filter"]["ids"]
        assert "ceph_scale_rgw_s3_ops_total" in by_id[target]["targets"][0]["expr"]
        assert "ceph_scale_rgw_reshard_events_total" in ann["expr"]


S3_SERIES = ("ceph_scale_rgw_s3_ops_total", "ceph_scale_s3_plunge", "ceph_scale_rgw_s3_latency")


def test_plunges_are_marked_on_every_s3_ops_graph_with_their_cause():
    marked = {}
    for stem, b in load_boards().items():
        for ann in b.get("annotations", {}).get("list", []):
            if ann["name"] == "Plunges":
                by_id = {p["id"]: p for p in panels(b)}
                marked[stem] = [by_id[i]["title"] for i in ann["filter"]["ids"]]
                assert "ceph_scale_s3_plunge_info" in ann["expr"] and "{{cause}}" in ann["titleFormat"]
                assert "{{evidence}}" in ann["textFormat"] and ann["tagKeys"] == "cause"
                for i in ann["filter"]["ids"]:
                    exprs = " ".join(t["expr"] for t in by_id[i]["targets"])
                    assert any(name in exprs for name in S3_SERIES), by_id[i]["title"]
    assert set(marked) == {"overview", "rgw-resharding", "scrub", "load"}


def _marks(stem: str) -> dict[str, set[str]]:
    """{annotation name: titles of the panels it is drawn on} of a board."""
    b = load_boards()[stem]
    by_id = {p["id"]: p["title"] for p in panels(b)}
    return {a["name"]: {by_id[i] for i in a["filter"]["ids"]} for a in b["annotations"]["list"] if a.get("expr")}


def test_the_latency_panels_carry_the_same_marks_as_the_ops_panels():
    """A plunge, a client drop, a reshard or an OSD down is read on the latency panels as on the
    ops panels: every mark of the load board is drawn on all of its S3 ops, latency and plunge
    panels."""
    marks = _marks("load")
    assert set(marks) == {"Reshards", "Plunges", "Client drops", "OSDs down"}
    for name, titles in marks.items():
        assert {"S3 op latency", "S3 op latency per RGW instance", "S3 ops/s per RGW instance"} <= titles, name
        assert {"S3 ops/s per HDD OSD vs 60 PUT / 90 GET", "Plunges counted, by likely cause"} <= titles, name


def test_client_drops_and_osds_down_are_marked_from_the_exporters_series():
    for stem in ("overview", "rgw-resharding", "scrub", "load"):
        assert {"Client drops", "OSDs down"} <= set(_marks(stem)), stem
    anns = {a["name"]: a for a in load_boards()["load"]["annotations"]["list"]}
    assert "ceph_scale_s3_demand_drop_active" in anns["Client drops"]["expr"]
    assert 'state="down_in"' in anns["OSDs down"]["expr"] and "ceph_scale_osds" in anns["OSDs down"]["expr"]
    colours = [a["iconColor"] for a in anns.values()]
    assert len(colours) == len(set(colours)), colours  # each mark its own colour


def test_the_plunge_annotations_name_a_recorded_real_plunge_by_its_cause(tmp_path):
    """The plunge series exist only while a plunge lasts, so the real-cluster panel test cannot
    count on one: each board's annotation query runs here, in Prometheus' engine (promtool), over
    the series recorded from a real plunge run (ceph_scale/core/signals/plunge/rules_tests/recorded.yml), and marks the
    OSD-down plunge as such, while no plunge is marked during the clients' pause."""
    import subprocess

    import yaml

    recorded_file = REPO / "ceph_scale" / "core" / "signals" / "plunge" / "rules_tests" / "recorded.yml"
    recorded = yaml.safe_load(recorded_file.read_text())
    series = recorded["tests"][0]["input_series"]
    annotations = [q for q in QUERIES if q.panel == "annotation: Plunges"]
    assert {q.board for q in annotations} == {"overview", "rgw-resharding", "scrub", "load"}
    tests = []
    for q in annotations:
        expr = f"count by (cause) ({q.resolved()})"
        tests += [
            {"expr": expr, "eval_time": "232s", "exp_samples": [{"labels": '{cause="osds_down"}', "value": 1}]},
            {"expr": expr, "eval_time": "60s", "exp_samples": []},
        ]
    # The clients' pause of that run (55 s to 75 s) is marked as a client drop, and nothing else is.
    drops = [q for q in QUERIES if q.panel == "annotation: Client drops"]
    assert {q.board for q in drops} == {"overview", "rgw-resharding", "scrub", "load"}
    for q in drops:
        expr = f"count by (cluster) ({q.resolved()})"
        tests += [
            {"expr": expr, "eval_time": "60s", "exp_samples": [{"labels": '{cluster="test"}', "value": 1}]},
            {"expr": expr, "eval_time": "232s", "exp_samples": []},
        ]
    doc = {"rule_files": [], "evaluation_interval": "5s",
           "tests": [{"interval": "5s", "input_series": series, "promql_expr_test": tests}]}  # fmt: skip
    path = tmp_path / "annotations.yml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=200))
    r = subprocess.run(["promtool", "test", "rules", path.name], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_query_inventory_covers_panels_annotations_and_variables():
    b = load_boards()["bluefs"]
    names = [q.panel for q in board_queries("bluefs", b)]
    assert "variable: osd" in names and "variable: cluster" in names
    assert len(QUERIES) > 90


def hours(grafana_from: str) -> float:
    m = re.fullmatch(r"now-(\d+)([hd])", grafana_from)
    assert m, grafana_from
    return int(m.group(1)) * (24 if m.group(2) == "d" else 1)


def test_default_ranges_cover_how_long_each_signal_takes_to_play_out():
    boards = {p.stem: json.loads(p.read_text()) for p in BOARD_FILES}
    assert hours(boards["capacity"]["time"]["from"]) >= 7 * 24  # fill moves over days
    assert hours(boards["scrub"]["time"]["from"]) >= 7 * 24  # a deep-scrub interval is a week
    assert all(hours(b["time"]["from"]) >= 3 for b in boards.values())


def test_the_osd_variable_sorts_by_number_and_does_not_default_to_all_osds():
    """With All offered and no saved selection Grafana selects All (about 950 lines at 318 OSDs):
    no All, so it selects the first OSD; several can still be picked."""
    boards = []
    for path in BOARD_FILES:
        for var in json.loads(path.read_text())["templating"]["list"]:
            if var["name"] == "osd":
                boards.append(path.stem)
                assert var["sort"] == 3, path.name  # numerical: osd.2 before osd.10
                assert var["includeAll"] is False and "allValue" not in var, path.name
                assert var["multi"], path.name
                assert "current" not in var or var["current"].get("value") != ["$__all"], path.name
    assert sorted(boards) == ["bluefs", "load"]
    # The queries are checked with a pick of OSDs, as Grafana escapes it, never all of them.
    assert r'ceph_daemon=~"(osd\\.0|osd\\.1)"' in next(q for q in QUERIES if "$osd" in q.expr).resolved()


def test_top_k_panels_are_not_narrowed_by_the_osd_variable():
    """The top-K panels name the OSDs worth picking: filtered by the selected OSD they would show
    only it."""
    checked = 0
    for q in QUERIES:
        if re.search(r"\b(topk|bottomk)\(", q.expr) and "ceph_daemon" in q.expr:
            assert "$osd" not in q.expr, q.name
            checked += 1
    assert checked >= 4


def _undeduplicated(node, deduped: bool = False) -> list[str]:
    """ceph_scale_* selectors (not recording rules) with no aggregation over the producers above
    them: such a query draws a series twice when the sidecar and the mgr module both run."""
    if isinstance(node, promql_parser.VectorSelector):
        name = node.name or ""
        return [name] if name.startswith("ceph_scale_") and ":" not in name and not deduped else []
    if isinstance(node, promql_parser.AggregateExpr):
        mod = node.modifier
        labels = set(mod.labels) if mod is not None else set()
        drops = mod is None or (
            {"job", "instance"} <= labels
            if mod.type == promql_parser.AggModifierType.Without
            else not labels & {"job", "instance"}
        )
        return _undeduplicated(node.expr, deduped or drops)
    children = []
    for attr in ("lhs", "rhs", "expr", "vector_selector"):
        child = getattr(node, attr, None)
        if child is not None and not isinstance(child, (str, int, float)):
            children.append(child)
    children += [a for a in getattr(node, "args", None) or [] if not isinstance(a, (str, int, float))]
    return [name for child in children for name in _undeduplicated(child, deduped)]


@pytest.mark.parametrize("q", QUERIES, ids=lambda q: q.name)
def test_every_query_counts_each_series_once_with_both_producers_running(q):
    assert _undeduplicated(promql_parser.parse(q.resolved())) == [], q.resolved()


def test_time_until_bars_show_zero_as_a_red_value_not_an_empty_grey_track():
    checked = 0
    for board in load_boards().values():
        for p in panels(board):
            if p["type"] == "bargauge" and p["fieldConfig"]["defaults"].get("unit") in ("s", "dtdurations"):
                assert p["options"]["showUnfilled"] is False and p["options"]["valueMode"] == "color", p["title"]
                checked += 1
    assert checked >= 2


def test_the_load_board_shows_s3_latency_per_rgw_counting_each_rgw_once():
    """The latency signal exports per-RGW counters: one RGW slower than the others is told from
    the whole cluster slower, each RGW drawn once with the sidecar and the mgr module both running."""
    b = load_boards()["load"]
    (p,) = [p for p in panels(b) if any("ceph_scale_rgw_s3_latency_seconds_total" in t["expr"] for t in p["targets"])]
    (t,) = p["targets"]
    assert "ceph_scale_rgw_s3_latency_ops_total" in t["expr"] and "{{instance_id}}" in t["legendFormat"]
    assert p["fieldConfig"]["defaults"]["unit"] == "s"
    q = next(q for q in QUERIES if q.board == "load" and q.panel == p["title"])
    assert _undeduplicated(promql_parser.parse(q.resolved())) == []
    assert t["expr"].count("max by (cluster, instance_id, op)") == 2
