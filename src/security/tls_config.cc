#include "security/tls_config.h"

#include <algorithm>

#include "config/listener.h"

namespace spool::security {
namespace {

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

// Reads one key of a listener: its override when set, else the broker-wide key.
class ListenerKeys {
 public:
  ListenerKeys(const config::BrokerConfig& cfg, std::string_view listener) : cfg_(cfg), listener_(listener) {}

  std::string name(std::string_view key) const {
    const std::string prefixed = config::listener_key(listener_, key);
    return cfg_.is_set(prefixed) ? prefixed : std::string(key);
  }
  std::string get(std::string_view key) const { return cfg_.get(name(key)); }
  std::vector<std::string> list(std::string_view key) const { return cfg_.get_list(name(key)); }

  Status invalid(std::string_view key, std::string_view why) const {
    return Status::error("invalid value for config '" + name(key) + "' (listener " + listener_ + "): " +
                         std::string(why));
  }

 private:
  const config::BrokerConfig& cfg_;
  std::string listener_;
};

Result<std::string> store_type(const ListenerKeys& keys, std::string_view key) {
  std::string type = upper(keys.get(key));
  if (type == "PEM" || type == "PKCS12") return type;
  if (type == "JKS") {
    return keys.invalid(key, "JKS stores are Java's own format, which Spool cannot read (Kafka's default): set "
                             "PEM or PKCS12, converting with `keytool -importkeystore -deststoretype PKCS12`");
  }
  return keys.invalid(key, "'" + type + "' is not a store type Spool reads (PEM or PKCS12)");
}

Result<TlsStore> keystore(const ListenerKeys& keys) {
  TlsStore s;
  s.location = keys.get("ssl.keystore.location");
  s.inline_pem = keys.get("ssl.keystore.certificate.chain");
  s.inline_key = keys.get("ssl.keystore.key");
  s.password = keys.get("ssl.keystore.password");
  const bool inline_set = !s.inline_pem.empty() || !s.inline_key.empty();
  if (inline_set && (s.inline_pem.empty() || s.inline_key.empty())) {
    return keys.invalid(s.inline_pem.empty() ? "ssl.keystore.certificate.chain" : "ssl.keystore.key",
                        "ssl.keystore.key and ssl.keystore.certificate.chain go together");
  }
  if (inline_set && !s.location.empty()) {
    return keys.invalid("ssl.keystore.location", "set either the keystore file or the inline PEM keys, not both");
  }
  if (!inline_set && s.location.empty()) {
    return keys.invalid("ssl.keystore.location", "a TLS listener needs its certificate and key: set "
                                                 "ssl.keystore.location (or the inline PEM ssl.keystore.key and "
                                                 "ssl.keystore.certificate.chain)");
  }
  if (inline_set) {
    s.type = "PEM";
    if (upper(keys.get("ssl.keystore.type")) != "PEM") {
      return keys.invalid("ssl.keystore.type", "ssl.keystore.key and ssl.keystore.certificate.chain are PEM text, "
                                               "so the keystore type must be PEM (as Kafka requires)");
    }
    return s;
  }
  auto type = store_type(keys, "ssl.keystore.type");
  if (!type) return type.status();
  s.type = *type;
  if (s.type == "PKCS12" && s.password.empty()) {
    return keys.invalid("ssl.keystore.password", "a PKCS12 keystore needs its password");
  }
  return s;
}

Result<TlsStore> truststore(const ListenerKeys& keys) {
  TlsStore s;
  s.location = keys.get("ssl.truststore.location");
  s.inline_pem = keys.get("ssl.truststore.certificates");
  s.password = keys.get("ssl.truststore.password");
  if (!s.location.empty() && !s.inline_pem.empty()) {
    return keys.invalid("ssl.truststore.location", "set either the truststore file or ssl.truststore.certificates");
  }
  if (!s.set()) return s;
  if (!s.inline_pem.empty()) {
    s.type = "PEM";
    if (upper(keys.get("ssl.truststore.type")) != "PEM") {
      return keys.invalid("ssl.truststore.type", "ssl.truststore.certificates is PEM text, so the truststore type "
                                                 "must be PEM (as Kafka requires)");
    }
    return s;
  }
  auto type = store_type(keys, "ssl.truststore.type");
  if (!type) return type.status();
  s.type = *type;
  return s;
}

}  // namespace

Result<TlsConfig> tls_listener_config(const config::BrokerConfig& cfg, std::string_view listener) {
  const ListenerKeys keys(cfg, listener);
  TlsConfig out;
  out.listener = std::string(listener);
  auto ks = keystore(keys);
  if (!ks) return ks.status();
  out.keystore = std::move(*ks);
  out.key_password = keys.get("ssl.key.password");
  auto ts = truststore(keys);
  if (!ts) return ts.status();
  out.truststore = std::move(*ts);

  const std::string auth = keys.get("ssl.client.auth");
  if (auth == "required") {
    out.client_auth = TlsClientAuth::kRequired;
  } else if (auth == "requested") {
    out.client_auth = TlsClientAuth::kRequested;
  } else if (auth == "none" || auth.empty()) {
    out.client_auth = TlsClientAuth::kNone;
  } else {
    return keys.invalid("ssl.client.auth", "'" + auth + "' (allowed: required, requested, none)");
  }
  if (out.client_auth != TlsClientAuth::kNone && !out.truststore.set()) {
    return keys.invalid("ssl.client.auth", "client certificates are checked against a truststore: set "
                                           "ssl.truststore.location (or ssl.truststore.certificates)");
  }

  out.protocols = keys.list("ssl.enabled.protocols");
  if (out.protocols.empty()) return keys.invalid("ssl.enabled.protocols", "enables no protocol");
  for (const std::string& p : out.protocols) {
    if (p != "TLSv1.2" && p != "TLSv1.3") {
      return keys.invalid("ssl.enabled.protocols", "'" + p + "' is not served (TLSv1.2 and TLSv1.3 are; older "
                                                   "versions are insecure)");
    }
  }
  const std::string proto = keys.get("ssl.protocol");
  if (proto != "TLSv1.3" && proto != "TLSv1.2" && proto != "TLS") {
    return keys.invalid("ssl.protocol", "'" + proto + "' (Spool serves TLS, TLSv1.2 and TLSv1.3)");
  }
  out.cipher_suites = keys.list("ssl.cipher.suites");
  out.principal_mapping_rules = keys.get("ssl.principal.mapping.rules");
  if (out.principal_mapping_rules.empty()) out.principal_mapping_rules = "DEFAULT";
  const std::string endpoint = keys.get("ssl.endpoint.identification.algorithm");
  if (endpoint != "https" && endpoint != "HTTPS" && !endpoint.empty()) {
    return keys.invalid("ssl.endpoint.identification.algorithm", "'" + endpoint + "' (allowed: https, or empty)");
  }
  out.verify_hostname = !endpoint.empty();
  return out;
}

}  // namespace spool::security
