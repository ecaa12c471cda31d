from __future__ import annotations

import time

from ...core import inputs
from .base import Deadline, Source


class SettingsSource(Source):
    """`config get` of the options the signals depend on, and the running RGWs' own values.

    Scrub options are read as the manager sees them, because the manager
    raises PG_NOT_SCRUBBED with its own values; the RGW options from the RGWs'
    config section and, with `config show`, from every RGW in the service map
    (a ceph.conf section or a runtime change is only visible there).
    """

    name = "settings"
    field = "settings"

    def collect(self, deadline: Deadline):
        t = time.time()
        values = {}
        for option in inputs.SETTING_OPTIONS:
            who = self.ctx.rgw_config_section if option.startswith("rgw_") else "mgr"
            values[option] = self.ceph("config get", deadline, who=who, key=option)
        names = inputs.rgw_daemon_names(self.ceph("service dump", deadline))
        running = inputs.read_rgw_running(
            names, lambda who, option: self.ceph("config show", deadline, who=who, key=option)
        )
        return inputs.settings_part(values, t, running, len(names))
