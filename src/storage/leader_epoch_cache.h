// Per-partition map leader epoch -> first offset written in it, persisted as
// `leader-epoch-checkpoint` (Kafka's format). Answers OffsetForLeaderEpoch.
// Mutations only touch memory; persist() (called from Log::flush and close,
// off the append path) writes the file when it changed. Thread-safe
// (internal mutex). A garbage file loads as empty; recovery refills it from
// the batches it scans.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "storage/checkpoint.h"

namespace spool::storage {

// Kafka's endOffsetFor over a copy of a cache's entries (oldest first), for
// callers that work on a snapshot (replica/truncation.h): requested < 0 or
// no entries -> (-1, -1); requested == the latest epoch -> (requested, leo);
// above every epoch -> (-1, -1); below every epoch -> (requested, start of
// the first); otherwise (largest epoch <= requested, start of the next).
std::pair<int32_t, int64_t> end_offset_for_epoch(const std::vector<EpochEntry>& entries, int32_t requested,
                                                 int64_t leo);

class LeaderEpochCache {
 public:
  explicit LeaderEpochCache(std::string path) : path_(std::move(path)) {}

  void load();
  // Records that `epoch` starts at `start_offset` if it is newer than the latest.
  void assign(int32_t epoch, int64_t start_offset);
  // Kafka's endOffsetFor: (largest epoch <= requested, start offset of the
  // next epoch, or leo when requested is the latest); (-1, -1) if unknown.
  std::pair<int32_t, int64_t> end_offset_for(int32_t requested, int64_t leo) const;
  void truncate_from_end(int64_t end_offset);     // drops epochs starting at/after it
  void truncate_from_start(int64_t start_offset); // clamps the first kept epoch's start
  void clear();                                   // forgets every epoch (full truncation)
  std::optional<int32_t> latest_epoch() const;
  std::vector<EpochEntry> entries() const;
  Status persist();

 private:
  std::string path_;
  mutable std::mutex mu_;
  std::mutex persist_mu_;  // one writer of the file at a time
  std::vector<EpochEntry> entries_;
  bool dirty_ = false;
};

}  // namespace spool::storage
