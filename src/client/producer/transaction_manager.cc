#include "client/producer/transaction_manager.h"

#include <spdlog/spdlog.h>

#include <thread>

#include "client/blocking_call.h"
#include "client/producer/transaction_errors.h"
#include "protocol/add_offsets_to_txn_request.h"
#include "protocol/add_offsets_to_txn_response.h"
#include "protocol/add_partitions_to_txn_request.h"
#include "protocol/add_partitions_to_txn_response.h"
#include "protocol/end_txn_request.h"
#include "protocol/end_txn_response.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/init_producer_id_request.h"
#include "protocol/init_producer_id_response.h"
#include "protocol/txn_offset_commit_request.h"
#include "protocol/txn_offset_commit_response.h"

namespace spool::client {

using protocol::ErrorCode;
using namespace txn;  // NOLINT: the shared error rules and versions

TransactionManager::TransactionManager(TransactionOptions options, RequestSender& network, ClientMetadata& metadata,
                                       IdempotenceState& idem)
    : options_(std::move(options)),
      clock_(options_.clock ? options_.clock : system_clock()),
      network_(network),
      metadata_(metadata),
      idem_(idem) {
  idem_.set_gate([this](const TopicPartition& tp) { return may_send(tp); });
}

const char* TransactionManager::state_name(State s) {
  switch (s) {
    case TransactionManager::State::kUninitialized: return "UNINITIALIZED";
    case TransactionManager::State::kReady: return "READY";
    case TransactionManager::State::kInTransaction: return "IN_TRANSACTION";
    case TransactionManager::State::kCommitting: return "COMMITTING_TRANSACTION";
    case TransactionManager::State::kAborting: return "ABORTING_TRANSACTION";
    case TransactionManager::State::kAbortable: return "ABORTABLE_ERROR";
    case TransactionManager::State::kFatal: return "FATAL_ERROR";
  }
  return "?";
}

TransactionManager::State TransactionManager::state() const {
  std::lock_guard<std::mutex> lock(mu_);
  return state_;
}

Status TransactionManager::last_error() const {
  std::lock_guard<std::mutex> lock(mu_);
  return error_;
}

void TransactionManager::set_error_locked(State s, const Status& why) {
  if (state_ == State::kFatal) return;
  if (s == State::kFatal || state_ != State::kAbortable) error_ = why;
  state_ = s;
  spdlog::warn("producer: transaction {}: {} ({})", options_.transactional_id, why.message(), state_name(s));
}

Status TransactionManager::check_state_locked(const char* op) const {
  if (state_ == State::kFatal) {
    return Status::error(std::string("Cannot ") + op + ": the producer has a fatal error: " + error_.message(),
                         error_.kafka_code());
  }
  return Status::ok();
}

void TransactionManager::sleep_backoff() const {
  std::this_thread::sleep_for(std::chrono::milliseconds(options_.retry_backoff_ms));
}

Result<Node> TransactionManager::coordinator(int64_t deadline_ms) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (coordinator_) return *coordinator_;
  }
  while (true) {
    auto snap = metadata_.snapshot();
    std::vector<Node> nodes;
    for (const auto& [id, n] : snap->brokers) nodes.push_back(n);
    if (nodes.empty()) {
      metadata_.request_update();
    } else {
      const Node& node = nodes[static_cast<size_t>(now()) % nodes.size()];
      protocol::FindCoordinatorRequest req;
      req.key = options_.transactional_id;
      req.key_type = 1;  // transaction
      req.coordinator_keys = {options_.transactional_id};
      auto r = call_sync<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(
          network_, node, req, options_.request_timeout_ms, kFindCoordinatorVersions);
      if (r) {
        ErrorCode ec = r->error_code;
        int32_t id = r->node_id, port = r->port;
        std::string host = r->host;
        if (!r->coordinators.empty()) {
          ec = r->coordinators[0].error_code;
          id = r->coordinators[0].node_id;
          port = r->coordinators[0].port;
          host = r->coordinators[0].host;
        }
        if (ec == ErrorCode::kNone && port > 0 && port <= 65535) {
          Node found{id, host, static_cast<uint16_t>(port)};
          std::lock_guard<std::mutex> lock(mu_);
          coordinator_ = found;
          return found;
        }
        if (is_fatal(ec) || ec == ErrorCode::kGroupAuthorizationFailed) {
          return error_status("FindCoordinator for transactional id " + options_.transactional_id, ec);
        }
      }
    }
    if (now() >= deadline_ms) {
      return Status::error("Timeout expired while finding the transaction coordinator of " +
                               options_.transactional_id,
                           protocol::to_int(ErrorCode::kRequestTimedOut));
    }
    sleep_backoff();
  }
}

