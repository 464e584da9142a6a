// What a caller hands the native producer and what it gets back (Kafka's
// ProducerRecord, RecordMetadata and Callback). Plain values.
//
// A record names its topic; its partition is -1 to let the partitioner
// choose; key and value are bytes or null; timestamp -1 means "now" (the
// producer's wall clock, CreateTime). The callback runs once, on the
// producer's I/O thread, with the metadata and an ok Status, or with the
// error (Status::kafka_code() is Kafka's code when there is one). Callbacks
// must not block: they hold up the producer's sending.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "util/bytes.h"
#include "util/status.h"

namespace spool::client {

struct RecordHeader {
  std::string key;
  std::optional<Bytes> value;
};

struct ProducerRecord {
  std::string topic;
  int32_t partition = -1;
  std::optional<Bytes> key;
  std::optional<Bytes> value;
  std::vector<RecordHeader> headers;
  int64_t timestamp = -1;
};

struct RecordMetadata {
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;     // -1 with acks=0, or when the broker did not say
  int64_t timestamp = -1;  // the broker's LogAppendTime, else the record's
  int32_t serialized_key_size = -1;    // -1 for a null key
  int32_t serialized_value_size = -1;  // -1 for a null value
};

using SendCallback = std::function<void(const RecordMetadata&, const Status&)>;

}  // namespace spool::client
