#include "cli/consume_format.h"

#include <nlohmann/json.hpp>

#include "security/scram.h"
#include "util/utf8.h"

namespace spool::cli {

using nlohmann::ordered_json;

namespace {

std::string text_of(const std::optional<Bytes>& b) {
  return b ? std::string(b->begin(), b->end()) : std::string("null");
}

// Sets obj[name] (and obj[name + "_encoding"] for base64).
void put_bytes(ordered_json& obj, const std::string& name, const std::optional<Bytes>& b) {
  if (!b) {
    obj[name] = nullptr;
    return;
  }
  std::string s(b->begin(), b->end());
  if (util::is_valid_utf8(s)) {
    obj[name] = std::move(s);
  } else {
    obj[name] = security::base64_encode(*b);
    obj[name + "_encoding"] = "base64";
  }
}

}  // namespace

std::string format_record(const client::ConsumerRecord& r, ConsumeFormat format, const ConsumeFields& f) {
  const char* ts_type = r.log_append_time ? "LogAppendTime" : "CreateTime";
  if (format == ConsumeFormat::kText) {
    std::string line;
    if (f.timestamp) {
      line += r.timestamp >= 0 ? std::string(ts_type) + ":" + std::to_string(r.timestamp) : "NO_TIMESTAMP";
      line += '\t';
    }
    if (f.partition) line += "Partition:" + std::to_string(r.partition) + '\t';
    if (f.offset) line += "Offset:" + std::to_string(r.offset) + '\t';
    if (f.headers) {
      if (r.headers.empty()) {
        line += "NO_HEADERS";
      } else {
        for (size_t i = 0; i < r.headers.size(); ++i) {
          if (i > 0) line += ',';
          line += r.headers[i].key + ":" + text_of(r.headers[i].value);
        }
      }
      line += '\t';
    }
    if (f.key) line += text_of(r.key) + '\t';
    line += text_of(r.value);
    return line;
  }
  ordered_json obj = ordered_json::object();
  if (f.timestamp) {
    obj["timestamp"] = r.timestamp;
    obj["timestamp_type"] = ts_type;
  }
  if (f.partition) obj["partition"] = r.partition;
  if (f.offset) obj["offset"] = r.offset;
  if (f.headers) {
    ordered_json hs = ordered_json::array();
    for (const auto& h : r.headers) {
      ordered_json ho = ordered_json::object();
      ho["key"] = util::is_valid_utf8(h.key) ? h.key : security::base64_encode(Bytes(h.key.begin(), h.key.end()));
      put_bytes(ho, "value", h.value);
      hs.push_back(std::move(ho));
    }
    obj["headers"] = std::move(hs);
  }
  if (f.key) put_bytes(obj, "key", r.key);
  put_bytes(obj, "value", r.value);
  return obj.dump();
}

}  // namespace spool::cli