void TransactionManager::forget_coordinator() {
  std::lock_guard<std::mutex> lock(mu_);
  coordinator_.reset();
}

Status TransactionManager::init_producer_id(int64_t deadline_ms, bool keep_id) {
  while (true) {
    auto node = coordinator(deadline_ms);
    if (!node) return node.status();
    protocol::InitProducerIdRequest req;
    req.transactional_id = options_.transactional_id;
    req.transaction_timeout_ms = options_.transaction_timeout_ms;
    if (keep_id) {
      req.producer_id = idem_.producer_id();
      req.producer_epoch = idem_.epoch();
    }
    auto r = call_sync<protocol::InitProducerIdRequest, protocol::InitProducerIdResponse>(
        network_, *node, req, options_.request_timeout_ms, kInitProducerIdVersions);
    const ErrorCode ec = r ? r->error_code : code_of(r.status());
    if (ec == ErrorCode::kNone) {
      idem_.set_producer_id(r->producer_id, r->producer_epoch);
      spdlog::debug("producer: transactional id {} has producer id {} epoch {}", options_.transactional_id,
                   r->producer_id, r->producer_epoch);
      return Status::ok();
    }
    if (!is_retry(ec)) return error_status("InitProducerId", ec);
    if (coordinator_moved(ec)) forget_coordinator();
    if (now() >= deadline_ms) return error_status("InitProducerId timed out", ec);
    sleep_backoff();
  }
}

Status TransactionManager::init_transactions(int64_t timeout_ms) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = check_state_locked("initialize transactions"); !s) return s;
    if (state_ != State::kUninitialized) return Status::error("initTransactions was already called");
  }
  Status s = init_producer_id(now() + timeout_ms, false);
  std::lock_guard<std::mutex> lock(mu_);
  if (!s) {
    if (is_fatal(code_of(s))) set_error_locked(State::kFatal, s);
    return s;
  }
  state_ = State::kReady;
  return Status::ok();
}

Status TransactionManager::begin_transaction() {
  std::lock_guard<std::mutex> lock(mu_);
  if (Status s = check_state_locked("begin a transaction"); !s) return s;
  if (state_ != State::kReady) {
    return Status::error(std::string("Invalid transition attempted from state ") + state_name(state_) +
                         " to state IN_TRANSACTION");
  }
  state_ = State::kInTransaction;
  return Status::ok();
}

Status TransactionManager::on_send(const TopicPartition& tp) {
  std::lock_guard<std::mutex> lock(mu_);
  if (Status s = check_state_locked("send"); !s) return s;
  if (state_ == State::kAbortable) {
    return Status::error("Cannot perform send because at least one previous transactional or idempotent request "
                         "has failed with errors: " + error_.message(),
                         error_.kafka_code());
  }
  if (state_ != State::kInTransaction) {
    return Status::error(std::string("Cannot call send in state ") + state_name(state_));
  }
  if (added_.count(tp) == 0) pending_.insert(tp);
  return Status::ok();
}

bool TransactionManager::may_send(const TopicPartition& tp) const {
  std::lock_guard<std::mutex> lock(mu_);
  return added_.count(tp) > 0;
}

