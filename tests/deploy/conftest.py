"""Fixtures the deployment tests share: helm, built once per machine by deploy/tools.sh."""

from __future__ import annotations

import subprocess

import pytest

from tests.deploy.source_tree import REPO

TOOLS = str(REPO / "deploy" / "tools.sh")


@pytest.fixture(scope="session")
def helm() -> str:
    proc = subprocess.run([TOOLS, "helm"], capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip()
