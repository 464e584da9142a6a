// SaslClient: the client side of the SASL mechanisms Spool serves, for its
// own connections to brokers (the CLI's --command-config; later the
// inter-broker listener): PLAIN (RFC 4616) and SCRAM-SHA-256/512
// (RFC 5802/7677, no channel binding, as Kafka's clients).
//
// first() gives the initial response; each next(challenge) gives the
// following response, until done(). For SCRAM the server's final message is
// checked: its signature proves the server knew the credential, so a broker
// that merely accepts any password is caught. Not thread-safe (one
// exchange, one thread); errors never echo the password.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "util/bytes.h"
#include "util/status.h"

namespace spool::security {

class SaslClient {
 public:
  virtual ~SaslClient() = default;
  virtual std::string_view mechanism() const = 0;
  virtual Bytes first() = 0;
  // The response to the server's challenge; an empty Bytes when the
  // exchange needs none (then done() is true).
  virtual Result<Bytes> next(const Bytes& challenge) = 0;
  virtual bool done() const = 0;
};

// nullptr for a mechanism Spool cannot speak (only PLAIN and SCRAM-SHA-*).
std::unique_ptr<SaslClient> new_sasl_client(std::string_view mechanism, std::string user, std::string password);

}  // namespace spool::security
