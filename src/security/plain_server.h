// SASL/PLAIN (RFC 4616) as Kafka serves it: one client message
// "[authzid] NUL authcid NUL password", checked against the users of the
// listener's PlainLoginModule (user_<name>="<password>" options). An
// authorization id other than the user name is refused, as Kafka does.
// Passwords are compared in constant time. PLAIN sends the password in the
// clear: Kafka and Spool serve it on SASL_SSL, or on trusted networks.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "security/sasl_server.h"

namespace spool::security {

// User name -> password. Immutable once built; shared by every exchange.
using PlainUsers = std::map<std::string, std::string, std::less<>>;

class PlainServer : public SaslServer {
 public:
  explicit PlainServer(std::shared_ptr<const PlainUsers> users) : users_(std::move(users)) {}
  std::string_view mechanism() const override { return "PLAIN"; }
  SaslStep evaluate(std::span<const uint8_t> response) override;

 private:
  std::shared_ptr<const PlainUsers> users_;
};

}  // namespace spool::security
