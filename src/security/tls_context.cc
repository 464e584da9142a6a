#include "security/tls_context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

#include "config/listener.h"

namespace spool::security {
namespace {

// A PEM block written on one line (a properties value without its newlines,
// as Kafka's inline keys often are) is re-wrapped so OpenSSL can read it.
std::string normalize_pem(const std::string& text) {
  std::string out;
  size_t pos = 0;
  while (true) {
    const size_t begin = text.find("-----BEGIN ", pos);
    if (begin == std::string::npos) break;
    const size_t label_end = text.find("-----", begin + 11);
    if (label_end == std::string::npos) break;
    const std::string label = text.substr(begin + 11, label_end - begin - 11);
    const std::string end_marker = "-----END " + label + "-----";
    const size_t end = text.find(end_marker, label_end + 5);
    if (end == std::string::npos) break;
    std::string body;
    for (size_t i = label_end + 5; i < end; ++i) {
      if (!std::isspace(static_cast<unsigned char>(text[i]))) body += text[i];
    }
    out += "-----BEGIN " + label + "-----\n";
    for (size_t i = 0; i < body.size(); i += 64) out += body.substr(i, 64) + "\n";
    out += end_marker + "\n";
    pos = end + end_marker.size();
  }
  return out;
}

Result<std::string> read_file(const std::string& path, const std::string& key) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error("cannot read '" + path + "' (" + key + ")");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Pkcs12Contents {
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  STACK_OF(X509)* ca = nullptr;
  ~Pkcs12Contents() {
    EVP_PKEY_free(key);
    X509_free(cert);
    sk_X509_pop_free(ca, X509_free);
  }
};

Status read_pkcs12(const std::string& der, const std::string& password, const std::string& what,
                   Pkcs12Contents& out) {
  BIO* bio = BIO_new_mem_buf(der.data(), static_cast<int>(der.size()));
  PKCS12* p12 = d2i_PKCS12_bio(bio, nullptr);
  BIO_free(bio);
  if (p12 == nullptr) return Status::error(what + " is not a PKCS12 file: " + openssl_errors());
  const int ok = PKCS12_parse(p12, password.c_str(), &out.key, &out.cert, &out.ca);
  PKCS12_free(p12);
  if (!ok) return Status::error(what + ": cannot open the PKCS12 store (wrong password?): " + openssl_errors());
  return Status::ok();
}

int password_cb(char* buf, int size, int /*rwflag*/, void* user) {
  const auto* pw = static_cast<const std::string*>(user);
  const int n = std::min<int>(size, static_cast<int>(pw->size()));
  std::copy_n(pw->data(), n, buf);
  return n;
}

Status load_keystore(SSL_CTX* ctx, const TlsConfig& c) {
  const std::string key_name = c.keystore.location.empty() ? "ssl.keystore.key" : "ssl.keystore.location";
  const std::string what = c.keystore.location.empty() ? "the inline keystore" : "keystore '" + c.keystore.location + "'";
  std::string text;
  if (!c.keystore.location.empty()) {
    auto r = read_file(c.keystore.location, key_name);
    if (!r) return r.status();
    text = std::move(*r);
  }
  if (c.keystore.type == "PKCS12") {
    Pkcs12Contents p;
    if (Status s = read_pkcs12(text, c.keystore.password, what, p); !s) return s;
    if (p.key == nullptr || p.cert == nullptr) return Status::error(what + " holds no private key and certificate");
    if (SSL_CTX_use_certificate(ctx, p.cert) != 1 || SSL_CTX_use_PrivateKey(ctx, p.key) != 1) {
      return Status::error(what + ": " + openssl_errors());
    }
    for (int i = 0; p.ca != nullptr && i < sk_X509_num(p.ca); ++i) SSL_CTX_add1_chain_cert(ctx, sk_X509_value(p.ca, i));
  } else {
    const std::string pem = normalize_pem(c.keystore.location.empty() ? c.keystore.inline_key + "\n" + c.keystore.inline_pem : text);
    // Kafka reads the key with ssl.key.password, falling back to the keystore's.
    std::string password = c.key_password.empty() ? c.keystore.password : c.key_password;
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, password_cb, &password);
    BIO_free(bio);
    if (key == nullptr) {
      return Status::error(what + ": no readable private key (encrypted with another ssl.key.password?): " +
                           openssl_errors());
    }
    const int key_ok = SSL_CTX_use_PrivateKey(ctx, key);
    EVP_PKEY_free(key);
    if (key_ok != 1) return Status::error(what + ": " + openssl_errors());
    bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    int n = 0;
    while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
      const int ok = n == 0 ? SSL_CTX_use_certificate(ctx, cert) : SSL_CTX_add0_chain_cert(ctx, cert);
      if (n == 0) X509_free(cert);
      if (ok != 1) {
        BIO_free(bio);
        return Status::error(what + ": " + openssl_errors());
      }
      ++n;
    }
    BIO_free(bio);
    ERR_clear_error();  // the read loop ends on a "no start line" error
    if (n == 0) return Status::error(what + " holds no certificate");
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return Status::error(what + ": the private key does not match the certificate: " + openssl_errors());
  }
  return Status::ok();
}

