// TopicPartition: the one value type naming a partition (Kafka's
// TopicPartition, Redpanda's ntp), used as a map key and a purgatory key
// everywhere instead of per-module structs and "topic-partition" strings.
// A plain value: copyable, ordered, hashable; no validation (a topic name is
// checked where it enters, see broker/topic_name.h).
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>

namespace spool {

struct TopicPartition {
  std::string topic;
  int32_t partition = 0;

  TopicPartition() = default;
  TopicPartition(std::string t, int32_t p) : topic(std::move(t)), partition(p) {}

  auto operator<=>(const TopicPartition&) const = default;
  bool operator==(const TopicPartition&) const = default;

  // "topic-partition", as Kafka prints it (logs, directory names).
  std::string to_string() const { return topic + "-" + std::to_string(partition); }
};

struct TopicPartitionHash {
  size_t operator()(const TopicPartition& tp) const noexcept {
    return std::hash<std::string>{}(tp.topic) * 31u + static_cast<size_t>(static_cast<uint32_t>(tp.partition));
  }
};

}  // namespace spool

template <>
struct std::hash<spool::TopicPartition> : spool::TopicPartitionHash {};
