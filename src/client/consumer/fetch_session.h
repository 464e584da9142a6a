// FetchSessionHandler: the client side of one broker's incremental fetch
// session (KIP-227, Kafka's FetchSessionHandler), one per node.
//
// build() takes the partitions the next Fetch should cover with their fetch
// data and says what to put in the request:
//   * a full request (session epoch 0, or -1 without sessions) lists every
//     partition; the partitions become the session's;
//   * an incremental request (the session id and the next epoch) lists only
//     partitions that are new or whose data changed, and names in
//     to_forget the session partitions left out; unchanged ones are implied.
// handle_response() updates the session from the answer:
//   * an error: FETCH_SESSION_ID_NOT_FOUND starts over with a new session
//     (id 0, epoch 0); any other (INVALID_FETCH_SESSION_EPOCH...) closes the
//     current one (same id, epoch 0): the next request is full either way;
//   * a full answer must hold exactly the session's partitions (else the
//     next request is full again); its session id, when not 0, opens an
//     incremental session at epoch 1; an empty full answer with a throttle
//     time (KIP-219) is not an error but starts over;
//   * an incremental answer must only hold session partitions (else the
//     session is closed); session id 0 means the broker ended the session,
//     otherwise the epoch moves on (after INT32_MAX comes 1).
// handle_error() (the request failed: network, timeout) closes the session.
// Returns of handle_response: true when the answer's partition data may be
// used. Pure state; not thread-safe (the consumer loop owns it).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "protocol/fetch_response.h"
#include "util/topic_partition.h"

namespace spool::client {

inline constexpr int32_t kInvalidSessionId = 0;
inline constexpr int32_t kInitialEpoch = 0;
inline constexpr int32_t kFinalEpoch = -1;

struct PartitionFetchData {
  int64_t fetch_offset = 0;
  int32_t current_leader_epoch = -1;
  int32_t last_fetched_epoch = -1;
  int64_t log_start_offset = -1;
  int32_t max_bytes = 0;
  bool operator==(const PartitionFetchData&) const = default;
};

struct FetchSessionRequest {
  int32_t session_id = kInvalidSessionId;
  int32_t epoch = kInitialEpoch;
  bool full = true;
  std::map<TopicPartition, PartitionFetchData> to_send;
  std::vector<TopicPartition> to_forget;
};

class FetchSessionHandler {
 public:
  explicit FetchSessionHandler(int32_t node_id = -1) : node_id_(node_id) {}

  FetchSessionRequest build(const std::map<TopicPartition, PartitionFetchData>& next);
  bool handle_response(const protocol::FetchResponse& response);
  void handle_error();

  int32_t session_id() const { return session_id_; }
  int32_t epoch() const { return epoch_; }
  // The next request will be a full one.
  bool full_next() const { return epoch_ == kInitialEpoch || epoch_ == kFinalEpoch; }
  const std::map<TopicPartition, PartitionFetchData>& session_partitions() const { return session_; }

 private:
  void close_existing() { epoch_ = kInitialEpoch; }
  void start_over() {
    session_id_ = kInvalidSessionId;
    epoch_ = kInitialEpoch;
  }

  int32_t node_id_;
  int32_t session_id_ = kInvalidSessionId;
  int32_t epoch_ = kInitialEpoch;
  std::map<TopicPartition, PartitionFetchData> session_;
};

}  // namespace spool::client
