#include "client/producer/producer.h"

#include <spdlog/spdlog.h>

#include "client/native_network.h"
#include "protocol/error_code.h"

namespace spool::client {

using protocol::ErrorCode;

namespace {

Status fail(const SendCallback& cb, const ProducerRecord& r, Status s) {
  if (cb) {
    RecordMetadata md;
    md.topic = r.topic;
    md.partition = r.partition;
    cb(md, s);
  }
  return s;
}

}  // namespace

Result<std::unique_ptr<Producer>> Producer::create(const config::PropertyList& properties, ProducerHooks hooks,
                                                   std::vector<std::string>* warnings) {
  auto config = ProducerConfig::from_properties(properties, warnings);
  if (!config) return config.status();
  return std::make_unique<Producer>(std::move(*config), std::move(hooks));
}

Producer::Producer(ProducerConfig config, ProducerHooks hooks)
    : config_(std::move(config)),
      hooks_(std::move(hooks)),
      clock_(hooks_.clock ? hooks_.clock : system_clock()),
      own_network_(hooks_.network == nullptr
                       ? std::make_unique<NetworkClient>(native_network_options(config_, "spool-producer"))
                       : nullptr),
      network_(hooks_.network != nullptr ? hooks_.network : own_network_.get()),
      metadata_(ClientMetadataOptions{bootstrap_nodes(config_.bootstrap_servers), config_.metadata_max_age_ms,
                                      config_.retry_backoff_ms, true, clock_}),
      idem_(config_.idempotence, config_.max_in_flight, config_.transactional_id.has_value()),
      sticky_(config_.batch_size, hooks_.seed) {
  AccumulatorOptions ao;
  ao.batch_size = std::max<int32_t>(config_.batch_size, 1);
  ao.linger_ms = config_.linger_ms;
  ao.buffer_memory = config_.buffer_memory;
  ao.retry_backoff_ms = config_.retry_backoff_ms;
  ao.retry_backoff_max_ms = config_.retry_backoff_max_ms;
  ao.delivery_timeout_ms = config_.delivery_timeout_ms;
  ao.compression = config_.compression;
  ao.compression_level = config_.compression_level;
  ao.clock = clock_;
  accumulator_ = std::make_unique<RecordAccumulator>(ao, [this] {
    if (sender_) sender_->wakeup();
  });
  SenderOptions so;
  so.acks = config_.acks;
  so.request_timeout_ms = config_.request_timeout_ms;
  so.max_request_size = config_.max_request_size;
  so.retries = config_.retries;
  so.retry_backoff_ms = config_.retry_backoff_ms;
  so.delivery_timeout_ms = config_.delivery_timeout_ms;
  so.max_in_flight = config_.max_in_flight;
  so.transactional_id = config_.transactional_id;
  so.transaction_timeout_ms = config_.transaction_timeout_ms;
  so.clock = clock_;
  if (config_.transactional_id) {
    TransactionOptions to;
    to.transactional_id = *config_.transactional_id;
    to.transaction_timeout_ms = config_.transaction_timeout_ms;
    to.request_timeout_ms = config_.request_timeout_ms;
    to.retry_backoff_ms = config_.retry_backoff_ms;
    to.clock = clock_;
    txn_ = std::make_unique<TransactionManager>(to, *network_, metadata_, idem_);
  }
  sender_ = std::make_unique<Sender>(so, *accumulator_, metadata_, idem_, *network_, txn_.get());
  sender_->start();
}

Producer::~Producer() {
  if (!closed_.load()) close(0);
}

Result<int32_t> Producer::partitions_for(const std::string& topic) {
  return metadata_.await_topic(topic, config_.max_block_ms);
}

Result<int32_t> Producer::choose_partition(const ProducerRecord& record, int32_t num_partitions, bool* sticky) {
  *sticky = false;
  if (record.partition >= 0) {
    if (record.partition >= num_partitions) {
      return Status::error("Invalid partition given with record: " + std::to_string(record.partition) +
                               " is not in the range [0..." + std::to_string(num_partitions) + "].",
                           protocol::to_int(ErrorCode::kUnknownTopicOrPartition));
    }
    return record.partition;
  }
  auto p = select_partition(hooks_.partitioner.get(), record.topic, record.key, record.value, num_partitions,
                            config_.partitioner_ignore_keys);
  if (!p || *p != kStickyPartition) return p;
  *sticky = true;
  return sticky_partition(record.topic, num_partitions);
}

int32_t Producer::sticky_partition(const std::string& topic, int32_t num_partitions) {
  const int32_t current = sticky_.current(topic);
  if (current >= 0 && current < num_partitions) {
    // Kafka's RecordAccumulator.append: a switch an earlier append put off
    // (its batch was not full yet) happens once the partition has no open batch.
    if (!sticky_.switch_due(topic) || accumulator_->has_open_batch(TopicPartition(topic, current))) return current;
    sticky_.on_append(topic, current, 0, true);
  }
  auto snap = metadata_.snapshot();
  std::vector<int32_t> available;
  if (const TopicMetadata* t = snap->topic(topic)) {
    for (size_t i = 0; i < t->partitions.size(); ++i) {
      if (snap->broker(t->partitions[i].leader) != nullptr) available.push_back(static_cast<int32_t>(i));
    }
  }
  return sticky_.partition(topic, available, num_partitions);
}

Status Producer::send(ProducerRecord record, SendCallback callback) {
  if (closed_.load()) {
    return fail(callback, record, Status::error("Cannot perform operation after producer has been closed"));
  }
  if (sender_->has_fatal_error()) return fail(callback, record, sender_->fatal_error());
  const size_t record_size = record_encoded_size(record.key, record.value, record.headers);
  const size_t size = record::kHeaderSize + record_size;
  if (size > static_cast<size_t>(config_.max_request_size)) {
    return fail(callback, record,
                Status::error("The message is " + std::to_string(size) +
                                  " bytes when serialized which is larger than " +
                                  std::to_string(config_.max_request_size) +
                                  ", which is the value of the max.request.size configuration.",
                              protocol::to_int(ErrorCode::kMessageTooLarge)));
  }
  if (static_cast<int64_t>(size) > config_.buffer_memory) {
    return fail(callback, record,
                Status::error("The message is " + std::to_string(size) +
                                  " bytes when serialized which is larger than the total memory buffer you have "
                                  "configured with the buffer.memory configuration.",
                              protocol::to_int(ErrorCode::kMessageTooLarge)));
  }
  const int64_t start = clock_->monotonic_ms();
  auto count = metadata_.await_topic(record.topic, config_.max_block_ms);
  if (!count) {
    sender_->wakeup();
    return fail(callback, record, count.status());
  }
  const int64_t timestamp = record.timestamp >= 0 ? record.timestamp : clock_->wall_ms();
  const int64_t left = std::max<int64_t>(config_.max_block_ms - (clock_->monotonic_ms() - start), 0);
  // Sticky choices and their byte counts stay together (one lock; keyed
  // records take it too, briefly, which keeps the code simple).
  std::unique_lock<std::mutex> sticky_lock(sticky_mu_);
  bool sticky = false;
  auto partition = choose_partition(record, *count, &sticky);
  if (!sticky) sticky_lock.unlock();
  if (!partition) return fail(callback, record, partition.status());
  const TopicPartition tp(record.topic, *partition);
  if (txn_) {
    if (Status s = txn_->on_send(tp); !s) return fail(callback, record, s);
    sender_->wakeup();
  }
  auto appended =
      accumulator_->append(tp, timestamp, record.key, record.value, record.headers, record_size, callback, left);
  if (!appended) return fail(callback, record, appended.status());
  if (sticky) sticky_.on_append(record.topic, *partition, static_cast<int32_t>(appended->record_bytes),
                                appended->last_full);
  return Status::ok();
}

namespace {

Status no_transactions() { return Status::error("Cannot use transactional methods without enabling transactions by setting the transactional.id configuration property"); }

}  // namespace

Status Producer::init_transactions(int64_t timeout_ms) {
  if (!txn_) return no_transactions();
  // The coordinator lookup needs brokers: let the loop fetch metadata first.
  sender_->wakeup();
  return txn_->init_transactions(timeout_ms < 0 ? config_.max_block_ms : timeout_ms);
}

Status Producer::begin_transaction() {
  if (!txn_) return no_transactions();
  return txn_->begin_transaction();
}

Status Producer::send_offsets_to_transaction(const std::map<TopicPartition, OffsetAndMetadata>& offsets,
                                             const ConsumerGroupMetadata& group, int64_t timeout_ms) {
  if (!txn_) return no_transactions();
  return txn_->send_offsets_to_transaction(offsets, group, timeout_ms < 0 ? config_.max_block_ms : timeout_ms);
}

Status Producer::commit_transaction(int64_t timeout_ms) {
  if (!txn_) return no_transactions();
  return txn_->commit_transaction(timeout_ms < 0 ? config_.max_block_ms : timeout_ms,
                                  [this](int64_t t) { return flush(t); });
}

Status Producer::abort_transaction(int64_t timeout_ms) {
  if (!txn_) return no_transactions();
  return txn_->abort_transaction(
      timeout_ms < 0 ? config_.max_block_ms : timeout_ms,
      [this] { sender_->abort_queued(Status::error("Failing batch since transaction was aborted")); },
      [this](int64_t t) { return sender_->await_idle(t); });
}

bool Producer::flush(int64_t timeout_ms) {
  sender_->wakeup();
  return accumulator_->flush(timeout_ms);
}

void Producer::close(int64_t timeout_ms) {
  if (closed_.exchange(true)) return;
  sender_->initiate_close();
  const int64_t deadline = clock_->monotonic_ms() + timeout_ms;
  while (!sender_->idle() && clock_->monotonic_ms() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  sender_->force_close(Status::error("Producer is closed forcefully.", protocol::to_int(ErrorCode::kNetworkException)));
  sender_->join();
  metadata_.close(Status::error("Producer closed"));
  if (own_network_) own_network_->shutdown();
  // Answers failed by the shutdown complete their batches here.
  sender_->finish();
}

}  // namespace spool::client
