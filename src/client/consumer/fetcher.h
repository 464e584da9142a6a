// Fetcher: the consumer's Fetch requests and the buffer of fetched records
// (Kafka's Fetcher / AbstractFetch / FetchCollector).
//
// send_fetches() sends one Fetch (v4-v12: topics by name) to each leader
// that has fetchable partitions (subscription_state.h: assigned, not paused,
// with a valid position) that hold nothing in the buffer, unless a Fetch to
// that node is in flight or backing off after a failure. Each node has its
// own fetch session (fetch_session.h), so most requests are incremental.
// Settings: fetch.min.bytes, fetch.max.bytes, fetch.max.wait.ms,
// max.partition.fetch.bytes, isolation.level, client.rack.
//
// Answers (posted to the loop) are checked partition by partition against
// the position they were fetched for (a seek meanwhile drops them):
//   * records are parsed (fetched_records.h: read_committed filtering) and
//     buffered; the high watermark, log start and last stable offsets are
//     kept; a diverging epoch (v12) is truncation: the position is checked
//     as an OffsetForLeaderEpoch answer would be;
//   * NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH,
//     UNKNOWN_TOPIC_OR_PARTITION, REPLICA_NOT_AVAILABLE, KAFKA_STORAGE_ERROR,
//     OFFSET_NOT_AVAILABLE ask for a metadata update and are retried;
//   * OFFSET_OUT_OF_RANGE resets per auto.offset.reset, or (none) is
//     reported by the next drain(), as are authorization and corruption
//     errors.
// drain() hands out up to max.poll.records records, oldest fetch first, and
// moves each partition's position past what it returned (past skipped
// batches too, once a partition's buffered data is used up). Paused
// partitions keep their buffered data.
//
// Not thread-safe: the consumer loop owns it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "client/consumer/consumer_context.h"
#include "client/consumer/fetch_session.h"
#include "client/consumer/fetched_records.h"
#include "protocol/fetch_response.h"

namespace spool::client {

inline constexpr int16_t kMinFetchVersion = 4;
inline constexpr int16_t kMaxFetchVersion = 12;  // 13 names topics by id

class Fetcher {
 public:
  explicit Fetcher(ConsumerContext& ctx) : ctx_(ctx) {}

  // Returns the number of Fetch requests sent.
  int send_fetches();
  Result<std::vector<ConsumerRecord>> drain(int32_t max_records);
  bool has_buffered() const;
  bool has_pending_error() const { return !error_.is_ok(); }
  void clear_buffered(const TopicPartition& tp);
  void clear_all();
  bool fetch_in_flight(int32_t node_id) const { return in_flight_.count(node_id) > 0; }
  const FetchSessionHandler* session(int32_t node_id) const;

 private:
  struct Buffered {
    int64_t fetched_at = 0;  // the position the data was fetched for
    std::deque<ConsumerRecord> records;
    int64_t next_fetch_offset = 0;
    int32_t last_epoch = -1;
  };

  void on_response(const Node& node, const std::map<TopicPartition, PartitionFetchData>& requested,
                   Result<Reply<protocol::FetchResponse>>& reply);
  void on_partition(const TopicPartition& tp, const PartitionFetchData& requested,
                    const protocol::FetchResponse::FetchableTopicResponse::PartitionData& data);
  void set_error(Status s);

  ConsumerContext& ctx_;
  std::map<int32_t, FetchSessionHandler> sessions_;
  std::set<int32_t> in_flight_;
  std::map<int32_t, int64_t> backoff_until_;
  std::map<TopicPartition, Buffered> buffer_;
  std::deque<TopicPartition> order_;  // buffer_ keys, in arrival order
  Status error_;
};

}  // namespace spool::client
