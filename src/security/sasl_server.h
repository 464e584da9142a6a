// SaslServer: the server side of one SASL mechanism for one authentication
// exchange (RFC 4422): the client's responses go in, the server's
// challenges come out, until the exchange succeeds or fails. One object per
// exchange (a re-authentication starts a new one); not thread-safe, used by
// the one reactor thread of its connection. evaluate() never throws: bad
// input is a failed step whose message goes to the client (Kafka's
// SaslAuthenticate error_message) and the log, and never contains a secret.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "util/bytes.h"

namespace spool::security {

struct SaslStep {
  enum class Outcome : uint8_t { kContinue, kDone, kFailed };
  Outcome outcome = Outcome::kFailed;
  Bytes challenge;   // kContinue: the next challenge; kDone: the mechanism's final server message (may be empty)
  std::string user;  // kDone: the authenticated user (the principal is User:<user>)
  std::string error; // kFailed: why

  static SaslStep failed(std::string why) { return {Outcome::kFailed, {}, {}, std::move(why)}; }
  static SaslStep done(std::string user, Bytes final_message = {}) {
    return {Outcome::kDone, std::move(final_message), std::move(user), {}};
  }
  static SaslStep next(Bytes challenge) { return {Outcome::kContinue, std::move(challenge), {}, {}}; }
};

class SaslServer {
 public:
  virtual ~SaslServer() = default;
  virtual std::string_view mechanism() const = 0;
  // One client response; after kDone or kFailed the exchange is over.
  virtual SaslStep evaluate(std::span<const uint8_t> response) = 0;
};

}  // namespace spool::security
