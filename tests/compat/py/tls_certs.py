"""Throw-away TLS material for test_tls.py, made with the openssl command line
(and keytool for the PKCS12 trust store, see below) into a directory:

  ca.pem / ca.key                  the test CA (EC P-256, valid 2 days)
  server.pem / server.key          CN=localhost, SAN DNS:localhost,IP:127.0.0.1,
                                   serverAuth, signed by the CA
  server-keystore.pem              server key (unencrypted PKCS#8) + server cert + CA
                                   cert: Kafka's ssl.keystore.type=PEM file
  server-keystore-enc.pem          the same with the key encrypted (PKCS#8, PBES1
                                   PBE-SHA1-3DES, see generate()): ssl.key.password =
                                   KEY_PASSWORD
  server.p12                       PKCS12 keystore (key + chain, alias "server"),
                                   ssl.keystore.password = ssl.key.password = STORE_PASSWORD
  truststore.p12                   PKCS12 trust store holding the CA, STORE_PASSWORD
  wrong-host.pem / .key            CN=wrong.example, SAN DNS:wrong.example only
  wrong-host-keystore.pem          its PEM keystore (unencrypted key + chain)
  client-1.pem / .key              CN=client-1,OU=eng,O=Spool,C=NO, clientAuth, by the CA
  client-2.pem / .key              CN=Client-2,OU=eng,O=Spool,C=NO, by the CA (upper case:
                                   principal mapping with /L)
  other-ca.pem / .key              a second CA nobody trusts
  other-client.pem / .key          CN=client-1,OU=eng,O=Spool,C=NO again, but signed by
                                   the other CA

PKCS12 trust stores: `openssl pkcs12 -export -nokeys` (OpenSSL 3.0) writes a
certificate bag without Oracle's trusted-key-usage attribute
(2.16.840.1.113894.746875.1.1), and Java's PKCS12 KeyStore then loads zero
entries (`keytool -list`: "Your keystore contains 0 entries"), so Kafka
would trust nothing. OpenSSL 3.2 has `-jdktrust` for this; 3.0 does not. So
truststore.p12 is written by `keytool -importcert` (the JDK is there wherever
the peer or the Java suite runs); OpenSSL reads it as well (PBES2/AES-256,
HMAC-SHA256 MAC). Without keytool, truststore_p12 is None.

`generate(dirpath)` returns a TlsFiles with every path. It takes well under a
second on EC keys, plus one JVM start for keytool.
"""

import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Optional

KEY_PASSWORD = "key-secret-1"
STORE_PASSWORD = "store-secret-1"
CLIENT_1_DN = "CN=client-1,OU=eng,O=Spool,C=NO"
CLIENT_2_DN = "CN=Client-2,OU=eng,O=Spool,C=NO"
DAYS = "2"


@dataclass
class TlsFiles:
    dir: str
    ca: str                        # trust store PEM (the CA cert)
    ca_key: str
    server_cert: str
    server_key: str
    server_keystore: str           # PEM: unencrypted key + chain
    server_keystore_encrypted: str  # PEM: encrypted key (KEY_PASSWORD) + chain
    server_p12: str                # PKCS12 keystore (STORE_PASSWORD)
    truststore_p12: Optional[str]  # PKCS12 trust store (STORE_PASSWORD), None without keytool
    wrong_host_keystore: str       # PEM: key + chain of the DNS:wrong.example cert
    client_1_cert: str
    client_1_key: str
    client_2_cert: str
    client_2_key: str
    other_ca: str                  # a CA that nothing trusts
    other_client_cert: str         # CN=client-1... signed by other_ca
    other_client_key: str
    key_password: str = KEY_PASSWORD
    store_password: str = STORE_PASSWORD


def _openssl(*args, cwd):
    r = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)} failed ({r.returncode}):\n{r.stderr}")
    return r.stdout


def _subj(dn):
    """'CN=a,OU=b,O=c,C=d' (RFC 2253 order, most specific first) as openssl's
    -subj, which lists the RDNs from the root down."""
    return "/" + "/".join(reversed(dn.split(",")))


def _key(path, cwd):
    _openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path, cwd=cwd)


def _ca(name, cn, cwd):
    _key(f"{name}.key", cwd)
    _openssl("req", "-x509", "-new", "-key", f"{name}.key", "-out", f"{name}.pem", "-days", DAYS,
             "-subj", f"/CN={cn}", "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign,cRLSign", cwd=cwd)


