// The generated codecs on the two hot APIs. ProduceRequest decode: a request
// of 16 partitions with `range` bytes of records each; the records decode as
// views into the frame (protocol::Records), so the time per request must not
// grow with the record bytes (bytes_per_second counts the records carried).
// FetchResponse encode: 16 partitions whose records are file regions, into a
// splice-collecting ByteWriter as RequestContext::respond does; only the
// framing is written, so again flat in the record bytes. The second argument
// is the version: Produce v8 (the old max) and v13 (topic by id, flexible),
// Fetch v11 (the old max) and v18 (topic by id, flexible, tagged fields).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "protocol/fetch_response.h"
#include "protocol/produce_request.h"
#include "util/bytes.h"

namespace spool {
namespace {

constexpr int kPartitions = 16;

Bytes produce_frame(size_t record_bytes, int16_t version) {
  protocol::ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 30000;
  auto& t = req.topic_data.emplace_back();
  if (version >= 13) {
    for (size_t i = 0; i < t.topic_id.size(); ++i) t.topic_id[i] = static_cast<uint8_t>(i * 7 + 1);
  } else {
    t.name = "bench-topic";
  }
  for (int p = 0; p < kPartitions; ++p) {
    auto& pd = t.partition_data.emplace_back();
    pd.index = p;
    pd.records = protocol::Records(Bytes(record_bytes, static_cast<uint8_t>(p)));
  }
  ByteWriter w;
  req.encode(w, version);
  return w.take();
}

void BM_ProduceRequest_Decode(benchmark::State& state) {
  const size_t record_bytes = static_cast<size_t>(state.range(0));
  const auto version = static_cast<int16_t>(state.range(1));
  const Bytes frame = produce_frame(record_bytes, version);
  for (auto _ : state) {
    protocol::ProduceRequest req;
    ByteReader r(frame);
    if (!req.decode(r, version)) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(req.topic_data[0].partition_data[kPartitions - 1].records->size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kPartitions * static_cast<int64_t>(record_bytes));
}
BENCHMARK(BM_ProduceRequest_Decode)->ArgsProduct({{100, 16 << 10, 1 << 20}, {8, 13}});

void BM_FetchResponse_EncodeRegions(benchmark::State& state) {
  const int64_t record_bytes = state.range(0);
  const auto version = static_cast<int16_t>(state.range(1));
  protocol::FetchResponse resp;
  auto& t = resp.responses.emplace_back();
  if (version >= 13) {
    for (size_t i = 0; i < t.topic_id.size(); ++i) t.topic_id[i] = static_cast<uint8_t>(i * 7 + 1);
  } else {
    t.topic = "bench-topic";
  }
  for (int p = 0; p < kPartitions; ++p) {
    auto& pd = t.partitions.emplace_back();
    pd.partition_index = p;
    pd.high_watermark = 1000;
    pd.last_stable_offset = 1000;
    pd.aborted_transactions.emplace();
    // Two segments' worth per partition; the fd is never read.
    pd.records = protocol::Records::from_regions(
        {FileRegion{nullptr, 3, 0, record_bytes / 2}, FileRegion{nullptr, 3, 0, record_bytes - record_bytes / 2}});
  }
  for (auto _ : state) {
    ByteWriter w(ByteWriter::collect_splices, Bytes());
    w.buffer().reserve(64 + 96 * kPartitions);
    resp.encode(w, version);
    auto splices = w.take_splices();
    if (splices.size() != 2 * kPartitions) state.SkipWithError("records were not left as splices");
    benchmark::DoNotOptimize(splices.data());
    benchmark::DoNotOptimize(w.buffer().data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kPartitions * record_bytes);
}
BENCHMARK(BM_FetchResponse_EncodeRegions)->ArgsProduct({{100, 16 << 10, 1 << 20}, {11, 18}});

}  // namespace
}  // namespace spool
