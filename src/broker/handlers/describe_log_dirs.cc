// DescribeLogDirs (v1-5): every configured log dir with the partitions it
// holds and their size on disk. Single node without replica moves: offset
// lag is always 0 and no log is a "future" one. A null topic list means all
// partitions; topics or partitions this broker does not host are left out,
// as Kafka does. A log dir with nothing asked for in it is still listed.
//
// Per version, as Kafka 4.4: v0 is gone (removed in Kafka 4.0, KIP-896; an
// unserved version closes the connection); v1 is the baseline; v2 is v1,
// flexible. v3 adds the top-level ErrorCode: NONE (Kafka answers
// CLUSTER_AUTHORIZATION_FAILED without DESCRIBE on the cluster; Spool has no
// ACLs). v4 adds per dir the TotalBytes and UsableBytes of its volume, from
// statvfs as Java's FileStore computes them (f_blocks and f_bavail times
// f_frsize; a value past int64 is int64 max, like Kafka's
// adjustForLargeFileSystems); a dir whose volume cannot be read answers
// UNKNOWN_SERVER_ERROR with no topics, as Kafka does for an unexpected
// failure; a dir offline after an I/O error (KIP-112) answers
// KAFKA_STORAGE_ERROR with no topics, as Kafka does. v5 adds IsCordoned (KIP-1066, Kafka's cordoned.log.dirs): Spool
// has no way to cordon a dir, so it is false.
#include <sys/statvfs.h>

#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "broker/handlers/authorize.h"
#include "broker/handlers/handlers.h"
#include "broker/replica_manager.h"
#include "protocol/describe_log_dirs_request.h"
#include "protocol/describe_log_dirs_response.h"
#include "protocol/error_code.h"

namespace spool::broker {

namespace {

std::string normalized(const std::filesystem::path& p) {
  std::error_code ec;
  auto abs = std::filesystem::absolute(p, ec);
  if (ec) abs = p;
  auto s = abs.lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

// a * b, or int64 max when that does not fit (Kafka: Long.MAX_VALUE for an
// overflowed, negative size).
int64_t volume_bytes(uint64_t blocks, uint64_t block_size) {
  constexpr auto kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (block_size != 0 && blocks > kMax / block_size) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(blocks * block_size);
}

}  // namespace

void handle_describe_log_dirs(BrokerContext& b, const RequestContext& ctx, ByteReader& body) {
  protocol::DescribeLogDirsRequest req;
  if (!decode_or_close(ctx, body, req, "DescribeLogDirs")) return;

  // Which (topic, partition) pairs were asked for; nullopt = all.
  std::optional<std::map<std::string, std::set<int32_t>>> wanted;
  if (req.topics) {
    wanted.emplace();
    for (const auto& t : *req.topics) (*wanted)[t.topic].insert(t.partitions.begin(), t.partitions.end());
  }

  protocol::DescribeLogDirsResponse resp;
  if (!cluster_allowed(b, ctx, security::AclOperation::kDescribe)) {
    // Kafka: v3+ CLUSTER_AUTHORIZATION_FAILED, older versions no results.
    resp.error_code = protocol::ErrorCode::kClusterAuthorizationFailed;
    return ctx.respond(resp);
  }
  resp.error_code = protocol::ErrorCode::kNone;
  std::map<std::string, size_t> dir_index;  // normalized log dir -> result index
  for (const auto& d : b.settings.log_dirs) {
    auto key = normalized(d);
    if (dir_index.count(key)) continue;
    dir_index[key] = resp.results.size();
    auto& r = resp.results.emplace_back();
    r.log_dir = key;
    if (b.logs.dir_offline(d)) {  // KIP-112: listed, with the error, and no partitions
      r.error_code = protocol::ErrorCode::kKafkaStorageError;
      continue;
    }
    struct statvfs vfs {};
    if (::statvfs(key.c_str(), &vfs) != 0) {
      r.error_code = protocol::ErrorCode::kUnknownServerError;
      continue;
    }
    r.error_code = protocol::ErrorCode::kNone;
    r.total_bytes = volume_bytes(vfs.f_blocks, vfs.f_frsize);
    r.usable_bytes = volume_bytes(vfs.f_bavail, vfs.f_frsize);
    r.is_cordoned = false;
  }

  for (const auto& info : b.replicas.topics()) {
    if (wanted && !wanted->count(info.name)) continue;
    // Per log dir, the index of this topic's entry in that dir's result.
    std::map<size_t, size_t> topic_entry;
    for (int32_t p = 0; p < info.partitions; ++p) {
      if (wanted && !wanted->at(info.name).count(p)) continue;
      auto part = b.replicas.partition(info.name, p);
      if (!part) continue;
      auto it = dir_index.find(normalized(std::filesystem::path(part->log().dir()).parent_path()));
      if (it == dir_index.end()) continue;  // cannot happen with a consistent setup; never guess
      auto& result = resp.results[it->second];
      if (result.error_code != protocol::ErrorCode::kNone) continue;  // Kafka lists no topics there
      auto [te, fresh] = topic_entry.try_emplace(it->second, result.topics.size());
      if (fresh) result.topics.emplace_back().name = info.name;
      auto& rp = result.topics[te->second].partitions.emplace_back();
      rp.partition_index = p;
      rp.partition_size = part->log().size_bytes();
      rp.offset_lag = 0;
      rp.is_future_key = false;
    }
  }
  ctx.respond(resp);
}

}  // namespace spool::broker