def _leaf(name, dn, ca, extensions, cwd):
    _key(f"{name}.key", cwd)
    _openssl("req", "-new", "-key", f"{name}.key", "-out", f"{name}.csr", "-subj", _subj(dn), cwd=cwd)
    with open(os.path.join(cwd, f"{name}.ext"), "w") as f:
        f.write("basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\n" + extensions)
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key",
             "-CAcreateserial", "-days", DAYS, "-extfile", f"{name}.ext", "-out", f"{name}.pem", cwd=cwd)


def _cat(out, *parts, cwd):
    with open(os.path.join(cwd, out), "w") as f:
        for p in parts:
            with open(os.path.join(cwd, p)) as src:
                f.write(src.read())


def generate(dirpath):
    os.makedirs(dirpath, exist_ok=True)
    d = os.path.abspath(dirpath)
    _ca("ca", "Spool Test CA", d)
    _ca("other-ca", "Untrusted Test CA", d)
    server_ext = "extendedKeyUsage=serverAuth\n"
    client_ext = "extendedKeyUsage=clientAuth\n"
    _leaf("server", "CN=localhost", "ca", server_ext + "subjectAltName=DNS:localhost,IP:127.0.0.1\n", d)
    _leaf("wrong-host", "CN=wrong.example", "ca", server_ext + "subjectAltName=DNS:wrong.example\n", d)
    _leaf("client-1", CLIENT_1_DN, "ca", client_ext, d)
    _leaf("client-2", CLIENT_2_DN, "ca", client_ext, d)
    _leaf("other-client", CLIENT_1_DN, "other-ca", client_ext, d)

    # Kafka's PEM keystore: one file with the PKCS#8 key and the chain.
    _openssl("pkcs8", "-topk8", "-nocrypt", "-in", "server.key", "-out", "server.p8", cwd=d)
    _cat("server-keystore.pem", "server.p8", "server.pem", "ca.pem", cwd=d)
    # PBES1 (PKCS#12 PBE, SHA-1 and 3DES): Kafka decrypts a PEM key with the JDK's
    # SecretKeyFactory of the key's algorithm name, and Java 17 has none for
    # PBES2, OpenSSL 3's default ("NoSuchAlgorithmException: PBES2
    # SecretKeyFactory not available" at the peer's start).
    _openssl("pkcs8", "-topk8", "-in", "server.key", "-out", "server-enc.p8", "-v1", "PBE-SHA1-3DES",
             "-passout", f"pass:{KEY_PASSWORD}", cwd=d)
    _cat("server-keystore-enc.pem", "server-enc.p8", "server.pem", "ca.pem", cwd=d)
    _openssl("pkcs8", "-topk8", "-nocrypt", "-in", "wrong-host.key", "-out", "wrong-host.p8", cwd=d)
    _cat("wrong-host-keystore.pem", "wrong-host.p8", "wrong-host.pem", "ca.pem", cwd=d)

    _openssl("pkcs12", "-export", "-in", "server.pem", "-inkey", "server.key", "-certfile", "ca.pem",
             "-name", "server", "-out", "server.p12", "-passout", f"pass:{STORE_PASSWORD}",
             "-keypbe", "AES-256-CBC", "-certpbe", "AES-256-CBC", "-macalg", "sha256", cwd=d)
    truststore_p12 = None
    keytool = shutil.which("keytool")
    if keytool:
        r = subprocess.run([keytool, "-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem",
                            "-keystore", "truststore.p12", "-storetype", "PKCS12", "-storepass", STORE_PASSWORD],
                           cwd=d, capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"keytool -importcert failed ({r.returncode}):\n{r.stdout}{r.stderr}")
        truststore_p12 = os.path.join(d, "truststore.p12")

    p = lambda name: os.path.join(d, name)  # noqa: E731
    return TlsFiles(
        dir=d, ca=p("ca.pem"), ca_key=p("ca.key"), server_cert=p("server.pem"), server_key=p("server.key"),
        server_keystore=p("server-keystore.pem"), server_keystore_encrypted=p("server-keystore-enc.pem"),
        server_p12=p("server.p12"), truststore_p12=truststore_p12,
        wrong_host_keystore=p("wrong-host-keystore.pem"),
        client_1_cert=p("client-1.pem"), client_1_key=p("client-1.key"),
        client_2_cert=p("client-2.pem"), client_2_key=p("client-2.key"),
        other_ca=p("other-ca.pem"), other_client_cert=p("other-client.pem"), other_client_key=p("other-client.key"))


if __name__ == "__main__":
    import sys
    import tempfile
    import time
    t0 = time.monotonic()
    files = generate(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="spool-tls-"))
    print(f"{files} in {time.monotonic() - t0:.2f} s")
