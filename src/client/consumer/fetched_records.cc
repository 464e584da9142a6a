#include "client/consumer/fetched_records.h"

#include <algorithm>
#include <set>

#include "protocol/error_code.h"
#include "record/batch_header.h"
#include "record/control_record.h"
#include "record/record.h"

namespace spool::client {

using protocol::ErrorCode;

namespace {

Bytes copy(ByteSpan s) { return Bytes(s.begin(), s.end()); }

// The ABORT marker of a control batch (its first record's key).
bool is_abort_marker(const record::BatchHeader& h, ByteSpan batch) {
  if (!h.is_control()) return false;
  Bytes scratch;
  auto records = record::decode_records(h, batch, scratch);
  if (!records || records->empty()) return false;
  auto marker = record::parse_control_record(records->front());
  return marker && marker->type == record::ControlType::kAbort;
}

}  // namespace

FetchedRecords parse_fetched_records(const std::string& topic, int32_t partition, ByteSpan records,
                                     int64_t fetch_offset, IsolationLevel isolation,
                                     std::vector<AbortedTransaction> aborted, bool check_crcs) {
  FetchedRecords out;
  out.next_fetch_offset = fetch_offset;
  std::sort(aborted.begin(), aborted.end(),
            [](const AbortedTransaction& a, const AbortedTransaction& b) { return a.first_offset < b.first_offset; });
  size_t next_aborted = 0;
  std::set<int64_t> aborted_producers;
  size_t pos = 0;
  while (records.size() - pos >= record::kLogOverhead) {
    ByteSpan rest = records.subspan(pos);
    auto head = record::read_header(rest);
    if (!head) break;  // fewer bytes than a header: the answer was cut
    if (head->batch_length < 0) {
      out.error = Status::error("negative batch length in " + topic + "-" + std::to_string(partition),
                                protocol::to_int(ErrorCode::kCorruptMessage));
      return out;
    }
    if (head->total_size() > rest.size()) break;  // a partial batch at the end
    ByteSpan batch = rest.subspan(0, head->total_size());
    pos += head->total_size();
    if (head->magic != 2) {
      out.error = Status::error("unsupported record batch magic " + std::to_string(head->magic) + " in " + topic +
                                    "-" + std::to_string(partition),
                                protocol::to_int(ErrorCode::kCorruptMessage));
      return out;
    }
    auto h = check_crcs ? record::validate_batch(batch) : head;
    if (!h) {
      out.error = Status::error("Record batch for partition " + topic + "-" + std::to_string(partition) +
                                    " at offset " + std::to_string(head->base_offset) +
                                    " is invalid: " + h.status().message(),
                                protocol::to_int(ErrorCode::kCorruptMessage));
      return out;
    }
    if (h->last_offset() < out.next_fetch_offset) continue;  // wholly before the fetch position
    const int64_t next = h->last_offset() + 1;
    if (isolation == IsolationLevel::kReadCommitted && h->producer_id >= 0) {
      while (next_aborted < aborted.size() && aborted[next_aborted].first_offset <= h->last_offset()) {
        aborted_producers.insert(aborted[next_aborted].producer_id);
        ++next_aborted;
      }
      if (is_abort_marker(*h, batch)) {
        aborted_producers.erase(h->producer_id);
      } else if (h->is_transactional() && aborted_producers.count(h->producer_id) > 0) {
        out.next_fetch_offset = next;  // an aborted batch: skipped whole
        out.last_epoch = h->partition_leader_epoch;
        continue;
      }
    }
    if (h->is_control()) {
      out.next_fetch_offset = next;
      out.last_epoch = h->partition_leader_epoch;
      continue;
    }
    Bytes scratch;
    auto decoded = record::decode_records(*h, batch, scratch);
    if (!decoded) {
      out.error = Status::error("Record batch for partition " + topic + "-" + std::to_string(partition) +
                                    " at offset " + std::to_string(h->base_offset) +
                                    " does not decode: " + decoded.status().message(),
                                protocol::to_int(ErrorCode::kCorruptMessage));
      return out;
    }
    for (const record::Record& r : *decoded) {
      const int64_t offset = h->base_offset + r.offset_delta;
      if (offset < out.next_fetch_offset) continue;
      ConsumerRecord cr;
      cr.topic = topic;
      cr.partition = partition;
      cr.offset = offset;
      cr.log_append_time = h->log_append_time();
      cr.timestamp = cr.log_append_time ? h->max_timestamp : h->base_timestamp + r.timestamp_delta;
      cr.leader_epoch = h->partition_leader_epoch;
      if (r.key) cr.key = copy(*r.key);
      if (r.value) cr.value = copy(*r.value);
      for (const record::Header& hd : r.headers) {
        RecordHeader rh;
        rh.key = std::string(hd.key);
        if (hd.value) rh.value = Bytes(hd.value->begin(), hd.value->end());
        cr.headers.push_back(std::move(rh));
      }
      out.records.push_back(std::move(cr));
    }
    out.next_fetch_offset = next;
    out.last_epoch = h->partition_leader_epoch;
  }
  return out;
}

}  // namespace spool::client
