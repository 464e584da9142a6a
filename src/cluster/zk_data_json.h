// zk_data_json: internal helpers of the zk_data codecs (not for other
// modules). JsonReader reads typed fields out of a parsed document with a
// sticky failure, like protocol's ByteReader: the first problem is kept as
// "<path>: field '<field>' <what>", later calls return empty values, and the
// decoder checks ok() once per step. Nothing here throws: the parse runs with
// exceptions off and every value is type-checked before it is read.
#pragma once

#include <cstdint>
#include <exception>
#include <initializer_list>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/status.h"

namespace spool::cluster::zkjson {

using Json = nlohmann::json;
// Encoders build ordered documents so keys keep the order they are added in.
using OrderedJson = nlohmann::ordered_json;

// Deepest nesting a document may have: Kafka's deepest (broker features) is 3.
inline constexpr int kMaxDepth = 16;

// Compact, no spaces; invalid UTF-8 replaced by U+FFFD instead of thrown.
std::string dump(const OrderedJson& doc);

// Parses `data` as a JSON object. Errors: "<path>: not valid JSON",
// "<path>: JSON nested deeper than 16 levels", "<path>: expected a JSON
// object, got <type>".
Result<Json> parse_object(std::string_view path, std::string_view data);

class JsonReader {
 public:
  explicit JsonReader(std::string_view path) : path_(path) {}

  bool ok() const { return error_.empty(); }
  // The first failure (message "<path>: ..."); ok if none.
  Status status() const;
  // Records a failure about `field` (first one wins).
  void fail(std::string_view field, std::string_view what);
  // Records a failure about the whole document.
  void fail_document(std::string_view what);

  // The "version" field, which must be an integer in `accepted`.
  int32_t version(const Json& obj, std::initializer_list<int32_t> accepted);

  // Required fields of `obj`. `context` names where obj sits in the
  // document ("partitions[2]"), so messages say "partitions[2].topic".
  int64_t integer(const Json& obj, std::string_view key, int64_t min, int64_t max, std::string_view context = {});
  std::string string(const Json& obj, std::string_view key, std::string_view context = {});
  const Json& object(const Json& obj, std::string_view key, std::string_view context = {});
  const Json& array(const Json& obj, std::string_view key, std::string_view context = {});
  // Optional fields: absent (or JSON null) -> nullopt / nullptr.
  std::optional<int64_t> opt_integer(const Json& obj, std::string_view key, int64_t min, int64_t max,
                                     std::string_view context = {});
  std::optional<std::string> opt_string(const Json& obj, std::string_view key, std::string_view context = {});
  const Json* opt_object(const Json& obj, std::string_view key, std::string_view context = {});

  // Values (the field name is only for the message).
  int64_t integer_value(const Json& v, std::string_view field, int64_t min, int64_t max);
  std::string string_value(const Json& v, std::string_view field);
  // A decimal string (Kafka's timestamps and producer-id bounds): digits only.
  int64_t decimal_string(const Json& obj, std::string_view key, int64_t min, int64_t max,
                         std::string_view context = {});
  // A list of broker ids: an array of int32 >= 0 without repeats.
  std::vector<int32_t> broker_ids(const Json& v, std::string_view field, bool allow_empty);

 private:
  std::string path_;
  std::string error_;
};

// Canonical decimal digits ("0", "17"; no sign, no leading zero) in [0, max].
std::optional<int64_t> parse_decimal(std::string_view s, int64_t max);

inline constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
inline constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

// A decoder body behind a last-resort guard: nothing below should throw, but
// an exception must never cross the module border (a std::bad_alloc on a
// huge document, say).
template <typename T, typename F>
Result<T> guarded(std::string_view path, F&& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    return Status::error(std::string(path) + ": cannot decode: " + e.what());
  }
}

}  // namespace spool::cluster::zkjson
