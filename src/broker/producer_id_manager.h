// ProducerIdManager: hands out idempotent producer ids (InitProducerId
// without a transactional id), unique across restarts of this broker.
//
// Ids are reserved in blocks: before the first id of a block is returned,
// the block's end is written to `<dir>/producer-id-block` (temp file, fsync,
// rename, dir fsync). After a restart or crash allocation resumes at the
// recorded end, so an id is never handed out twice; at most one block's
// unused ids are skipped. File format (text): "version=1\nblock_end=<N>\n",
// where every id below N may have been handed out.
// Thread-safe (one mutex; the fsync happens once per block under it).
// Failure: open() refuses an unreadable or malformed file (a guessed value
// could repeat ids); next_id() returns KAFKA_STORAGE_ERROR when the block
// cannot be persisted, and nothing is handed out then.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "util/status.h"

namespace spool::broker {

class ProducerIdManager {
 public:
  static constexpr int64_t kDefaultBlockSize = 1000;
  static constexpr const char* kFileName = "producer-id-block";

  static Result<std::unique_ptr<ProducerIdManager>> open(const std::string& dir,
                                                         int64_t block_size = kDefaultBlockSize);
  // Cluster mode: blocks come from `source` (cluster::claim_producer_id_block
  // on /latest_producer_id_block), [first, last] inclusive, instead of the
  // local file; nothing is written locally. The claim is one ZooKeeper
  // round trip per block, made by the next_id() call that needs it (Kafka's
  // ZkProducerIdManager blocks its request thread the same way).
  struct Block {
    int64_t first = 0;
    int64_t last = -1;
  };
  using BlockSource = std::function<Result<Block>()>;
  static Result<std::unique_ptr<ProducerIdManager>> with_block_source(BlockSource source);
  Result<int64_t> next_id();
  // End (exclusive) of the reserved block, as persisted.
  int64_t block_end() const;

 private:
  ProducerIdManager(std::string path, int64_t block_size, int64_t block_end)
      : path_(std::move(path)), block_size_(block_size), next_(block_end), block_end_(block_end) {}

  std::string path_;
  BlockSource source_;  // set: cluster mode (no file)
  int64_t block_size_;
  mutable std::mutex mu_;
  int64_t next_;
  int64_t block_end_;
};

}  // namespace spool::broker
