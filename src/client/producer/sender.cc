#include "client/producer/sender.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "protocol/error_code.h"
#include "protocol/init_producer_id_request.h"
#include "protocol/init_producer_id_response.h"
#include "protocol/produce_request.h"
#include "protocol/produce_response.h"

namespace spool::client {

using protocol::ErrorCode;

namespace {

constexpr int16_t kMinProduceVersion = 3;   // record batch v2
constexpr int16_t kMaxProduceVersion = 12;  // 13 names topics by id
constexpr int16_t kMaxTransactionalProduceVersion = 11;

int16_t code_of(ErrorCode c) { return protocol::to_int(c); }

// Errors after which the leader may have moved: ask for metadata.
bool stale_metadata(int16_t code) {
  return code == code_of(ErrorCode::kNotLeaderOrFollower) || code == code_of(ErrorCode::kUnknownTopicOrPartition) ||
         code == code_of(ErrorCode::kLeaderNotAvailable) || code == code_of(ErrorCode::kNetworkException) ||
         code == code_of(ErrorCode::kKafkaStorageError) || code == code_of(ErrorCode::kRequestTimedOut);
}

std::string error_text(int16_t code) { return std::string(protocol::error_name(static_cast<ErrorCode>(code))); }

}  // namespace

Sender::Sender(SenderOptions options, RecordAccumulator& accumulator, ClientMetadata& metadata,
               IdempotenceState& idem, RequestSender& network, TransactionManager* txn)
    : options_(std::move(options)),
      clock_(options_.clock ? options_.clock : system_clock()),
      accumulator_(accumulator),
      metadata_(metadata),
      idem_(idem),
      network_(network),
      txn_(txn) {}

Sender::~Sender() {
  force_close(Status::error("producer closed", code_of(ErrorCode::kNetworkException)));
  join();
}

void Sender::post(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    mailbox_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void Sender::wakeup() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    woken_ = true;
  }
  cv_.notify_one();
}

void Sender::run_mailbox() {
  while (true) {
    std::function<void()> fn;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (mailbox_.empty()) return;
      fn = std::move(mailbox_.front());
      mailbox_.pop_front();
    }
    fn();
  }
}

Status Sender::fatal_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return fatal_;
}

bool Sender::idle() const {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!mailbox_.empty() || requests_in_flight_ > 0) return false;
  }
  return !accumulator_.has_queued();
}

int64_t Sender::run_once() {
  run_mailbox();
  const int64_t now = clock_->monotonic_ms();
  int64_t wait_ms = 100;
  if (has_fatal_error()) {  // nothing more goes out; what is queued fails
    fail_all(fatal_error());
    return wait_ms;
  }
  if (idem_.enabled()) {
    if (idem_.bump_requested() && !idem_.apply_bump()) {
      spdlog::info("producer: epoch exhausted or transactional: fetching a new producer id");
    }
    if (txn_ == nullptr) maybe_init_producer_id(now);
  }
  if (txn_ != nullptr) txn_->poll();
  wait_ms = std::min(wait_ms, metadata_.poll(network_));
  send_ready(now, wait_ms);
  for (auto& batch : accumulator_.expired(now)) {
    const std::string msg = "Expiring " + std::to_string(batch->record_count()) + " record(s) for " +
                            batch->tp().to_string() + ":" + std::to_string(now - batch->created_ms) +
                            " ms has passed since batch creation (delivery.timeout.ms)";
    if (batch->base_sequence >= 0 && txn_ == nullptr) idem_.request_bump(batch->tp());  // its sequence is a gap now
    const Status why = Status::error(msg, code_of(ErrorCode::kRequestTimedOut));
    if (txn_ != nullptr) txn_->on_batch_failed(batch->tp(), why);
    complete(std::move(batch), -1, -1, why);
  }
  return std::max<int64_t>(wait_ms, 0);
}

void Sender::maybe_init_producer_id(int64_t now) {
  if (idem_.has_producer_id() || init_in_flight_ || now < next_init_ms_) return;
  auto snap = metadata_.snapshot();
  std::vector<Node> nodes;
  for (const auto& [id, n] : snap->brokers) nodes.push_back(n);
  if (nodes.empty()) {
    metadata_.request_update();
    return;
  }
  const Node node = nodes[init_node_++ % nodes.size()];
  protocol::InitProducerIdRequest req;
  req.transactional_id = options_.transactional_id;
  req.transaction_timeout_ms = options_.transaction_timeout_ms;
  init_in_flight_ = true;
  send_request<protocol::InitProducerIdRequest, protocol::InitProducerIdResponse>(
      network_, node, std::move(req), [this](Result<Reply<protocol::InitProducerIdResponse>> r) {
        post([this, r = std::move(r)]() mutable {
          init_in_flight_ = false;
          const int64_t now = clock_->monotonic_ms();
          if (!r) {
            next_init_ms_ = now + options_.retry_backoff_ms;
            return;
          }
          const auto& m = r->message;
          if (m.error_code == ErrorCode::kNone) {
            idem_.set_producer_id(m.producer_id, m.producer_epoch);
            spdlog::debug("producer: producer id {} epoch {}", m.producer_id, m.producer_epoch);
            wakeup();
            return;
          }
          const ErrorCode code = m.error_code;
          if (protocol::is_retriable(code) || code == ErrorCode::kCoordinatorLoadInProgress ||
              code == ErrorCode::kConcurrentTransactions) {
            next_init_ms_ = now + options_.retry_backoff_ms;
            return;
          }
          set_fatal(Status::error("InitProducerId failed: " + error_text(code_of(code)), code_of(code)));
        });
      });
}

