#include "client/consumer/consumer_protocol.h"

#include <algorithm>

#include "protocol/consumer_protocol_assignment.h"
#include "protocol/consumer_protocol_subscription.h"

namespace spool::client {
namespace {

// Java's checkSubscriptionVersion/checkAssignmentVersion: newer versions are
// read as the newest known one.
Result<int16_t> read_version(ByteReader& r, const char* what) {
  const int16_t version = r.i16();
  if (!r.ok()) return Status::error(std::string("consumer protocol ") + what + ": no version header");
  if (version < 0) {
    return Status::error(std::string("consumer protocol ") + what + ": unsupported version " +
                         std::to_string(version));
  }
  return std::min(version, kConsumerProtocolMaxVersion);
}

// Groups partitions per topic, in the order given (consecutive or not).
template <typename Entry>
std::vector<Entry> group_by_topic(const std::vector<TopicPartition>& partitions) {
  std::vector<Entry> out;
  for (const TopicPartition& tp : partitions) {
    auto it = std::find_if(out.begin(), out.end(), [&](const Entry& e) { return e.topic == tp.topic; });
    if (it == out.end()) {
      out.push_back(Entry{tp.topic, {}});
      it = out.end() - 1;
    }
    it->partitions.push_back(tp.partition);
  }
  return out;
}

template <typename Entry>
std::vector<TopicPartition> flatten(const std::vector<Entry>& entries) {
  std::vector<TopicPartition> out;
  for (const Entry& e : entries) {
    for (int32_t p : e.partitions) out.emplace_back(e.topic, p);
  }
  return out;
}

Bytes with_header(int16_t version, const auto& body) {
  ByteWriter w;
  w.i16(version);
  body.encode(w, version);
  return w.take();
}

}  // namespace

Bytes encode_subscription(const Subscription& s, int16_t version) {
  protocol::ConsumerProtocolSubscription m;
  m.topics = s.topics;
  std::sort(m.topics.begin(), m.topics.end());
  m.user_data = s.user_data;
  std::vector<TopicPartition> owned = s.owned_partitions;
  std::sort(owned.begin(), owned.end());
  m.owned_partitions = group_by_topic<protocol::ConsumerProtocolSubscription::TopicPartition>(owned);
  m.generation_id = s.generation_id < 0 ? kDefaultGeneration : s.generation_id;
  m.rack_id = s.rack_id;
  return with_header(version, m);
}

Result<Subscription> decode_subscription(ByteSpan bytes) {
  ByteReader r(bytes);
  Result<int16_t> version = read_version(r, "subscription");
  if (!version) return version.status();
  protocol::ConsumerProtocolSubscription m;
  if (!m.decode(r, *version)) return Status::error("consumer protocol subscription: malformed");
  Subscription s;
  s.topics = std::move(m.topics);
  s.user_data = std::move(m.user_data);
  s.owned_partitions = flatten(m.owned_partitions);
  s.generation_id = m.generation_id;
  if (m.rack_id && !m.rack_id->empty()) s.rack_id = std::move(m.rack_id);
  return s;
}

Bytes encode_assignment(const Assignment& a, int16_t version) {
  protocol::ConsumerProtocolAssignment m;
  m.assigned_partitions = group_by_topic<protocol::ConsumerProtocolAssignment::TopicPartition>(a.partitions);
  m.user_data = a.user_data;
  return with_header(version, m);
}

Result<Assignment> decode_assignment(ByteSpan bytes) {
  ByteReader r(bytes);
  Result<int16_t> version = read_version(r, "assignment");
  if (!version) return version.status();
  protocol::ConsumerProtocolAssignment m;
  if (!m.decode(r, *version)) return Status::error("consumer protocol assignment: malformed");
  Assignment a;
  a.partitions = flatten(m.assigned_partitions);
  a.user_data = std::move(m.user_data);
  return a;
}

}  // namespace spool::client
