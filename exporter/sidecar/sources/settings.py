from __future__ import annotations

import time

from ...core import inputs
from .base import Deadline, Source


class SettingsSource(Source):
    """`config get` of the options the signals depend on.

    Scrub options are read as the manager sees them, because the manager
    raises PG_NOT_SCRUBBED with its own values; the shard limit as the RGWs
    see it.
    """

    name = "settings"
    field = "settings"
    default_interval = 300.0

    def collect(self, deadline: Deadline):
        t = time.time()
        values = {}
        for option in inputs.SETTING_OPTIONS:
            who = self.ctx.rgw_config_section if option.startswith("rgw_") else "mgr"
            values[option] = self.ceph("config get", deadline, who=who, key=option)
        return inputs.settings_part(values, t)
