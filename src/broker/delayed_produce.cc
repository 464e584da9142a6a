#include "broker/delayed_produce.h"

#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;

DelayedProduce::Wait& DelayedProduce::add_wait(std::shared_ptr<Partition> p, int64_t last_offset, size_t result) {
  auto w = std::make_unique<Wait>();
  w->partition = std::move(p);
  w->last_offset = last_offset;
  w->result = result;
  waits_.push_back(std::move(w));
  return *waits_.back();
}

std::vector<std::string> DelayedProduce::keys() const {
  std::vector<std::string> k;
  k.reserve(waits_.size());
  for (const auto& w : waits_) k.push_back(w->partition->key());
  return k;
}

bool DelayedProduce::durable(const Wait& w) const {
  return w.partition->log().flushed_offset() > w.last_offset;
}

bool DelayedProduce::try_complete() {
  for (const auto& w : waits_) {
    if (!w->failed.load() && !durable(*w)) return false;
  }
  return force_complete();
}

void DelayedProduce::on_expiration() {
  for (const auto& w : waits_) {
    if (!w->failed.load() && !durable(*w)) results_[w->result].error = ErrorCode::kRequestTimedOut;
  }
}

void DelayedProduce::on_complete() {
  for (const auto& w : waits_) {
    if (w->failed.load()) {
      results_[w->result].error = ErrorCode::kKafkaStorageError;
      results_[w->result].error_message = "fsync failed";
    }
  }
  if (done_) done_(std::move(results_));
}

}  // namespace spool::broker