void TransactionManager::poll() {
  std::vector<TopicPartition> batch;
  Node node;
  int64_t pid = idem_.producer_id();
  int16_t epoch = idem_.epoch();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (pending_.empty() || add_in_flight_ || now() < next_add_ms_) return;
    if (state_ != State::kInTransaction && state_ != State::kCommitting) return;
    if (!coordinator_) {
      if (find_in_flight_) return;
      find_in_flight_ = true;
    } else {
      node = *coordinator_;
      batch.assign(pending_.begin(), pending_.end());
      add_in_flight_ = true;
    }
  }
  if (batch.empty()) {
    find_coordinator_async();
    return;
  }
  protocol::AddPartitionsToTxnRequest req;
  req.v3_and_below_transactional_id = options_.transactional_id;
  req.v3_and_below_producer_id = pid;
  req.v3_and_below_producer_epoch = epoch;
  std::map<std::string, std::vector<int32_t>> by_topic;
  for (const auto& tp : batch) by_topic[tp.topic].push_back(tp.partition);
  for (auto& [topic, parts] : by_topic) {
    protocol::AddPartitionsToTxnRequest::AddPartitionsToTxnTopic t;
    t.name = topic;
    t.partitions = parts;
    req.v3_and_below_topics.push_back(std::move(t));
  }
  send_request<protocol::AddPartitionsToTxnRequest, protocol::AddPartitionsToTxnResponse>(
      network_, node, std::move(req),
      [this, batch](Result<Reply<protocol::AddPartitionsToTxnResponse>> r) {
        std::lock_guard<std::mutex> lock(mu_);
        add_in_flight_ = false;
        if (!r) {
          coordinator_.reset();
          next_add_ms_ = now() + options_.retry_backoff_ms;
          return;
        }
        ErrorCode worst = ErrorCode::kNone;
        for (const auto& t : r->message.results_by_topic_v3_and_below) {
          for (const auto& p : t.results_by_partition) {
            const TopicPartition tp(t.name, p.partition_index);
            if (p.partition_error_code == ErrorCode::kNone) {
              pending_.erase(tp);
              added_.insert(tp);
            } else if (worst == ErrorCode::kNone || !is_retry(p.partition_error_code)) {
              worst = p.partition_error_code;
            }
          }
        }
        if (worst == ErrorCode::kNone) return;
        if (is_fatal(worst)) {
          set_error_locked(State::kFatal, error_status("AddPartitionsToTxn", worst));
        } else if (is_retry(worst) || worst == ErrorCode::kOperationNotAttempted) {
          if (coordinator_moved(worst)) coordinator_.reset();
          // CONCURRENT_TRANSACTIONS clears quickly: Kafka retries it after 20 ms.
          next_add_ms_ = now() + (worst == ErrorCode::kConcurrentTransactions ? 20 : options_.retry_backoff_ms);
        } else {
          set_error_locked(State::kAbortable, error_status("AddPartitionsToTxn", worst));
        }
      },
      kAddPartitionsVersions);
}

void TransactionManager::find_coordinator_async() {
  auto snap = metadata_.snapshot();
  if (snap->brokers.empty()) {
    metadata_.request_update();
    std::lock_guard<std::mutex> lock(mu_);
    find_in_flight_ = false;
    next_add_ms_ = now() + options_.retry_backoff_ms;
    return;
  }
  const Node& node = std::next(snap->brokers.begin(), static_cast<long>(static_cast<size_t>(now()) %
                                                                          snap->brokers.size()))->second;
  protocol::FindCoordinatorRequest req;
  req.key = options_.transactional_id;
  req.key_type = 1;
  req.coordinator_keys = {options_.transactional_id};
  send_request<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(
      network_, node, std::move(req),
      [this](Result<Reply<protocol::FindCoordinatorResponse>> r) {
        std::lock_guard<std::mutex> lock(mu_);
        find_in_flight_ = false;
        if (r) {
          const auto& m = r->message;
          const bool batched = !m.coordinators.empty();
          const ErrorCode ec = batched ? m.coordinators[0].error_code : m.error_code;
          const int32_t port = batched ? m.coordinators[0].port : m.port;
          if (ec == ErrorCode::kNone && port > 0 && port <= 65535) {
            coordinator_ = Node{batched ? m.coordinators[0].node_id : m.node_id,
                                batched ? m.coordinators[0].host : m.host, static_cast<uint16_t>(port)};
            return;
          }
        }
        next_add_ms_ = now() + options_.retry_backoff_ms;
      },
      kFindCoordinatorVersions);
}

void TransactionManager::on_batch_failed(const TopicPartition& tp, const Status& why) {
  std::lock_guard<std::mutex> lock(mu_);
  const ErrorCode ec = code_of(why);
  if (ec == ErrorCode::kProducerFenced || ec == ErrorCode::kInvalidProducerEpoch ||
      ec == ErrorCode::kTransactionCoordinatorFenced) {
    set_error_locked(State::kFatal, why);
    return;
  }
  needs_bump_ = true;
  if (state_ == State::kInTransaction || state_ == State::kCommitting) {
    set_error_locked(State::kAbortable,
                     Status::error("a batch for " + tp.to_string() + " failed: " + why.message(), why.kafka_code()));
  }
}

