"""The cephadm bundle under cephadm's own code: each release's Debian `cephadm` turns the
bundle's specs into the podman command it deploys the daemon with, and that command, run with
podman, serves the sidecar on the host's port, where Prometheus scrapes it.

Run here without systemd, three flags of cephadm's command that need it are swapped, and only
those (SANDBOX_SWAPS); nothing that touches the network is. The command is otherwise run as
cephadm wrote it, on the project's image (docker/image.sh) and podman store. Without a cluster
the exporter's answer on the host's port proves reachability; on the real Pacific cluster a
Prometheus with the bundle's scrape job and rules file scrapes every source from it.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
import yaml

from ceph_scale.core.registry import SOURCES
from demo.monitoring import Prometheus, free_port, wait_until
from deploy import cephadm, cephadm_specs
from tests.conftest import ALL_RELEASES
from tests.deploy.source_tree import REPO
from tests.deploy.test_image import podman

IMAGE_SH = str(REPO / "docker" / "image.sh")
TAG = "localhost/ceph-scale-exporter:test"
UID = cephadm_specs.CONTAINER_UID

# cephadm's flag -> what runs here instead, and why: journald, systemd's cgroup split and
# systemd's healthcheck timers do not exist in this sandbox (podman refuses each: "failed to
# initialize journal", "could not find cgroup mount", "unable to get systemd connection").
SANDBOX_SWAPS = {
    ("--log-driver", "journald"): ("--log-driver", "k8s-file"),
    ("--cgroups=split",): ("--health-interval", "disable"),
}


@pytest.fixture(scope="module")
def image() -> str:
    proc = subprocess.run([IMAGE_SH, "build", TAG], capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    # cephadm runs every container with --init: podman's init, catatonit, which image.sh installs.
    assert Path("/usr/libexec/podman/catatonit").exists(), "docker/image.sh did not install catatonit"
    return TAG


def bundle_specs(tmp_path: Path, port: int) -> dict[str, dict]:
    out = tmp_path / "bundle"
    argv = ["--out", str(out), "--image", TAG, "--host", "host1", "--port", str(port)]
    assert cephadm.main(argv) == 0
    return {n: yaml.safe_load((out / f"{n}.yml").read_text()) for n in ("ceph-scale-exporter", "prometheus", "grafana")}


def split_at_image(argv: list[str], image: str) -> tuple[list[str], list[str]]:
    """(the engine's arguments, the process' arguments) of a `podman run` argv."""
    at = argv.index(image)
    return argv[:at], argv[at + 1 :]


@pytest.mark.parametrize("release_name", ALL_RELEASES)
def test_each_release_s_cephadm_puts_the_sidecar_on_the_host_network(release_name, cephadm_run_command, tmp_path):
    spec = bundle_specs(tmp_path, 9928)["ceph-scale-exporter"]
    fsid = str(uuid.uuid4())
    argv = cephadm_run_command(
        release_name, spec, fsid=fsid, daemon_id="ceph-scale-exporter.host1", data_dir=tmp_path / "data"
    )
    engine, process = split_at_image(argv, TAG)
    assert engine[1] == "run"
    assert "--net=host" in engine, "the container must share the host's network to be scraped"
    assert process == spec["spec"]["extra_entrypoint_args"]
    mounts = dict(engine[i + 1].split(":", 1) for i, a in enumerate(engine) if a == "-v")
    state = tmp_path / "data" / fsid / "container.ceph-scale-exporter.host1" / "state"
    assert mounts[str(state)] == "/var/lib/ceph-scale"
    assert mounts["/etc/ceph/ceph.conf"] == "/etc/ceph/ceph.conf:ro"


@pytest.mark.parametrize("release_name", ALL_RELEASES)
def test_each_release_s_cephadm_mounts_the_rules_file_into_its_prometheus_alerting_dir(
    release_name, image, cephadm_run_command, tmp_path
):
    """The mount arrives in cephadm's command, and composes with cephadm's own /etc/prometheus
    mount: run with those two mounts on the Debian base, the directory Prometheus globs
    (`rule_files: /etc/prometheus/alerting/*`) holds cephadm's file and ours."""
    specs = bundle_specs(tmp_path, 9928)
    fsid, data = str(uuid.uuid4()), tmp_path / "data"
    prometheus = "quay.io/prometheus/prometheus:v2.43.0"  # named in the argv only: never pulled
    argv = cephadm_run_command(release_name, specs["prometheus"], fsid=fsid, daemon_id="host1", data_dir=data,
                               image=prometheus)  # fmt: skip
    engine, _ = split_at_image(argv, prometheus)
    ours = f"--volume={cephadm_specs.HOST_RULES}:{cephadm_specs.PROMETHEUS_RULES}:ro,z"
    assert ours in engine
    own_dir = data / fsid / "prometheus.host1" / "etc" / "prometheus"
    own = f"{own_dir}:/etc/prometheus:Z"
    assert own in engine

    (own_dir / "alerting").mkdir(parents=True)
    (own_dir / "alerting" / "ceph_alerts.yml").write_text("groups: []\n")
    rules = (tmp_path / "bundle" / "host-files" / cephadm_specs.HOST_RULES.lstrip("/")).read_text()
    (tmp_path / "rules.yml").write_text(rules)
    proc = podman(
        "run", "--rm", "--net=host", "--log-driver", "k8s-file",
        ours.replace(cephadm_specs.HOST_RULES, str(tmp_path / "rules.yml")), "-v", own,
        "docker.io/library/debian:trixie-slim",
        "sh", "-c", "ls /etc/prometheus/alerting; cat /etc/prometheus/alerting/*",
    )  # fmt: skip
    assert proc.stdout.splitlines()[:2] == ["ceph-scale-signals.yml", "ceph_alerts.yml"]
    assert proc.stdout.split("\n", 2)[2] == rules + "groups: []\n"


