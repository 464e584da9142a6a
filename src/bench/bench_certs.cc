// generate_bench_certs (bench_certs.h): an EC P-256 CA and server
// certificate through OpenSSL 3's EVP and X509 APIs, written as PEM.
#include "bench/bench_certs.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/stat.h>

#include <filesystem>
#include <memory>
#include <vector>

namespace spool::bench {
namespace {

struct Free {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
  void operator()(X509* p) const { X509_free(p); }
  void operator()(X509_EXTENSION* p) const { X509_EXTENSION_free(p); }
  void operator()(BIO* p) const { BIO_free_all(p); }
  void operator()(BIGNUM* p) const { BN_free(p); }
};
using Key = std::unique_ptr<EVP_PKEY, Free>;
using Cert = std::unique_ptr<X509, Free>;

constexpr long kValidSeconds = 2L * 24 * 3600;

// The OpenSSL error queue as text (emptied), after `what`.
Status ssl_error(const std::string& what) {
  std::string s = what;
  unsigned long e;
  char buf[256];
  while ((e = ERR_get_error()) != 0) {
    ERR_error_string_n(e, buf, sizeof buf);
    s += std::string(": ") + buf;
  }
  return Status::error("bench certificates: " + s);
}

Result<Key> new_p256_key() {
  Key k(EVP_EC_gen("P-256"));
  if (!k) return ssl_error("EVP_EC_gen(P-256)");
  return k;
}

Status add_ext(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  std::unique_ptr<X509_EXTENSION, Free> ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) return ssl_error(std::string("extension ") + value);
  return Status::ok();
}

// A certificate for `key` named CN=`cn`, signed by `issuer_key` (issuer:
// `issuer`, or the certificate itself when null), with `exts` as
// (nid, value) pairs in order (subjectKeyIdentifier before
// authorityKeyIdentifier, which reads the issuer's).
Result<Cert> make_cert(EVP_PKEY* key, const std::string& cn, X509* issuer, EVP_PKEY* issuer_key,
                       const std::vector<std::pair<int, const char*>>& exts) {
  Cert c(X509_new());
  if (!c || X509_set_version(c.get(), 2) != 1) return ssl_error("X509_new");
  unsigned char serial[16];
  if (RAND_bytes(serial, sizeof serial) != 1) return ssl_error("RAND_bytes");
  serial[0] &= 0x7f;  // a positive serial number
  std::unique_ptr<BIGNUM, Free> bn(BN_bin2bn(serial, sizeof serial, nullptr));
  if (!bn || BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(c.get())) == nullptr) return ssl_error("serial");
  if (X509_gmtime_adj(X509_getm_notBefore(c.get()), -3600) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(c.get()), kValidSeconds) == nullptr)
    return ssl_error("validity");
  X509_NAME* name = X509_get_subject_name(c.get());
  if (X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, reinterpret_cast<const unsigned char*>("spool bench"), -1,
                                 -1, 0) != 1 ||
      X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, reinterpret_cast<const unsigned char*>(cn.c_str()), -1,
                                 -1, 0) != 1)
    return ssl_error("subject");
  X509* signer = issuer != nullptr ? issuer : c.get();
  if (X509_set_issuer_name(c.get(), X509_get_subject_name(signer)) != 1) return ssl_error("issuer");
  if (X509_set_pubkey(c.get(), key) != 1) return ssl_error("X509_set_pubkey");
  for (const auto& [nid, value] : exts)
    if (auto st = add_ext(c.get(), signer, nid, value); !st) return st;
  if (X509_sign(c.get(), issuer_key, EVP_sha256()) == 0) return ssl_error("X509_sign");
  return c;
}

// Writes `path` (mode `mode`) through a file BIO that `write` fills with PEM blocks.
template <class Write>
Status write_pem(const std::string& path, mode_t mode, Write write) {
  std::unique_ptr<BIO, Free> bio(BIO_new_file(path.c_str(), "w"));
  if (!bio) return ssl_error("open " + path);
  if (chmod(path.c_str(), mode) != 0) return Status::error("bench certificates: chmod " + path);
  if (!write(bio.get())) return ssl_error("write " + path);
  if (BIO_flush(bio.get()) != 1) return ssl_error("flush " + path);
  return Status::ok();
}

}  // namespace

Result<BenchCerts> generate_bench_certs(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::error("bench certificates: mkdir " + dir + ": " + ec.message());
  ERR_clear_error();

  auto ca_key = new_p256_key();
  if (!ca_key) return ca_key.status();
  auto ca = make_cert(ca_key->get(), "spool bench CA", nullptr, ca_key->get(),
                      {{NID_basic_constraints, "critical,CA:TRUE"},
                       {NID_key_usage, "critical,keyCertSign,cRLSign"},
                       {NID_subject_key_identifier, "hash"},
                       {NID_authority_key_identifier, "keyid:always"}});
  if (!ca) return ca.status();

  auto key = new_p256_key();
  if (!key) return key.status();
  auto server = make_cert(key->get(), "localhost", ca->get(), ca_key->get(),
                          {{NID_basic_constraints, "critical,CA:FALSE"},
                           {NID_key_usage, "critical,digitalSignature,keyEncipherment"},
                           {NID_ext_key_usage, "serverAuth"},
                           {NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1"},
                           {NID_subject_key_identifier, "hash"},
                           {NID_authority_key_identifier, "keyid:always"}});
  if (!server) return server.status();

  BenchCerts out{dir + "/ca.pem", dir + "/server-keystore.pem"};
  if (auto st = write_pem(out.ca_file, 0644, [&](BIO* b) { return PEM_write_bio_X509(b, ca->get()) == 1; }); !st)
    return st;
  // PEM_write_bio_PrivateKey writes PKCS#8 ("BEGIN PRIVATE KEY"), the form
  // Kafka's PEM keystore reads.
  auto keystore = [&](BIO* b) {
    return PEM_write_bio_PrivateKey(b, key->get(), nullptr, nullptr, 0, nullptr, nullptr) == 1 &&
           PEM_write_bio_X509(b, server->get()) == 1 && PEM_write_bio_X509(b, ca->get()) == 1;
  };
  if (auto st = write_pem(out.keystore_file, 0600, keystore); !st) return st;
  return out;
}

}  // namespace spool::bench
