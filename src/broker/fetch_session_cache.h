// FetchSessionCache: the broker's incremental fetch sessions (KIP-227) and
// the factory of per-request FetchContexts (see fetch_session.h for the
// request kinds).
//
// Size limit and eviction follow Kafka: at most `max_slots` sessions
// (max.incremental.fetch.session.cache.slots). When full, a new session may
// take the slot of
//   1. the least recently used session, if unused for more than eviction_ms
//      (Kafka's fixed 120 s), else
//   2. the "least valuable" evictable session, ordered by (privileged, size,
//      id), if the newcomer is not less valuable. A session is evictable by a
//      privileged (follower) newcomer unless it is itself privileged and
//      younger than eviction_ms; by anyone only once older than eviction_ms.
// So young sessions are protected, followers beat consumers, and bigger
// sessions beat smaller ones. With max_slots = 0 no session is ever created
// (every full fetch is answered with session id 0, which clients accept).
//
// Session ids are random positive int32, unique among live sessions.
// Thread-safe: one mutex guards the cache and every session's contents; the
// work under it is proportional to the partitions of one request.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "broker/fetch_session.h"
#include "protocol/fetch_request.h"
#include "protocol/fetch_response.h"
#include "util/clock.h"

namespace spool::broker {

class FetchSessionCache {
 public:
  static constexpr int64_t kDefaultEvictionMs = 120000;

  struct Options {
    int32_t max_slots = 1000;
    int64_t eviction_ms = kDefaultEvictionMs;
    std::shared_ptr<Clock> clock;  // monotonic scale ages sessions; null: system_clock()
  };

  explicit FetchSessionCache(Options opts);
  FetchSessionCache(const FetchSessionCache&) = delete;
  FetchSessionCache& operator=(const FetchSessionCache&) = delete;

  // Classifies the (already decoded) request and, for incremental requests,
  // applies it to the session: checks the epoch, adds/updates/forgets
  // partitions and advances the epoch. `is_follower` = replica_id >= 0
  // (privileged sessions). `resolve` names the topic ids of v13+ requests.
  FetchContext new_context(const protocol::FetchRequest& req, int16_t version, bool is_follower,
                           const TopicIdResolver& resolve = {});

  // ---- Introspection (tests, metrics).
  struct SessionInfo {
    int32_t id = 0;
    int32_t epoch = 0;
    bool privileged = false;
    int64_t last_used_ms = 0;
    std::vector<CachedPartition> partitions;
  };
  std::optional<SessionInfo> session(int32_t id) const;
  size_t size() const;
  int64_t total_partitions() const;
  int64_t evictions() const;

 private:
  friend class FetchContext;
  using EvictableKey = std::tuple<bool, int32_t, int32_t>;  // privileged, size, id
  using LastUsedKey = std::pair<int64_t, int32_t>;         // last used ms, id

  int64_t now_ms() const;
  // Returns the new session's id, or 0 when there is no room.
  int32_t maybe_create_session(bool privileged, bool uses_topic_ids, const std::vector<FetchPartitionWanted>& wanted,
                               const std::vector<FetchPartitionResult>& results);
  protocol::FetchResponse complete_incremental(FetchContext& ctx, std::vector<FetchPartitionResult>& results);

  // The rest need mu_ held.
  int32_t new_session_id_locked();
  bool try_evict_locked(const EvictableKey& newcomer, bool privileged, int64_t now);
  // By value: the argument may be the map entry this erases.
  void remove_locked(std::shared_ptr<FetchSession> s);
  void touch_locked(FetchSession& s, int64_t now);

  const Options opts_;
  const std::shared_ptr<Clock> clock_;
  mutable std::mutex mu_;
  std::mt19937 rng_;
  std::unordered_map<int32_t, std::shared_ptr<FetchSession>> sessions_;
  std::set<LastUsedKey> last_used_;
  std::set<EvictableKey> evictable_by_all_;
  std::set<EvictableKey> evictable_by_privileged_;
  int64_t total_partitions_ = 0;
  int64_t evictions_ = 0;
};

}  // namespace spool::broker
