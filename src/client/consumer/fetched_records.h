// parse_fetched_records: one partition's records from a Fetch answer turned
// into ConsumerRecords (Kafka's CompletedFetch), with the isolation level's
// filtering.
//
// Batches are read in order; records below the fetch offset are dropped (a
// batch may start before it). Control batches (transaction markers) are
// never returned. read_committed, as Java: the answer's aborted_transactions
// (producer id, first offset) become "aborted" as the batches reach their
// first offset; a transactional batch of an aborted producer is skipped
// whole; that producer's ABORT marker ends its aborted state. Records of
// open or committed transactions pass (the broker answers read_committed
// fetches only up to the last stable offset).
//
// next_fetch_offset is where the next fetch starts: after the last batch
// looked at (so skipped aborted batches and markers are passed over), and
// last_epoch the leader epoch of that batch. A trailing partial batch (the
// answer was cut at the size limit) is ignored. A corrupt batch (CRC, when
// check_crcs; bad structure) stops the parse with `error` set, keeping the
// records before it. A legacy (magic < 2) batch is an error too.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "client/consumer/consumer_record.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::client {

struct AbortedTransaction {
  int64_t producer_id = 0;
  int64_t first_offset = 0;
};

struct FetchedRecords {
  std::vector<ConsumerRecord> records;
  int64_t next_fetch_offset = 0;
  int32_t last_epoch = -1;
  Status error;
};

FetchedRecords parse_fetched_records(const std::string& topic, int32_t partition, ByteSpan records,
                                     int64_t fetch_offset, IsolationLevel isolation,
                                     std::vector<AbortedTransaction> aborted, bool check_crcs = true);

}  // namespace spool::client
