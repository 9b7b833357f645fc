"""Certificates for the demo listeners, generated at start with `cryptography` (never committed).

A small CA signs the healthy leaves; broken certificates (expired, wrong name, self-signed) are
made on demand so a probe meets the same failures a real upstream would show.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
from dataclasses import dataclass
from typing import TYPE_CHECKING

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class CertFiles:
    """PEM files on disk: `cert` (leaf, or CA for an authority) and its private `key`."""

    cert: Path
    key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "AgentOps demo"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _write(
    folder: Path, stem: str, cert: x509.Certificate, key: ec.EllipticCurvePrivateKey
) -> CertFiles:
    folder.mkdir(parents=True, exist_ok=True)
    cert_path = folder / f"{stem}.crt"
    key_path = folder / f"{stem}.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_path.chmod(0o600)
    return CertFiles(cert=cert_path, key=key_path)


def _san(names: list[str]) -> x509.SubjectAlternativeName:
    entries: list[x509.GeneralName] = []
    for name in names:
        try:
            entries.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            entries.append(x509.DNSName(name))
    return x509.SubjectAlternativeName(entries)


class CertAuthority:
    """A throwaway CA; `issue()` writes leaves signed by it."""

    def __init__(self, folder: Path, *, name: str = "AgentOps demo CA") -> None:
        self.folder = folder
        self._key = ec.generate_private_key(ec.SECP256R1())
        now = dt.datetime.now(dt.UTC)
        self._cert = (
            x509.CertificateBuilder()
            .subject_name(_name(name))
            .issuer_name(_name(name))
            .public_key(self._key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(days=30))
            .not_valid_after(now + dt.timedelta(days=365))
            .add_extension(
                x509.BasicConstraints(ca=True, path_length=None), critical=True
            )
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .sign(self._key, hashes.SHA256())
        )
        self.files = _write(folder, "ca", self._cert, self._key)

    def issue(
        self,
        stem: str,
        names: list[str],
        *,
        not_before: dt.datetime | None = None,
        not_after: dt.datetime | None = None,
    ) -> CertFiles:
        """Write a leaf for `names` (DNS names or IPs); validity defaults to now ± 30 days."""
        now = dt.datetime.now(dt.UTC)
        key = ec.generate_private_key(ec.SECP256R1())
        cert = (
            x509.CertificateBuilder()
            .subject_name(_name(names[0]))
            .issuer_name(self._cert.subject)
            .public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(not_before or now - dt.timedelta(days=30))
            .not_valid_after(not_after or now + dt.timedelta(days=30))
            .add_extension(_san(names), critical=False)
            .add_extension(
                x509.BasicConstraints(ca=False, path_length=None), critical=True
            )
            .add_extension(
                x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
            )
            .sign(self._key, hashes.SHA256())
        )
        return _write(self.folder, stem, cert, key)


def self_signed(
    folder: Path,
    stem: str,
    names: list[str],
    *,
    not_before: dt.datetime,
    not_after: dt.datetime,
) -> CertFiles:
    """Write a self-signed leaf for `names` with the given validity (an expired one, typically)."""
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(names[0]))
        .issuer_name(_name(names[0]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_before)
        .not_valid_after(not_after)
        .add_extension(_san(names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return _write(folder, stem, cert, key)
