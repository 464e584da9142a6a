// The machine's own limits, measured in the same run as the workloads so the
// report can say what fraction of the hardware Spool reaches. Each call
// blocks for its duration (a few seconds at most with sensible arguments),
// uses its own threads/files only, and returns an error Status (never
// throws, never aborts) when a socket or file operation fails. MB = 10^6 B.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "util/status.h"

namespace spool::bench {

// Size of each write in both measurements. With fdatasync_each_chunk the disk
// is synced after every chunk: 1 MiB is of the order of one group commit of a
// busy broker, so this is the ceiling for a durable (acks=all) produce.
inline constexpr size_t kMachineChunkBytes = 1 << 20;

// Two threads pump kMachineChunkBytes writes through a connected TCP socket
// on 127.0.0.1 for about `seconds` (must be > 0 and <= 600); returns the
// bytes received per second.
Result<double> loopback_MBps(double seconds);

// Sequential write of `bytes` (> 0) to a new temp file in `dir`, in
// kMachineChunkBytes chunks of non-repeating data. fdatasync_each_chunk:
// fdatasync after every chunk; otherwise one fdatasync at the end. The sync
// time is included. The file is removed before returning, on error too.
Result<double> disk_write_MBps(const std::string& dir, int64_t bytes, bool fdatasync_each_chunk);

}  // namespace spool::bench
