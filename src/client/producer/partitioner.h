// Choosing a partition for a produced record, as Kafka's Java producer does
// (KafkaProducer.partition and the built-in partitioner):
//  * murmur2 / to_positive / partition_for_key: the key hash, bit for bit
//    Kafka's Utils.murmur2 (seed 0x9747b28c, Java's wrapping int arithmetic)
//    and BuiltInPartitioner.partitionForKey, so a keyed record lands on the
//    partition the Java client would pick;
//  * Partitioner: the hook for a custom partitioner (partitioner.class);
//  * select_partition: the order of the rules (custom, then key hash unless
//    partitioner.ignore.keys, else the sticky partitioner);
//  * StickyPartitioner: Kafka's uniform sticky partitioner (KIP-480,
//    KIP-794) for records without a key or whose key is ignored.
//
// Deliberate differences from Kafka:
//  * a custom partitioner may answer -1 (kUseBuiltIn) to hand the record to
//    the built-in rules; Kafka rejects every negative answer;
//  * StickyPartitioner picks uniformly among the available partitions. It
//    does not weight them by queue size (partitioner.adaptive.partitioning
//    .enable), skip slow nodes (partitioner.availability.timeout.ms) or
//    prefer the client's rack (partitioner.rack.aware): those need the
//    accumulator's queue sizes and node latencies, which this file does not
//    see. Kafka itself picks uniformly when adaptive partitioning is off and
//    whenever all queues are the same length.
//
// Threading: the free functions are pure and thread-safe. StickyPartitioner
// is not thread-safe; the caller (the producer, under its own lock)
// serialises every call. A custom Partitioner is called wherever
// select_partition is called. Failure: select_partition returns a Status
// when the custom partitioner's answer is out of range or no partition count
// is known; nothing else fails.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <unordered_map>

#include "util/bytes.h"
#include "util/status.h"

namespace spool::client {

// Kafka's Utils.murmur2: 32-bit MurmurHash2 with seed 0x9747b28c, the value
// Java's signed int arithmetic gives (it may be negative).
int32_t murmur2(ByteSpan data);

// Kafka's Utils.toPositive: clears the sign bit (not the absolute value).
constexpr int32_t to_positive(int32_t n) { return n & 0x7fffffff; }

// Kafka's BuiltInPartitioner.partitionForKey: the partition of a serialised
// key among num_partitions (> 0), to_positive(murmur2(key)) % num_partitions.
int32_t partition_for_key(ByteSpan key, int32_t num_partitions);

// A user-supplied partitioner (Kafka's producer Partitioner interface,
// without the Cluster: the producer passes the topic's partition count).
class Partitioner {
 public:
  // The answer that hands the record to the built-in rules (key hash or
  // sticky partition) instead of choosing a partition.
  static constexpr int32_t kUseBuiltIn = -1;

  virtual ~Partitioner() = default;

  // Returns a partition in [0, num_partitions), or kUseBuiltIn. key and
  // value are the serialised bytes (nullopt = null).
  virtual int32_t partition(const std::string& topic, const std::optional<Bytes>& key,
                            const std::optional<Bytes>& value, int32_t num_partitions) = 0;
};

// select_partition's answer when the StickyPartitioner must choose.
inline constexpr int32_t kStickyPartition = -1;

// The partition of a record that names none (KafkaProducer.partition):
// `custom`'s answer if there is a custom partitioner and it does not answer
// kUseBuiltIn; else partition_for_key when the key is set and ignore_keys
// (partitioner.ignore.keys) is false; else kStickyPartition. Errors: a
// custom answer outside [-1, num_partitions), or num_partitions < 1.
Result<int32_t> select_partition(Partitioner* custom, const std::string& topic,
                                 const std::optional<Bytes>& key,
                                 const std::optional<Bytes>& value, int32_t num_partitions,
                                 bool ignore_keys);

// Kafka's BuiltInPartitioner, one state per topic. Each topic has a current
// sticky partition, chosen at random among the available partitions (those
// with a known leader; among all partitions when none is available) and
// kept until batch.size bytes have been produced to it.
//
// The producer's workflow, Kafka's RecordAccumulator.append:
//  1. p = partition(topic, available, num_partitions);
//  2. if p's queue has no incomplete batch (its last batch is full, or it
//     has none), call on_append(topic, p, 0, true) to complete a switch that
//     an earlier append deferred; if that returns true, start again at 1;
//  3. append the record to p's queue;
//  4. on_append(topic, p, appended_bytes, enable_switch), with enable_switch
//     true when p's queue has no incomplete batch after the append.
class StickyPartitioner {
 public:
  // batch_size is batch.size (values below 1 count as 1, as KafkaProducer
  // does). seed feeds the random choices; 0 = a random seed.
  explicit StickyPartitioner(int32_t batch_size, uint64_t seed = 0);

  // The topic's sticky partition, choosing one when the topic has none (or
  // when its current one is not below num_partitions). Entries of
  // `available` outside [0, num_partitions) are ignored. Returns -1 only
  // when num_partitions < 1.
  int32_t partition(const std::string& topic, std::span<const int32_t> available,
                    int32_t num_partitions);

  // Records `bytes` appended to `partition`, the topic's sticky partition
  // (anything else is ignored and returns false: a stale choice). Switches
  // (Kafka's updatePartitionInfo) when the bytes produced to it reach
  // batch.size and enable_switch is true, or reach 2 * batch.size whatever
  // enable_switch says; a switch leaves the topic without a sticky partition
  // until the next partition() call chooses one (possibly the same one).
  // Returns true when it switched.
  bool on_append(const std::string& topic, int32_t partition, int32_t bytes, bool enable_switch);

  // The topic's current sticky partition, or -1 when it has none.
  int32_t current(const std::string& topic) const;
  // Whether the topic's sticky partition has reached batch.size and only
  // waits for a batch boundary to switch (on_append(topic, p, 0, true)).
  bool switch_due(const std::string& topic) const;

  int32_t batch_size() const { return batch_size_; }

 private:
  struct TopicState {
    int32_t partition = -1;
    int64_t produced_bytes = 0;
  };

  int32_t next_partition(std::span<const int32_t> available, int32_t num_partitions);

  int32_t batch_size_;
  std::mt19937_64 rng_;
  std::unordered_map<std::string, TopicState> topics_;
};

}  // namespace spool::client
