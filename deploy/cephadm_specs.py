"""The cephadm service specs of the bundle (deploy/cephadm.py), each small enough for the one
config-key entry cephadm stores it in.

cephadm keeps every applied spec as one entry of the monitors' config-key store,
`mgr/cephadm/spec.<service name>` (ceph/ceph src/pybind/mgr/cephadm/inventory.py,
`SpecStore._save`, the same in 16.2.15, 18.2.7 and 20.2.4), and the monitors refuse an entry over
`mon_config_key_max_entry_size` (65,536 B by default). A refused spec is only logged: it lives
in the active manager's memory until the next failover. So the rules and the boards do not
travel inside a spec: they are files on the monitoring hosts (HOST_FILES), which the Prometheus
and Grafana specs bind-mount with `extra_container_args` (a few hundred bytes each).
"""

from __future__ import annotations

from typing import Any

from .sources import dump_yaml

SIDECAR_PORT = 9928  # exporter/sidecar/main.py --web.listen-address
MGR_MODULE_PORT = 9284  # mgr_module/scale/options.py DEFAULT_PORT
CONTAINER_UID = 10001  # Dockerfile USER
CONFIG_KEY_MAX_ENTRY = 65536  # mon_config_key_max_entry_size, Ceph's default

# Where the operator copies the bundle's host-files/ tree on every monitoring host.
HOST_FILES = "/etc/ceph-scale-signals"
RULES_FILE = "ceph-scale-signals.yml"
HOST_RULES = f"{HOST_FILES}/rules/{RULES_FILE}"
HOST_BOARDS = f"{HOST_FILES}/dashboards"
# cephadm's Prometheus loads `rule_files: /etc/prometheus/alerting/*` (its prometheus.yml.j2
# in every release checked): a file mounted into that directory is loaded beside its own.
PROMETHEUS_RULES = f"/etc/prometheus/alerting/{RULES_FILE}"
# Beside /etc/grafana/dashboards/ceph-dashboard, where cephadm's own boards live (cephadm
# 16.2.15 `get_container_mounts`); outside /etc/grafana/provisioning/dashboards, which the
# provider of cephadm 20.2.4 (templates/services/grafana/providers.yml.j2) scans, so that no
# board is provisioned twice.
GRAFANA_BOARDS = "/etc/grafana/dashboards/ceph-scale-signals"
GRAFANA_PROVIDER = "/etc/grafana/provisioning/dashboards/ceph-scale-signals.yml"


def read_only_mount(source: str, destination: str) -> str:
    # One argument without spaces: Pacific's manager splits extra_container_args at spaces
    # (cephadm/serve.py `_setup_extra_deployment_args`). `z` lets SELinux hosts share the files.
    return f"--volume={source}:{destination}:ro,z"


def sidecar_spec(
    *, image: str, hosts: list[str], port: int, ceph_user: str, rgw_endpoint: str | None
) -> dict[str, Any]:
    """The sidecar as a cephadm custom container. The mounted files are the operator's, made
    readable by the image's user (docs/deploy.md); the state survives in the daemon's data dir.

    cephadm runs a custom container without host networking (`host_network=False` in 16.2.15's
    `get_container`, 18.2.7's, and 20.2.4's cephadmlib/daemons/custom.py), and `ports` only
    opens the host's firewall: nothing publishes the port. `args` are the container engine's
    (all three releases put them before the image), and `--net=host` is what Ceph's own
    custom-container example uses. extra_container_args would do the same from Reef on, but
    Pacific's CustomContainerSpec has no such field, and Reef's refuses both at once."""
    entry_args = ["--web.listen-address", f":{port}", "--ceph-user", ceph_user]
    mounts = {
        "/etc/ceph/ceph.conf": "/etc/ceph/ceph.conf:ro",
        f"/etc/ceph-scale/ceph.client.{ceph_user}.keyring": f"/etc/ceph/ceph.client.{ceph_user}.keyring:ro",
        "state": "/var/lib/ceph-scale",
    }
    if rgw_endpoint:
        entry_args += ["--rgw-endpoint", rgw_endpoint, "--rgw-credentials-file", "/etc/ceph-scale/rgw-admin.json"]
        mounts["/etc/ceph-scale/rgw-admin.json"] = "/etc/ceph-scale/rgw-admin.json:ro"
    return {
        "service_type": "container",
        "service_id": "ceph-scale-exporter",
        "placement": {"hosts": list(hosts)},
        "spec": {
            "image": image,
            "uid": CONTAINER_UID,
            "gid": CONTAINER_UID,
            "args": ["--net=host"],
            "ports": [port],
            "dirs": ["state"],
            "volume_mounts": mounts,
            "extra_entrypoint_args": entry_args,
        },
    }


def monitoring_placement(hosts: list[str]) -> dict[str, Any]:
    """One daemon, on one of the hosts that hold the host files: cephadm may move it among them."""
    return {"hosts": list(hosts), "count": 1}


def prometheus_spec(hosts: list[str]) -> dict[str, Any]:
    return {
        "service_type": "prometheus",
        "placement": monitoring_placement(hosts),
        "extra_container_args": [read_only_mount(HOST_RULES, PROMETHEUS_RULES)],
    }


def grafana_provider() -> str:
    """A Grafana file provider for the mounted boards, in a folder of their own."""
    provider = {
        "name": "ceph-scale-signals",
        "orgId": 1,
        "folder": "ceph-scale-signals",
        "type": "file",
        "disableDeletion": False,
        "updateIntervalSeconds": 30,
        "editable": False,
        "options": {"path": GRAFANA_BOARDS},
    }
    return dump_yaml({"apiVersion": 1, "providers": [provider]})


def grafana_spec(hosts: list[str]) -> dict[str, Any]:
    return {
        "service_type": "grafana",
        "placement": monitoring_placement(hosts),
        "extra_container_args": [read_only_mount(HOST_BOARDS, GRAFANA_BOARDS)],
        "custom_configs": [{"mount_path": GRAFANA_PROVIDER, "content": grafana_provider()}],
    }


def scrape_jobs(*, hosts: list[str], port: int, mgr_hosts: list[str], mgr_port: int) -> list[dict[str, Any]]:
    """The sidecar's and the module's jobs. honor_labels keeps the exporter's own `cluster`
    label (the fsid, as cephadm's jobs set it); no rule depends on the job names."""
    jobs = [
        {
            "job_name": "ceph-scale",
            "honor_labels": True,
            "static_configs": [{"targets": [f"{h}:{port}" for h in hosts]}],
        }
    ]
    if mgr_hosts:
        targets = [f"{h}:{mgr_port}" for h in mgr_hosts]
        jobs.append({"job_name": "ceph-scale-mgr", "honor_labels": True, "static_configs": [{"targets": targets}]})
    return jobs
