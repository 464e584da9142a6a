#include "cluster/alter_partition_sender.h"

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include <spdlog/spdlog.h>

#include "timer/timer_task.h"

namespace spool::cluster {

namespace {

class CallTask final : public timer::TimerTask {
 public:
  CallTask(int64_t delay_ms, std::function<void()> fn) : TimerTask(delay_ms), fn_(std::move(fn)) {}
  void run() override { fn_(); }

 private:
  std::function<void()> fn_;
};

std::string error_text(const Status& s) {
  return std::string(protocol::error_name(static_cast<protocol::ErrorCode>(s.kafka_code()))) + ": " + s.message();
}

}  // namespace

struct AlterPartitionSender::Core : std::enable_shared_from_this<Core> {
  Core(AlterPartitionSenderOptions o, client::NetworkClient& c, const MetadataCache& m, timer::SystemTimer& t,
       std::function<int64_t()> e)
      : options(std::move(o)), client(c), metadata(m), timer(t), broker_epoch(std::move(e)) {}

  struct Pending {
    AlterPartitionEntry entry;
    Callback callback;
    bool sent = false;  // part of the request in flight
  };

  const AlterPartitionSenderOptions options;
  client::NetworkClient& client;
  const MetadataCache& metadata;
  timer::SystemTimer& timer;
  const std::function<int64_t()> broker_epoch;

  mutable std::mutex mu;
  std::map<TopicPartition, Pending> queue;
  bool in_flight = false;
  bool retry_scheduled = false;
  bool closed = false;

  // The controller's node, under mu (the cache has its own lock).
  std::optional<client::Node> controller_node() const {
    const int32_t id = metadata.controller_id();
    if (id < 0) return std::nullopt;
    std::optional<EndPoint> ep = metadata.endpoint(id, options.listener);
    if (!ep || ep->port <= 0 || ep->port > 65535) return std::nullopt;
    return client::Node{id, ep->host, static_cast<uint16_t>(ep->port)};
  }

  void schedule_retry() {
    std::shared_ptr<Core> self = shared_from_this();
    timer.add(std::make_shared<CallTask>(options.retry_backoff_ms, [self] {
      {
        std::lock_guard<std::mutex> l(self->mu);
        self->retry_scheduled = false;
      }
      self->maybe_send();
    }));
  }

  void maybe_send() {
    std::vector<AlterPartitionEntry> batch;
    std::optional<client::Node> node;
    {
      std::lock_guard<std::mutex> l(mu);
      if (closed || in_flight || retry_scheduled || queue.empty()) return;
      node = controller_node();
      if (!node) {
        retry_scheduled = true;
      } else {
        in_flight = true;
        for (auto& [tp, p] : queue) {
          p.sent = true;
          batch.push_back(p.entry);
        }
      }
    }
    if (!node) {
      spdlog::debug("AlterPartition: no controller endpoint on {} known; retrying in {} ms", options.listener,
                    options.retry_backoff_ms);
      schedule_retry();
      return;
    }
    const int64_t epoch = broker_epoch();
    auto shared = std::make_shared<const std::vector<AlterPartitionEntry>>(std::move(batch));
    client::RawRequest raw;
    raw.api_key = protocol::AlterPartitionRequest::kApiKey;
    raw.min_version = 0;
    raw.max_version = alter_partition_max_version(*shared);
    raw.timeout_ms = options.request_timeout_ms;
    const int32_t broker_id = options.broker_id;
    raw.encode = [shared, broker_id, epoch](ByteWriter& w, int16_t version) {
      alter_partition_request(broker_id, epoch, *shared, version).encode(w, version);
    };
    std::shared_ptr<Core> self = shared_from_this();
    client.send(*node, std::move(raw), [self, shared, node = *node](Result<client::RawResponse> r) {
      self->on_response(node, *shared, r);
    });
  }

  void fail_in_flight(const std::string& why) {
    {
      std::lock_guard<std::mutex> l(mu);
      in_flight = false;
      if (closed) return;
      for (auto& [tp, p] : queue) p.sent = false;
      retry_scheduled = true;
    }
    spdlog::warn("AlterPartition: {}; retrying in {} ms", why, options.retry_backoff_ms);
    schedule_retry();
  }

