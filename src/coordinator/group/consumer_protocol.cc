#include "coordinator/group/consumer_protocol.h"

namespace spool::coordinator {

std::optional<std::set<std::string>> decode_subscription_topics(ByteSpan subscription) {
  ByteReader r(subscription);
  const int16_t version = r.i16();
  if (!r.ok() || version < 0) return std::nullopt;
  const int32_t count = r.i32();
  // Each name needs at least its 2-byte length.
  if (!r.ok() || count < 0 || static_cast<size_t>(count) > r.remaining() / 2) return std::nullopt;
  std::set<std::string> topics;
  for (int32_t i = 0; i < count; ++i) {
    const int16_t len = r.i16();
    if (!r.ok() || len < 0) return std::nullopt;
    ByteSpan s = r.take(static_cast<size_t>(len));
    if (!r.ok()) return std::nullopt;
    topics.emplace(reinterpret_cast<const char*>(s.data()), s.size());
  }
  return topics;
}

}  // namespace spool::coordinator
