// Fetch sessions (KIP-227): the per-request FetchContext and the state of one
// incremental session. The cache that owns sessions is in
// fetch_session_cache.h; FetchSessionCache::new_context() is the entry point.
//
// A fetch request is one of four kinds, decided by (session_id, epoch):
//   * sessionless  - v4-6, or epoch -1 (FINAL): read what is listed, answer
//                    everything, session id 0. An id given with -1 is closed.
//   * full         - epoch 0 (INITIAL): like sessionless, but answering tries
//                    to create a session (id returned, next epoch 1). An id
//                    given with epoch 0 is closed first. No room = id 0.
//   * incremental  - id != 0, epoch > 0 equal to the session's: the request's
//                    partitions are added/updated, forgotten_topics_data
//                    removed, all session partitions are read, and only the
//                    changed ones are answered. An emptied session is closed
//                    and the request becomes sessionless.
//   * session error - unknown id (FETCH_SESSION_ID_NOT_FOUND), wrong epoch
//                    (INVALID_FETCH_SESSION_EPOCH), or a request version on
//                    the other side of v13 from the one that created the
//                    session (FETCH_SESSION_TOPIC_ID_ERROR): no partitions
//                    are read.
//
// Topic ids (KIP-516): a session created by a v13+ request is keyed by
// (topic id, partition), as are its incremental updates and forgotten
// topics; older ones by (name, partition). A partition of an id-keyed session
// keeps the name the id resolved to when it was added (empty when the id was
// unknown then; the reader resolves it again, as Kafka does).
//
// How a request is answered (at once, or later by a delayed fetch) is not
// decided here: a context lists the partitions to read, the caller reads them
// whenever it likes, and make_response() turns the results into the answer.
// For min.bytes a caller sums the record bytes it read, as Kafka's DelayedFetch
// does (bytes readable past each fetch offset, unfiltered; Kafka uses the
// filtered view only to size responses for quotas). A partition with records
// is always part of the response, so filtering never changes that sum.
//
// Threading: a FetchContext is used by one thread at a time. Session state is
// only touched under the owning cache's mutex. Failure: bad input yields a
// Kafka error in the response, never an exception or crash.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "broker/topic_registry.h"
#include "protocol/error_code.h"
#include "protocol/fetch_response.h"

namespace spool::broker {

class FetchSessionCache;

inline constexpr int32_t kInvalidFetchSessionId = 0;
inline constexpr int32_t kInitialFetchEpoch = 0;
inline constexpr int32_t kFinalFetchEpoch = -1;

// The epoch expected after `epoch`: FINAL stays FINAL, and the counter wraps
// to 1 (never 0, which would mean "new session").
int32_t next_fetch_epoch(int32_t epoch);

// One partition a request (or a session) asks to read.
struct FetchPartitionWanted {
  std::string topic;  // v13+: the name the id resolved to, empty if unknown
  int32_t partition = 0;
  int64_t fetch_offset = 0;
  int32_t max_bytes = 0;
  int64_t log_start_offset = -1;  // the fetcher's, followers only
  int32_t current_leader_epoch = -1;
  TopicId topic_id{};             // v13+ only; all zero before
  int32_t last_fetched_epoch = -1;  // v12+; -1 = none
  bool operator==(const FetchPartitionWanted&) const = default;
};

// v13+ requests name topics by id: the registry's name for an id, or "" if
// it has none. Empty function = every id unknown.
using TopicIdResolver = std::function<std::string(const TopicId&)>;

// The read result of one partition, in the response's shape.
using FetchPartitionResult = protocol::FetchResponse::PartitionData;

// What a session remembers of a partition: the request parameters (so an
// incremental request may omit them) and what was last sent (so unchanged
// partitions can be left out).
struct CachedPartition {
  FetchPartitionWanted wanted;
  int64_t high_watermark = -1;          // last sent; -1 after an error so it is re-sent
  int64_t local_log_start_offset = -1;  // last sent

  // True if `r` must be in an incremental response: records, a changed high
  // watermark or log start offset, a preferred replica, an error, or a
  // diverging epoch. With
  // `update`, remember what is being sent.
  bool must_respond(const FetchPartitionResult& r, bool update);
};

// One incremental fetch session. Partitions keep their order; answered ones
// move to the back so partitions that got nothing are read first next time.
class FetchSession {
 public:
  FetchSession(int32_t id, bool privileged, bool uses_topic_ids, int64_t now_ms)
      : id_(id),
        privileged_(privileged),
        uses_topic_ids_(uses_topic_ids),
        creation_ms_(now_ms),
        last_used_ms_(now_ms) {}

