// Offset- and time-index lookups on a segment index with 100k entries
// (memory-mapped, so a lookup is a binary search over mapped pages, no
// syscalls), at uniformly random targets: the per-fetch and per-ListOffsets
// cost of locating a batch. The index files live in a temp dir removed when
// the benchmark finishes.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "storage/index_file.h"
#include "storage/offset_index.h"
#include "storage/time_index.h"

namespace spool::storage {
namespace {

constexpr int64_t kEntries = 100'000;
constexpr int64_t kBaseOffset = 5'000'000;
constexpr int64_t kOffsetsPerEntry = 4;   // ~4 KB of 1 KB records per index.interval.bytes
constexpr int64_t kBytesPerEntry = 4096;
constexpr int64_t kBaseTimestamp = 1'700'000'000'000;

class TempDir {
 public:
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "spool-index-bench-XXXXXX").string();
    if (::mkdtemp(t.data()) != nullptr) path_ = t;
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<int64_t> random_targets(int64_t lo, int64_t hi) {
  std::mt19937_64 rng(11);
  std::vector<int64_t> v(1 << 16);
  for (auto& x : v) x = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo));
  return v;
}

void BM_OffsetIndexLookup(benchmark::State& state) {
  TempDir dir;
  auto file = IndexFile::open(dir.path() + "/0.index", OffsetIndex::kEntrySize,
                              kEntries * OffsetIndex::kEntrySize, true);
  if (dir.path().empty() || !file) return state.SkipWithError("cannot create the index file");
  OffsetIndex index(std::move(*file), kBaseOffset);
  for (int64_t i = 0; i < kEntries; ++i)
    if (!index.append(kBaseOffset + i * kOffsetsPerEntry, i * kBytesPerEntry))
      return state.SkipWithError("append failed");
  const auto targets = random_targets(kBaseOffset, kBaseOffset + kEntries * kOffsetsPerEntry);
  size_t i = 0;
  for (auto _ : state) {
    auto e = index.lookup(targets[i++ & (targets.size() - 1)]);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

void BM_TimeIndexLookup(benchmark::State& state) {
  TempDir dir;
  auto file = IndexFile::open(dir.path() + "/0.timeindex", TimeIndex::kEntrySize,
                              (kEntries + 2) * TimeIndex::kEntrySize, true);
  if (dir.path().empty() || !file) return state.SkipWithError("cannot create the index file");
  TimeIndex index(std::move(*file), kBaseOffset);
  for (int64_t i = 0; i < kEntries; ++i)
    if (!index.maybe_append(kBaseTimestamp + i * 10, kBaseOffset + i * kOffsetsPerEntry))
      return state.SkipWithError("append failed");
  if (index.entries() != static_cast<size_t>(kEntries)) return state.SkipWithError("index not filled");
  const auto targets = random_targets(kBaseTimestamp, kBaseTimestamp + kEntries * 10);
  size_t i = 0;
  for (auto _ : state) {
    auto e = index.lookup(targets[i++ & (targets.size() - 1)]);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}

BENCHMARK(BM_OffsetIndexLookup);
BENCHMARK(BM_TimeIndexLookup);

}  // namespace
}  // namespace spool::storage
