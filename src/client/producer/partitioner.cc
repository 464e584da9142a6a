#include "client/producer/partitioner.h"

#include <algorithm>
#include <string>

namespace spool::client {

int32_t murmur2(ByteSpan data) {
  // Java's int arithmetic wraps; unsigned 32-bit arithmetic gives the same
  // bits, and >>> is the unsigned shift.
  constexpr uint32_t kSeed = 0x9747b28cu;
  constexpr uint32_t kM = 0x5bd1e995u;
  constexpr int kR = 24;

  const size_t length = data.size();
  uint32_t h = kSeed ^ static_cast<uint32_t>(length);
  const size_t whole = length & ~size_t{3};
  for (size_t i = 0; i < whole; i += 4) {
    uint32_t k = static_cast<uint32_t>(data[i]) | (static_cast<uint32_t>(data[i + 1]) << 8) |
                 (static_cast<uint32_t>(data[i + 2]) << 16) |
                 (static_cast<uint32_t>(data[i + 3]) << 24);
    k *= kM;
    k ^= k >> kR;
    k *= kM;
    h *= kM;
    h ^= k;
  }

  // The last one to three bytes.
  switch (length & 3) {
    case 3:
      h ^= static_cast<uint32_t>(data[whole + 2]) << 16;
      [[fallthrough]];
    case 2:
      h ^= static_cast<uint32_t>(data[whole + 1]) << 8;
      [[fallthrough]];
    case 1:
      h ^= static_cast<uint32_t>(data[whole]);
      h *= kM;
      break;
    default:
      break;
  }

  h ^= h >> 13;
  h *= kM;
  h ^= h >> 15;
  return static_cast<int32_t>(h);
}

int32_t partition_for_key(ByteSpan key, int32_t num_partitions) {
  return to_positive(murmur2(key)) % num_partitions;
}

Result<int32_t> select_partition(Partitioner* custom, const std::string& topic,
                                 const std::optional<Bytes>& key,
                                 const std::optional<Bytes>& value, int32_t num_partitions,
                                 bool ignore_keys) {
  if (num_partitions < 1) {
    return Status::error("no partitions known for topic " + topic);
  }
  if (custom != nullptr) {
    const int32_t p = custom->partition(topic, key, value, num_partitions);
    if (p != Partitioner::kUseBuiltIn) {
      if (p < 0 || p >= num_partitions) {
        return Status::error("the partitioner chose partition " + std::to_string(p) +
                             " for topic " + topic + ", which has " +
                             std::to_string(num_partitions) + " partitions");
      }
      return p;
    }
  }
  if (key.has_value() && !ignore_keys) return partition_for_key(*key, num_partitions);
  return kStickyPartition;
}

StickyPartitioner::StickyPartitioner(int32_t batch_size, uint64_t seed)
    : batch_size_(std::max<int32_t>(batch_size, 1)) {
  if (seed == 0) {
    std::random_device rd;
    seed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }
  rng_.seed(seed);
}

int32_t StickyPartitioner::partition(const std::string& topic,
                                     std::span<const int32_t> available,
                                     int32_t num_partitions) {
  if (num_partitions < 1) return -1;
  TopicState& state = topics_[topic];
  if (state.partition < 0 || state.partition >= num_partitions) {
    state.partition = next_partition(available, num_partitions);
    state.produced_bytes = 0;
  }
  return state.partition;
}

bool StickyPartitioner::on_append(const std::string& topic, int32_t partition, int32_t bytes,
                                  bool enable_switch) {
  auto it = topics_.find(topic);
  if (it == topics_.end() || it->second.partition < 0 || it->second.partition != partition) {
    return false;
  }
  TopicState& state = it->second;
  state.produced_bytes += std::max<int32_t>(bytes, 0);
  // BuiltInPartitioner.updatePartitionInfo: switch once batch.size bytes
  // went to the partition, but only on a batch boundary (enable_switch)
  // unless twice batch.size went there already.
  const int64_t batch = batch_size_;
  if ((state.produced_bytes >= batch && enable_switch) || state.produced_bytes >= 2 * batch) {
    state.partition = -1;
    state.produced_bytes = 0;
    return true;
  }
  return false;
}

int32_t StickyPartitioner::current(const std::string& topic) const {
  auto it = topics_.find(topic);
  return it == topics_.end() ? -1 : it->second.partition;
}

bool StickyPartitioner::switch_due(const std::string& topic) const {
  auto it = topics_.find(topic);
  return it != topics_.end() && it->second.partition >= 0 && it->second.produced_bytes >= batch_size_;
}

int32_t StickyPartitioner::next_partition(std::span<const int32_t> available,
                                          int32_t num_partitions) {
  // Kafka: toPositive(random int) % count, over the available partitions if
  // any, else over all of them. The top 31 bits are a non-negative int.
  const auto random = static_cast<int32_t>(rng_() >> 33);
  const auto in_range = [num_partitions](int32_t p) { return p >= 0 && p < num_partitions; };
  const auto usable = std::count_if(available.begin(), available.end(), in_range);
  if (usable == 0) return random % num_partitions;
  auto pick = random % static_cast<int32_t>(usable);
  for (int32_t p : available) {
    if (in_range(p) && pick-- == 0) return p;
  }
  return random % num_partitions;  // not reached
}

}  // namespace spool::client
