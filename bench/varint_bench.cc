// Varint codecs of the record format: unsigned LEB128 and zigzag signed
// varints, encoded with ByteWriter and decoded with ByteReader. The values
// mimic record fields: small deltas and lengths (1-2 bytes) mixed with the
// occasional large one, so the branchy long-encoding path is exercised too.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "util/bytes.h"

namespace spool {
namespace {

constexpr size_t kValues = 4096;

const std::vector<int64_t>& values() {
  static const std::vector<int64_t> v = [] {
    std::mt19937_64 rng(3);
    std::vector<int64_t> out(kValues);
    for (auto& x : out) {
      uint64_t r = rng();
      switch (r % 8) {
        case 0: x = static_cast<int64_t>(r >> 8); break;            // large (timestamps, ids)
        case 1: x = -static_cast<int64_t>((r >> 16) % 100000); break;  // negative (null lengths, deltas)
        default: x = static_cast<int64_t>((r >> 16) % 2000); break;    // small lengths and deltas
      }
    }
    return out;
  }();
  return v;
}

void BM_Varint_EncodeZigzag(benchmark::State& state) {
  const auto& v = values();
  ByteWriter w(kValues * 10);
  for (auto _ : state) {
    w.buffer().clear();
    for (int64_t x : v) w.varint64(x);
    benchmark::DoNotOptimize(w.buffer().data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kValues));
}

void BM_Varint_DecodeZigzag(benchmark::State& state) {
  ByteWriter w;
  for (int64_t x : values()) w.varint64(x);
  const Bytes encoded = w.take();
  for (auto _ : state) {
    ByteReader r(encoded);
    int64_t sum = 0;
    for (size_t i = 0; i < kValues; ++i) sum += r.varint64();
    if (!r.ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kValues));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(encoded.size()));
}

void BM_Varint_EncodeUnsigned(benchmark::State& state) {
  const auto& v = values();
  ByteWriter w(kValues * 10);
  for (auto _ : state) {
    w.buffer().clear();
    for (int64_t x : v) w.uvarint(static_cast<uint64_t>(x < 0 ? -x : x));
    benchmark::DoNotOptimize(w.buffer().data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kValues));
}

void BM_Varint_DecodeUnsigned(benchmark::State& state) {
  ByteWriter w;
  for (int64_t x : values()) w.uvarint(static_cast<uint64_t>(x < 0 ? -x : x));
  const Bytes encoded = w.take();
  for (auto _ : state) {
    ByteReader r(encoded);
    uint64_t sum = 0;
    for (size_t i = 0; i < kValues; ++i) sum += r.uvarint64();
    if (!r.ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kValues));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(encoded.size()));
}

BENCHMARK(BM_Varint_EncodeZigzag);
BENCHMARK(BM_Varint_DecodeZigzag);
BENCHMARK(BM_Varint_EncodeUnsigned);
BENCHMARK(BM_Varint_DecodeUnsigned);

}  // namespace
}  // namespace spool