void Sender::send_ready(int64_t now, int64_t& wait_ms) {
  auto snap = metadata_.snapshot();
  ReadyCheck ready = accumulator_.ready(*snap, now);
  if (ready.unknown_leaders) metadata_.request_update();
  wait_ms = std::min(wait_ms, ready.next_check_ms);
  for (int32_t node_id : ready.nodes) {
    if (in_flight_per_node_[node_id] >= options_.max_in_flight) continue;
    const Node* node = snap->broker(node_id);
    if (node == nullptr) continue;
    auto batches = accumulator_.drain(*snap, node_id, options_.max_request_size, now, idem_);
    if (!batches.empty()) send_produce(*node, std::move(batches), now);
  }
}

void Sender::send_produce(const Node& node, std::vector<std::unique_ptr<ProducerBatch>> batches, int64_t now) {
  auto req = std::make_shared<InFlight>();
  req->node = node;
  protocol::ProduceRequest produce;
  produce.acks = options_.acks;
  produce.timeout_ms = options_.request_timeout_ms;
  produce.transactional_id = options_.transactional_id;
  std::map<std::string, size_t> topic_index;
  for (auto& batch : batches) {
    if (Status s = batch->close(); !s) {
      idem_.on_failed(*batch);
      complete(std::move(batch), -1, -1, s);
      continue;
    }
    if (idem_.enabled()) {
      batch->set_producer_state(batch->producer_id, batch->producer_epoch, batch->base_sequence,
                                options_.transactional_id.has_value());
    }
    ++batch->attempts;
    batch->last_attempt_ms = now;
    auto [it, added] = topic_index.emplace(batch->tp().topic, produce.topic_data.size());
    if (added) {
      produce.topic_data.emplace_back();
      produce.topic_data.back().name = batch->tp().topic;
    }
    protocol::ProduceRequest::PartitionProduceData pd;
    pd.index = batch->tp().partition;
    // A view: the batch lives in `req` until the answer, after the encoding.
    pd.records = protocol::Records::view(std::span<uint8_t>(batch->bytes().data(), batch->bytes().size()));
    produce.topic_data[it->second].partition_data.push_back(std::move(pd));
    req->batches.push_back(std::move(batch));
  }
  if (req->batches.empty()) return;
  ++in_flight_per_node_[node.id];
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++requests_in_flight_;
  }
  RawRequest raw;
  raw.api_key = protocol::ProduceRequest::kApiKey;
  raw.min_version = kMinProduceVersion;
  raw.max_version = txn_ != nullptr ? kMaxTransactionalProduceVersion : kMaxProduceVersion;
  raw.expect_response = options_.acks != 0;
  auto body = std::make_shared<protocol::ProduceRequest>(std::move(produce));
  raw.encode = [body](ByteWriter& w, int16_t v) { body->encode(w, v); };
  network_.send(node, std::move(raw), [this, req](Result<RawResponse> r) {
    post([this, req, r = std::move(r)]() mutable { on_produce_answer(req, std::move(r)); });
  });
}

void Sender::on_produce_answer(const std::shared_ptr<InFlight>& req, Result<RawResponse> r) {
  --in_flight_per_node_[req->node.id];
  {
    std::lock_guard<std::mutex> lock(mu_);
    --requests_in_flight_;
  }
  if (!r) {
    const int16_t code = r.status().kafka_code() >= 0 ? r.status().kafka_code() : code_of(ErrorCode::kNetworkException);
    for (auto& b : req->batches) on_batch_error(std::move(b), code, r.status().message());
    return;
  }
  if (options_.acks == 0) {
    for (auto& b : req->batches) {
      idem_.on_acked(*b);
      complete(std::move(b), -1, -1, Status::ok());
    }
    return;
  }
  protocol::ProduceResponse resp;
  ByteReader reader(r->body());
  if (!resp.decode(reader, r->version)) {
    network_.disconnect(req->node);
    for (auto& b : req->batches) {
      on_batch_error(std::move(b), code_of(ErrorCode::kNetworkException),
                     "malformed Produce response from node " + std::to_string(req->node.id));
    }
    return;
  }
  for (auto& b : req->batches) {
    const protocol::ProduceResponse::PartitionProduceResponse* found = nullptr;
    for (const auto& t : resp.responses) {
      if (t.name != b->tp().topic) continue;
      for (const auto& p : t.partition_responses) {
        if (p.index == b->tp().partition) found = &p;
      }
    }
    if (found == nullptr) {
      on_batch_error(std::move(b), code_of(ErrorCode::kNetworkException),
                     "the Produce response has no answer for " + b->tp().to_string());
      continue;
    }
    const int16_t code = code_of(found->error_code);
    if (code == 0 || code == code_of(ErrorCode::kDuplicateSequenceNumber)) {
      idem_.on_acked(*b);
      complete(std::move(b), code == 0 ? found->base_offset : -1, found->log_append_time_ms, Status::ok());
      continue;
    }
    std::string msg = error_text(code);
    if (found->error_message) msg += ": " + *found->error_message;
    on_batch_error(std::move(b), code, msg);
  }
}

