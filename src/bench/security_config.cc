// Broker and client settings of the security family (security_config.h).
#include "bench/security_config.h"

#include <cctype>
#include <fstream>
#include <iterator>

namespace spool::bench {
namespace {

constexpr const char* kAuthorizer = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string plain_jaas() {
  return std::string("org.apache.kafka.common.security.plain.PlainLoginModule required user_") + kProducerUser +
         "=\"" + kProducerPassword + "\";";
}

}  // namespace

Result<std::vector<ExtraListener>> pick_listeners(const SecurityListeners& want) {
  std::vector<ExtraListener> out;
  auto add = [&](const char* name, const char* protocol) -> Status {
    auto port = free_loopback_port();
    if (!port) return port.status();
    for (const auto& l : out)
      if (l.port == *port) return Status::error("the same free port twice");
    out.push_back(ExtraListener{name, protocol, *port});
    return Status::ok();
  };
  if (want.ssl)
    if (auto st = add(kSslListener, "SSL"); !st) return st;
  if (want.sasl_ssl)
    if (auto st = add(kSaslSslListener, "SASL_SSL"); !st) return st;
  if (want.sasl_plaintext)
    if (auto st = add(kSaslListener, "SASL_PLAINTEXT"); !st) return st;
  return out;
}

const ExtraListener* find_listener(const std::vector<ExtraListener>& listeners, const std::string& name) {
  for (const auto& l : listeners)
    if (l.name == name) return &l;
  return nullptr;
}

std::vector<std::string> security_overrides(const BenchCerts& certs, const std::vector<ExtraListener>& listeners,
                                            bool authorizer) {
  std::vector<std::string> ov;
  bool tls = false;
  for (const auto& l : listeners) {
    tls = tls || l.protocol == "SSL" || l.protocol == "SASL_SSL";
    if (l.protocol.rfind("SASL_", 0) == 0) {
      const std::string prefix = "listener.name." + lower(l.name) + ".";
      ov.push_back(prefix + "sasl.enabled.mechanisms=PLAIN");
      ov.push_back(prefix + "plain.sasl.jaas.config=" + plain_jaas());
    }
  }
  if (tls) {
    ov.push_back("ssl.keystore.type=PEM");
    ov.push_back("ssl.keystore.location=" + certs.keystore_file);
    ov.push_back("ssl.truststore.type=PEM");
    ov.push_back("ssl.truststore.location=" + certs.ca_file);
    ov.push_back("ssl.client.auth=none");
  }
  if (authorizer) {
    ov.push_back(std::string("authorizer.class.name=") + kAuthorizer);
    ov.push_back("super.users=User:ANONYMOUS");
  }
  return ov;
}

KafkaConfig client_security(const std::string& protocol, const BenchCerts& certs) {
  if (protocol == "PLAINTEXT") return {};
  KafkaConfig c = {{"security.protocol", lower(protocol)}};
  if (protocol == "SSL" || protocol == "SASL_SSL") c.push_back({"ssl.ca.location", certs.ca_file});
  if (protocol.rfind("SASL_", 0) == 0) {
    c.push_back({"sasl.mechanisms", "PLAIN"});
    c.push_back({"sasl.username", kProducerUser});
    c.push_back({"sasl.password", kProducerPassword});
  }
  return c;
}

std::string spool_tls_path(const std::string& broker_log_path) {
  std::ifstream in(broker_log_path, std::ios::binary);
  std::string log((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (log.find("kernel TLS is on") != std::string::npos)
    return "kernel TLS (the broker logged 'kernel TLS is on': the kernel encrypts, fetches keep sendfile)";
  if (log.find("kernel TLS is not available") != std::string::npos)
    return "user-space TLS (the broker logged 'kernel TLS is not available': OpenSSL encrypts in user space and "
           "fetches copy file bytes instead of sendfile)";
  return "";
}

}  // namespace spool::bench
