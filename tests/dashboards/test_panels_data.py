"""Every panel query of every board returns data from a real Prometheus that scraped the real
exporter on the real test cluster while the study's conditions happened (spillover on osd.0,
a 64 KB S3 load, a bucket resharded, scrubs blocked until PGs were overdue, then released, deep
scrubs of every PG seen running, a bucket owner whose buckets all have quotas, buckets past a lowered
rgw_bucket_objects_advised, an OSD down for seconds), and the signals of those conditions are not
just zeros."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from ceph_scale.core.signals.runway.panels import GUESS_NOTE
from ceph_scale.core.signals.runway.plan_panels import FIT_WITHHELD, TODAYS_OBJECTS
from dashboards.boards import BOARDS
from dashboards.queries import all_queries, load_boards, panels
from previews.checks import MUST_BE_NONZERO, NONZERO_OVER_RUN, rule_files, rules_not_loaded, undriven

pytestmark = pytest.mark.cluster

# Series that exist only while an event lasts: the plunge and client-drop annotations read them.
# Whether the dashboard run's conditions make a plunge or a client drop depends on the machine's
# load; their queries are checked on a recorded real plunge run instead (tests/dashboards/test_boards.py).
EVENT_ONLY = ("ceph_scale_s3_plunge_info", "ceph_scale_s3_demand_drop_active")


def test_every_panel_query_returns_data(dashboard_run):
    prom, start, end = dashboard_run["prometheus"], dashboard_run["start"], dashboard_run["end"]
    empty, checked = [], 0
    for q in all_queries():
        if any(name in q.expr for name in EVENT_ONLY):
            continue  # a plunge may or may not come of this run: test_boards replays a real one
        expr = q.resolved()
        if q.instant:
            result = prom.query(expr, at=end)
        else:
            result = prom.query_range(expr, start, end, 5)
            result = [r for r in result if r["values"]]
        checked += 1
        if not result:
            empty.append(f"{q.name}: {expr}")
    assert checked > 90
    assert not empty, "panels with no data:\n" + "\n".join(empty)


def test_the_run_loaded_the_rules(dashboard_run):
    """The run's Prometheus lists every group of the recording and alerting rules, each rule's
    last evaluation succeeded, and a recording rule's series has samples: the panels that read
    recorded series read what the rules made."""
    assert {f.name for f in rule_files()} == {"recording.yml", "alerts.yml"}
    bad = rules_not_loaded(dashboard_run["prometheus"], dashboard_run["end"])
    assert not bad, "rules the run's Prometheus did not load or evaluate:\n" + "\n".join(bad)


def test_the_conditions_drove_their_signals_above_zero(dashboard_run):
    """A series of zeros is data to Prometheus but shows nothing: the panels of the conditions the
    scenario makes happen (spilled bytes, PGs overdue, reshards, PGs scrubbing now, S3 ops) must
    have had a non-zero value during the run."""
    keys = {(board, panel) for board, panel, _ref in MUST_BE_NONZERO}
    assert {("bluefs", "Spilled bytes per OSD"), ("scrub", "PGs scrubbing now vs S3 ops/s"),
            ("rgw-resharding", "Reshards completed and queued")} <= keys  # fmt: skip
    assert {"spilled bytes", "PGs overdue", "reshard events", "PGs scrubbing now", "S3 ops rate"} <= set(
        NONZERO_OVER_RUN
    )
    bad = undriven(dashboard_run["prometheus"], dashboard_run["start"], dashboard_run["end"])
    assert not bad, "signals that stayed at zero:\n" + "\n".join(bad)


def test_previews_render_every_panel_from_the_real_run(preview_pngs):
    assert len(preview_pngs) == len(BOARDS)
    for path, missing in preview_pngs.items():
        assert not missing, f"{path}: no data in {missing}"
        assert Path(path).stat().st_size < 300_000, path


def test_runways_from_minutes_of_history_say_they_are_a_guess(dashboard_run):
    """The run's runways are fitted over minutes, far under 1/plan_max_extrapolation of the 180-day
    target: every fitted bar of "Runway per limit" names its fit short; a plain bar is only a limit
    reached now (0, no fit behind it: osd.0's DB spills)."""
    prom, end = dashboard_run["prometheus"], dashboard_run["end"]
    guesses, plain = [q for q in all_queries() if q.board == "runway" and q.panel == "Runway per limit"]
    assert guesses.legend.endswith(f"({GUESS_NOTE})")
    assert prom.query(guesses.resolved(), at=end), guesses.name
    assert {float(r["value"][1]) for r in prom.query(plain.resolved(), at=end)} <= {0.0}


def test_plans_from_minutes_of_history_say_so_beside_each_figure_shown(dashboard_run):
    """The run's plan grows from minutes of history: each HDD and RGW plan line, pool and bucket
    row is labelled exactly when the plan withholds its figure (ceph_scale_plan_caveat), and some
    are (the committed preview showed 1,180-1,822 HDDs and 131,072 PGs with nothing beside them).
    A figure on growth that is not positive is today's need and stands, unlabelled."""
    prom, end = dashboard_run["prometheus"], dashboard_run["end"]
    caveats = prom.query('ceph_scale_plan_caveat{caveat="withheld"}', at=end)
    withheld = {r["metric"]["figure"] for r in caveats}
    figure_of = {
        "HDD OSDs: up and in, and the plan by fill and by ops": lambda lb: f"hdd_by_{lb['by']}",
        "RGW instances: running and planned": lambda lb: "rgw_instances",
        "Pools that need more PGs": lambda lb: "pool_pgs",
        "Buckets to pre-shard, soonest first": lambda lb: "bucket_shards",
    }
    labelled = 0
    for q in all_queries():
        if q.board == "runway" and q.panel in figure_of and "ceph_scale_plan_" in q.expr:
            for r in prom.query(q.resolved(), at=end):
                figure, fit = figure_of[q.panel](r["metric"]), r["metric"].get("fit")
                said = TODAYS_OBJECTS if figure == "bucket_shards" else FIT_WITHHELD
                assert fit == (said if figure in withheld else None), (q.panel, r["metric"], sorted(withheld))
                labelled += fit is not None
    assert labelled >= 1 and "hdd_by_fill" in withheld, sorted(withheld)


def test_a_click_on_the_quota_owners_row_narrows_the_bucket_tables_to_its_buckets(dashboard_run):
    """The tenants table's row link, filled from the row of the owner the run made (every bucket
    with a quota, so it has a quota runway), sets the Tenant and Owner variables; the bucket tables
    then show that owner's buckets and no other."""
    prom, end = dashboard_run["prometheus"], dashboard_run["end"]
    tenants = [q for q in all_queries() if q.panel == "Tenants: usage, growth and quota runway"]
    runway = next(q for q in tenants if "ceph_scale_rgw_tenant_quota_runway_seconds" in q.expr and "false" in q.expr)
    rows = [r["metric"] for r in prom.query(runway.resolved(), at=end) if r["metric"]["user"].startswith("dash-quota-")]
    assert len(rows) == 1, rows
    row = {"tenant": "", **rows[0]}  # Prometheus drops an empty label: RGW's tenant of none
    (table,) = [
        p for p in panels(load_boards()["rgw-resharding"]) if p["title"] == "Tenants: usage, growth and quota runway"
    ]
    (link,) = next(o for o in table["fieldConfig"]["overrides"] if o["matcher"]["options"] == "user")["properties"][0][
        "value"
    ]
    url = re.sub(r"\$\{__data\.fields\.(\w+):percentencode\}", lambda mt: row[mt.group(1)], link["url"])
    picked = {k: v[0] if v else "" for k, v in parse_qs(urlsplit(url).query, keep_blank_values=True).items()}
    assert picked["var-user"] == row["user"] and picked["var-tenant"] == row["tenant"]
    # As Grafana puts a picked value into a regex matcher: escaped, its backslashes doubled for PromQL.
    values = {k: re.escape(picked[f"var-{k}"]).replace("\\", "\\\\") for k in ("tenant", "user")}
    shown: set[str] = set()
    for q in all_queries():
        if q.board == "rgw-resharding" and "ceph_scale_rgw_bucket_usage" in q.expr:
            result = prom.query(q.resolved(values), at=end)
            # Its buckets are among the largest by bytes and by objects (the run's
            # rgw_bucket_usage_top); by growth only once read twice half a window apart.
            assert result or "growth" in q.expr, q.name
            owners = {(r["metric"].get("tenant", ""), r["metric"]["user"]) for r in result}
            assert owners <= {(row["tenant"], row["user"])}, (q.name, owners)
            shown |= {r["metric"]["bucket"] for r in result}
    assert shown and all(b.startswith(row["user"]) for b in shown), shown
