"""SCALE_TENANT_QUOTA_RUNWAY (ceph_scale/core/signals/tenants/check.py): at study scale through the
real derivation, and on hand-made results for what the study's tenants do not show."""

from __future__ import annotations

import math
from pathlib import Path

from ceph_scale.core import registry
from ceph_scale.core.config import Thresholds
from ceph_scale.core.signals.check_options import CheckOptions
from ceph_scale.core.signals.tenants.check import CHECKS, check_tenant_quota_runway
from ceph_scale.core.signals.tenants.result import TenantRunway, TenantUsage, UsageSummary
from tests.unit.signals.tenants.study import TH, Study

DAY = 86400.0


def test_it_is_the_folders_one_check_and_the_registry_lists_it():
    assert [c.code for c in CHECKS] == ["SCALE_TENANT_QUOTA_RUNWAY"] and CHECKS[0].judge is check_tenant_quota_runway
    row = next(s for s in registry.SIGNALS if s.name == "tenants")
    assert row.checks == CHECKS and row.alerts


def test_at_study_scale_the_tenants_within_a_week_of_their_quotas_soonest_first(study: Study):
    largest, second, third, _ = study.owners  # 3 days, 20 days, 12 hours, not growing
    c = check_tenant_quota_runway(study.usage, TH, CheckOptions())
    assert c is not None
    assert c["detail"] == [
        f"{third}: bytes quota in 12.0 h (at least 12.0 h)",
        f"{largest}: bytes quota in 3.0 days (at least 3.0 days)",
    ]
    assert c["severity"] == "error" and c["count"] == 2  # one under a day
    assert "$" in largest  # RGW's tenant$user, as the study's acme tenant owns its largest


def usage(*runways: TenantRunway, age: float = 600.0) -> UsageSummary:
    owners = sorted({r.owner for r in runways})
    top = tuple(TenantUsage(o, 1, 10, 1, 1000.0 - age, 100, None) for o in owners)
    return UsageSummary(len(top), len(top), top, None, runways, 0, (), collected_at=1000.0)


def test_quiet_without_a_result_or_a_short_runway():
    assert check_tenant_quota_runway(None, Thresholds(), CheckOptions()) is None
    far = TenantRunway("t$u", "bytes", 8 * DAY, 2 * DAY, False)
    never = TenantRunway("t$v", "objects", math.inf, math.inf, False)
    assert check_tenant_quota_runway(usage(far, never), Thresholds(), CheckOptions()) is None


def test_a_runway_held_to_its_history_is_not_short():
    """bounded: at least this long, so never judged soon (as the alert's bounded="false")."""
    held = TenantRunway("t$u", "bytes", 2 * DAY, DAY, True)
    assert check_tenant_quota_runway(usage(held), Thresholds(), CheckOptions()) is None
    fitted = TenantRunway("t$u", "bytes", 2 * DAY, DAY, False)
    c = check_tenant_quota_runway(usage(fitted), Thresholds(), CheckOptions())
    assert c is not None and c["severity"] == "warning"
    assert c["detail"] == ["t$u: bytes quota in 2.0 days (at least 24.0 h)"]


def test_figures_older_than_two_days_are_not_judged():
    short = TenantRunway("u", "objects", 0.0, 0.0, False)
    assert check_tenant_quota_runway(usage(short, age=2 * DAY), Thresholds(), CheckOptions()) is None
    c = check_tenant_quota_runway(usage(short, age=DAY), Thresholds(), CheckOptions())
    assert c is not None and c["severity"] == "error" and c["detail"] == ["u: objects quota in 0 s (at least 0 s)"]


def test_the_detail_is_capped_by_the_option():
    many = [TenantRunway(f"t$u{i}", "bytes", i * 3600.0 + 3600, 3600.0, False) for i in range(4)]
    c = check_tenant_quota_runway(usage(*many), Thresholds(), CheckOptions(health_detail_max=2))
    assert c is not None and c["count"] == 4
    assert c["detail"][-1] == "... and 2 more" and c["detail"][0].startswith("t$u0: ")


def test_the_check_judges_by_the_thresholds_the_rules_read():
    """The horizons and the age are options (config.py), exported in ceph_scale_config, which the
    rules compare with: the check follows them as the alerts do (rules_test.yml, c6 and c7)."""
    three_days = TenantRunway("t$u", "bytes", 3 * DAY, 2 * DAY, False)
    th = Thresholds.from_mapping({"rgw_tenant_quota_warn_seconds": 2 * DAY})
    assert check_tenant_quota_runway(usage(three_days), th, CheckOptions()) is None
    th = Thresholds.from_mapping(
        {"rgw_tenant_quota_warn_seconds": 10 * DAY, "rgw_tenant_quota_critical_seconds": 4 * DAY}
    )
    c = check_tenant_quota_runway(usage(three_days), th, CheckOptions())
    assert (
        c is not None
        and c["severity"] == "error"
        and c["summary"].endswith("within 10.0 days at the tenant's fitted growth")
    )
    th = Thresholds.from_mapping({"rgw_tenant_stats_judged_seconds": 600})
    assert check_tenant_quota_runway(usage(three_days, age=600.0), th, CheckOptions()) is None
    assert check_tenant_quota_runway(usage(three_days, age=599.0), th, CheckOptions()) is not None


def test_the_rules_compare_with_the_same_options():
    import yaml

    from ceph_scale.core.signals.tenants import check

    rules = yaml.safe_load((Path(check.__file__).parent / "rules.yml").read_text())["groups"][0]["rules"]
    exprs = {r["alert"]: r["expr"] for r in rules if "alert" in r}
    for alert, horizon in (
        ("CephScaleTenantQuotaRunwayShort", "rgw_tenant_quota_warn_seconds"),
        ("CephScaleTenantQuotaRunwayUnderADay", "rgw_tenant_quota_critical_seconds"),
    ):
        for option in (horizon, "rgw_tenant_stats_judged_seconds"):
            assert f'cluster_option:ceph_scale_config:max{{option="{option}"}}' in exprs[alert], (alert, option)
            assert option in Thresholds().numbers()  # exported in ceph_scale_config
        assert "86400" not in exprs[alert] and "172800" not in exprs[alert]
