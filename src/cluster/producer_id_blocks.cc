#include "cluster/producer_id_blocks.h"

#include <limits>

#include "cluster/zk_paths.h"

namespace spool::cluster {

Result<ProducerIdBlock> claim_producer_id_block(MetadataStore& store, int32_t broker_id, int64_t block_size,
                                                int max_attempts) {
  const std::string path(zk_paths::kLatestProducerIdBlock);
  if (block_size <= 0) return Status::error("producer id block size must be positive");
  for (int attempt = 0; attempt < max_attempts; ++attempt) {
    auto node = store.get(path);
    int64_t start = 0;
    int32_t version = -1;  // -1: the node does not exist yet
    if (node) {
      version = node->stat.version;
      if (!node->data.empty()) {
        auto last = decode_producer_id_block(node->data);
        if (!last) return last.status();
        if (last->block_end > std::numeric_limits<int64_t>::max() - block_size) {
          return Status::error(path + ": producer ids exhausted (last block ends at " +
                               std::to_string(last->block_end) + ")");
        }
        start = last->block_end + 1;
      }
    } else if (node.code() != StoreCode::kNoNode) {
      return Status::error("reading " + path + ": " + store_code_name(node.code()));
    }
    ProducerIdBlock next{broker_id, start, start + block_size - 1};
    const std::string data = encode_producer_id_block(next);
    if (version < 0) {
      auto created = store.create(path, data);
      if (created) return next;
      if (created.code() == StoreCode::kNodeExists) continue;
      return Status::error("creating " + path + ": " + store_code_name(created.code()));
    }
    auto set = store.set(path, data, version);
    if (set) return next;
    if (set.code() == StoreCode::kBadVersion) continue;  // another broker took a block: read again
    return Status::error("writing " + path + ": " + store_code_name(set.code()));
  }
  return Status::error(path + ": lost the race for a producer id block " + std::to_string(max_attempts) + " times");
}

}  // namespace spool::cluster
