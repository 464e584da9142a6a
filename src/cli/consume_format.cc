#include "cli/consume_format.h"

#include <nlohmann/json.hpp>

#include "security/scram.h"

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
  if (is_valid_utf8(s)) {
    obj[name] = std::move(s);
  } else {
    obj[name] = security::base64_encode(*b);
    obj[name + "_encoding"] = "base64";
  }
}

}  // namespace

bool is_valid_utf8(const std::string& s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t len = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

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
      ho["key"] = is_valid_utf8(h.key) ? h.key : security::base64_encode(Bytes(h.key.begin(), h.key.end()));
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
