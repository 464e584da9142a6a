#include "client/client_security.h"

#include <algorithm>
#include <map>
#include <set>

#include "config/config_def.h"
#include "security/jaas.h"
#include "security/sasl_client.h"

namespace spool::client {
namespace {

const std::set<std::string, std::less<>> kSslKeys = {
    "ssl.truststore.type", "ssl.truststore.location", "ssl.truststore.password", "ssl.truststore.certificates",
    "ssl.keystore.type",   "ssl.keystore.location",   "ssl.keystore.password",   "ssl.keystore.key",
    "ssl.keystore.certificate.chain", "ssl.key.password", "ssl.enabled.protocols", "ssl.protocol",
    "ssl.cipher.suites", "ssl.endpoint.identification.algorithm"};

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  return s;
}

Status invalid(const std::string& key, const std::string& why) {
  return Status::error("invalid value for client config '" + key + "': " + why);
}

Result<security::TlsStore> store(const std::map<std::string, std::string>& p, const std::string& kind) {
  auto get = [&](const std::string& k) {
    auto it = p.find("ssl." + kind + "." + k);
    return it == p.end() ? std::string() : it->second;
  };
  security::TlsStore s;
  s.location = get("location");
  s.inline_pem = get(kind == "keystore" ? "certificate.chain" : "certificates");
  s.inline_key = kind == "keystore" ? get("key") : "";
  s.password = get("password");
  s.type = upper(get("type"));
  if (!s.set()) return s;
  if (s.type.empty()) s.type = "JKS";  // Kafka's default
  if (s.type != "PEM" && s.type != "PKCS12") {
    return invalid("ssl." + kind + ".type", "'" + s.type + "' (Spool reads PEM and PKCS12 stores; JKS is Java's own "
                                              "format: convert it with keytool -importkeystore -deststoretype PKCS12)");
  }
  return s;
}

}  // namespace

Result<ClientSecurity> client_security(const config::PropertyList& properties) {
  std::map<std::string, std::string> p;
  for (const auto& [k, v] : properties) p[k] = v;  // a later duplicate wins
  ClientSecurity out;
  if (auto it = p.find("security.protocol"); it != p.end()) out.protocol = upper(it->second);
  if (out.protocol != "PLAINTEXT" && out.protocol != "SSL" && out.protocol != "SASL_PLAINTEXT" &&
      out.protocol != "SASL_SSL") {
    return invalid("security.protocol", "'" + out.protocol + "' (allowed: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL)");
  }
  for (const auto& [k, v] : p) {
    const bool sasl_key = k == "sasl.mechanism" || k == "sasl.jaas.config";
    if ((k.starts_with("ssl.") && !kSslKeys.count(k)) || (k.starts_with("sasl.") && !sasl_key)) {
      return invalid(k, "not supported by Spool's clients (ignoring it could connect less securely than asked)");
    }
  }
  if (out.protocol.starts_with("SASL_")) {
    out.sasl_mechanism = p.count("sasl.mechanism") ? upper(p["sasl.mechanism"]) : "GSSAPI";
    if (!security::new_sasl_client(out.sasl_mechanism, "", "")) {
      return invalid("sasl.mechanism", "'" + out.sasl_mechanism + "' (Spool's clients speak PLAIN, SCRAM-SHA-256 "
                                        "and SCRAM-SHA-512; Kafka's default is GSSAPI)");
    }
    if (!p.count("sasl.jaas.config")) return invalid("sasl.jaas.config", "not set (username and password)");
    auto jaas = security::parse_jaas_config(p["sasl.jaas.config"]);
    if (!jaas) return invalid("sasl.jaas.config", jaas.status().message());
    if (!jaas->options.count("username") || !jaas->options.count("password")) {
      return invalid("sasl.jaas.config", "the login module needs username=\"...\" and password=\"...\"");
    }
    out.user = jaas->options["username"];
    out.password = jaas->options["password"];
  }
  if (out.protocol == "SSL" || out.protocol == "SASL_SSL") {
    security::TlsConfig c;
    auto trust = store(p, "truststore");
    if (!trust) return trust.status();
    c.truststore = std::move(*trust);
    auto keys = store(p, "keystore");
    if (!keys) return keys.status();
    c.keystore = std::move(*keys);
    if (p.count("ssl.key.password")) c.key_password = p["ssl.key.password"];
    if (p.count("ssl.enabled.protocols")) c.protocols = config::split_list(p["ssl.enabled.protocols"]);
    for (const std::string& proto : c.protocols) {
      if (proto != "TLSv1.2" && proto != "TLSv1.3") return invalid("ssl.enabled.protocols", "'" + proto + "'");
    }
    if (p.count("ssl.cipher.suites")) c.cipher_suites = config::split_list(p["ssl.cipher.suites"]);
    if (p.count("ssl.endpoint.identification.algorithm")) {
      const std::string a = p["ssl.endpoint.identification.algorithm"];
      if (!a.empty() && upper(a) != "HTTPS") return invalid("ssl.endpoint.identification.algorithm", "'" + a + "'");
      c.verify_hostname = !a.empty();
    }
    auto ctx = security::TlsContext::create(c, security::TlsContext::Side::kClient);
    if (!ctx) return ctx.status();
    out.tls = std::move(*ctx);
  }
  return out;
}

Result<ClientSecurity> load_client_security(const std::string& path) {
  auto props = config::load_properties_file(path);
  if (!props) return Status::error("--command-config: " + props.status().message());
  auto s = client_security(*props);
  if (!s) return Status::error("--command-config " + path + ": " + s.status().message());
  return s;
}

}  // namespace spool::client