Status TransactionManager::end_transaction(bool commit, int64_t deadline_ms) {
  while (true) {
    auto node = coordinator(deadline_ms);
    if (!node) return node.status();
    protocol::EndTxnRequest req;
    req.transactional_id = options_.transactional_id;
    req.producer_id = idem_.producer_id();
    req.producer_epoch = idem_.epoch();
    req.committed = commit;
    auto r = call_sync<protocol::EndTxnRequest, protocol::EndTxnResponse>(network_, *node, req,
                                                                          options_.request_timeout_ms, kEndTxnVersions);
    const ErrorCode ec = r ? r->error_code : code_of(r.status());
    if (ec == ErrorCode::kNone) return Status::ok();
    if (!is_retry(ec)) return error_status(commit ? "EndTxn(commit)" : "EndTxn(abort)", ec);
    if (coordinator_moved(ec)) forget_coordinator();
    if (now() >= deadline_ms) return error_status("EndTxn timed out", ec);
    std::this_thread::sleep_for(
        std::chrono::milliseconds(ec == ErrorCode::kConcurrentTransactions ? 20 : options_.retry_backoff_ms));
  }
}

Status TransactionManager::commit_transaction(int64_t timeout_ms, const std::function<bool(int64_t)>& flush) {
  const int64_t deadline = now() + timeout_ms;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = check_state_locked("commit"); !s) return s;
    if (state_ == State::kAbortable) {
      return Status::error("Cannot commit transaction: " + error_.message(), error_.kafka_code());
    }
    if (state_ != State::kInTransaction) {
      return Status::error(std::string("Invalid transition attempted from state ") + state_name(state_) +
                           " to state COMMITTING_TRANSACTION");
    }
    state_ = State::kCommitting;
  }
  if (!flush(std::max<int64_t>(deadline - now(), 0))) {
    std::lock_guard<std::mutex> lock(mu_);
    set_error_locked(State::kAbortable, Status::error("Timeout expired while flushing the transaction's records",
                                                      protocol::to_int(ErrorCode::kRequestTimedOut)));
    return error_;
  }
  bool started;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ != State::kCommitting) {
      return Status::error("Cannot commit transaction: " + error_.message(), error_.kafka_code());
    }
    started = !added_.empty() || offsets_added_;
  }
  Status s = started ? end_transaction(true, deadline) : Status::ok();
  std::lock_guard<std::mutex> lock(mu_);
  if (!s) {
    set_error_locked(is_fatal(code_of(s)) ? State::kFatal : State::kAbortable, s);
    return s;
  }
  state_ = State::kReady;
  added_.clear();
  pending_.clear();
  offsets_added_ = false;
  return Status::ok();
}

Status TransactionManager::abort_transaction(int64_t timeout_ms, const std::function<void()>& drop_queued,
                                             const std::function<bool(int64_t)>& await_sent) {
  const int64_t deadline = now() + timeout_ms;
  bool started;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (Status s = check_state_locked("abort"); !s) return s;
    if (state_ != State::kInTransaction && state_ != State::kAbortable && state_ != State::kCommitting) {
      return Status::error(std::string("Invalid transition attempted from state ") + state_name(state_) +
                           " to state ABORTING_TRANSACTION");
    }
    state_ = State::kAborting;
    started = !added_.empty() || offsets_added_;
  }
  drop_queued();
  if (!await_sent(std::max<int64_t>(deadline - now(), 0))) {
    return Status::error("Timeout expired while waiting for the transaction's sent records",
                         protocol::to_int(ErrorCode::kRequestTimedOut));
  }
  Status s = started ? end_transaction(false, deadline) : Status::ok();
  bool bump;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!s) {
      set_error_locked(is_fatal(code_of(s)) ? State::kFatal : State::kAbortable, s);
      return s;
    }
    bump = needs_bump_;
  }
  if (bump) {
    // Failed batches left sequence numbers the brokers never saw: a new
    // epoch starts every partition again at 0 (KIP-360).
    Status b = init_producer_id(deadline, true);
    if (!b) {
      std::lock_guard<std::mutex> lock(mu_);
      set_error_locked(is_fatal(code_of(b)) ? State::kFatal : State::kAbortable, b);
      return b;
    }
  }
  std::lock_guard<std::mutex> lock(mu_);
  needs_bump_ = false;
  state_ = State::kReady;
  error_ = Status::ok();
  added_.clear();
  pending_.clear();
  offsets_added_ = false;
  return Status::ok();
}

}  // namespace spool::client
