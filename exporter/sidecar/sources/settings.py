from __future__ import annotations

import time

from ceph_scale.core import inputs

from ..ceph_client import CephCommandError
from .base import Deadline, Source


class SettingsSource(Source):
    """`config get` of the options the signals depend on, and the running RGWs' own values.

    The scrub health options are read from the active manager's running values
    (`config show mgr.<active>`), because the manager raises PG_NOT_SCRUBBED with
    them; where it has none to show, from the database's mgr section. The RGW
    options from the RGWs' config section and, with `config show`, from every RGW
    in the service map (a ceph.conf section or a runtime change is only visible
    there).
    """

    name = "settings"
    field = "settings"

    def collect(self, deadline: Deadline):
        t = time.time()
        values = {}
        manager = self._active_manager_values(deadline)
        for option in inputs.SETTING_OPTIONS:
            if option in manager:
                values[option] = manager[option]
                continue
            who = self.ctx.rgw_config_section if option.startswith("rgw_") else "mgr"
            values[option] = self.ceph("config get", deadline, who=who, key=option)
        names = inputs.rgw_daemon_names(self.ceph("service dump", deadline))
        running = inputs.read_rgw_running(
            names, lambda who, option: self.ceph("config show", deadline, who=who, key=option)
        )
        return inputs.settings_part(values, t, running, len(names))

    def _active_manager_values(self, deadline: Deadline) -> dict[str, object]:
        """The active manager's running scrub health options; {} when it cannot say (no active
        manager, or no config state for it yet): the database's mgr section then."""
        try:
            name = self.ceph("mgr stat", deadline).get("active_name")
            if not name:
                return {}
            return {
                option: self.ceph("config show", deadline, who=f"mgr.{name}", key=option)
                for option in inputs.SCRUB_HEALTH_OPTIONS
            }
        except CephCommandError:
            return {}
