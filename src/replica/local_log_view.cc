#include "replica/local_log_view.h"

#include "storage/leader_epoch_cache.h"
#include "storage/log.h"

namespace spool::replica {

LocalLogView LocalLogView::of_log(const storage::Log& log) {
  LocalLogView v;
  v.epochs = log.epoch_entries();
  v.log_start_offset = log.log_start_offset();
  v.log_end_offset = log.log_end_offset();
  v.synced_offset = log.flushed_offset();
  return v;
}

std::pair<int32_t, int64_t> LocalLogView::end_offset_for(int32_t epoch) const {
  return storage::end_offset_for_epoch(epochs, epoch, log_end_offset);
}

std::optional<int32_t> LocalLogView::latest_epoch_below(int64_t offset) const {
  for (auto it = epochs.rbegin(); it != epochs.rend(); ++it)
    if (it->start_offset < offset) return it->epoch;
  return std::nullopt;
}

std::optional<int32_t> LocalLogView::last_batch_epoch() const {
  if (log_end_offset <= log_start_offset) return std::nullopt;
  return latest_epoch_below(log_end_offset);
}

}  // namespace spool::replica