Status load_truststore(SSL_CTX* ctx, const TlsConfig& c) {
  if (!c.truststore.set()) {
    if (SSL_CTX_set_default_verify_paths(ctx) != 1) return Status::error("system CAs: " + openssl_errors());
    return Status::ok();
  }
  const std::string what = c.truststore.location.empty() ? "the inline truststore" : "truststore '" + c.truststore.location + "'";
  std::string text = c.truststore.inline_pem;
  if (!c.truststore.location.empty()) {
    auto r = read_file(c.truststore.location, "ssl.truststore.location");
    if (!r) return r.status();
    text = std::move(*r);
  }
  std::vector<X509*> certs;
  if (c.truststore.type == "PKCS12") {
    Pkcs12Contents p;
    if (Status s = read_pkcs12(text, c.truststore.password, what, p); !s) return s;
    if (p.cert != nullptr) certs.push_back(X509_dup(p.cert));
    for (int i = 0; p.ca != nullptr && i < sk_X509_num(p.ca); ++i) certs.push_back(X509_dup(sk_X509_value(p.ca, i)));
  } else {
    const std::string pem = normalize_pem(text);
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    while (X509* cert = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) certs.push_back(cert);
    BIO_free(bio);
    ERR_clear_error();
  }
  if (certs.empty()) return Status::error(what + " holds no certificate");
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
  for (X509* cert : certs) {
    X509_STORE_add_cert(store, cert);
    sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(cert)));
    X509_free(cert);
  }
  ERR_clear_error();  // a duplicate certificate is not an error
  SSL_CTX_set_client_CA_list(ctx, names);
  return Status::ok();
}

int version_of(const std::string& p) { return p == "TLSv1.2" ? TLS1_2_VERSION : TLS1_3_VERSION; }

// ssl.cipher.suites uses IANA names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256);
// OpenSSL names TLS 1.2 suites its own way and sets the two versions apart.
Status set_cipher_suites(SSL_CTX* ctx, const TlsConfig& c) {
  if (c.cipher_suites.empty()) return Status::ok();
  SSL_CTX* all_ctx = SSL_CTX_new(TLS_method());
  SSL_CTX_set_cipher_list(all_ctx, "ALL:COMPLEMENTOFALL");
  SSL* all = SSL_new(all_ctx);
  STACK_OF(SSL_CIPHER)* known = SSL_get_ciphers(all);
  std::string tls12, tls13, unknown;
  for (const std::string& name : c.cipher_suites) {
    const SSL_CIPHER* found = nullptr;
    for (int i = 0; i < sk_SSL_CIPHER_num(known) && found == nullptr; ++i) {
      const SSL_CIPHER* ci = sk_SSL_CIPHER_value(known, i);
      if (name == SSL_CIPHER_standard_name(ci)) found = ci;
    }
    if (found == nullptr) {
      unknown += (unknown.empty() ? "" : ", ") + name;
    } else if (std::string(SSL_CIPHER_get_version(found)) == "TLSv1.3") {
      tls13 += (tls13.empty() ? "" : ":") + std::string(SSL_CIPHER_get_name(found));
    } else {
      tls12 += (tls12.empty() ? "" : ":") + std::string(SSL_CIPHER_get_name(found));
    }
  }
  SSL_free(all);
  SSL_CTX_free(all_ctx);
  const std::string key = c.listener.empty() ? "ssl.cipher.suites" : "ssl.cipher.suites (listener " + c.listener + ")";
  if (!unknown.empty()) return Status::error("invalid value for config '" + key + "': unknown cipher suites " + unknown);
  // An empty TLS 1.3 list turns TLS 1.3 off; an empty TLS 1.2 list, TLS 1.2.
  const bool has12 = SSL_CTX_get_min_proto_version(ctx) <= TLS1_2_VERSION;
  const bool has13 = SSL_CTX_get_max_proto_version(ctx) >= TLS1_3_VERSION;
  if ((tls12.empty() || !has12) && (tls13.empty() || !has13)) {
    return Status::error("invalid value for config '" + key + "': no suite of an enabled protocol (ssl.enabled.protocols)");
  }
  if (SSL_CTX_set_ciphersuites(ctx, tls13.c_str()) != 1) return Status::error(key + ": " + openssl_errors());
  if (tls13.empty()) SSL_CTX_set_max_proto_version(ctx, TLS1_2_VERSION);
  if (tls12.empty()) {
    SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION);
  } else if (SSL_CTX_set_cipher_list(ctx, tls12.c_str()) != 1) {
    return Status::error(key + ": " + openssl_errors());
  }
  return Status::ok();
}

}  // namespace

