"""Certificates for the TLS tests, made per test by ``trustme`` (a CA of its own)."""

from __future__ import annotations

from pathlib import Path

import trustme


def certificate(folder: Path) -> tuple[str, str, str]:
    """A CA file, and a server certificate and key it signed for 127.0.0.1 and localhost."""
    folder.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA()
    issued = ca.issue_cert("127.0.0.1", "localhost")
    paths = [folder / name for name in ("ca.pem", "cert.pem", "key.pem")]
    ca.cert_pem.write_to_path(str(paths[0]))
    issued.cert_chain_pems[0].write_to_path(str(paths[1]))
    issued.private_key_pem.write_to_path(str(paths[2]))
    return str(paths[0]), str(paths[1]), str(paths[2])
