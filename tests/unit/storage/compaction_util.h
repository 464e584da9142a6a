// Helpers for cleaner tests and the throughput measurement: keyed batches,
// reading a whole log back as records, and the expected compacted view.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "record/batch_builder.h"
#include "record/record.h"
#include "storage/log.h"

namespace spool::storage::testing {

struct KeyedRecord {
  std::string key;
  std::optional<std::string> value;  // nullopt = tombstone
  int64_t ts = 0;
};

inline Bytes keyed_batch(const std::vector<KeyedRecord>& recs,
                         record::Compression c = record::Compression::kNone, bool transactional = false) {
  std::vector<record::BuildRecord> out;
  for (const auto& r : recs) {
    record::BuildRecord b;
    b.key = Bytes(r.key.begin(), r.key.end());
    if (r.value) b.value = Bytes(r.value->begin(), r.value->end());
    b.timestamp = r.ts;
    out.push_back(std::move(b));
  }
  record::BatchOptions o;
  o.compression = c;
  if (transactional) {
    o.transactional = true;
    o.producer_id = 7;
    o.producer_epoch = 0;
    o.base_sequence = 0;
  }
  auto b = record::build_batch(o, out);
  EXPECT_TRUE(b.is_ok()) << b.status().message();
  return b.is_ok() ? *b : Bytes{};
}

inline AppendResult append_keyed(Log& log, const std::vector<KeyedRecord>& recs,
                                 record::Compression c = record::Compression::kNone, bool transactional = false) {
  Bytes b = keyed_batch(recs, c, transactional);
  auto r = log.append(std::span<uint8_t>(b), static_cast<int32_t>(recs.size()), 0);
  EXPECT_TRUE(r.is_ok()) << r.status().message();
  return r.is_ok() ? *r : AppendResult{};
}

struct ReadRecord {
  int64_t offset;
  std::string key;
  std::optional<std::string> value;
  int64_t ts;
  int16_t batch_attributes;
};

// Every record from `from` to the log end, validating each batch.
inline std::vector<ReadRecord> read_all(const Log& log, int64_t from = -1) {
  std::vector<ReadRecord> out;
  int64_t offset = from < 0 ? log.log_start_offset() : from;
  while (offset < log.log_end_offset()) {
    auto r = log.read(offset, 1 << 20, INT64_MAX, true);
    EXPECT_TRUE(r.is_ok()) << r.status().message();
    if (!r.is_ok() || r->records.empty()) break;
    ByteSpan all(r->records);
    size_t pos = 0;
    while (pos < all.size()) {
      auto h = record::validate_batch(all.subspan(pos));
      EXPECT_TRUE(h.is_ok()) << h.status().message();
      if (!h.is_ok()) return out;
      Bytes scratch;
      auto batch = all.subspan(pos, h->total_size());
      auto recs = record::decode_records(*h, batch, scratch);
      EXPECT_TRUE(recs.is_ok()) << recs.status().message();
      if (!recs.is_ok()) return out;
      for (const auto& rec : *recs) {
        ReadRecord rr;
        rr.offset = h->base_offset + rec.offset_delta;
        rr.key = rec.key ? std::string(rec.key->begin(), rec.key->end()) : std::string();
        if (rec.value) rr.value = std::string(rec.value->begin(), rec.value->end());
        rr.ts = h->base_timestamp + rec.timestamp_delta;
        rr.batch_attributes = h->attributes;
        if (rr.offset >= offset) out.push_back(std::move(rr));
      }
      offset = h->last_offset() + 1;
      pos += h->total_size();
    }
  }
  return out;
}

// Writes `versions` rounds over `keys` keys (shuffled per round, batches of
// `batch`); in the last round every `tombstone_every`-th key gets a
// tombstone. Returns key -> (offset, value) of the latest record.
struct Latest {
  int64_t offset;
  std::optional<std::string> value;
};
inline std::map<std::string, Latest> write_versions(Log& log, int keys, int versions, int batch, int tombstone_every,
                                                    int64_t ts, size_t value_pad = 20,
                                                    record::Compression c = record::Compression::kNone) {
  std::map<std::string, Latest> latest;
  std::mt19937 rng(42);
  std::string pad(value_pad, 'x');
  for (int v = 0; v < versions; ++v) {
    std::vector<int> order(keys);
    for (int i = 0; i < keys; ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (int i = 0; i < keys; i += batch) {
      std::vector<KeyedRecord> recs;
      for (int j = i; j < std::min(keys, i + batch); ++j) {
        int k = order[j];
        KeyedRecord r;
        r.key = "key-" + std::to_string(k);
        bool tomb = v == versions - 1 && tombstone_every > 0 && k % tombstone_every == 0;
        if (!tomb) r.value = "v" + std::to_string(v) + "-" + std::to_string(k) + pad;
        r.ts = ts;
        recs.push_back(std::move(r));
      }
      auto a = append_keyed(log, recs, c);
      for (size_t j = 0; j < recs.size(); ++j)
        latest[recs[j].key] = Latest{a.first_offset + static_cast<int64_t>(j), recs[j].value};
    }
  }
  return latest;
}

}  // namespace spool::storage::testing
