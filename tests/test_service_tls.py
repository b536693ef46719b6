"""Deployment rules this machine can run, on a real `grade serve` over loopback.

TLS: the server serves HTTPS with a certificate made here (a course CA and the server's certificate for
127.0.0.1), and `grade submit` verifies it, with --ca-file or through the system's store ($SSL_CERT_FILE), and
refuses a server it cannot verify: nothing is sent, and it says what to do.

Proxy headers: X-Forwarded-For and X-Forwarded-Proto are believed only from the proxy named with
--forwarded-allow-ips (here 127.0.0.2; Linux routes all of 127/8 to loopback). From any other address they
change nothing: the client's logged address, the scheme of the login link, the session cookie's Secure flag.
By default no address is trusted, $FORWARDED_ALLOW_IPS notwithstanding (uvicorn's own default trusts 127.0.0.1).
"""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
from service_helpers import SAMPLES, Server, course_folder, grade, issue_tokens

pytestmark = pytest.mark.slow
PROXY = "127.0.0.2"
FORGED = "203.0.113.7"


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def make_ca(folder: Path, name: str) -> tuple[Path, ec.EllipticCurvePrivateKey, x509.Certificate]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(_name(name)).issuer_name(_name(name)).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=False, content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=True,
                                         crl_sign=True, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
            .sign(key, hashes.SHA256()))
    path = folder / f"{name}.pem"
    path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return path, key, cert


def make_server_cert(folder: Path, ca_key: ec.EllipticCurvePrivateKey, ca: x509.Certificate) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(_name("grader.test")).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("localhost"),
                                                        x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    certfile, keyfile = folder / "server.pem", folder / "server.key"
    certfile.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    keyfile.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                          serialization.NoEncryption()))
    keyfile.chmod(0o600)
    return certfile, keyfile


def _course(tmp: Path) -> tuple[Path, dict[str, str]]:
    course = course_folder(tmp / "course", deadline="2099-01-01T00:00:00Z", students=["t1"], per_day=0)
    return course, issue_tokens(course)


def test_grade_submit_verifies_the_servers_certificate_and_refuses_one_it_cannot(tmp_path: Path) -> None:
    course, tokens = _course(tmp_path)
    ca, ca_key, ca_cert = make_ca(tmp_path, "course-ca")
    certfile, keyfile = make_server_cert(tmp_path, ca_key, ca_cert)
    stranger, _, _ = make_ca(tmp_path, "another-ca")
    server = Server(course, workers=1, args=("--ssl-certfile", str(certfile), "--ssl-keyfile", str(keyfile))).start()
    try:
        assert server.url.startswith("https://127.0.0.1:")
        sample = str(SAMPLES / "node-mul" / "correct_lesson_style.py")
        done = server.submit(tokens["t1"], sample, "--ca-file", str(ca))
        assert done.returncode == 0 and "Received: submission 1" in done.stdout, done.stdout + done.stderr
        assert "Score: 9/9 on the public checks" in done.stdout
        # the system's store: OpenSSL's default file, which $SSL_CERT_FILE names
        done = server.submit(tokens["t1"], "--status", env={"SSL_CERT_FILE": str(ca), "SSL_CERT_DIR": str(tmp_path)})
        assert done.returncode == 0, done.stderr
        for refused in (server.submit(tokens["t1"], sample, env={"AUTOGRADER_SUBMIT_RETRIES": "5"}),
                        server.submit(tokens["t1"], sample, "--ca-file", str(stranger))):
            assert refused.returncode == 2 and "Received" not in refused.stdout
            assert "could not be verified" in refused.stderr and "--ca-file" in refused.stderr, refused.stderr
        history = server.submit(tokens["t1"], "--history", "--json", env={"AUTOGRADER_CA_FILE": str(ca)})
        assert len(json.loads(history.stdout)["submissions"]) == 1  # the refused uploads were never sent
        downgraded = {"AUTOGRADER_SERVER": server.url.replace("https", "http"), "AUTOGRADER_SUBMIT_RETRIES": "0"}
        plain = server.submit(tokens["t1"], "--status", env=downgraded)  # the token is bound to the https server
        assert plain.returncode == 2 and f"first sent to {server.url}" in plain.stderr, plain.stderr
        plain = server.submit(tokens["t1"], "--status", "--new-server", env=downgraded)
        assert plain.returncode == 2 and "cannot reach" in plain.stderr  # no plain HTTP beside it
    finally:
        server.stop()
    bad = grade("serve", "--course", str(course), "--port", "0", "--ssl-certfile", str(keyfile))
    assert bad.returncode == 2 and "cannot load the certificate" in bad.stderr


def _login(server: Server, token: str, source: str) -> tuple[str, str]:
    """The login link's URL, and the cookie it sets, asked for from `source` with forged proxy headers."""
    host, port = server.url.split("://")[1].split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    forged = {"X-Forwarded-For": FORGED, "X-Forwarded-Proto": "https"}
    connection.request("POST", "/api/login-link", body=b"", headers={"Authorization": f"Bearer {token}", **forged})
    url = json.loads(connection.getresponse().read())["url"]
    connection.request("GET", "/login/" + url.rsplit("/", 1)[1], headers=forged)
    connection.getresponse().read()  # the link's page, asking; its form's POST signs in
    connection.request("POST", "/login/" + url.rsplit("/", 1)[1], body=b"",
                       headers={**forged, "Origin": f"http://{host}:{port}"})
    response = connection.getresponse()
    response.read()
    connection.close()
    return url, response.getheader("set-cookie") or ""


def _log(server: Server) -> str:
    assert server.process is not None and server.process.stdout is not None
    server.process.terminate()
    return server.process.stdout.read()


def test_proxy_headers_are_believed_from_the_configured_proxy_only(tmp_path: Path) -> None:
    course, tokens = _course(tmp_path)
    server = Server(course, workers=0, args=("--forwarded-allow-ips", PROXY, "--access-log")).start()
    try:
        direct, direct_cookie = _login(server, tokens["t1"], "127.0.0.1")
        proxied, proxied_cookie = _login(server, tokens["t1"], PROXY)
        log = _log(server)
    finally:
        server.stop()
    assert direct.startswith("http://") and "secure" not in direct_cookie.lower()  # a forged https is not https
    assert proxied.startswith("https://") and "secure" in proxied_cookie.lower()
    lines = [line for line in log.splitlines() if "/api/login-link" in line]
    assert len(lines) == 2 and lines[0].split()[1].startswith("127.0.0.1:") and FORGED not in lines[0], lines
    assert lines[1].split()[1].startswith(f"{FORGED}:"), lines


def test_by_default_no_proxy_is_trusted(tmp_path: Path) -> None:
    course, tokens = _course(tmp_path)
    # uvicorn alone would trust $FORWARDED_ALLOW_IPS, and 127.0.0.1 without it: grade serve trusts neither
    server = Server(course, workers=0, args=("--access-log",), env={"FORWARDED_ALLOW_IPS": "*"}).start()
    try:
        for source in ("127.0.0.1", PROXY):
            url, cookie = _login(server, tokens["t1"], source)
            assert url.startswith("http://") and "secure" not in cookie.lower()
        log = _log(server)
    finally:
        server.stop()
    assert "/api/login-link" in log and FORGED not in log
    refused = grade("serve", "--course", str(course), "--port", "0", "--forwarded-allow-ips", "*")
    assert refused.returncode == 2 and "never '*'" in refused.stderr
