#include "broker/fetch_session_cache.h"

#include <spdlog/spdlog.h>

#include <climits>
#include <map>
#include <tuple>

namespace spool::broker {

namespace {

// The request's partitions in order; a partition listed twice keeps its first
// position and its last parameters (as a Java LinkedHashMap put would). v13+
// names topics by id: each id is resolved once (a name, or "" if unknown) and
// partitions are told apart by id.
std::vector<FetchPartitionWanted> wanted_from_request(const protocol::FetchRequest& req, bool by_id,
                                                      const TopicIdResolver& resolve) {
  std::vector<FetchPartitionWanted> out;
  std::map<std::tuple<std::string, TopicId, int32_t>, size_t> seen;
  for (const auto& t : req.topics) {
    std::string name = t.topic;
    TopicId id{};
    if (by_id) {
      id = t.topic_id;
      name = resolve ? resolve(id) : std::string();
    }
    for (const auto& p : t.partitions) {
      FetchPartitionWanted w{by_id ? std::string() : name, p.partition, p.fetch_offset, p.partition_max_bytes,
                             p.log_start_offset, p.current_leader_epoch, id, p.last_fetched_epoch};
      auto [it, fresh] = seen.emplace(std::make_tuple(w.topic, id, p.partition), out.size());
      w.topic = name;
      if (fresh) {
        out.push_back(std::move(w));
      } else {
        out[it->second] = std::move(w);
      }
    }
  }
  return out;
}

}  // namespace

FetchSessionCache::FetchSessionCache(Options opts)
    : opts_(std::move(opts)), clock_(clock_or_system(opts_.clock)), rng_(std::random_device{}()) {}

int64_t FetchSessionCache::now_ms() const { return clock_->monotonic_ms(); }

FetchContext FetchSessionCache::new_context(const protocol::FetchRequest& req, int16_t version, bool is_follower,
                                            const TopicIdResolver& resolve) {
  // Before v7 there are no sessions: every request is a full, final one.
  const int32_t session_id = version >= 7 ? req.session_id : kInvalidFetchSessionId;
  const int32_t epoch = version >= 7 ? req.session_epoch : kFinalFetchEpoch;
  const bool by_id = version >= 13;

  if (epoch == kInitialFetchEpoch || epoch == kFinalFetchEpoch) {
    if (session_id != kInvalidFetchSessionId) {
      // A full request closes the session it names (the client starts over).
      std::lock_guard lock(mu_);
      auto it = sessions_.find(session_id);
      if (it != sessions_.end()) {
        spdlog::debug("fetch session {} closed by a full fetch (epoch {})", session_id, epoch);
        remove_locked(it->second);
      }
    }
    FetchContext ctx(epoch == kFinalFetchEpoch ? FetchContext::Kind::kSessionless : FetchContext::Kind::kFull,
                     this);
    ctx.partitions_ = wanted_from_request(req, by_id, resolve);
    ctx.privileged_ = is_follower;
    ctx.request_epoch_ = epoch;
    ctx.uses_topic_ids_ = by_id;
    return ctx;
  }

  std::lock_guard lock(mu_);
  auto it = sessions_.find(session_id);
  if (it == sessions_.end()) {
    FetchContext ctx(FetchContext::Kind::kSessionError, this);
    ctx.error_ = protocol::ErrorCode::kFetchSessionIdNotFound;
    return ctx;
  }
  std::shared_ptr<FetchSession> session = it->second;
  if (session->epoch_ != epoch) {
    spdlog::debug("fetch session {}: expected epoch {}, got {}", session_id, session->epoch_, epoch);
    FetchContext ctx(FetchContext::Kind::kSessionError, this);
    ctx.error_ = protocol::ErrorCode::kInvalidFetchSessionEpoch;
    return ctx;
  }
  if (session->uses_topic_ids() != by_id) {
    // Kafka: a session stays on the side of v13 it was created on.
    spdlog::debug("fetch session {}: created {} topic ids, request v{} cannot", session_id,
                  session->uses_topic_ids() ? "with" : "without", version);
    FetchContext ctx(FetchContext::Kind::kSessionError, this);
    ctx.error_ = protocol::ErrorCode::kFetchSessionTopicIdError;
    return ctx;
  }
  auto wanted = wanted_from_request(req, by_id, resolve);
  for (const auto& w : wanted) session->upsert(w);
  for (const auto& f : req.forgotten_topics_data) {
    for (int32_t p : f.partitions) session->remove(f.topic, by_id ? f.topic_id : TopicId{}, p);
  }
  if (session->empty()) {
    // Nothing left to follow: close the session, answer what was asked.
    spdlog::debug("fetch session {} emptied, closed", session_id);
    remove_locked(session);
    FetchContext ctx(FetchContext::Kind::kSessionless, this);
    ctx.partitions_ = std::move(wanted);
    ctx.privileged_ = is_follower;
    ctx.request_epoch_ = epoch;
    ctx.uses_topic_ids_ = by_id;
    return ctx;
  }
  touch_locked(*session, now_ms());
  session->epoch_ = next_fetch_epoch(session->epoch_);
  FetchContext ctx(FetchContext::Kind::kIncremental, this);
  ctx.partitions_.reserve(session->size());
  for (const auto& cp : session->partitions()) ctx.partitions_.push_back(cp.wanted);
  ctx.session_ = std::move(session);
  ctx.privileged_ = is_follower;
  ctx.request_epoch_ = epoch;
  ctx.uses_topic_ids_ = by_id;
  return ctx;
}

protocol::FetchResponse FetchSessionCache::complete_incremental(FetchContext& ctx,
                                                                std::vector<FetchPartitionResult>& results) {
  std::lock_guard lock(mu_);
  FetchSession& s = *ctx.session_;
  if (s.epoch_ != next_fetch_epoch(ctx.request_epoch_)) {
    // Another request with this epoch got in between: this one is a duplicate.
    spdlog::info("fetch session {}: epoch moved to {} while answering epoch {}; possible duplicate request", s.id(),
                 s.epoch_, ctx.request_epoch_);
    protocol::FetchResponse resp;
    resp.error_code = protocol::ErrorCode::kInvalidFetchSessionEpoch;
    resp.session_id = s.id();
    return resp;
  }
  std::vector<bool> include(results.size(), true);
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& w = ctx.partitions_[i];
    CachedPartition* cp = s.find(w);
    if (cp == nullptr) continue;  // cannot happen while the epoch matches; sending it is the safe side
    include[i] = cp->must_respond(results[i], /*update=*/true);
    if (include[i]) s.move_to_back(w);
  }
  auto resp = build_fetch_response(ctx.partitions_, results, &include);
  resp.session_id = s.id();
  return resp;
}

