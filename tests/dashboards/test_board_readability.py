"""What makes a board readable and its figures honest (issue 27's boards, issue 29's drill-down):
ratio axes bounded so the reference lines show, a colour per plunge cause, thresholds read from
the options, runway figures that say when their fit is short or unsteady and never shout a guess
in red, pool / RGW / bucket-owner variables that narrow the panels whose series carry the label,
and a click from a tenant's row to its buckets."""

from __future__ import annotations

import re
import subprocess

import promql_parser
import yaml

from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.plunge.causes import CAUSES, NO_KNOWN_CAUSE
from ceph_scale.core.signals.runway import plan_panels as plan
from dashboards.queries import all_queries, load_boards, panels

QUERIES = all_queries()


def _panel(stem: str, title: str) -> dict:
    (p,) = [p for p in panels(load_boards()[stem]) if p["title"] == title]
    return p


def test_every_ratio_time_series_has_a_bounded_axis():
    """A share drawn without bounds is scaled by its extremes: an op idle in the baseline, then
    busy, put the plunge panel's axis at -2,000 % .. +4,000 % and its 20 % line flat at 0."""
    checked = 0
    for stem, b in load_boards().items():
        for p in panels(b):
            d = p["fieldConfig"]["defaults"]
            if p["type"] != "timeseries" or d.get("unit") != "percentunit":
                continue
            top = d.get("max", d.get("custom", {}).get("axisSoftMax"))
            assert d.get("min") is not None and top is not None, f"{stem}: {p['title']}: axis {d.get('min')}..{top}"
            checked += 1
    assert checked >= 9


def test_the_plunge_panel_holds_its_lines_inside_its_axis():
    p = _panel("load", "S3 ops below their recent baseline, and the clients' demand")
    d = p["fieldConfig"]["defaults"]
    assert (d["min"], d["max"]) == (0, 2)
    drop, demand, line = p["targets"]
    assert drop["expr"].startswith("clamp(") and drop["expr"].endswith(", 0, 1)")
    assert demand["expr"].startswith("clamp(") and demand["expr"].endswith(", 0, 2)")
    assert 'option="plunge_drop_ratio"' in line["expr"] and Thresholds().plunge_drop_ratio < d["max"]


def test_each_plunge_cause_has_a_colour_of_its_own():
    p = _panel("load", "Plunges counted, by likely cause")
    colours = {}
    for o in p["fieldConfig"]["overrides"]:
        (prop,) = o["properties"]
        assert prop["id"] == "color" and prop["value"]["mode"] == "fixed"
        colours[o["matcher"]["options"]] = prop["value"]["fixedColor"]
    assert len(set(colours.values())) == len(colours), colours
    for cause in (*CAUSES, NO_KNOWN_CAUSE, "clients"):
        matching = [rx for rx in colours if re.fullmatch(rx, f"test {cause}")]
        assert len(matching) == 1, (cause, matching)
    # Each the colour of its mark on the other panels.
    marks = {a["name"]: a["iconColor"] for a in load_boards()["load"]["annotations"]["list"] if a.get("expr")}
    by_cause = {
        c: colours[next(rx for rx in colours if re.fullmatch(rx, f"test {c}"))] for c in ("reshard", "osds_down")
    }
    assert by_cause == {"reshard": marks["Reshards"], "osds_down": marks["OSDs down"]}
    assert colours[next(rx for rx in colours if re.fullmatch(rx, "test clients"))] == marks["Client drops"]


def test_colour_steps_at_an_option_are_read_from_it():
    th = Thresholds()
    bars = _panel("runway", "Runway per limit")["fieldConfig"]["defaults"]["thresholds"]["steps"]
    assert bars[-1] == {"value": th.runway_target_seconds, "color": "green"}
    drop = _panel("load", "Expected drop for the OSDs down")["fieldConfig"]["defaults"]["thresholds"]["steps"]
    assert drop[-1] == {"value": th.plunge_drop_ratio, "color": "red"}


