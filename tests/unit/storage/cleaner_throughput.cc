// Prints the cleaner's throughput (MB/s of log read and rewritten) on a
// generated ~50 MB log: 20k keys, 11 versions each, 200-byte values, 10% of
// keys deleted in the last round. Not a test; run by hand:
//   build/tests/unit/storage/storage_cleaner_throughput [--lz4]
#include <chrono>
#include <cstdio>
#include <cstring>

#include "compaction_util.h"
#include "test_util.h"

using namespace spool;
using namespace spool::storage;
using namespace spool::storage::testing;

int main(int argc, char** argv) {
  bool lz4 = argc > 1 && std::strcmp(argv[1], "--lz4") == 0;
  TempDir d;
  LogConfig c;
  c.segment_bytes = 4 << 20;
  c.cleanup_policy_compact = true;
  c.cleanup_policy_delete = false;
  auto log = open_log(d.sub("bench-0"), c);
  if (!log) return 1;
  auto t0 = std::chrono::steady_clock::now();
  auto latest = write_versions(*log, 20000, 11, 100, 10, 1000, 200,
                               lz4 ? record::Compression::kLz4 : record::Compression::kNone);
  // Roll so the last version is cleanable too.
  size_t segs = log->segment_count();
  while (log->segment_count() == segs) append_keyed(*log, {{"filler-" + std::to_string(log->log_end_offset()), std::string(200, 'f'), 1000}});
  double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("generated %.1f MB in %zu segments (%s) in %.2f s\n", log->size_bytes() / 1e6, log->segment_count(),
              lz4 ? "lz4" : "uncompressed", gen_s);
  CleanOptions o;
  o.dedupe_buffer_bytes = 128 << 20;
  auto st = log->clean(2000, o);
  if (!st.is_ok()) {
    std::printf("clean failed: %s\n", st.status().message().c_str());
    return 1;
  }
  double secs = st->elapsed_ms / 1000;
  std::printf("cleaned %.1f MB -> %.1f MB (%lld -> %lld records, %d -> %d segments) in %.3f s: %.1f MB/s\n",
              st->bytes_read / 1e6, st->bytes_written / 1e6, static_cast<long long>(st->records_read),
              static_cast<long long>(st->records_kept), st->segments_in, st->segments_out, secs,
              st->bytes_read / 1e6 / secs);
  return 0;
}
