// Produce-path validation cost per batch: validate_batch (header + CRC, what
// a zero-copy append needs) and validate_produce_records in header-only, walk and deep
// (decode every record, Kafka's behaviour) modes, on 100 x 100 B and
// 10 x 1 KB batches, uncompressed and lz4. Values are mildly compressible
// text so lz4 has something to do.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "record/batch_header.h"
#include "record/compression.h"
#include "record/produce_validation.h"

namespace spool::record {
namespace {

// range(0): records per batch; range(1): value bytes; range(2): Compression.
Bytes make_batch(benchmark::State& state) {
  const int count = static_cast<int>(state.range(0));
  const size_t value_size = static_cast<size_t>(state.range(1));
  std::vector<BuildRecord> records;
  for (int i = 0; i < count; ++i) {
    std::string value;
    while (value.size() < value_size) value += "event " + std::to_string(i * 7919 + value.size()) + " ok; ";
    value.resize(value_size);
    records.push_back(BuildRecord::of("key-" + std::to_string(i), value, 1'700'000'000'000 + i));
  }
  BatchOptions opts;
  opts.compression = static_cast<Compression>(state.range(2));
  opts.producer_id = 1000;
  opts.producer_epoch = 0;
  opts.base_sequence = 0;
  auto batch = build_batch(opts, records);
  if (!batch) {
    state.SkipWithError(batch.status().message().c_str());
    return {};
  }
  state.SetLabel(std::string(compression_name(opts.compression)) + ", " + std::to_string(batch->size()) + " B");
  return std::move(*batch);
}

// Throughput in uncompressed payload bytes and records, comparable across codecs.
void set_counters(benchmark::State& state) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0) * state.range(1));
}

void BM_ValidateBatch(benchmark::State& state) {
  const Bytes batch = make_batch(state);
  if (batch.empty()) return;
  for (auto _ : state) {
    auto h = validate_batch(batch);
    if (!h) state.SkipWithError("validate_batch failed");
    benchmark::DoNotOptimize(h);
  }
  set_counters(state);
}

void validate_produce(benchmark::State& state, RecordCheck check) {
  const Bytes batch = make_batch(state);
  if (batch.empty()) return;
  ProduceValidationOptions opts;
  opts.records = check;
  for (auto _ : state) {
    auto v = validate_produce_records(batch, opts);
    if (!v) state.SkipWithError("validate_produce_records failed");
    benchmark::DoNotOptimize(v);
  }
  set_counters(state);
}

// Header + CRC only; the allocation-free record walk the broker uses for
// uncompressed batches; full decoding (what compressed batches get).
void BM_ValidateProduceHeader(benchmark::State& state) { validate_produce(state, RecordCheck::kHeader); }
void BM_ValidateProduceWalk(benchmark::State& state) { validate_produce(state, RecordCheck::kWalk); }
void BM_ValidateProduceDeep(benchmark::State& state) { validate_produce(state, RecordCheck::kDeep); }

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"records", "value_B", "codec"});
  for (auto codec : {Compression::kNone, Compression::kLz4}) {
    b->Args({100, 100, static_cast<int64_t>(codec)});
    b->Args({10, 1024, static_cast<int64_t>(codec)});
  }
}

BENCHMARK(BM_ValidateBatch)->Apply(shapes);
BENCHMARK(BM_ValidateProduceHeader)->Apply(shapes);
BENCHMARK(BM_ValidateProduceWalk)->Apply(shapes);
BENCHMARK(BM_ValidateProduceDeep)->Apply(shapes);

}  // namespace
}  // namespace spool::record