int32_t FetchSessionCache::maybe_create_session(bool privileged, bool uses_topic_ids,
                                                const std::vector<FetchPartitionWanted>& wanted,
                                                const std::vector<FetchPartitionResult>& results) {
  std::lock_guard lock(mu_);
  const int64_t now = now_ms();
  const auto size = static_cast<int32_t>(wanted.size());
  if (static_cast<int64_t>(sessions_.size()) >= opts_.max_slots &&
      !try_evict_locked(EvictableKey(privileged, size, 0), privileged, now)) {
    spdlog::debug("no fetch session created (privileged={}, size={}): cache full", privileged, size);
    return kInvalidFetchSessionId;
  }
  auto s = std::make_shared<FetchSession>(new_session_id_locked(), privileged, uses_topic_ids, now);
  for (size_t i = 0; i < wanted.size(); ++i) {
    s->upsert(wanted[i]);
    CachedPartition* cp = s->find(wanted[i]);
    cp->high_watermark = results[i].high_watermark;
    cp->local_log_start_offset = results[i].log_start_offset;
  }
  const int32_t id = s->id();
  sessions_.emplace(id, s);
  touch_locked(*s, now);
  spdlog::debug("created fetch session {} (privileged={}, {} partitions)", id, privileged, s->size());
  return id;
}

int32_t FetchSessionCache::new_session_id_locked() {
  std::uniform_int_distribution<int32_t> dist(1, INT32_MAX - 1);
  int32_t id = 0;
  do {
    id = dist(rng_);
  } while (id == kInvalidFetchSessionId || sessions_.count(id) != 0);
  return id;
}

bool FetchSessionCache::try_evict_locked(const EvictableKey& newcomer, bool privileged, int64_t now) {
  if (last_used_.empty()) return false;
  const auto [oldest_use, oldest_id] = *last_used_.begin();
  if (now - oldest_use > opts_.eviction_ms) {
    spdlog::debug("evicting stale fetch session {}", oldest_id);
    remove_locked(sessions_.at(oldest_id));
    ++evictions_;
    return true;
  }
  const auto& candidates = privileged ? evictable_by_privileged_ : evictable_by_all_;
  if (candidates.empty()) return false;
  const EvictableKey victim = *candidates.begin();
  if (newcomer < victim) return false;
  spdlog::debug("evicting fetch session {} (privileged={}, size={}) for a newcomer of size {}", std::get<2>(victim),
                std::get<0>(victim), std::get<1>(victim), std::get<1>(newcomer));
  remove_locked(sessions_.at(std::get<2>(victim)));
  ++evictions_;
  return true;
}

void FetchSessionCache::remove_locked(std::shared_ptr<FetchSession> s) {
  last_used_.erase(LastUsedKey(s->last_used_ms_, s->id()));
  const EvictableKey key(s->privileged(), s->cached_size_, s->id());
  evictable_by_all_.erase(key);
  evictable_by_privileged_.erase(key);
  if (sessions_.erase(s->id()) != 0 && s->cached_size_ > 0) total_partitions_ -= s->cached_size_;
}

void FetchSessionCache::touch_locked(FetchSession& s, int64_t now) {
  last_used_.erase(LastUsedKey(s.last_used_ms_, s.id()));
  s.last_used_ms_ = now;
  last_used_.emplace(now, s.id());
  if (s.cached_size_ != -1) {
    const EvictableKey old(s.privileged(), s.cached_size_, s.id());
    evictable_by_all_.erase(old);
    evictable_by_privileged_.erase(old);
    total_partitions_ -= s.cached_size_;
  }
  s.cached_size_ = static_cast<int32_t>(s.size());
  const EvictableKey key(s.privileged(), s.cached_size_, s.id());
  const bool old_enough = now - s.creation_ms() > opts_.eviction_ms;
  if (!s.privileged() || old_enough) evictable_by_privileged_.insert(key);
  if (old_enough) evictable_by_all_.insert(key);
  total_partitions_ += s.cached_size_;
}

std::optional<FetchSessionCache::SessionInfo> FetchSessionCache::session(int32_t id) const {
  std::lock_guard lock(mu_);
  auto it = sessions_.find(id);
  if (it == sessions_.end()) return std::nullopt;
  const FetchSession& s = *it->second;
  SessionInfo info{s.id(), s.epoch(), s.privileged(), s.last_used_ms(), {}};
  info.partitions.assign(s.partitions().begin(), s.partitions().end());
  return info;
}

size_t FetchSessionCache::size() const {
  std::lock_guard lock(mu_);
  return sessions_.size();
}

int64_t FetchSessionCache::total_partitions() const {
  std::lock_guard lock(mu_);
  return total_partitions_;
}

int64_t FetchSessionCache::evictions() const {
  std::lock_guard lock(mu_);
  return evictions_;
}

}  // namespace spool::broker