@pytest.mark.parametrize("release_name", ALL_RELEASES)
def test_each_release_s_cephadm_mounts_the_boards_and_their_provider_into_grafana(
    release_name, cephadm_run_command, tmp_path
):
    specs = bundle_specs(tmp_path, 9928)
    fsid, data = str(uuid.uuid4()), tmp_path / "data"
    grafana = "quay.io/ceph/ceph-grafana:9.4.7"
    argv = cephadm_run_command(release_name, specs["grafana"], fsid=fsid, daemon_id="host1", data_dir=data,
                               image=grafana)  # fmt: skip
    engine, _ = split_at_image(argv, grafana)
    assert f"--volume={cephadm_specs.HOST_BOARDS}:{cephadm_specs.GRAFANA_BOARDS}:ro,z" in engine
    # custom_configs: cephadm writes the provider under the daemon's custom_config_files and mounts it
    written = data / fsid / "custom_config_files" / "grafana.host1" / "ceph-scale-signals.yml"
    provider = f"{written}:{cephadm_specs.GRAFANA_PROVIDER}"
    assert provider in [engine[i + 1] for i, a in enumerate(engine) if a == "-v"]


def sandboxed(argv: list[str]) -> list[str]:
    """cephadm's argv with SANDBOX_SWAPS applied; each must be found, or cephadm changed."""
    out = list(argv)
    for flag, instead in SANDBOX_SWAPS.items():
        at = next((i for i in range(len(out)) if tuple(out[i : i + len(flag)]) == flag), None)
        assert at is not None, f"cephadm's argv has no {' '.join(flag)}: {argv}"
        out[at : at + len(flag)] = instead
    return out


def owned_by_the_image_user(path: Path, text: str, mode: int) -> str:
    path.write_text(text)
    os.chown(path, UID, UID)
    os.chmod(path, mode)
    return str(path)


