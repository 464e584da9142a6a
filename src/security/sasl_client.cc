#include "security/sasl_client.h"

#include <map>

#include "security/scram.h"

namespace spool::security {
namespace {

Bytes bytes_of(std::string_view s) { return Bytes(s.begin(), s.end()); }

class PlainClient : public SaslClient {
 public:
  PlainClient(std::string user, std::string password) : user_(std::move(user)), password_(std::move(password)) {}
  std::string_view mechanism() const override { return "PLAIN"; }
  Bytes first() override {
    std::string msg;
    msg += '\0';
    msg += user_;
    msg += '\0';
    msg += password_;
    return bytes_of(msg);
  }
  Result<Bytes> next(const Bytes&) override {
    done_ = true;
    return Bytes();
  }
  bool done() const override { return done_; }

 private:
  std::string user_, password_;
  bool done_ = false;
};

// RFC 5802 5.1: ',' and '=' in a user name are escaped.
std::string saslname(std::string_view user) {
  std::string out;
  for (char c : user) {
    if (c == ',') out += "=2C";
    else if (c == '=') out += "=3D";
    else out += c;
  }
  return out;
}

// "a=1,b=2" -> {a: 1, b: 2}
std::map<char, std::string> attributes(std::string_view msg) {
  std::map<char, std::string> out;
  size_t pos = 0;
  while (pos < msg.size()) {
    size_t comma = msg.find(',', pos);
    if (comma == std::string_view::npos) comma = msg.size();
    std::string_view part = msg.substr(pos, comma - pos);
    if (part.size() >= 2 && part[1] == '=') out.emplace(part[0], std::string(part.substr(2)));
    pos = comma + 1;
  }
  return out;
}

class ScramClient : public SaslClient {
 public:
  ScramClient(ScramMechanism m, std::string user, std::string password)
      : m_(m), user_(std::move(user)), password_(std::move(password)) {}
  std::string_view mechanism() const override { return scram_name(m_); }

  Bytes first() override {
    nonce_ = base64_encode(random_bytes(24));
    bare_ = "n=" + saslname(user_) + ",r=" + nonce_;
    return bytes_of("n,," + bare_);
  }

  Result<Bytes> next(const Bytes& challenge) override {
    const std::string msg(challenge.begin(), challenge.end());
    if (step_ == 0) return client_final(msg);
    if (step_ == 1) return verify_server_final(msg);
    return Status::error(std::string(mechanism()) + ": unexpected message after the exchange ended");
  }
  bool done() const override { return step_ == 2; }

 private:
  Result<Bytes> client_final(const std::string& server_first) {
    auto a = attributes(server_first);
    const std::string& r = a['r'];
    auto salt = base64_decode(a['s']);
    int iterations = 0;
    try {
      iterations = std::stoi(a['i']);
    } catch (...) {
    }
    if (!r.starts_with(nonce_) || r.size() == nonce_.size()) {
      return Status::error(std::string(mechanism()) + ": the server's nonce does not extend ours");
    }
    if (!salt || iterations < 1 || iterations > 1000000) {
      return Status::error(std::string(mechanism()) + ": malformed server-first message");
    }
    const Bytes salted = scram_salted_password(m_, password_, *salt, iterations);
    const std::string without_proof = "c=biws,r=" + r;  // base64("n,,")
    auth_message_ = bare_ + "," + server_first + "," + without_proof;
    Bytes proof = scram_hmac(m_, salted, "Client Key");
    const Bytes signature = scram_hmac(m_, scram_hash(m_, proof), auth_message_);
    for (size_t i = 0; i < proof.size(); ++i) proof[i] ^= signature[i];
    server_key_ = scram_hmac(m_, salted, "Server Key");
    step_ = 1;
    return bytes_of(without_proof + ",p=" + base64_encode(proof));
  }

  Result<Bytes> verify_server_final(const std::string& server_final) {
    auto a = attributes(server_final);
    if (a.count('e')) return Status::error(std::string(mechanism()) + ": the server refused: " + a['e']);
    const auto v = base64_decode(a['v']);
    if (!v || *v != scram_hmac(m_, server_key_, auth_message_)) {
      return Status::error(std::string(mechanism()) + ": the server's signature is wrong (it does not know the "
                                                      "credential)");
    }
    step_ = 2;
    return Bytes();
  }

  ScramMechanism m_;
  std::string user_, password_;
  std::string nonce_, bare_, auth_message_;
  Bytes server_key_;
  int step_ = 0;
};

}  // namespace

std::unique_ptr<SaslClient> new_sasl_client(std::string_view mechanism, std::string user, std::string password) {
  if (mechanism == "PLAIN") return std::make_unique<PlainClient>(std::move(user), std::move(password));
  if (auto m = scram_mechanism_named(mechanism)) {
    return std::make_unique<ScramClient>(*m, std::move(user), std::move(password));
  }
  return nullptr;
}

}  // namespace spool::security
