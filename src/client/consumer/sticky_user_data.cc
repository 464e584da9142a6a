#include "client/consumer/sticky_user_data.h"

#include <algorithm>
#include <string>

#include "client/consumer/consumer_protocol.h"

namespace spool::client {

Bytes encode_sticky_user_data(const MemberData& data) {
  std::vector<std::pair<std::string, std::vector<int32_t>>> topics;
  for (const TopicPartition& tp : data.partitions) {
    auto it = std::find_if(topics.begin(), topics.end(), [&](const auto& t) { return t.first == tp.topic; });
    if (it == topics.end()) {
      topics.emplace_back(tp.topic, std::vector<int32_t>{});
      it = topics.end() - 1;
    }
    it->second.push_back(tp.partition);
  }
  ByteWriter w;
  w.i32(static_cast<int32_t>(topics.size()));
  for (const auto& [topic, partitions] : topics) {
    w.i16(static_cast<int16_t>(topic.size()));
    w.bytes(as_span(topic));
    w.i32(static_cast<int32_t>(partitions.size()));
    for (int32_t p : partitions) w.i32(p);
  }
  if (data.generation) w.i32(*data.generation);
  return w.take();
}

MemberData decode_sticky_user_data(ByteSpan bytes) {
  const MemberData unreadable{{}, kDefaultGeneration};
  ByteReader r(bytes);
  const int32_t topic_count = r.i32();
  if (!r.ok() || topic_count < 0) return unreadable;
  MemberData out;
  for (int32_t t = 0; t < topic_count && r.ok(); ++t) {
    const int16_t len = r.i16();
    if (len < 0) return unreadable;
    const ByteSpan name = r.take(static_cast<size_t>(len));
    const int32_t count = r.i32();
    if (!r.ok() || count < 0 || static_cast<size_t>(count) > r.remaining() / 4) return unreadable;
    const std::string topic(reinterpret_cast<const char*>(name.data()), name.size());
    for (int32_t i = 0; i < count; ++i) out.partitions.emplace_back(topic, r.i32());
  }
  if (!r.ok()) return unreadable;
  // v1 has the generation; v0 (or a short tail, which v1 cannot read) none.
  if (r.remaining() >= 4) out.generation = r.i32();
  return out;
}

Bytes encode_cooperative_user_data(int32_t generation) {
  ByteWriter w;
  w.i32(generation);
  return w.take();
}

std::optional<int32_t> decode_cooperative_user_data(const std::optional<Bytes>& bytes) {
  if (!bytes) return std::nullopt;
  ByteReader r(*bytes);
  const int32_t generation = r.i32();
  return r.ok() ? generation : kDefaultGeneration;
}

}  // namespace spool::client
