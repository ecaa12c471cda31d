"""The sidecar's RGW credentials; the Admin Ops client itself is the core's (io/admin_ops.py)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RgwCredentials:
    access_key: str
    secret_key: str

    def __repr__(self) -> str:  # never let a secret reach a log line
        return f"RgwCredentials(access_key={self.access_key[:4]}..., secret_key=***)"
