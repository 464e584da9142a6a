// GroupCoordinator: partitions and ownership, describe/list/delete groups,
// lifecycle; the request logic lives in membership.cc,
// sync_heartbeat_leave.cc, offsets.cc and loading in group_loader.cc.
#include "coordinator/group/group_coordinator.h"

#include <algorithm>
#include <cctype>

#include "coordinator/group/coordinator_impl.h"
#include "coordinator/group/group_records.h"

namespace spool::coordinator {
namespace {

timer::PurgatoryOptions purgatory_options(const char* name, const GroupCoordinatorOptions& o,
                                          const std::shared_ptr<Clock>& clock) {
  timer::PurgatoryOptions p;
  p.name = name;
  p.clock = clock;
  p.start_reaper = o.start_reaper;
  p.shards = 32;
  return p;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

// Java's String.hashCode over UTF-16 code units, wrapping at 32 bits.
int32_t java_string_hash(const std::string& s) {
  uint32_t h = 0;
  auto add = [&h](uint32_t unit) { h = 31u * h + unit; };
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    uint32_t cp = c;
    size_t len = 1;
    if ((c & 0xF8) == 0xF0 && i + 3 < s.size()) {
      cp = ((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) | (s[i + 3] & 0x3Fu);
      len = 4;
    } else if ((c & 0xF0) == 0xE0 && i + 2 < s.size()) {
      cp = ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
      len = 3;
    } else if ((c & 0xE0) == 0xC0 && i + 1 < s.size()) {
      cp = ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu);
      len = 2;
    }
    // Invalid UTF-8 bytes count as one unit each (Java would see U+FFFD;
    // group ids from clients are valid UTF-8, so this is only a guard).
    if (cp >= 0x10000) {
      cp -= 0x10000;
      add(0xD800 + (cp >> 10));
      add(0xDC00 + (cp & 0x3FF));
    } else {
      add(cp);
    }
    i += len;
  }
  return static_cast<int32_t>(h);
}

GroupCoordinator::Impl::Impl(GroupCoordinator& s, OffsetsLog& l, GroupCoordinatorOptions o)
    : self(s),
      log(l),
      opts(std::move(o)),
      clock(clock_or_system(opts.clock)),
      join_purgatory(purgatory_options("Rebalance", opts, clock)),
      heartbeat_purgatory(purgatory_options("Heartbeat", opts, clock)) {}

int64_t GroupCoordinator::Impl::wall_now() const { return clock->wall_ms(); }

ErrorCode GroupCoordinator::Impl::status_for(const std::string& group_id) const {
  const int32_t p = self.partition_for(group_id);
  std::shared_lock lk(mu);
  if (shutting_down.load()) return ErrorCode::kNotCoordinator;
  if (loading.count(p)) return ErrorCode::kCoordinatorLoadInProgress;
  if (!owned.count(p)) return ErrorCode::kNotCoordinator;
  return ErrorCode::kNone;
}

std::shared_ptr<Group> GroupCoordinator::Impl::get_group(const std::string& group_id) const {
  std::shared_lock lk(mu);
  auto it = groups.find(group_id);
  return it == groups.end() ? nullptr : it->second;
}

std::shared_ptr<Group> GroupCoordinator::Impl::get_or_create_group(const std::string& group_id, bool create) {
  if (auto g = get_group(group_id)) return g;
  if (!create) return nullptr;
  std::unique_lock lk(mu);
  auto& slot = groups[group_id];
  if (!slot) slot = std::make_shared<Group>(group_id, self.partition_for(group_id), wall_now());
  return slot;
}

void GroupCoordinator::Impl::forget_group(const std::shared_ptr<Group>& g) {
  std::unique_lock lk(mu);
  auto it = groups.find(g->id);
  if (it != groups.end() && it->second == g) groups.erase(it);
}

GroupCoordinator::GroupCoordinator(OffsetsLog& log, GroupCoordinatorOptions options)
    : impl_(std::make_unique<Impl>(*this, log, std::move(options))) {
  if (impl_->opts.start_reaper && impl_->opts.offsets_retention_check_interval_ms > 0) {
    impl_->retention_thread = std::thread([this] {
      Impl& im = *impl_;
      std::unique_lock lk(im.retention_mu);
      while (!im.retention_stop) {
        im.retention_cv.wait_for(lk, std::chrono::milliseconds(im.opts.offsets_retention_check_interval_ms));
        if (im.retention_stop) break;
        lk.unlock();
        im.expire_offsets();
        lk.lock();
      }
    });
  }
}

GroupCoordinator::~GroupCoordinator() { shutdown(); }

int32_t GroupCoordinator::partition_for(const std::string& group_id) const {
  const int32_t n = impl_->log.partition_count();
  if (n <= 0) return 0;
  // Kafka's Utils.abs: n & 0x7fffffff (so INT_MIN maps to 0).
  return (java_string_hash(group_id) & 0x7fffffff) % n;
}

void GroupCoordinator::unload_partition(int32_t partition) {
  std::vector<std::shared_ptr<Group>> victims;
  {
    std::unique_lock lk(impl_->mu);
    impl_->owned.erase(partition);
    for (auto it = impl_->groups.begin(); it != impl_->groups.end();) {
      if (it->second->partition == partition) {
        victims.push_back(it->second);
        it = impl_->groups.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const auto& g : victims) {
    GroupLock gl(*g);
    for (auto& [id, m] : g->members) {
      JoinGroupResult r;
      r.error = ErrorCode::kNotCoordinator;
      r.member_id = id;
      g->invoke_join(*m, std::move(r));
      g->invoke_sync(*m, SyncGroupResult{ErrorCode::kNotCoordinator, {}, {}, {}});
    }
    g->transition_to(GroupState::kDead, impl_->wall_now());
    impl_->join_purgatory.check_and_complete(Impl::join_key(*g));
    for (auto& [id, m] : g->members) impl_->heartbeat_purgatory.check_and_complete(Impl::member_key(*g, id));
  }
}

bool GroupCoordinator::is_loading(int32_t partition) const {
  std::shared_lock lk(impl_->mu);
  return impl_->loading.count(partition) != 0;
}

ErrorCode GroupCoordinator::coordinator_status(const std::string& group_id) const {
  return impl_->status_for(group_id);
}

void GroupCoordinator::join_group(JoinGroupParams p, std::function<void(JoinGroupResult)> done) {
  impl_->join(std::move(p), std::move(done));
}
void GroupCoordinator::sync_group(SyncGroupParams p, std::function<void(SyncGroupResult)> done) {
  impl_->sync(std::move(p), std::move(done));
}
ErrorCode GroupCoordinator::heartbeat(const std::string& group_id, const std::string& member_id,
                                      const std::optional<std::string>& group_instance_id, int32_t generation_id) {
  return impl_->heartbeat(group_id, member_id, group_instance_id, generation_id);
}
LeaveGroupResult GroupCoordinator::leave_group(const std::string& group_id, const std::vector<LeavingMember>& members) {
  return impl_->leave(group_id, members);
}
void GroupCoordinator::commit_offsets(OffsetCommitParams p, std::function<void(PartitionErrors)> done) {
  impl_->commit(std::move(p), std::move(done));
}
OffsetFetchResult GroupCoordinator::fetch_offsets(const std::string& group_id,
                                                  const std::optional<std::vector<TopicPartitionKey>>& partitions,
                                                  bool require_stable) {
  return impl_->fetch(group_id, partitions, require_stable);
}
void GroupCoordinator::delete_offsets(const std::string& group_id, const std::vector<TopicPartitionKey>& partitions,
                                      std::function<void(ErrorCode, PartitionErrors)> done) {
  impl_->delete_offsets(group_id, partitions, std::move(done));
}

std::vector<DescribedGroup> GroupCoordinator::describe_groups(const std::vector<std::string>& group_ids) {
  std::vector<DescribedGroup> out;
  for (const auto& id : group_ids) {
    DescribedGroup d;
    d.group_id = id;
    d.state = "Dead";
    if (ErrorCode e = impl_->status_for(id); e != ErrorCode::kNone) {
      d.error = e;
      out.push_back(std::move(d));
      continue;
    }
    d.exists = false;
    if (auto g = impl_->get_group(id)) {
      GroupLock gl(*g);
      d.exists = !g->is(GroupState::kDead);
      d.state = state_name(g->state);
      d.protocol_type = g->protocol_type.value_or("");
      // Kafka shows the protocol and member metadata only when Stable.
      const bool stable = g->is(GroupState::kStable) && g->protocol_name;
      if (stable) d.protocol_name = *g->protocol_name;
      if (!g->is(GroupState::kDead)) {
        for (const auto& [mid, m] : g->members) {
          DescribedMember dm;
          dm.member_id = mid;
          dm.group_instance_id = m->group_instance_id;
          dm.client_id = m->client_id;
          dm.client_host = m->client_host;
          if (stable) {
            if (const Bytes* meta = m->metadata_for(*g->protocol_name)) dm.metadata = *meta;
            dm.assignment = m->assignment;
          }
          d.members.push_back(std::move(dm));
        }
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::pair<ErrorCode, std::vector<ListedGroup>> GroupCoordinator::list_groups(
    const std::vector<std::string>& states_filter) {
  std::vector<std::shared_ptr<Group>> all;
  ErrorCode error = ErrorCode::kNone;
  {
    std::shared_lock lk(impl_->mu);
    if (!impl_->loading.empty()) error = ErrorCode::kCoordinatorLoadInProgress;
    for (const auto& [id, g] : impl_->groups) all.push_back(g);
  }
  std::vector<std::string> wanted;
  for (const auto& s : states_filter) wanted.push_back(lower(s));
  std::vector<ListedGroup> out;
  for (const auto& g : all) {
    GroupLock gl(*g);
    if (g->is(GroupState::kDead)) continue;
    ListedGroup lg{g->id, g->protocol_type.value_or(""), state_name(g->state)};
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), lower(lg.state)) == wanted.end()) continue;
    out.push_back(std::move(lg));
  }
  std::sort(out.begin(), out.end(), [](const ListedGroup& a, const ListedGroup& b) { return a.group_id < b.group_id; });
  return {error, std::move(out)};
}

void GroupCoordinator::delete_groups(const std::vector<std::string>& group_ids,
                                     std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> done) {
  struct Pending {
    std::mutex mu;
    std::vector<std::pair<std::string, ErrorCode>> results;
    int outstanding = 1;  // released by the caller at the end
    std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> done;
  };
  auto pending = std::make_shared<Pending>();
  pending->done = std::move(done);
  pending->results.reserve(group_ids.size());
  for (const auto& id : group_ids) pending->results.emplace_back(id, ErrorCode::kNone);
  auto release = [pending] {
    std::unique_lock lk(pending->mu);
    if (--pending->outstanding > 0) return;
    lk.unlock();
    pending->done(std::move(pending->results));
  };
  for (size_t i = 0; i < group_ids.size(); ++i) {
    const std::string& id = group_ids[i];
    auto set = [&](ErrorCode e) {
      std::lock_guard lk(pending->mu);
      pending->results[i].second = e;
    };
    if (ErrorCode e = impl_->status_for(id); e != ErrorCode::kNone) {
      set(e);
      continue;
    }
    auto g = impl_->get_group(id);
    if (!g) {
      set(ErrorCode::kGroupIdNotFound);
      continue;
    }
    GroupLock gl(*g);
    if (g->is(GroupState::kDead)) {
      set(ErrorCode::kGroupIdNotFound);
    } else if (!g->is(GroupState::kEmpty)) {
      set(ErrorCode::kNonEmptyGroup);
    } else {
      std::vector<TopicPartitionKey> tps;
      for (const auto& [tp, e] : g->offsets) tps.push_back(tp);
      std::vector<LogRecord> records = impl_->cleanup_group(g, tps);
      if (!g->is(GroupState::kDead)) {  // pending commits still in flight
        g->transition_to(GroupState::kDead, impl_->wall_now());
        impl_->forget_group(g);
        records.push_back(LogRecord{encode_key(GroupRecordKey{g->id}), std::nullopt});
      }
      {
        std::lock_guard lk(pending->mu);
        ++pending->outstanding;
      }
      impl_->log.append(g->partition, std::move(records), [pending, i, release](Status s) {
        {
          std::lock_guard lk(pending->mu);
          pending->results[i].second = group_store_error(s);
        }
        release();
      });
    }
  }
  release();
}

void GroupCoordinator::advance_clock(int64_t timeout_ms) {
  // Several rounds: an expiry may schedule a timer that is already due.
  for (int i = 0; i < 8; ++i) {
    const bool a = impl_->heartbeat_purgatory.advance_clock(timeout_ms);
    const bool b = impl_->join_purgatory.advance_clock(timeout_ms);
    if (!a && !b) break;
  }
}

int GroupCoordinator::expire_offsets_now() { return impl_->expire_offsets(); }

void GroupCoordinator::shutdown() {
  if (!impl_ || impl_->shutting_down.exchange(true)) return;
  {
    std::lock_guard lk(impl_->retention_mu);
    impl_->retention_stop = true;
  }
  impl_->retention_cv.notify_all();
  if (impl_->retention_thread.joinable()) impl_->retention_thread.join();
  std::vector<std::shared_ptr<Group>> all;
  {
    std::unique_lock lk(impl_->mu);
    for (const auto& [id, g] : impl_->groups) all.push_back(g);
    impl_->groups.clear();
    impl_->owned.clear();
  }
  for (const auto& g : all) {
    GroupLock gl(*g);
    for (auto& [id, m] : g->members) {
      JoinGroupResult r;
      r.error = ErrorCode::kCoordinatorNotAvailable;
      r.member_id = id;
      g->invoke_join(*m, std::move(r));
      g->invoke_sync(*m, SyncGroupResult{ErrorCode::kCoordinatorNotAvailable, {}, {}, {}});
    }
    g->transition_to(GroupState::kDead, impl_->wall_now());
  }
  impl_->join_purgatory.shutdown(true);
  impl_->heartbeat_purgatory.shutdown(true);
}

}  // namespace spool::coordinator