  int32_t id() const { return id_; }
  bool privileged() const { return privileged_; }
  // Created by a v13+ request: keyed by topic id.
  bool uses_topic_ids() const { return uses_topic_ids_; }
  int64_t creation_ms() const { return creation_ms_; }
  int64_t last_used_ms() const { return last_used_ms_; }
  int32_t epoch() const { return epoch_; }
  int32_t cached_size() const { return cached_size_; }
  size_t size() const { return order_.size(); }
  bool empty() const { return order_.empty(); }
  const std::list<CachedPartition>& partitions() const { return order_; }

  // Partitions are named by (topic, topic_id, partition); the session's key
  // uses the id or the name (uses_topic_ids()), the other is ignored.
  CachedPartition* find(const std::string& topic, const TopicId& id, int32_t partition);
  CachedPartition* find(const FetchPartitionWanted& w) { return find(w.topic, w.topic_id, w.partition); }
  // Adds at the back, or updates the request parameters of a known partition
  // (an id-keyed partition keeps the name it was added with unless that was
  // empty).
  void upsert(const FetchPartitionWanted& w);
  bool remove(const std::string& topic, const TopicId& id, int32_t partition);
  void move_to_back(const FetchPartitionWanted& w);

 private:
  friend class FetchSessionCache;
  using Key = std::pair<std::string, int32_t>;  // name, or the 16 id bytes
  Key key(const std::string& topic, const TopicId& id, int32_t partition) const;
  struct KeyHash {
    size_t operator()(const Key& k) const;
  };

  const int32_t id_;
  const bool privileged_;
  const bool uses_topic_ids_;
  const int64_t creation_ms_;
  int64_t last_used_ms_;
  int32_t epoch_ = next_fetch_epoch(kInitialFetchEpoch);  // the epoch the next request must carry
  int32_t cached_size_ = -1;                              // size as the cache last indexed it; -1 = never
  std::list<CachedPartition> order_;
  std::unordered_map<Key, std::list<CachedPartition>::iterator, KeyHash> index_;
};

class FetchContext {
 public:
  enum class Kind { kSessionError, kSessionless, kFull, kIncremental };

  Kind kind() const { return kind_; }
  // Set: answer with this top-level error and no partitions (read nothing).
  std::optional<protocol::ErrorCode> error() const { return error_; }
  // The partitions to read, in order: the request's (duplicates merged, the
  // last one wins) or, for an incremental fetch, all of the session's.
  const std::vector<FetchPartitionWanted>& partitions() const { return partitions_; }
  // The session an incremental fetch belongs to (0 for other kinds).
  int32_t session_id() const { return session_ ? session_->id() : kInvalidFetchSessionId; }

  // Call once, with one result per partitions() entry in the same order.
  // Full: tries to create a session from the results. Incremental: updates
  // the session and keeps only the partitions that must be sent (an epoch
  // that moved meanwhile - a duplicate request - gives
  // INVALID_FETCH_SESSION_EPOCH). Topics are grouped as Kafka does: one entry
  // per run of consecutive partitions of the same topic.
  protocol::FetchResponse make_response(std::vector<FetchPartitionResult> results);
  // Instead of make_response, for a client over its fetch quota (Kafka's
  // getThrottledResponse): no partitions and no change to any session. A
  // full fetch gets no session (id 0) and will be sent again; an
  // incremental one keeps its session, whose partitions are sent later.
  protocol::FetchResponse throttled_response() const;

 private:
  friend class FetchSessionCache;
  FetchContext(Kind kind, FetchSessionCache* cache) : kind_(kind), cache_(cache) {}

  Kind kind_;
  FetchSessionCache* cache_;  // outlives every context it made
  std::optional<protocol::ErrorCode> error_;
  std::vector<FetchPartitionWanted> partitions_;
  std::shared_ptr<FetchSession> session_;  // incremental only; kept alive even if evicted meanwhile
  int32_t request_epoch_ = kFinalFetchEpoch;
  bool privileged_ = false;
  bool uses_topic_ids_ = false;  // the request is v13+
};

// Builds a response with the given results, grouped into topics.
protocol::FetchResponse build_fetch_response(const std::vector<FetchPartitionWanted>& wanted,
                                             std::vector<FetchPartitionResult>& results,
                                             const std::vector<bool>* include = nullptr);

}  // namespace spool::broker
