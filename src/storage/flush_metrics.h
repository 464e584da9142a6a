// FlushMetrics: the flusher's group commit, process-wide: the time of each
// log's fsync (Kafka's LogFlushStats LogFlushRateAndTimeMs), and per pass
// how many waiting appends one pass made durable and how many logs it
// synced (the group-commit batch sizes). Recorded by storage::Flusher;
// thread-safe.
#pragma once

#include "util/metrics.h"

namespace spool::storage {

struct FlushMetrics {
  util::Histogram flush_ms{util::Histogram::latency_ms_bounds()};
  util::Histogram appends_per_pass{{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}};
  util::Histogram logs_per_pass{{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}};
};

FlushMetrics& flush_metrics();

}  // namespace spool::storage
