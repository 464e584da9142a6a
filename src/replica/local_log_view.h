// LocalLogView: a copy of what the follower's truncation and fetch decisions
// read from its own log — start, end and fsynced offsets and the
// leader-epoch cache. Taking a copy keeps replica/truncation.h pure (tests
// build views by hand) and the decisions free of storage locks. A follower
// log is appended only by its fetcher, so a view taken there is consistent.
// Plain value; of_log() only reads atomics and copies the cache.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "storage/checkpoint.h"

namespace spool::storage {
class Log;
}

namespace spool::replica {

struct LocalLogView {
  int64_t log_start_offset = 0;
  int64_t log_end_offset = 0;
  int64_t synced_offset = 0;                // storage::Log::flushed_offset()
  std::vector<storage::EpochEntry> epochs;  // oldest first

  static LocalLogView of_log(const storage::Log& log);

  // Kafka's endOffsetFor on this log (storage::end_offset_for_epoch).
  std::pair<int32_t, int64_t> end_offset_for(int32_t epoch) const;
  // The epoch of the last batch below the log end: the newest epoch starting
  // below it (an epoch stamped at the log end by begin_leader_epoch has no
  // batch yet and is skipped). nullopt for an empty log or no epochs. This
  // is the Fetch's LastFetchedEpoch.
  std::optional<int32_t> last_batch_epoch() const;
  // The newest epoch starting below `offset`: the latest epoch left after
  // truncate_to(offset).
  std::optional<int32_t> latest_epoch_below(int64_t offset) const;
};

}  // namespace spool::replica
