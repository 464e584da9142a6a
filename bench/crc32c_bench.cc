// CRC-32C throughput: the dispatching entry point (SSE4.2 when the CPU has
// it) against the portable slicing-by-8 table, on sizes from a record to a
// large batch. Bytes/s is what matters: every produced and fetched batch is
// checksummed once.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "util/crc32c.h"

namespace spool {
namespace {

const std::vector<uint8_t>& input() {
  static const std::vector<uint8_t> data = [] {
    std::vector<uint8_t> v(1 << 20);
    std::mt19937 rng(42);
    for (auto& b : v) b = static_cast<uint8_t>(rng());
    return v;
  }();
  return data;
}

void BM_Crc32c_Dispatch(benchmark::State& state) {
  if (!crc32c_hardware_available()) state.SetLabel("no SSE4.2: table path");
  const auto& data = input();
  const size_t n = static_cast<size_t>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(crc32c(data.data(), n));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}

void BM_Crc32c_Table(benchmark::State& state) {
  const auto& data = input();
  const size_t n = static_cast<size_t>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(crc32c_extend_portable(0, data.data(), n));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}

BENCHMARK(BM_Crc32c_Dispatch)->Arg(64)->Arg(1 << 10)->Arg(64 << 10)->Arg(1 << 20);
BENCHMARK(BM_Crc32c_Table)->Arg(64)->Arg(1 << 10)->Arg(64 << 10)->Arg(1 << 20);

}  // namespace
}  // namespace spool
