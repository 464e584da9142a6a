// Test certificates made in-process with OpenSSL (EC P-256, valid for a
// day): a CA, a server certificate for localhost / 127.0.0.1 and a client
// certificate, each signed by the CA, and a second CA that signs nothing
// trusted. Written as PEM files into a fresh temporary directory (removed on
// destruction), and kept as PEM text for the inline keys.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "security/tls_config.h"

namespace spool::testing {

class TestCerts {
 public:
  struct Pair {
    std::string cert_pem;
    std::string key_pem;  // PKCS#8, unencrypted
  };

  TestCerts() {
    char tmpl[] = "/tmp/spool-certs-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    ca_key_ = EVP_EC_gen("P-256");
    ca_ = make_cert("CN=Spool Test CA,O=Spool", ca_key_, nullptr, nullptr, true, {});
    other_ca_key_ = EVP_EC_gen("P-256");
    other_ca_ = make_cert("CN=Other CA,O=Elsewhere", other_ca_key_, nullptr, nullptr, true, {});
    server = issue("CN=localhost,O=Spool", {"DNS:localhost", "IP:127.0.0.1"});
    client = issue("C=NO,O=Spool,OU=eng,CN=client-1", {});
    ca_pem = pem_of(ca_);
    other_ca_pem = pem_of(other_ca_);
    untrusted_client = issue_by(other_ca_, other_ca_key_, "CN=intruder", {});
    write("ca.pem", ca_pem);
    write("other-ca.pem", other_ca_pem);
    write("server.pem", server.key_pem + server.cert_pem + ca_pem);
    write("client.pem", client.key_pem + client.cert_pem);
  }
  ~TestCerts() {
    X509_free(ca_);
    X509_free(other_ca_);
    EVP_PKEY_free(ca_key_);
    EVP_PKEY_free(other_ca_key_);
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  TestCerts(const TestCerts&) = delete;
  TestCerts& operator=(const TestCerts&) = delete;

  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  // A server's TLS settings: server.pem (key and chain), trusting ca.pem.
  security::TlsConfig server_config(security::TlsClientAuth auth = security::TlsClientAuth::kNone) const {
    security::TlsConfig c;
    c.keystore = security::TlsStore{"PEM", path("server.pem"), "", "", ""};
    c.truststore = security::TlsStore{"PEM", path("ca.pem"), "", "", ""};
    c.client_auth = auth;
    return c;
  }
  // A client's: trusting `ca`, with client.pem when with_cert.
  security::TlsConfig client_config(bool with_cert, const std::string& ca = "ca.pem") const {
    security::TlsConfig c;
    c.truststore = security::TlsStore{"PEM", path(ca), "", "", ""};
    if (with_cert) c.keystore = security::TlsStore{"PEM", path("client.pem"), "", "", ""};
    return c;
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
  }
  // The server key encrypted with `password` (PKCS#8, AES-256), then its chain.
  std::string encrypted_server_pem(const std::string& password) const {
    BIO* bio = BIO_new_mem_buf(server.key_pem.data(), static_cast<int>(server.key_pem.size()));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    BIO* out = BIO_new(BIO_s_mem());
    PEM_write_bio_PKCS8PrivateKey(out, key, EVP_aes_256_cbc(), password.data(), static_cast<int>(password.size()),
                                  nullptr, nullptr);
    EVP_PKEY_free(key);
    return drain(out) + server.cert_pem + ca_pem;
  }

  Pair server;
  Pair client;
  Pair untrusted_client;
  std::string ca_pem;
  std::string other_ca_pem;

 private:
  static std::string drain(BIO* bio) {
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<size_t>(n));
    BIO_free(bio);
    return out;
  }
  static std::string pem_of(X509* cert) {
    BIO* out = BIO_new(BIO_s_mem());
    PEM_write_bio_X509(out, cert);
    return drain(out);
  }
  // "C=NO,O=Spool,..." in certificate order (most general first).
  static X509_NAME* name_of(const std::string& text) {
    X509_NAME* name = X509_NAME_new();
    size_t pos = 0;
    while (pos < text.size()) {
      size_t comma = text.find(',', pos);
      if (comma == std::string::npos) comma = text.size();
      const std::string part = text.substr(pos, comma - pos);
      const size_t eq = part.find('=');
      X509_NAME_add_entry_by_txt(name, part.substr(0, eq).c_str(), MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(part.c_str() + eq + 1), -1, -1, 0);
      pos = comma + 1;
    }
    return name;
  }
  static X509* make_cert(const std::string& subject, EVP_PKEY* key, X509* issuer, EVP_PKEY* issuer_key, bool ca,
                         const std::vector<std::string>& sans) {
    static long serial = 1;
    X509* cert = X509_new();
    X509_set_version(cert, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), serial++);
    X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
    X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
    X509_NAME* name = name_of(subject);
    X509_set_subject_name(cert, name);
    X509_set_issuer_name(cert, issuer ? X509_get_subject_name(issuer) : name);
    X509_NAME_free(name);
    X509_set_pubkey(cert, key);
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer ? issuer : cert, cert, nullptr, nullptr, 0);
    auto add = [&](int nid, const std::string& value) {
      X509_EXTENSION* ext = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str());
      X509_add_ext(cert, ext, -1);
      X509_EXTENSION_free(ext);
    };
    add(NID_basic_constraints, ca ? "critical,CA:TRUE" : "CA:FALSE");
    if (ca) add(NID_key_usage, "critical,keyCertSign,cRLSign");
    std::string san;
    for (const auto& s : sans) san += (san.empty() ? "" : ",") + s;
    if (!san.empty()) add(NID_subject_alt_name, san);
    X509_sign(cert, issuer_key ? issuer_key : key, EVP_sha256());
    return cert;
  }
  Pair issue_by(X509* ca, EVP_PKEY* ca_key, const std::string& subject, const std::vector<std::string>& sans) {
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* cert = make_cert(subject, key, ca, ca_key, false, sans);
    BIO* out = BIO_new(BIO_s_mem());
    PEM_write_bio_PKCS8PrivateKey(out, key, nullptr, nullptr, 0, nullptr, nullptr);
    Pair p{pem_of(cert), drain(out)};
    X509_free(cert);
    EVP_PKEY_free(key);
    return p;
  }
  Pair issue(const std::string& subject, const std::vector<std::string>& sans) {
    return issue_by(ca_, ca_key_, subject, sans);
  }

  std::string dir_;
  EVP_PKEY* ca_key_ = nullptr;
  EVP_PKEY* other_ca_key_ = nullptr;
  X509* ca_ = nullptr;
  X509* other_ca_ = nullptr;
};

}  // namespace spool::testing
