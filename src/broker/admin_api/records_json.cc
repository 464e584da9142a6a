// AdminApi's message browser: /v1/topics/{topic}/partitions/{p}/records
// (admin_api.h). Reads a partition this broker hosts and leads through its
// Log, below the high watermark only (what a read_uncommitted consumer may
// see; control batches, the transaction markers, are skipped as consumers
// skip them). Bounds: at most kMaxLogBytes of log per answer (a first batch
// larger than that is still read whole, as Fetch's min_one does), each
// batch's records section decompressed to at most kMaxUncompressedBytes, and
// each key, value and header value shown up to kMaxFieldBytes ("…_truncated").
// A byte field is a JSON string when valid UTF-8, else standard base64 with
// a sibling "<field>_encoding": "base64" (as `spool consume --format json`).
#include <charconv>
#include <optional>

#include "broker/admin_api/admin_api.h"
#include "broker/partition.h"
#include "broker/topic_name.h"
#include "record/record.h"
#include "security/scram.h"
#include "util/utf8.h"

namespace spool::broker {
namespace {

using nlohmann::json;

constexpr int32_t kMaxLogBytes = 1 << 20;
constexpr size_t kMaxUncompressedBytes = 16u << 20;
constexpr size_t kMaxFieldBytes = 64u << 10;

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t v = 0;
  if (s.empty()) return std::nullopt;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// Sets obj[name] from `bytes` (null when nullopt), with "<name>_encoding",
// "<name>_size" and "<name>_truncated" as the header comment says.
void put_bytes(json& obj, const std::string& name, std::optional<std::string_view> bytes) {
  if (!bytes) {
    obj[name] = nullptr;
    return;
  }
  const std::string_view b = *bytes;
  obj[name + "_size"] = b.size();
  if (util::utf8_valid_prefix(b) == b.size()) {
    std::string_view shown = b.substr(0, kMaxFieldBytes);
    if (shown.size() < b.size()) {
      // Cut at a character boundary.
      shown = shown.substr(0, util::utf8_valid_prefix(shown));
      obj[name + "_truncated"] = true;
    }
    obj[name] = std::string(shown);
    return;
  }
  const std::string_view shown = b.substr(0, kMaxFieldBytes);
  if (shown.size() < b.size()) obj[name + "_truncated"] = true;
  obj[name] = security::base64_encode(Bytes(shown.begin(), shown.end()));
  obj[name + "_encoding"] = "base64";
}

std::string_view as_chars(ByteSpan s) { return {reinterpret_cast<const char*>(s.data()), s.size()}; }

std::optional<std::string_view> as_chars(const std::optional<ByteSpan>& s) {
  if (!s) return std::nullopt;
  return as_chars(*s);
}

JsonAnswer fail(int status, const std::string& message, json extra = json::object()) {
  extra["error"] = message;
  return {status, std::move(extra)};
}

}  // namespace

JsonAnswer AdminApi::records_json(const std::string& topic, const std::string& partition_text,
                                  const http::HttpRequest& req) const {
  if (!is_valid_topic_name(topic)) return fail(404, "not a topic name: " + topic_name_problem(topic));
  const auto index = parse_int(partition_text);
  if (!index || *index < 0 || *index > INT32_MAX) return fail(400, "bad partition: " + partition_text);
  const std::string limit_text = req.param("limit");
  const auto limit = limit_text.empty() ? std::optional<int64_t>(kDefaultRecordsLimit) : parse_int(limit_text);
  if (!limit || *limit < 1 || *limit > kMaxRecordsLimit)
    return fail(400, "limit must be 1.." + std::to_string(kMaxRecordsLimit) + ", got '" + limit_text + "'");
  const TopicPartition tp{topic, static_cast<int32_t>(*index)};
  auto p = ctx_.replicas.partition(tp);
  if (!p) return fail(404, "partition " + tp.to_string() + " is not hosted on broker " +
                               std::to_string(ctx_.settings.broker_id));
  if (!p->is_leader()) return fail(404, "partition " + tp.to_string() + " is not led by broker " +
                                            std::to_string(ctx_.settings.broker_id));
  if (p->offline()) return fail(503, "partition " + tp.to_string() + " is offline");
  const int64_t hw = p->high_watermark();
  const int64_t log_start = p->log_start_offset();
  const json bounds = {{"log_start_offset", log_start}, {"high_watermark", hw}};
  const std::string offset_text = req.param("offset");
  const auto from = offset_text.empty() ? std::optional<int64_t>(log_start) : parse_int(offset_text);
  if (!from) return fail(400, "bad offset: '" + offset_text + "'", bounds);
  if (*from < log_start || *from > hw)
    return fail(400, "offset " + std::to_string(*from) + " is outside [log start, high watermark] = [" +
                         std::to_string(log_start) + ", " + std::to_string(hw) + "]",
                bounds);

  json records = json::array();
  int64_t next = *from;
  int64_t bytes_read = 0;
  Bytes scratch;
  // Reads whole batches from `next` until `limit` records, the high
  // watermark or the byte budget.
  while (static_cast<int64_t>(records.size()) < *limit && next < hw && bytes_read < kMaxLogBytes) {
    auto read = p->log().read(next, kMaxLogBytes - static_cast<int32_t>(bytes_read), hw, /*min_one=*/bytes_read == 0);
    if (!read) {
      if (read.status().kafka_code() == static_cast<int16_t>(protocol::ErrorCode::kOffsetOutOfRange))
        return fail(400, read.status().message(), bounds);  // retention moved the log start meanwhile
      return fail(500, "reading " + tp.to_string() + ": " + read.status().message());
    }
    if (read->records.empty()) break;
    bytes_read += static_cast<int64_t>(read->records.size());
    ByteSpan rest(read->records.data(), read->records.size());
    bool stop = false;
    while (!rest.empty() && !stop) {
      auto header = record::validate_batch(rest);
      if (!header) return fail(500, "batch at " + std::to_string(next) + ": " + header.status().message());
      const ByteSpan batch = rest.subspan(0, header->total_size());
      rest = rest.subspan(header->total_size());
      if (header->is_control()) {
        next = std::max(next, header->last_offset() + 1);
        continue;
      }
      auto decoded = record::decode_records(*header, batch, scratch, kMaxUncompressedBytes);
      if (!decoded) return fail(500, "batch at " + std::to_string(header->base_offset) + ": " +
                                         decoded.status().message());
      for (const auto& r : *decoded) {
        const int64_t offset = header->base_offset + r.offset_delta;
        if (offset < next) continue;
        if (offset >= hw || static_cast<int64_t>(records.size()) >= *limit) {
          stop = true;
          break;
        }
        json jr = {{"offset", offset},
                   {"timestamp", header->log_append_time() ? header->max_timestamp
                                                           : header->base_timestamp + r.timestamp_delta},
                   {"timestamp_type", header->log_append_time() ? "LogAppendTime" : "CreateTime"}};
        put_bytes(jr, "key", as_chars(r.key));
        put_bytes(jr, "value", as_chars(r.value));
        json headers = json::array();
        for (const auto& h : r.headers) {
          json jh = json::object();
          put_bytes(jh, "key", h.key);
          put_bytes(jh, "value", h.value);
          headers.push_back(std::move(jh));
        }
        jr["headers"] = std::move(headers);
        records.push_back(std::move(jr));
        next = offset + 1;
      }
      if (!stop) next = std::max(next, std::min(header->last_offset() + 1, hw));
    }
    if (stop) break;
  }
  return {200,
          {{"topic", topic},
           {"partition", tp.partition},
           {"offset", *from},
           {"limit", *limit},
           {"log_start_offset", log_start},
           {"high_watermark", hw},
           {"next_offset", next},
           {"records", std::move(records)}}};
}

}  // namespace spool::broker
