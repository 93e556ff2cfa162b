"""Zenoh's TLS between an affect robot and another member (docs/network.md, "Encrypting the
link"): the UAV runs with a Zenoh configuration that names the team's CA and its own
certificate, listens and connects only on `tls/` endpoints, and the whole recruitment
handshake goes over mutually authenticated TLS. A peer whose certificate another CA signed is
refused by the link and hears nothing.

The certificates are made here with the `cryptography` package, for 127.0.0.1 and localhost.
"""

import datetime
import ipaddress
import json
import tempfile
from pathlib import Path

import zenoh
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from test_interop import free_port, peer_config, take_over_from_the_uav


def _name(cn):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])


def _pem_key(key):
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def make_pki(dir, label):
    """A CA and one certificate it signs for 127.0.0.1 / localhost (server and client use);
    returns the paths: (ca.pem, cert.pem, key.pem)."""
    dir.mkdir(parents=True, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    valid = (now - datetime.timedelta(hours=1), now + datetime.timedelta(days=1))
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca = (
        x509.CertificateBuilder()
        .subject_name(_name(f"{label} CA"))
        .issuer_name(_name(f"{label} CA"))
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid[0])
        .not_valid_after(valid[1])
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True, key_cert_sign=True, crl_sign=True,
                content_commitment=False, key_encipherment=False, data_encipherment=False,
                key_agreement=False, encipher_only=False, decipher_only=False,
            ),
            critical=True,
        )
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(f"{label} member"))
        .issuer_name(ca.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(valid[0])
        .not_valid_after(valid[1])
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(ca_key, hashes.SHA256())
    )
    paths = (dir / "ca.pem", dir / "cert.pem", dir / "key.pem")
    paths[0].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    paths[2].write_bytes(_pem_key(key))
    return paths


def tls_settings(ca, cert, key):
    """Zenoh's `transport/link/tls` for a member: the team's CA, its own certificate for
    both directions, and the peer's certificate required (mutual TLS)."""
    return {
        "root_ca_certificate": str(ca),
        "listen_private_key": str(key),
        "listen_certificate": str(cert),
        "enable_mtls": True,
        "connect_private_key": str(key),
        "connect_certificate": str(cert),
        "verify_name_on_connect": True,
    }


def test_the_recruitment_handshake_runs_over_mutual_tls_and_a_peer_of_another_ca_hears_nothing():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        team_ca, team_cert, team_key = make_pki(tmp / "team", "team")
        team_tls = tls_settings(team_ca, team_cert, team_key)
        # The outsider trusts the team's CA (a public certificate) but holds a certificate of
        # its own CA: mutual TLS refuses it.
        _, outsider_cert, outsider_key = make_pki(tmp / "outsider", "outsider")
        outsider_tls = tls_settings(team_ca, outsider_cert, outsider_key)
        # The file a user gives `affect run --net --zenoh-config` (docs/network.md).
        config = tmp / "zenoh-tls.json5"
        config.write_text(json.dumps({"transport": {"link": {"tls": team_tls}}}, indent=2))

        # The outsider keeps trying to reach the Python member over TLS (Zenoh retries a
        # connection that fails, in the background) and listens to every key.
        hub = free_port()
        overheard = []
        conf = peer_config(f"tls/127.0.0.1:{free_port()}", outsider_tls, f"tls/127.0.0.1:{hub}")
        conf.insert_json5("connect/timeout_ms", "0")
        outsider = zenoh.open(conf)
        sub = outsider.declare_subscriber("affect/**", lambda s: overheard.append(str(s.key_expr)))
        try:
            steps = take_over_from_the_uav(tmp, team_tls, config, hub)
        finally:
            sub.undeclare()
            outsider.close()
        assert ("chose", "UGV#1") in steps, steps
        assert ("helped", "UGV#1") in steps, steps
        assert not overheard, f"a peer of another CA heard the team: {overheard[:5]}"
