"""How the running RGWs' options agree, without a series per RGW: the per-shard object limit the
reshard signal judges buckets by comes from them, so the registry lists these families right
after the reshard signal's own (its `families_after`)."""

from __future__ import annotations

from ... import inputs
from ...families import Family, gauge
from ...snapshot import Snapshot


def rgw_running_families(snap: Snapshot) -> list[Family]:
    s = snap.settings
    if s is None:
        return []
    distinct = gauge(
        "rgw_running_option_values", "Distinct values of an option among the running RGWs; >1: they disagree.", "option"
    )
    smallest = gauge("rgw_running_option_min", "Smallest value of an option among the running RGWs.", "option")
    largest = gauge("rgw_running_option_max", "Largest value of an option among the running RGWs.", "option")
    for option in inputs.RGW_RUNNING_OPTIONS:
        values = [o.value for o in s.rgw_running if o.option == option]
        distinct.add(len(set(values)), option)
        if values:
            smallest.add(min(values), option)
            largest.add(max(values), option)
    read = len({o.daemon for o in s.rgw_running})
    unread = gauge("rgw_running_config_unread", "RGWs in the service map whose running options could not be read.").add(
        max(0, s.rgw_daemons - read)
    )
    return [distinct, smallest, largest, unread]