def answer(url: str) -> tuple[int, str, str]:
    """(status, Server header, body) of a GET, errors included; raises when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.headers.get("Server", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Server", ""), e.read().decode()


@contextlib.contextmanager
def deployed(argv: list[str], *, fsid: str, daemon_id: str, data: Path, host_paths: dict[str, str]):
    """cephadm's command run with podman, after what cephadm's deploy makes first (the spec's
    `dirs` under the daemon's data directory, owned by its uid: `create_daemon_dirs`), with the
    operator's files of the spec's absolute mounts taken from host_paths. Yields the name."""
    state = data / fsid / f"container.{daemon_id}" / "state"
    state.mkdir(parents=True)
    os.chown(state, UID, UID)
    run = sandboxed(argv)
    for i, a in enumerate(run[:-1]):
        if a == "-v" and run[i + 1].split(":", 1)[0] in host_paths:
            source, dest = run[i + 1].split(":", 1)
            run[i + 1] = f"{host_paths.pop(source)}:{dest}"
    assert not host_paths, f"the command mounts none of {sorted(host_paths)}"
    name = run[run.index("--name") + 1]
    assert run[0].endswith("/podman")
    proc = podman(*run[1:], check=False)
    try:
        assert proc.returncode == 0, proc.stderr[-3000:]
        yield name
    finally:
        print(podman("logs", name, check=False).stdout[-3000:])
        podman("rm", "-f", "-t", "5", name, check=False)
        for suffix in ("pid", "cid"):
            Path(f"/run/ceph-{fsid}@container.{daemon_id}.service-{suffix}").unlink(missing_ok=True)


@pytest.mark.parametrize("release_name", ALL_RELEASES)
def test_the_command_cephadm_deploys_serves_the_sidecar_on_the_host_port(
    release_name, image, cephadm_run_command, tmp_path
):
    """No cluster is needed to prove reachability: the conf names a monitor where nothing
    listens, so /metrics answers the exporter's own 503 until a collection finishes."""
    port = free_port()
    spec = bundle_specs(tmp_path, port)["ceph-scale-exporter"]
    fsid, daemon_id, data = str(uuid.uuid4()), "ceph-scale-exporter.host1", tmp_path / "data"
    argv = cephadm_run_command(release_name, spec, fsid=fsid, daemon_id=daemon_id, data_dir=data)
    files = tmp_path / "etc"
    files.mkdir()
    conf = f"[global]\nmon_host = 127.0.0.1:{free_port()}\n"
    key = "[client.ceph-scale]\nkey = AQBsdJ5k4RxnKRAAw3ZdIo0W4Oq2IsKIrRH2bA==\n"
    host_paths = {
        "/etc/ceph/ceph.conf": owned_by_the_image_user(files / "ceph.conf", conf, 0o444),
        "/etc/ceph-scale/ceph.client.ceph-scale.keyring": owned_by_the_image_user(files / "keyring", key, 0o400),
    }
    with deployed(argv, fsid=fsid, daemon_id=daemon_id, data=data, host_paths=host_paths) as name:
        wait_until(lambda: reachable(port), 60, what=f"the sidecar on the host's port {port}")
        assert answer(f"http://127.0.0.1:{port}/-/healthy")[0::2] == (200, "OK\n")
        status, server, body = answer(f"http://127.0.0.1:{port}/metrics")
        assert server.startswith("ceph-scale-exporter"), server
        assert (status, body) == (503, "no collection finished yet\n") or (
            status == 200 and "ceph_scale_source_success" in body
        ), (status, body[:500])
        assert podman("exec", name, "id", "-u").stdout.strip() == str(UID)


@pytest.mark.cluster
@pytest.mark.parametrize("ceph_cluster", ["pacific"], indirect=True)
def test_prometheus_scrapes_every_source_from_the_sidecar_cephadm_deploys(
    ceph_cluster, image, cephadm_run_command, tmp_path
):
    """The whole path on the real Pacific cluster: the bundle made for this host, Pacific's
    cephadm's command run with podman, and a Prometheus with the bundle's scrape jobs and rules
    file scraping it from the host: every source succeeds."""
    from tests.integration.test_sidecar_faults import LEAST_PRIVILEGE_OSD_CAPS

    port, user = free_port(), "ceph-scale-cephadm"
    out = tmp_path / "bundle"
    argv = ["--out", str(out), "--image", TAG, "--host", "127.0.0.1", "--port", str(port), "--ceph-user", user,
            "--rgw-endpoint", ceph_cluster.rgw_endpoint]  # fmt: skip
    assert cephadm.main(argv) == 0
    spec = yaml.safe_load((out / "ceph-scale-exporter.yml").read_text())
    fsid, daemon_id, data = str(uuid.uuid4()), "ceph-scale-exporter.host1", tmp_path / "data"
    argv = cephadm_run_command("pacific", spec, fsid=fsid, daemon_id=daemon_id, data_dir=data)

    files = tmp_path / "etc"
    files.mkdir()
    keyring = ceph_cluster.ceph("auth", "get-or-create", f"client.{user}", "mon", "allow r", "mgr", "allow r",
                                "osd", LEAST_PRIVILEGE_OSD_CAPS, fmt_json=False)  # fmt: skip
    rgw = json.loads((ceph_cluster.dir / "rgw-keys.json").read_text())
    creds = json.dumps({"access_key": rgw["access_key"], "secret_key": rgw["secret_key"]})
    conf = ceph_cluster.ceph("config", "generate-minimal-conf", fmt_json=False)
    host_paths = {
        "/etc/ceph/ceph.conf": owned_by_the_image_user(files / "ceph.conf", conf, 0o444),
        f"/etc/ceph-scale/ceph.client.{user}.keyring": owned_by_the_image_user(files / "keyring", keyring, 0o400),
        "/etc/ceph-scale/rgw-admin.json": owned_by_the_image_user(files / "rgw-admin.json", creds, 0o400),
    }
    with deployed(argv, fsid=fsid, daemon_id=daemon_id, data=data, host_paths=host_paths):
        prometheus = Prometheus(tmp_path, {})
        config = {
            "global": {"scrape_interval": "5s", "evaluation_interval": "5s"},
            "rule_files": [str(out / "host-files" / cephadm_specs.HOST_RULES.lstrip("/"))],
            "scrape_configs": yaml.safe_load((out / "scrape-jobs.yml").read_text())[:1],
        }
        prometheus.config_path.write_text(yaml.safe_dump(config))
        prometheus.start()
        try:
            every = {s.name: "1" for s in SOURCES}

            def scraped() -> dict[str, str]:
                found = prometheus.query('ceph_scale_source_success{job="ceph-scale"}')
                return {r["metric"]["source"]: r["value"][1] for r in found}

            wait_until(lambda: scraped() == every, 240, what=f"every source scraped by Prometheus: {scraped()}")
            assert prometheus.targets_up()
        finally:
            prometheus.stop()


def reachable(port: int) -> bool:
    try:
        answer(f"http://127.0.0.1:{port}/-/healthy")
        return True
    except OSError:
        return False


def test_the_bundle_s_entrypoint_args_are_the_exporter_s_own(tmp_path):
    """What cephadm appends after the image parses as the exporter's command line."""
    from exporter.sidecar.main import build_parser

    spec = bundle_specs(tmp_path, 9928)["ceph-scale-exporter"]
    parsed = build_parser().parse_args(spec["spec"]["extra_entrypoint_args"])
    assert parsed.listen == ":9928"
    assert json.dumps(spec["spec"]["args"]) == '["--net=host"]'
