// Small POSIX file helpers for the storage engine: full-length pread/pwrite,
// counted fsync/fdatasync (tests assert group commit through the counter),
// directory sync and atomic replace-by-rename. Stateless except the counter;
// thread-safe. Failures come back as Status with KAFKA_STORAGE_ERROR (56)
// and the errno text; nothing throws.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#include <cstdint>
#include <string>
#include <vector>

#include "protocol/error_code.h"
#include "util/bytes.h"
#include "util/status.h"

namespace spool::storage {

// Kafka error codes storage reports through Status::kafka_code() (int16 wire
// values, taken from protocol::ErrorCode so the table exists once).
inline constexpr int16_t kStorageError = static_cast<int16_t>(protocol::ErrorCode::kKafkaStorageError);
inline constexpr int16_t kOffsetOutOfRange = static_cast<int16_t>(protocol::ErrorCode::kOffsetOutOfRange);
inline constexpr int16_t kCorruptMessage = static_cast<int16_t>(protocol::ErrorCode::kCorruptMessage);
inline constexpr int16_t kRecordListTooLarge = static_cast<int16_t>(protocol::ErrorCode::kRecordListTooLarge);
inline constexpr int16_t kInvalidRecord = static_cast<int16_t>(protocol::ErrorCode::kInvalidRecord);

Status errno_status(const std::string& what);  // carries errno (Status::sys_errno)
// ENOSPC or EDQUOT: a write the file system refused up front (nothing of it
// is half-done), unlike EIO or any failed fsync.
bool is_disk_full(const Status& s);

Status pwrite_all(int fd, const uint8_t* data, size_t n, int64_t pos);
// Reads exactly n bytes unless EOF comes first; returns the count read.
Result<size_t> pread_full(int fd, uint8_t* data, size_t n, int64_t pos);

// fdatasync / fsync, counted for tests.
Status data_sync(int fd);
Status full_sync(int fd);
Status sync_dir(const std::string& dir);
uint64_t sync_call_count();

// Writes `content` to path.tmp, fsyncs it, renames it over `path`, fsyncs the dir.
Status write_file_atomic(const std::string& path, const std::string& content);
// The same without any sync, for files whose loss or tear recovery handles
// (producer snapshots, a recovery's rebuilt checkpoint): replaced whole or
// not at all while the process lives; the tmp file is removed on failure.
Status write_file_replace(const std::string& path, ByteSpan content);
// unlink; a missing file is not an error. The _quiet form logs a failure.
Status remove_file(const std::string& path);
void remove_file_quiet(const std::string& path);
// Whole small file (checkpoints, properties); error if missing or > max_bytes.
Result<std::string> read_small_file(const std::string& path, size_t max_bytes = 16 << 20);

bool path_exists(const std::string& path);
Status make_dirs(const std::string& dir);
Status remove_all(const std::string& path);
Result<int64_t> file_size(int fd);
int64_t now_ms();
// Kafka's Uuid text form: 16 bytes as url-safe base64 without padding (22 chars).
using Uuid = std::array<uint8_t, 16>;
std::string uuid_to_text(const Uuid& id);
std::optional<Uuid> uuid_from_text(std::string_view text);  // nullopt unless exactly a Uuid text
std::string random_id();  // uuid_to_text of 16 random bytes

}  // namespace spool::storage
