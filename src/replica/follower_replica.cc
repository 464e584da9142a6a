#include "replica/follower_replica.h"

#include <algorithm>

namespace spool::replica {

bool FollowerReplica::is_caught_up(int64_t leader_log_end_offset, int64_t now_ms, int64_t max_lag_ms) const {
  return leader_log_end_offset == log_end_offset || now_ms - last_caught_up_time_ms <= max_lag_ms;
}

void FollowerReplica::update_fetch_state(int64_t fetch_offset, int64_t follower_log_start_offset, int64_t now_ms,
                                         int64_t leader_log_end_offset, int64_t follower_broker_epoch) {
  if (fetch_offset >= leader_log_end_offset) {
    last_caught_up_time_ms = std::max(last_caught_up_time_ms, now_ms);
  } else if (fetch_offset >= last_fetch_leader_log_end_offset) {
    last_caught_up_time_ms = std::max(last_caught_up_time_ms, last_fetch_time_ms);
  }
  log_start_offset = follower_log_start_offset;
  log_end_offset = fetch_offset;
  synced_offset = fetch_offset;
  last_fetch_leader_log_end_offset = std::max(leader_log_end_offset, last_fetch_leader_log_end_offset);
  last_fetch_time_ms = now_ms;
  broker_epoch = follower_broker_epoch;
}

void FollowerReplica::reset(int64_t now_ms, int64_t leader_epoch_start_offset, bool new_leader, bool in_sync) {
  last_caught_up_time_ms = in_sync ? now_ms : 0;
  if (new_leader) {
    log_start_offset = -1;
    log_end_offset = -1;
    synced_offset = -1;
    last_fetch_leader_log_end_offset = -1;
    last_fetch_time_ms = 0;
    broker_epoch = -1;
  } else {
    last_fetch_leader_log_end_offset = leader_epoch_start_offset;
    last_fetch_time_ms = in_sync ? now_ms : 0;
  }
}

}  // namespace spool::replica
