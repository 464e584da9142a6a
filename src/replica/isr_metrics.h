// IsrMetrics: Kafka's ReplicaManager IsrShrinksPerSec / IsrExpandsPerSec as
// process-wide counters, counted when the controller commits a leader's ISR
// change (Partition::on_alter_partition_response). Thread-safe.
#pragma once

#include "util/metrics.h"

namespace spool::replica {

struct IsrMetrics {
  util::Counter shrinks;
  util::Counter expands;
};

IsrMetrics& isr_metrics();

}  // namespace spool::replica
