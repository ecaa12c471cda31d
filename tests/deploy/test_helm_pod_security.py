"""The chart's pod passes the Pod Security Standards' "restricted" profile (which a namespace
labelled pod-security.kubernetes.io/enforce=restricted enforces): by Kubernetes' own admission
code (k8s.io/pod-security-admission, built by tests/deploy/tools.sh once per machine), and field by
field as https://kubernetes.io/docs/concepts/security/pod-security-standards/ lists the controls
(baseline and restricted, latest version), which names what is wrong; plus what the profile
does not ask and the chart does: a read-only root, no service-account token, resources on every
container, and probes that tell alive from ready."""

from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from tests.deploy.conftest import TOOLS
from tests.deploy.test_helm import CUSTOM, NO_STORE, STORE, of_kind, render, set_args

RESTRICTED_VOLUMES = {"configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
                      "projected", "secret"}  # fmt: skip
SAFE_SYSCTLS = {"kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
                "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
                "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
                "net.ipv4.tcp_keepalive_probes"}  # fmt: skip


def restricted_violations(pod: dict) -> list[str]:
    """Every control of the baseline and restricted profiles a pod spec breaks, one line each."""
    out = []
    psc = pod.get("securityContext", {})
    containers = pod.get("initContainers", []) + pod.get("containers", []) + pod.get("ephemeralContainers", [])
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(field):
            out.append(f"{field}: true")
    if psc.get("windowsOptions", {}).get("hostProcess"):
        out.append("pod: hostProcess")
    for sysctl in psc.get("sysctls", []):
        if sysctl["name"] not in SAFE_SYSCTLS:
            out.append(f"sysctl {sysctl['name']}")
    for volume in pod.get("volumes", []):
        kinds = set(volume) - {"name"}
        if not kinds <= RESTRICTED_VOLUMES:
            out.append(f"volume {volume['name']}: {sorted(kinds - RESTRICTED_VOLUMES)}")
    pod_seccomp = psc.get("seccompProfile", {}).get("type")
    if pod_seccomp == "Unconfined":
        out.append("pod: seccompProfile Unconfined")
    if psc.get("runAsUser") == 0:
        out.append("pod: runAsUser 0")
    for c in containers:
        sc = c.get("securityContext", {})
        name = c["name"]
        if sc.get("privileged"):
            out.append(f"{name}: privileged")
        if sc.get("windowsOptions", {}).get("hostProcess"):
            out.append(f"{name}: hostProcess")
        if [p for p in c.get("ports", []) if p.get("hostPort")]:
            out.append(f"{name}: hostPort")
        if sc.get("procMount", "Default") != "Default":
            out.append(f"{name}: procMount")
        se_type = sc.get("seLinuxOptions", {}).get("type", "")
        if se_type not in ("", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"):
            out.append(f"{name}: seLinux type {se_type}")
        if sc.get("appArmorProfile", {}).get("type") == "Unconfined":
            out.append(f"{name}: appArmor Unconfined")
        if sc.get("allowPrivilegeEscalation") is not False:
            out.append(f"{name}: allowPrivilegeEscalation is not false")
        non_root = sc.get("runAsNonRoot", psc.get("runAsNonRoot"))
        if non_root is not True:
            out.append(f"{name}: runAsNonRoot is not true")
        if sc.get("runAsUser") == 0:
            out.append(f"{name}: runAsUser 0")
        seccomp = sc.get("seccompProfile", {}).get("type", pod_seccomp)
        if seccomp not in ("RuntimeDefault", "Localhost"):
            out.append(f"{name}: seccompProfile {seccomp}")
        caps = sc.get("capabilities", {})
        if "ALL" not in caps.get("drop", []):
            out.append(f"{name}: capabilities do not drop ALL")
        if set(caps.get("add", [])) - {"NET_BIND_SERVICE"}:
            out.append(f"{name}: capabilities add {caps['add']}")
    return out


def pod_of(objects: list[dict]) -> dict:
    (deployment,) = of_kind(objects, "Deployment")
    return deployment["spec"]["template"]["spec"]


@pytest.fixture(scope="session")
def pod_security_check() -> str:
    proc = subprocess.run([TOOLS, "pod-security-check"], capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()


def admission(checker: str, template: dict) -> subprocess.CompletedProcess:
    return subprocess.run([checker], input=json.dumps(template), capture_output=True, text=True, timeout=60)


def pod_template(objects: list[dict]) -> dict:
    (deployment,) = of_kind(objects, "Deployment")
    return deployment["spec"]["template"]


@pytest.mark.parametrize("values", [STORE, NO_STORE, CUSTOM], ids=["store", "no-store", "custom"])
def test_the_pod_meets_the_restricted_profile(helm, pod_security_check, values):
    template = pod_template(render(helm, *set_args(values)))
    assert restricted_violations(template["spec"]) == []
    proc = admission(pod_security_check, template)
    assert (proc.returncode, proc.stdout) == (0, "allowed\n"), proc.stdout + proc.stderr


def test_kubernetes_admission_refuses_a_pod_without_seccomp(helm, pod_security_check):
    """The checker is no formality: the pod as the chart made it before (no seccompProfile) is
    refused, naming the control and both containers."""
    template = pod_template(render(helm, *set_args(STORE)))
    del template["spec"]["securityContext"]["seccompProfile"]
    for c in template["spec"]["initContainers"] + template["spec"]["containers"]:
        del c["securityContext"]["seccompProfile"]
    proc = admission(pod_security_check, template)
    assert proc.returncode == 1
    assert proc.stdout.startswith("seccompProfile: ") and '"ceph-config", "exporter"' in proc.stdout, proc.stdout


def test_the_check_finds_each_kind_of_violation(helm):
    """No pass for want of a check: each control broken alone is named."""
    pod = pod_of(render(helm, *set_args(STORE)))

    def broken(change) -> list[str]:
        copy = yaml.safe_load(yaml.safe_dump(pod))
        change(copy)
        return restricted_violations(copy)

    def drop_seccomp(p):
        del p["securityContext"]["seccompProfile"]
        for c in p["initContainers"] + p["containers"]:
            del c["securityContext"]["seccompProfile"]

    assert broken(drop_seccomp) == ["ceph-config: seccompProfile None", "exporter: seccompProfile None"]
    assert broken(lambda p: p["initContainers"][0]["securityContext"].pop("allowPrivilegeEscalation")) == [
        "ceph-config: allowPrivilegeEscalation is not false"
    ]
    assert broken(lambda p: p["initContainers"][0]["securityContext"]["capabilities"].update(drop=[])) == [
        "ceph-config: capabilities do not drop ALL"
    ]
    assert broken(lambda p: p["volumes"].append({"name": "h", "hostPath": {"path": "/"}})) == ["volume h: ['hostPath']"]
    assert broken(lambda p: p["containers"][0]["securityContext"].update(runAsNonRoot=False)) == [
        "exporter: runAsNonRoot is not true"
    ]
    assert broken(lambda p: p.update(hostNetwork=True)) == ["hostNetwork: true"]


def test_what_the_chart_adds_to_the_profile(helm):
    pod = pod_of(render(helm, *set_args(STORE)))
    assert pod["automountServiceAccountToken"] is False
    assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
    for c in pod["initContainers"] + pod["containers"]:
        sc = c["securityContext"]
        assert sc["readOnlyRootFilesystem"] is True, c["name"]
        assert sc["capabilities"] == {"drop": ["ALL"]}, c["name"]
        assert sc["seccompProfile"] == {"type": "RuntimeDefault"}, c["name"]
        assert c["resources"]["requests"] and c["resources"]["limits"]["memory"], c["name"]
    (exporter,) = pod["containers"]
    # the sidecar serves both (exporter/sidecar/http_server.py): alive while it answers, ready
    # once a first snapshot is rendered
    assert exporter["livenessProbe"]["httpGet"] == {"path": "/-/healthy", "port": "metrics"}
    assert exporter["readinessProbe"]["httpGet"] == {"path": "/-/ready", "port": "metrics"}
