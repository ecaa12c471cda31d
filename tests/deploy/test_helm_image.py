"""The chart's init container in the sidecar image itself (docker/image.sh builds it, podman runs
it), confined as the restricted profile and the chart confine it: the image's user, a read-only
root, every capability dropped, no new privileges. From files laid out as Kubernetes mounts Rook's
config map and secrets it writes ceph.conf, the keyring and the RGW keys' JSON file. No Ceph is
needed; tests/deploy/test_image.py then runs the exporter on such files against a real cluster."""

from __future__ import annotations

import json
import os
import stat

from tests.deploy.test_helm import STORE, of_kind, render, set_args
from tests.deploy.test_image import UID, image, owned_by_the_image_user, podman  # noqa: F401 (image: fixture)


def test_the_init_container_runs_confined_in_the_image(helm, image, tmp_path):  # noqa: F811
    objects = render(helm, *set_args(STORE))
    (deployment,) = of_kind(objects, "Deployment")
    pod = deployment["spec"]["template"]["spec"]
    (init,) = pod["initContainers"]
    dirs = {m["mountPath"]: tmp_path / m["name"] for m in init["volumeMounts"]}
    for d in dirs.values():
        d.mkdir()
        os.chown(d, UID, UID)
    files = {m["name"]: dirs[m["mountPath"]] for m in init["volumeMounts"]}
    owned_by_the_image_user(files["mon-endpoints"] / "mon-endpoints", "a=10.0.0.1:6789,b=10.0.0.2:6789")
    owned_by_the_image_user(files["client-key"] / "key", "AQBkey==")
    owned_by_the_image_user(files["rgw-user"] / "AccessKey", "0555b35654ad1656d804")
    owned_by_the_image_user(files["rgw-user"] / "SecretKey", "h7GhxuBLTrlhVUyxSPUKUV8r/2EI4ngqJxD7iBdBYLhwluN30JaT3Q==")
    sc = init["securityContext"]
    assert sc["readOnlyRootFilesystem"] and sc["capabilities"]["drop"] == ["ALL"]
    assert not sc["allowPrivilegeEscalation"]
    volumes = []
    for m in init["volumeMounts"]:
        volumes += ["-v", f"{dirs[m['mountPath']]}:{m['mountPath']}:{'ro' if m.get('readOnly') else 'rw'}"]
    env = [a for e in init["env"] for a in ("-e", f"{e['name']}={e['value']}")]
    proc = podman("run", "--rm", "--network", "none", "--read-only", "--cap-drop", "ALL",
                  "--security-opt", "no-new-privileges", "--user", f"{UID}:{UID}", *volumes, *env,
                  "--entrypoint", init["command"][0], image, *init["command"][1:], check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = files["ceph-config"]
    assert (out / "ceph.conf").read_text() == "[global]\nmon_host = 10.0.0.1:6789,10.0.0.2:6789\n"
    assert (out / "keyring").read_text() == "[client.ceph-scale]\nkey = AQBkey==\n"
    creds = out / "rgw-admin.json"
    assert stat.S_IMODE(creds.stat().st_mode) == 0o600 and creds.stat().st_uid == UID
    assert json.loads(creds.read_text()) == {
        "access_key": "0555b35654ad1656d804",
        "secret_key": "h7GhxuBLTrlhVUyxSPUKUV8r/2EI4ngqJxD7iBdBYLhwluN30JaT3Q==",
    }
