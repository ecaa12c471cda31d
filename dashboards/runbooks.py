"""The rules/runbooks.md section each panel links to (anchor = the alert name in lower case, as
the runbook_url of every alert in rules/alerts.yml)."""

from __future__ import annotations

RB = {
    "spillover": "cephscalebluefsspilloverstarted",
    "spillover_spreading": "cephscalebluefsspilloverspreading",
    "db_share": "cephscalebluefsdbsharebelowmin",
    "db_next_level": "cephscalebluefsdbnextlevelsoon",
    "fill": "cephscalefillpasttarget",
    "fill_warn": "cephscalefillabovewarnline",
    "fill_forecast": "cephscalefillpredictedtocrosstarget",
    "osd_fill": "cephscaleosdfullestpasttarget",
    "pool_fill": "cephscalepoolpastfilltarget",
    "reshard": "cephscalergwreshardstorm",
    "near_limit": "cephscalergwbucketsnearshardlimit",
    "over_limit": "cephscalergwbucketsovershardlimit",
    "preshard": "cephscalergwbucketsnearshardlimit",
    "reshard_next": "cephscalergwbucketspredictedtoreshard",
    "reshard_queue": "cephscalergwreshardqueuestuck",
    "scrub": "cephscalescrubbacklognotclearing",
    "scrub_growing": "cephscalescrubbackloggrowing",
    "deep_scrub_storm": "cephscaledeepscrubstorm",
    "load": "cephscales3loadabovehddbaseline",
    "latency": "cephscales3slowerwhileopsfall",
    "plunge": "cephscales3throughputplunge",
    "hot_osd": "cephscalehddosdhotspot",
    "degraded": "cephscaleosdsdownexpecteddrop",
    "source": "cephscalesourcefailing",
    "runway": "cephscalerunwayshort",
    "alerts": "runbooks-for-the-ceph-scale-signals-alerts",  # the index: one section per alert
}
