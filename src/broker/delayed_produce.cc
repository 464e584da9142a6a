#include "broker/delayed_produce.h"

#include "protocol/error_code.h"

namespace spool::broker {

using protocol::ErrorCode;

DelayedProduce::Wait& DelayedProduce::add_wait(std::shared_ptr<Partition> p, int64_t last_offset,
                                               protocol::ProduceResponse::PartitionProduceResponse* answer) {
  auto w = std::make_unique<Wait>();
  w->partition = std::move(p);
  w->last_offset = last_offset;
  w->answer = answer;
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
    if (!w->failed.load() && !durable(*w)) w->answer->error_code = ErrorCode::kRequestTimedOut;
  }
}

void DelayedProduce::on_complete() {
  for (const auto& w : waits_) {
    if (w->failed.load()) {
      w->answer->error_code = ErrorCode::kKafkaStorageError;
      w->answer->error_message = "fsync failed";
    }
  }
  ctx_.respond(resp_);
}

}  // namespace spool::broker
