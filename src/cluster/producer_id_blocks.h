// Producer-id blocks shared by the brokers of a cluster (Kafka's
// ZkProducerIdManager): /latest_producer_id_block holds the last block any
// broker took; a broker claims the next one with a setData conditional on
// the version it read, so two brokers never get overlapping ids.
//
// Contract: claim_producer_id_block() returns [block_start, block_end]
// (inclusive, block_size ids) just after the last claimed block, or the first
// block [0, block_size - 1] when none was claimed (the node absent or empty).
// A lost race (BADVERSION, or NODEEXISTS when creating the node) re-reads and
// retries, up to `max_attempts`. Errors: a corrupt node (never guessed past:
// a guess could hand out ids twice), ids exhausted (the next block would pass
// INT64_MAX), or a store failure, each a Status naming the path.
// Threading: blocks for store round trips; not on a reactor thread.
#pragma once

#include <cstdint>

#include "cluster/metadata_store.h"
#include "cluster/zk_data.h"
#include "util/status.h"

namespace spool::cluster {

Result<ProducerIdBlock> claim_producer_id_block(MetadataStore& store, int32_t broker_id, int64_t block_size = 1000,
                                                int max_attempts = 20);

}  // namespace spool::cluster