Result<std::shared_ptr<const TlsContext>> TlsContext::create(const TlsConfig& config, Side side) {
  SSL_CTX* ctx = SSL_CTX_new(side == Side::kServer ? TLS_server_method() : TLS_client_method());
  if (ctx == nullptr) return Status::error("cannot create a TLS context: " + openssl_errors());
  std::shared_ptr<const TlsContext> out(new TlsContext(config, side, ctx));
  int lo = TLS1_3_VERSION, hi = TLS1_2_VERSION;
  for (const std::string& p : config.protocols) {
    lo = std::min(lo, version_of(p));
    hi = std::max(hi, version_of(p));
  }
  SSL_CTX_set_min_proto_version(ctx, lo);
  SSL_CTX_set_max_proto_version(ctx, hi);
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION | SSL_OP_ENABLE_KTLS);
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  if (Status s = set_cipher_suites(ctx, config); !s) return s;
  if (side == Side::kServer || config.keystore.set()) {
    if (Status s = load_keystore(ctx, config); !s) return s;
  }
  if (side == Side::kClient || config.truststore.set()) {
    if (Status s = load_truststore(ctx, config); !s) return s;
  }
  if (side == Side::kServer) {
    static const unsigned char kSessionContext[] = "spool";
    SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof(kSessionContext) - 1);
    const int mode = config.client_auth == TlsClientAuth::kRequired
                         ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
                         : config.client_auth == TlsClientAuth::kRequested ? SSL_VERIFY_PEER : SSL_VERIFY_NONE;
    SSL_CTX_set_verify(ctx, mode, nullptr);
  } else {
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  }
  return out;
}

TlsContext::~TlsContext() { SSL_CTX_free(ctx_); }

SSL* TlsContext::new_server_session() const {
  SSL* ssl = SSL_new(ctx_);
  if (ssl != nullptr) SSL_set_accept_state(ssl);
  return ssl;
}

SSL* TlsContext::new_client_session(const std::string& host) const {
  SSL* ssl = SSL_new(ctx_);
  if (ssl == nullptr) return nullptr;
  SSL_set_connect_state(ssl);
  SSL_set_tlsext_host_name(ssl, host.c_str());
  if (config_.verify_hostname && SSL_set1_host(ssl, host.c_str()) != 1) {
    SSL_free(ssl);
    return nullptr;
  }
  return ssl;
}

Status check_tls_listeners(const config::BrokerConfig& cfg) {
  for (const config::Listener& l : cfg.listeners()) {
    if (!config::is_tls_protocol(l.security_protocol)) continue;
    auto c = tls_listener_config(cfg, l.name);
    if (!c) return c.status();
    if (auto ctx = TlsContext::create(*c, TlsContext::Side::kServer); !ctx) {
      return Status::error("listener " + l.name + ": " + ctx.status().message());
    }
  }
  return Status::ok();
}

std::string openssl_errors(std::string_view fallback) {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    out += (out.empty() ? "" : "; ") + std::string(buf);
  }
  return out.empty() ? std::string(fallback) : out;
}

}  // namespace spool::security
