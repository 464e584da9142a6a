#include "broker/delayed_produce.h"

#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;

void DelayedProduce::add_wait(std::shared_ptr<Partition> p, int64_t required_offset, size_t result) {
  waits_.push_back({std::move(p), required_offset, result});
}

std::vector<TopicPartition> DelayedProduce::keys() const {
  std::vector<TopicPartition> k;
  k.reserve(waits_.size());
  for (const auto& w : waits_) k.push_back(w.partition->key());
  return k;
}

bool DelayedProduce::try_complete() {
  for (const auto& w : waits_) {
    auto c = w.partition->check_enough_replicas_reach_offset(w.required_offset);
    if (!c.reached && c.error == ErrorCode::kNone) return false;
  }
  return force_complete();
}

void DelayedProduce::on_expiration() {
  for (const auto& w : waits_) {
    auto c = w.partition->check_enough_replicas_reach_offset(w.required_offset);
    if (!c.reached && c.error == ErrorCode::kNone) results_[w.result].error = ErrorCode::kRequestTimedOut;
  }
}

void DelayedProduce::on_complete() {
  for (const auto& w : waits_) {
    auto& r = results_[w.result];
    if (r.error != ErrorCode::kNone) continue;  // timed out
    auto c = w.partition->check_enough_replicas_reach_offset(w.required_offset);
    if (!c.reached && c.error != ErrorCode::kNone) {
      r.error = c.error;
      if (c.error == ErrorCode::kKafkaStorageError) r.error_message = "fsync failed";
    }
  }
  if (done_) done_(std::move(results_));
}

}  // namespace spool::broker
