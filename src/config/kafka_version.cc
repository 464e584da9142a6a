#include "config/kafka_version.h"

#include <charconv>

namespace spool::config {

namespace {
// A decimal number at the front of `s` (consumed), or nullopt.
std::optional<int> take_number(std::string_view& s) {
  int v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data() || v < 0) return std::nullopt;
  s.remove_prefix(static_cast<size_t>(end - s.data()));
  return v;
}
bool take(std::string_view& s, std::string_view what) {
  if (s.substr(0, what.size()) != what) return false;
  s.remove_prefix(what.size());
  return true;
}
}  // namespace

std::optional<KafkaVersion> parse_kafka_version(std::string_view s) {
  KafkaVersion v;
  auto major = take_number(s);
  if (!major || !take(s, ".")) return std::nullopt;
  auto minor = take_number(s);
  if (!minor) return std::nullopt;
  v.major = *major;
  v.minor = *minor;
  if (take(s, ".")) {
    auto patch = take_number(s);
    if (!patch) return std::nullopt;
    v.patch = *patch;
  }
  if (take(s, "-IV")) {
    auto iv = take_number(s);
    if (!iv) return std::nullopt;
    v.iv = *iv;
  }
  if (!s.empty()) return std::nullopt;
  return v;
}

bool truncation_on_fetch_supported(const KafkaVersion& v) {
  if (v.major != 2) return v.major > 2;
  if (v.minor != 7) return v.minor > 7;
  return v.iv == -1 || v.iv >= 1;
}

}  // namespace spool::config
