// Before-tree variant of bench/protocol_bench.cc (ProduceRequest decode only):
// the generated decoder of the base tree (records copied into Bytes), and the
// hand parser ProduceView that handle_produce used (copied from the base
// tree's src/broker/handlers/produce.cc, views into the frame).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "protocol/produce_request.h"
#include "protocol/wire.h"
#include "util/bytes.h"

namespace spool {
namespace {

constexpr int kPartitions = 16;

struct ProduceView {
  struct PartitionData {
    int32_t index = 0;
    std::optional<std::span<uint8_t>> records;
  };
  struct TopicData {
    std::string name;
    std::vector<PartitionData> partition_data;
  };
  int16_t acks = 0;
  int32_t timeout_ms = 0;
  std::vector<TopicData> topic_data;
};

bool parse_produce(ByteReader& r, int16_t version, ProduceView& out) {
  using protocol::ProduceRequest;
  if (version < ProduceRequest::kMinVersion || version > ProduceRequest::kMaxVersion) return false;
  if (version >= 3) protocol::wire::read_nullable_string(r, false, true);
  out.acks = r.i16();
  out.timeout_ms = r.i32();
  const int64_t topics = protocol::wire::read_array_len(r, false, false, 1);
  for (int64_t t = 0; t < topics && r.ok(); ++t) {
    auto& td = out.topic_data.emplace_back();
    td.name = protocol::wire::read_string(r, false);
    const int64_t parts = protocol::wire::read_array_len(r, false, false, 1);
    for (int64_t i = 0; i < parts && r.ok(); ++i) {
      auto& pd = td.partition_data.emplace_back();
      pd.index = r.i32();
      const int32_t len = r.i32();
      if (len < -1) return false;
      if (len >= 0) {
        ByteSpan s = r.take(static_cast<size_t>(len));
        if (!r.ok()) return false;
        pd.records = std::span<uint8_t>(const_cast<uint8_t*>(s.data()), s.size());
      }
    }
  }
  return r.ok() && r.remaining() == 0;
}

Bytes produce_frame(size_t record_bytes) {
  protocol::ProduceRequest req;
  req.acks = -1;
  req.timeout_ms = 30000;
  auto& t = req.topic_data.emplace_back();
  t.name = "bench-topic";
  for (int p = 0; p < kPartitions; ++p) {
    auto& pd = t.partition_data.emplace_back();
    pd.index = p;
    pd.records = Bytes(record_bytes, static_cast<uint8_t>(p));
  }
  ByteWriter w;
  req.encode(w, 8);
  return w.take();
}

void BM_ProduceRequest_Decode(benchmark::State& state) {
  const size_t record_bytes = static_cast<size_t>(state.range(0));
  const Bytes frame = produce_frame(record_bytes);
  for (auto _ : state) {
    protocol::ProduceRequest req;
    ByteReader r(frame);
    if (!req.decode(r, 8)) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(req.topic_data[0].partition_data[kPartitions - 1].records->size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kPartitions * static_cast<int64_t>(record_bytes));
}
BENCHMARK(BM_ProduceRequest_Decode)->Arg(100)->Arg(16 << 10)->Arg(1 << 20);

void BM_ProduceView_HandParser(benchmark::State& state) {
  const size_t record_bytes = static_cast<size_t>(state.range(0));
  const Bytes frame = produce_frame(record_bytes);
  for (auto _ : state) {
    ProduceView req;
    ByteReader r(frame);
    if (!parse_produce(r, 8, req)) state.SkipWithError("parse failed");
    benchmark::DoNotOptimize(req.topic_data[0].partition_data[kPartitions - 1].records->size());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kPartitions * static_cast<int64_t>(record_bytes));
}
BENCHMARK(BM_ProduceView_HandParser)->Arg(100)->Arg(16 << 10)->Arg(1 << 20);

}  // namespace
}  // namespace spool
