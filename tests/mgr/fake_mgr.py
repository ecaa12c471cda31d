"""A stand-in for Ceph's `mgr_module` so that the module package imports and runs in tests.

Only what the `scale` module uses, with the same signatures as Pacific's mgr_module.py.
`FakeMgrBase` keeps options, the key/value store, health checks and the manager's data
in plain dicts that tests fill (see `load_fixture_data`).
"""

from __future__ import annotations

import json
import logging
import sys
import types
from pathlib import Path
from typing import Any

from bench.canned_mgr import CannedCounters

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "pacific"
COMMANDS: dict[str, Any] = {}


class Option(dict):
    # Keyword-only, as Quincy and later declare it: a positional use fails here too.
    def __init__(
        self,
        *,
        name: str,
        default: Any = None,
        type: str = "str",
        desc: str | None = None,
        long_desc: str | None = None,
        min: Any = None,
        max: Any = None,
        enum_allowed: list[str] | None = None,
        tags: list[str] | None = None,
        see_also: list[str] | None = None,
        runtime: bool = False,
    ) -> None:
        super().__init__((k, v) for k, v in dict(locals()).items() if k not in ("self", "__class__") and v is not None)


def CLIReadCommand(prefix: str, poll: bool = False):  # noqa: N802 (Ceph's name)
    def register(func):
        COMMANDS[prefix] = func
        return func

    return register


class FakeMgrBase(CannedCounters):
    MODULE_OPTIONS: list = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.options: dict[str, Any] = {}  # mgr/scale/<name>
        self.localized: dict[str, Any] = {}  # mgr/scale/x/<name>
        self.store: dict[str, str] = {}
        self.health: dict | None = None
        self.health_calls = 0
        self.uri = ""
        self.data: dict[str, Any] = {}
        self.ceph_options: dict[str, Any] = {"keyring": "/etc/ceph/keyring"}
        self.config_db: dict[tuple[str, str], Any] = {}
        self.running_config: dict[tuple[str, str], str] = {}  # `config show` output per (daemon, option)
        self.counters: dict[str, dict[str, float]] = {}
        self.rados_handle: Any = None
        self.mgr_id = "x"
        self.log = logging.getLogger("scale-test")

    # options
    def _default(self, key: str, default: Any) -> Any:
        for o in self.MODULE_OPTIONS:
            if o["name"] == key:
                return o.get("default", default)
        return default

    def get_module_option(self, key: str, default: Any = None) -> Any:
        if key in self.options:
            return self.options[key]
        return self._default(key, default)

    def get_localized_module_option(self, key: str, default: Any = None) -> Any:
        if key in self.localized:
            return self.localized[key]
        return self.get_module_option(key, default)

    def get_ceph_option(self, key: str) -> Any:
        return self.ceph_options.get(key)

    def get_mgr_id(self) -> str:
        return self.mgr_id

    def get_ceph_conf_path(self) -> str:
        return "/etc/ceph/ceph.conf"

    # store
    def get_store(self, key: str, default: Any = None) -> Any:
        return self.store.get(key, default)

    def set_store(self, key: str, val: Any) -> None:
        if val is None:
            self.store.pop(key, None)
        else:
            self.store[key] = val

    def get_store_prefix(self, prefix: str) -> dict:
        return {k: v for k, v in self.store.items() if k.startswith(prefix)}

    # cluster data
    def get(self, name: str) -> Any:
        return self.data.get(name)

    def mon_command(self, cmd: dict, inbuf: Any = None) -> tuple[int, str, str]:
        if cmd["prefix"] == "config get":
            key = (cmd["who"], cmd["key"])
            if key not in self.config_db:
                return -2, "", f"unrecognized key {cmd['key']}"
            return 0, json.dumps(self.config_db[key]), ""
        if cmd["prefix"] == "config show":  # the monitor hands it to the manager, as Ceph does
            key = (cmd["who"], cmd["key"])
            if key not in self.running_config:
                return -2, "", f"no config state for daemon {cmd['who']}"
            return 0, self.running_config[key], ""
        return -22, "", f"unsupported {cmd['prefix']}"

    def list_servers(self) -> list:
        services = []
        for daemon in self.counters:
            kind, _, ident = daemon.partition(".")
            services.append({"type": kind, "id": ident})
        return [{"hostname": "vm", "services": services}]

    def get_latest(self, kind: str, ident: str, path: str) -> Any:
        return self.counters.get(f"{kind}.{ident}", {}).get(path, 0)

    @property
    def rados(self) -> Any:
        return self.rados_handle

    # reporting
    def set_health_checks(self, checks: dict) -> None:
        self.health = checks
        self.health_calls += 1

    def set_uri(self, uri: str) -> None:
        self.uri = uri

    def get_active_uri(self) -> str:
        return self.uri

    def get_mgr_ip(self) -> str:
        return "127.0.0.1"

    def shutdown(self) -> None:
        pass


def install() -> types.ModuleType:
    """Register the fake as `mgr_module` (unless the real one is importable, i.e. inside ceph-mgr)."""
    if "mgr_module" in sys.modules and hasattr(sys.modules["mgr_module"], "MgrModule"):
        return sys.modules["mgr_module"]
    fake: Any = types.ModuleType("mgr_module")  # its attributes are set one by one below
    fake.Option = Option
    fake.CLIReadCommand = CLIReadCommand
    fake.MgrModule = type("MgrModule", (FakeMgrBase,), {})
    fake.MgrStandbyModule = type("MgrStandbyModule", (FakeMgrBase,), {})
    fake.COMMANDS = COMMANDS
    sys.modules["mgr_module"] = fake
    return fake


# --- the manager's data, from the Pacific captures ----------------------------------


def load(name: str) -> Any:
    path = FIX / name
    return json.loads(path.read_text()) if name.endswith(".json") else path.read_text()


def load_fixture_data(mgr: FakeMgrBase, suffix: str = "", running_rgw_options: bool = False) -> None:
    """Fill the fake manager with what ceph-mgr hands a module, from the CLI captures (the
    benchmark's translation, bench/canned_mgr.manager_data), plus its maps and options."""
    from bench.canned_mgr import manager_data
    from ceph_scale.core import inputs

    mgr.data = manager_data(
        load(f"osd_df{suffix}.json"),
        load(f"osd_dump{suffix}.json"),
        load(f"osd_metadata{suffix}.json"),
        load(f"df_detail{suffix}.json"),
        load(f"pg_dump_pgs{suffix}.json"),
        load(f"health_detail{suffix}.json"),
    )
    mgr.data |= {
        "mon_map": {"fsid": load(f"osd_dump{suffix}.json")["fsid"]},
        "service_map": load("service_dump.json"),
    }
    # The running RGW's options were captured in another session than the rest (CAPTURED.md):
    # without them, the manager has no config state for the RGW yet, as right after it starts.
    mgr.running_config = {
        ("rgw.4154", option): (FIX / f"config_show_rgw_{option}.json").read_text()
        for option in inputs.RGW_RUNNING_OPTIONS
        if running_rgw_options
    }
    config = load(f"config_get{suffix}.json")
    mgr.ceph_options.update({k: v for k, v in config.items() if not k.startswith("rgw_")})
    mgr.config_db = {("client.rgw", k): v for k, v in config.items() if k.startswith("rgw_")}
    mgr.config_db[("client.rgw", "rgw_reshard_num_logs")] = 16
    mgr.counters = inputs.counters_from_prometheus_text(load(f"mgr_prometheus_metrics{suffix}.txt"))
