// FollowerReplica: what a partition leader knows about one follower, learnt
// only from that follower's Fetch requests (Kafka's Replica/ReplicaState).
//
// Offsets:
// - log_end_offset is the follower's FetchOffset: a follower fetches from its
//   own log end. -1 until the first fetch under this leader.
// - synced_offset is what the follower has fsynced. Spool's follower sends a
//   Fetch only once everything below its FetchOffset is on disk when
//   durable.writes=true (replica/fetch_builder.h explains why), so the leader
//   sets it to the FetchOffset too; it is kept apart so the rule is visible
//   where it is used (ReplicaSet::counted_offset) and could later come from a
//   field of its own.
//
// lastCaughtUpTimeMs (Kafka's rule, exact): the largest time t at which the
// follower's fetch offset was >= the leader's log end *as it stood at t*.
// On a fetch at `now` with the leader's log end `leader_leo` (read before
// serving the fetch, so appends racing the fetch do not count against it):
// - fetch offset >= leader_leo: caught up now -> max(last, now);
// - else fetch offset >= the leader log end recorded at the previous fetch:
//   it was caught up at the previous fetch's time -> max(last, previous time);
// - else unchanged.
// A follower is caught up when its log end equals the leader's or
// now - lastCaughtUpTimeMs <= replica.lag.time.max.ms.
//
// Plain value; not thread-safe (ReplicaSet's owner serializes access).
#pragma once

#include <cstdint>

namespace spool::replica {

struct FollowerReplica {
  int32_t broker_id = -1;
  int64_t log_start_offset = -1;
  int64_t log_end_offset = -1;
  int64_t synced_offset = -1;
  int64_t last_fetch_leader_log_end_offset = 0;
  int64_t last_fetch_time_ms = 0;
  int64_t last_caught_up_time_ms = 0;
  int64_t broker_epoch = -1;  // from Fetch v15+ ReplicaState; -1 unknown

  bool is_caught_up(int64_t leader_log_end_offset, int64_t now_ms, int64_t max_lag_ms) const;

  // A Fetch from this follower at `fetch_offset` arrived at `now_ms` while
  // the leader's log ended at `leader_log_end_offset`.
  void update_fetch_state(int64_t fetch_offset, int64_t follower_log_start_offset, int64_t now_ms,
                          int64_t leader_log_end_offset, int64_t follower_broker_epoch);

  // A new leader epoch (Kafka's resetReplicaState). `in_sync`: listed in the
  // new ISR. `new_leader`: this broker was not leading before, so nothing it
  // knows about the follower is current: offsets become unknown. Otherwise
  // (re-elected) the offsets stay and the fetch baseline becomes the epoch's
  // start offset. Either way last caught up (and, re-elected, last fetch)
  // time = now if in sync, else 0, so a dropped follower neither holds the
  // high watermark back nor rejoins before it fetches.
  void reset(int64_t now_ms, int64_t leader_epoch_start_offset, bool new_leader, bool in_sync);
};

}  // namespace spool::replica