  void on_response(const client::Node& node, const std::vector<AlterPartitionEntry>& batch,
                   Result<client::RawResponse>& r) {
    if (!r) {
      fail_in_flight("request to controller " + std::to_string(node.id) + " failed (" + error_text(r.status()) + ")");
      return;
    }
    protocol::AlterPartitionResponse resp;
    ByteReader reader(r->body());
    if (!resp.decode(reader, r->version)) {
      fail_in_flight("malformed v" + std::to_string(r->version) + " response from controller " +
                     std::to_string(node.id));
      return;
    }
    AlterPartitionReply reply = parse_alter_partition_response(resp, r->version, batch);
    if (reply.error != protocol::ErrorCode::kNone) {
      fail_in_flight("controller " + std::to_string(node.id) + " answered " +
                     std::string(protocol::error_name(reply.error)));
      return;
    }
    std::vector<std::pair<Callback, AlterPartitionOutcome>> done;
    {
      std::lock_guard<std::mutex> l(mu);
      in_flight = false;
      if (closed) return;
      for (auto& o : reply.partitions) {
        auto it = queue.find(o.partition);
        if (it == queue.end() || !it->second.sent) continue;
        done.emplace_back(std::move(it->second.callback), std::move(o));
        queue.erase(it);
      }
      for (const auto& tp : reply.missing) {
        auto it = queue.find(tp);
        if (it != queue.end()) it->second.sent = false;
      }
    }
    for (const auto& tp : reply.missing) {
      spdlog::warn("AlterPartition: {} was sent but not answered by controller {}; re-sending", tp.to_string(),
                   node.id);
    }
    for (auto& [cb, outcome] : done) {
      if (cb) cb(outcome);
    }
    maybe_send();
  }
};

AlterPartitionSender::AlterPartitionSender(AlterPartitionSenderOptions options, client::NetworkClient& client,
                                           const MetadataCache& metadata, timer::SystemTimer& timer,
                                           std::function<int64_t()> broker_epoch)
    : core_(std::make_shared<Core>(std::move(options), client, metadata, timer, std::move(broker_epoch))) {}

AlterPartitionSender::~AlterPartitionSender() { shutdown(); }

bool AlterPartitionSender::submit(AlterPartitionEntry entry, Callback callback) {
  {
    std::lock_guard<std::mutex> l(core_->mu);
    if (core_->closed || core_->queue.count(entry.partition) != 0) return false;
    TopicPartition tp = entry.partition;
    core_->queue.emplace(std::move(tp), Core::Pending{std::move(entry), std::move(callback), false});
  }
  core_->maybe_send();
  return true;
}

void AlterPartitionSender::controlled_shutdown(ShutdownCallback callback) {
  std::optional<client::Node> node;
  {
    std::lock_guard<std::mutex> l(core_->mu);
    if (!core_->closed) node = core_->controller_node();
  }
  if (!node) {
    callback(Status::error("ControlledShutdown: no controller endpoint on " + core_->options.listener + " known",
                           protocol::to_int(protocol::ErrorCode::kNotController)));
    return;
  }
  client::SendOptions opts;
  opts.min_version = kControlledShutdownVersion;
  opts.max_version = kControlledShutdownVersion;
  opts.timeout_ms = core_->options.request_timeout_ms;
  core_->client.send<protocol::ControlledShutdownRequest, protocol::ControlledShutdownResponse>(
      *node, controlled_shutdown_request(core_->options.broker_id, core_->broker_epoch()),
      [cb = std::move(callback)](Result<client::Reply<protocol::ControlledShutdownResponse>> r) {
        if (!r) {
          cb(r.status());
          return;
        }
        cb(parse_controlled_shutdown_response(r->message));
      },
      opts);
}

void AlterPartitionSender::shutdown() {
  std::lock_guard<std::mutex> l(core_->mu);
  core_->closed = true;
  core_->queue.clear();
}

size_t AlterPartitionSender::pending() const {
  std::lock_guard<std::mutex> l(core_->mu);
  return core_->queue.size();
}

bool AlterPartitionSender::in_flight() const {
  std::lock_guard<std::mutex> l(core_->mu);
  return core_->in_flight;
}

}  // namespace spool::cluster
