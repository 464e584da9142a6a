#include "broker/producer_id_manager.h"

#include <spdlog/spdlog.h>

#include <charconv>
#include <limits>

#include "storage/file_util.h"

namespace spool::broker {
namespace {

// Parses "version=1\nblock_end=N\n" strictly.
Result<int64_t> parse_block_file(const std::string& content, const std::string& path) {
  const std::string prefix = "version=1\nblock_end=";
  auto bad = [&](const std::string& why) {
    return Status::error(path + ": " + why + " (remove the file only if no producer id was ever handed out)",
                         storage::kStorageError);
  };
  if (content.compare(0, prefix.size(), prefix) != 0) return bad("unknown format");
  if (content.empty() || content.back() != '\n') return bad("truncated");
  const char* begin = content.data() + prefix.size();
  const char* end = content.data() + content.size() - 1;
  int64_t v = -1;
  auto [p, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || p != end || v < 0) return bad("bad block_end");
  return v;
}

}  // namespace

Result<std::unique_ptr<ProducerIdManager>> ProducerIdManager::open(const std::string& dir, int64_t block_size) {
  if (block_size < 1) return Status::error("producer id block size must be positive");
  std::string path = dir + "/" + kFileName;
  int64_t block_end = 0;
  if (storage::path_exists(path)) {
    auto content = storage::read_small_file(path, 4096);
    if (!content) return content.status();
    auto v = parse_block_file(*content, path);
    if (!v) return v.status();
    block_end = *v;
  }
  return std::unique_ptr<ProducerIdManager>(new ProducerIdManager(path, block_size, block_end));
}

Result<std::unique_ptr<ProducerIdManager>> ProducerIdManager::with_block_source(BlockSource source) {
  std::unique_ptr<ProducerIdManager> m(new ProducerIdManager("", kDefaultBlockSize, 0));
  m->source_ = std::move(source);
  return m;
}

Result<int64_t> ProducerIdManager::next_id() {
  std::lock_guard lk(mu_);
  if (source_ && next_ >= block_end_) {
    auto block = source_();
    if (!block) {
      spdlog::error("cannot claim a producer id block: {}", block.status().message());
      return Status::error(block.status().message(), storage::kStorageError);
    }
    if (block->last < block->first)
      return Status::error("empty producer id block", storage::kStorageError);
    next_ = block->first;
    block_end_ = block->last + 1;
    spdlog::info("claimed producer ids [{}, {}]", block->first, block->last);
  }
  if (next_ >= block_end_) {
    if (block_end_ > std::numeric_limits<int64_t>::max() - block_size_)
      return Status::error("producer ids exhausted", storage::kStorageError);
    int64_t new_end = block_end_ + block_size_;
    Status s = storage::write_file_atomic(path_, "version=1\nblock_end=" + std::to_string(new_end) + "\n");
    if (!s) {
      spdlog::error("cannot reserve producer id block: {}", s.message());
      return s;
    }
    next_ = block_end_;
    block_end_ = new_end;
    spdlog::debug("reserved producer ids [{}, {})", next_, block_end_);
  }
  return next_++;
}

int64_t ProducerIdManager::block_end() const {
  std::lock_guard lk(mu_);
  return block_end_;
}

}  // namespace spool::broker
