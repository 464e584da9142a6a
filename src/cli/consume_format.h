// How `spool consume` prints a record: one line per record, in one of two
// formats, with the optional fields the --print-* flags select.
//
// text (kafka-console-consumer's DefaultMessageFormatter): the selected
// fields, then the value, separated by a tab, in Java's order:
//   CreateTime:<ms> (or LogAppendTime:<ms>)  --print-timestamp
//   Partition:<n>                            --print-partition
//   Offset:<n>                               --print-offset
//   <k>:<v>,<k>:<v> (or NO_HEADERS)          --print-headers
//   <key>                                    --print-key
//   <value>
// Bytes are written as they are; a null key, value or header value prints
// "null".
//
// json: one object per line, keys in this order: "timestamp" and
// "timestamp_type" ("CreateTime" / "LogAppendTime"), "partition", "offset",
// "headers" (an array of {"key", "value"}), "key", then always "value" —
// each only when its flag selects it. A byte field (key, value, header
// value) is a JSON string when its bytes are valid UTF-8; otherwise it is
// the standard base64 (with padding) of the bytes, and a sibling
// "<field>_encoding": "base64" says so (for a header: "value_encoding" in
// the header's object). A null field is JSON null.
// Pure functions; thread-safe.
#pragma once

#include <string>

#include "client/consumer/consumer_record.h"

namespace spool::cli {

enum class ConsumeFormat { kText, kJson };

struct ConsumeFields {
  bool key = false;
  bool headers = false;
  bool partition = false;
  bool offset = false;
  bool timestamp = false;
};

// The line for a record, without the trailing newline.
std::string format_record(const client::ConsumerRecord& record, ConsumeFormat format, const ConsumeFields& fields);


}  // namespace spool::cli