void Sender::on_batch_error(std::unique_ptr<ProducerBatch> batch, int16_t code, const std::string& message) {
  const int64_t now = clock_->monotonic_ms();
  idem_.on_failed(*batch);
  bool retriable = protocol::is_retriable(static_cast<ErrorCode>(code)) ||
                   code == code_of(ErrorCode::kNetworkException) || code == code_of(ErrorCode::kRequestTimedOut);
  if (idem_.enabled() && batch->base_sequence >= 0 && !options_.transactional_id) {
    if (code == code_of(ErrorCode::kUnknownProducerId)) {
      if (!batch->sequence_reset) idem_.request_bump(batch->tp());
      retriable = true;
    } else if (code == code_of(ErrorCode::kOutOfOrderSequenceNumber)) {
      if (!batch->sequence_reset && idem_.is_next_in_line(*batch) && idem_.in_flight(batch->tp()) == 0) {
        idem_.request_bump(batch->tp());
      }
      retriable = true;
    }
  }
  if (stale_metadata(code)) metadata_.request_update();
  bool closing_forced;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_forced = forced_;
  }
  const bool within_limits = batch->attempts <= options_.retries &&
                             now - batch->created_ms < options_.delivery_timeout_ms && !closing_forced;
  if (retriable && within_limits && options_.acks != 0) {
    spdlog::debug("producer: retrying {} (attempt {}): {}", batch->tp().to_string(), batch->attempts + 1, message);
    accumulator_.reenqueue(std::move(batch), now);
    return;
  }
  if (idem_.enabled() && batch->base_sequence >= 0 && !options_.transactional_id) {
    idem_.request_bump(batch->tp());  // its sequence is a gap now
  }
  const Status why = Status::error(message, code);
  if (txn_ != nullptr) txn_->on_batch_failed(batch->tp(), why);
  complete(std::move(batch), -1, -1, why);
}

void Sender::complete(std::unique_ptr<ProducerBatch> batch, int64_t base_offset, int64_t log_append_time,
                      const Status& status) {
  batch->complete(base_offset, log_append_time, status);
  accumulator_.release(*batch);
}

void Sender::fail_all(const Status& why) {
  for (auto& b : accumulator_.abort_all()) complete(std::move(b), -1, -1, why);
}

void Sender::set_fatal(const Status& why) {
  spdlog::error("producer: fatal error: {}", why.message());
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (fatal_.is_ok()) fatal_ = why;
  }
  has_fatal_.store(true, std::memory_order_release);
  accumulator_.close(why);
  fail_all(why);
}

void Sender::start() {
  thread_ = std::thread([this] {
    while (true) {
      const int64_t wait_ms = run_once();
      std::unique_lock<std::mutex> lock(mu_);
      if (forced_) break;
      if (closing_ && mailbox_.empty() && requests_in_flight_ == 0) {
        lock.unlock();
        if (!accumulator_.has_queued()) break;
        lock.lock();
      }
      if (!woken_ && mailbox_.empty()) {
        cv_.wait_for(lock, std::chrono::milliseconds(std::clamp<int64_t>(wait_ms, 1, 100)));
      }
      woken_ = false;
    }
    // Forced (or done): whatever is left fails; answers still in flight
    // come back as NETWORK_EXCEPTION once the network client shuts down.
    Status why;
    {
      std::lock_guard<std::mutex> lock(mu_);
      why = forced_ ? force_status_ : Status::error("producer closed", code_of(ErrorCode::kNetworkException));
    }
    fail_all(why);
  });
}

void Sender::initiate_close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
  }
  accumulator_.close(Status::error("Cannot perform operation after producer has been closed", -1));
  wakeup();
}

void Sender::force_close(const Status& why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closing_ = true;
    if (!forced_) force_status_ = why;
    forced_ = true;
  }
  accumulator_.close(why);
  wakeup();
}

void Sender::abort_queued(const Status& why) {
  post([this, why] { fail_all(why); });
  wakeup();
}

bool Sender::await_idle(int64_t timeout_ms) {
  const int64_t deadline = clock_->monotonic_ms() + timeout_ms;
  while (!idle()) {
    if (clock_->monotonic_ms() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

void Sender::finish() {
  run_mailbox();
  Status why;
  {
    std::lock_guard<std::mutex> lock(mu_);
    why = forced_ ? force_status_ : Status::error("producer closed", code_of(ErrorCode::kNetworkException));
  }
  fail_all(why);
}

void Sender::join() {
  if (thread_.joinable() && std::this_thread::get_id() != thread_.get_id()) thread_.join();
}

}  // namespace spool::client