def test_the_runway_stats_never_shout_a_plan_in_red_and_say_when_withheld():
    """A plan figure is what to add, not a fault; one from a short or unsteady fit reads
    'withheld', never a number (the Runway preview showed 503,679 HDD OSDs to add in big red)."""
    plan_stats = 0
    for p in panels(load_boards()["runway"]):
        if p["type"] != "stat":
            continue
        steps = p["fieldConfig"]["defaults"]["thresholds"]["steps"]
        assert "red" not in {s["color"] for s in steps}, p["title"]
        exprs = " ".join(t["expr"] for t in p["targets"])
        if "ceph_scale_plan_" in exprs and "failure_domain" not in exprs:
            plan_stats += 1
            assert 'caveat="withheld"' in exprs, p["title"]
            (mapping,) = p["fieldConfig"]["defaults"]["mappings"]
            assert mapping["options"][str(plan.WITHHELD_VALUE)]["text"].startswith("withheld"), p["title"]
    assert plan_stats == 5


def promtool_finds(tmp_path, series: list[tuple[str, str]], expected: list) -> None:
    """Each panel query of `expected` [(query, [(labels, value)])], run in Prometheus' engine
    (promtool) over `series` [(series, value held for 3 minutes)], gives exactly its samples."""
    doc = {
        "rule_files": [],
        "evaluation_interval": "1m",
        "tests": [{
            "interval": "1m",
            "input_series": [{"series": s, "values": f"{v}x3"} for s, v in series],
            "promql_expr_test": [{"expr": q.resolved(), "eval_time": "1m",
                                  "exp_samples": [{"labels": lb, "value": v} for lb, v in samples]}
                                 for q, samples in expected],
        }],
    }  # fmt: skip
    path = tmp_path / "panel_queries.yml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=10_000))
    r = subprocess.run(["promtool", "test", "rules", path.name], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_the_runway_bars_name_a_short_or_unsteady_fit(tmp_path):
    """Run in Prometheus' engine (promtool): a runway fitted over less than 1/plan_max_extrapolation
    of the target date, or on unsteady growth, is drawn by the query whose legend says so, each
    limit by one query only; a long steady fit is plain; and the named ones are drawn grey."""
    p = _panel("runway", "Runway per limit")
    guesses, plain = [q for q in QUERIES if q.board == "runway" and q.panel == "Runway per limit"]
    series = [
        ('ceph_scale_runway_seconds{cluster="c",limit="short"}', "1000"),
        ('ceph_scale_runway_seconds{cluster="c",limit="steady"}', "2000"),
        ('ceph_scale_runway_seconds{cluster="c",limit="unsteady"}', "3000"),
        ('ceph_scale_runway_fit_span_seconds{cluster="c",limit="short"}', "60"),
        ('ceph_scale_runway_fit_span_seconds{cluster="c",limit="steady"}', "1e8"),
        ('ceph_scale_runway_fit_span_seconds{cluster="c",limit="unsteady"}', "1e8"),
        ('ceph_scale_runway_growth_steady{cluster="c",limit="short"}', "0"),
        ('ceph_scale_runway_growth_steady{cluster="c",limit="steady"}', "1"),
        ('ceph_scale_runway_growth_steady{cluster="c",limit="unsteady"}', "0"),
        ('ceph_scale_config{cluster="c",option="plan_max_extrapolation"}', "4"),
        ('ceph_scale_config{cluster="c",option="runway_target_seconds"}', str(Thresholds().runway_target_seconds)),
    ]
    expected = [
        (guesses, [('{cluster="c", limit="short"}', 1000), ('{cluster="c", limit="unsteady"}', 3000)]),
        (plain, [('{cluster="c", limit="steady"}', 2000)]),
    ]
    promtool_finds(tmp_path, series, expected)
    legends = [t["legendFormat"].replace("{{cluster}}", "c").replace("{{limit}}", "x") for t in p["targets"]]
    assert legends == ["c x (short or unsteady fit, a guess)", "c x"]
    (grey,) = [o for o in p["fieldConfig"]["overrides"] if o["properties"][0]["value"].get("fixedColor") == "text"]
    assert [bool(re.fullmatch(grey["matcher"]["options"], name)) for name in legends] == [True, False]


def _selectors(expr: str) -> list[promql_parser.VectorSelector]:
    out: list[promql_parser.VectorSelector] = []
    promql_parser.walk(
        promql_parser.parse(expr), lambda n: out.append(n) if isinstance(n, promql_parser.VectorSelector) else None
    )
    return out


def _variables(stem: str) -> dict[str, dict]:
    return {v["name"]: v for v in load_boards()[stem]["templating"]["list"]}


# The families whose series carry the label a variable picks, per variable, and the boards with it.
NARROWED = {
    "pool": (("capacity", "runway"), re.compile(r"ceph_scale_(pool_|plan_pool_pgs)"), 'name=~"$pool"'),
    "rgw": (("load",), re.compile(r"ceph_scale_rgw_s3_(ops|latency_seconds|latency_ops)_total"), 'instance_id=~"$rgw"'),
    "tenant": (("rgw-resharding",), re.compile(r"ceph_scale_rgw_bucket_(usage|past_objects_advised_objects)"),
               'tenant=~"$tenant"'),
    "user": (("rgw-resharding",), re.compile(r"ceph_scale_rgw_bucket_(usage|past_objects_advised_objects)"),
             'user=~"$user"'),
}  # fmt: skip


def test_the_pool_rgw_and_owner_variables_narrow_the_panels_whose_series_carry_the_label():
    """Each variable is on the boards with such panels, opens on All (".*", which also matches an
    empty tenant), and every per-pool, per-RGW or per-bucket selector there takes it; a cluster
    sum (S3 ops of every RGW) is not narrowed."""
    for name, (stems, families, matcher) in NARROWED.items():
        for stem in stems:
            var = _variables(stem)[name]
            assert var["includeAll"] and var["multi"] and var["allValue"] == ".*", (stem, name)
            assert "$cluster" in var["query"], (stem, name)
            narrowed = 0
            for q in QUERIES:
                if q.board != stem or q.panel.startswith("variable: "):
                    continue
                grouped = "{{instance_id}}" in q.legend if name == "rgw" else True  # drawn per RGW
                for s in _selectors(q.expr.replace("$__rate_interval", "1m")):
                    if families.match(s.name or "") and grouped:
                        assert matcher in q.expr, (stem, q.name)
                        narrowed += 1
            assert narrowed, (stem, name)
    s3_sums = [q for q in QUERIES if q.board == "load" and q.panel == "S3 ops/s per HDD OSD vs 60 PUT / 90 GET"]
    assert s3_sums and all("$rgw" not in q.expr for q in s3_sums)


def test_a_tenants_row_links_to_its_top_buckets():
    """A click on a tenant's tenant or user cell opens this board again (same time range, data
    source and clusters) with the Tenant and Owner variables set to that row's, which the bucket
    tables take."""
    board = load_boards()["rgw-resharding"]
    p = _panel("rgw-resharding", "Tenants: usage, growth and quota runway")
    links = {}
    for o in p["fieldConfig"]["overrides"]:
        for prop in o["properties"]:
            if prop["id"] == "links":
                (link,) = prop["value"]
                links[o["matcher"]["options"]] = link
    assert set(links) == {"tenant", "user"}
    for link in links.values():
        url = link["url"]
        assert url.startswith("/d/${__dashboard.uid}/") and "${__url_time_range}" in url
        assert "${cluster:queryparam}" in url and "${datasource:queryparam}" in url
        assert "var-tenant=${__data.fields.tenant:percentencode}" in url
        assert "var-user=${__data.fields.user:percentencode}" in url
    assert {"tenant", "user"} <= set(_variables("rgw-resharding"))
    assert board["uid"] == "ceph-scale-rgw-resharding"
    tables = [q for q in QUERIES if q.board == "rgw-resharding" and "ceph_scale_rgw_bucket_usage" in q.expr]
    assert len(tables) == 3 and all("$tenant" in q.expr and "$user" in q.expr for q in tables)
    # The tenants table itself is not narrowed: it is where an owner is picked.
    assert not [q for q in QUERIES if q.panel == p["title"] and "$user" in q.expr]


def _plan_query(panel: str, needle: str):
    (q,) = [q for q in QUERIES if q.board == "runway" and q.panel == panel and needle in q.expr]
    return q


def test_a_plan_figure_from_a_withheld_fit_says_so_where_it_is_shown(tmp_path):
    """Run in Prometheus' engine (promtool): cluster w's plan is withheld (HDDs by ops, RGWs,
    pools, buckets), cluster s's is not. Each graph and table that still shows a withheld figure
    labels it (fit=...), the rest are plain; the HDD plan by fill is plain beside the withheld plan
    by ops; and the labelled lines are drawn grey. (The Runway preview showed 1,180-1,822 HDDs and
    131,072 PGs planned on a 3-OSD cluster from minutes of history, with nothing beside them.)"""
    series = []
    for c in ("w", "s"):
        series += [
            (f'ceph_scale_plan_hdd_osds{{cluster="{c}",by="fill"}}', "10"),
            (f'ceph_scale_plan_hdd_osds{{cluster="{c}",by="ops"}}', "20"),
            (f'ceph_scale_plan_rgw_instances{{cluster="{c}"}}', "5"),
            (f'ceph_scale_plan_pool_pgs{{cluster="{c}",pool_id="7",name="data"}}', "4096"),
            (f'ceph_scale_plan_bucket_shards{{cluster="{c}",bucket="b",tenant=""}}', "101"),
        ]
    for figure in ("hdd_by_ops", "rgw_instances", "pool_pgs", "bucket_shards"):
        series.append((f'ceph_scale_plan_caveat{{cluster="w",figure="{figure}",caveat="withheld"}}', "1"))
    series.append(('ceph_scale_plan_caveat{cluster="s",figure="pool_pgs",caveat="bounded"}', "1"))
    guess, today = f'fit="{plan.FIT_WITHHELD}"', f'fit="{plan.TODAYS_OBJECTS}"'
    checks = [
        (
            _plan_query("HDD OSDs: up and in, and the plan by fill and by ops", "plan_hdd_osds"),
            [('{by="fill", cluster="w"}', 10), (f'{{by="ops", cluster="w", {guess}}}', 20),
             ('{by="fill", cluster="s"}', 10), ('{by="ops", cluster="s"}', 20)],
        ),
        (
            _plan_query("RGW instances: running and planned", "plan_rgw_instances"),
            [(f'{{cluster="w", {guess}}}', 5), ('{cluster="s"}', 5)],
        ),
        (
            _plan_query("Pools that need more PGs", "plan_pool_pgs"),
            [(f'{{cluster="w", {guess}, name="data", pool_id="7"}}', 4096),
             ('{cluster="s", name="data", pool_id="7"}', 4096)],
        ),
        (
            _plan_query("Buckets to pre-shard, soonest first", "plan_bucket_shards"),
            [(f'{{bucket="b", cluster="w", {today}}}', 101), ('{bucket="b", cluster="s"}', 101)],
        ),
    ]  # fmt: skip
    promtool_finds(tmp_path, series, checks)
    for title in ("HDD OSDs: up and in, and the plan by fill and by ops", "RGW instances: running and planned"):
        p = _panel("runway", title)
        (legend,) = [t["legendFormat"] for t in p["targets"] if "plan_" in t["expr"]]
        assert legend.endswith("{{fit}}"), legend
        (grey,) = [o for o in p["fieldConfig"]["overrides"] if o["properties"][0]["value"].get("fixedColor") == "text"]
        assert re.fullmatch(grey["matcher"]["options"], f"w plan {plan.FIT_WITHHELD}")
        assert not re.fullmatch(grey["matcher"]["options"], "s plan ")
    for title in ("Pools that need more PGs", "Buckets to pre-shard, soonest first"):
        organize = next(t for t in _panel("runway", title)["transformations"] if t["id"] == "organize")
        assert organize["options"]["includeByName"].get("fit"), title
