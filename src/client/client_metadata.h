// ClientMetadata: the native producer's and consumer's view of the cluster
// (Kafka's Metadata / ProducerMetadata): brokers, and for each topic the
// client uses its partitions with their leader and leader epoch.
//
// Readers take an immutable Snapshot (a shared_ptr swapped under a mutex),
// so the send path never waits on a refresh. The owner's I/O loop calls
// poll(), which sends one Metadata request (for the topics in use, with
// auto-creation as the owner chose) to a known broker, or to a bootstrap
// address while none is known, when an update was asked for (a new topic, a
// NOT_LEADER answer, an unknown leader) and the refresh backoff has passed,
// or when the data is older than metadata.max.age.ms. Answers replace the
// snapshot and wake await_topic(). A failed request tries the next node
// after retry.backoff.ms.
//
// Errors per topic: UNKNOWN_TOPIC_OR_PARTITION and LEADER_NOT_AVAILABLE
// keep the topic waiting (it may be being created); any other topic error
// (authorization, invalid name) fails await_topic() at once with that code.
// await_topic() gives up after its wait with TIMEOUT ("Topic T not present
// in metadata after N ms", Java's message).
//
// Threading: every method may be called from any thread; poll() from one
// thread at a time (the owner's loop). Response callbacks run on the
// RequestSender's I/O thread and only take the mutex briefly.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "client/request_sender.h"
#include "protocol/wire.h"
#include "util/clock.h"
#include "util/status.h"

namespace spool::client {

struct PartitionMetadata {
  int32_t leader = -1;
  int32_t leader_epoch = -1;
};

struct TopicMetadata {
  int16_t error = 0;
  protocol::Uuid id{};
  std::vector<PartitionMetadata> partitions;  // by partition index
};

struct MetadataSnapshot {
  uint64_t version = 0;  // bumps with every answer
  std::map<int32_t, Node> brokers;
  std::map<std::string, TopicMetadata> topics;
  std::string cluster_id;
  int32_t controller_id = -1;

  const Node* broker(int32_t id) const;
  const TopicMetadata* topic(const std::string& name) const;
  // The leader's node, or null when unknown.
  const Node* leader(const std::string& topic, int32_t partition) const;
};

struct ClientMetadataOptions {
  std::vector<Node> bootstrap;
  int64_t max_age_ms = 300000;         // metadata.max.age.ms
  int64_t retry_backoff_ms = 100;      // retry.backoff.ms
  bool allow_auto_topic_creation = true;  // allow.auto.create.topics
  std::shared_ptr<Clock> clock;        // null: system clock
};

// bootstrap.servers entries ("host:port") as nodes of unknown id; entries
// that do not parse are skipped (the configs refuse them first).
std::vector<Node> bootstrap_nodes(const std::vector<std::string>& servers);

class ClientMetadata {
 public:
  explicit ClientMetadata(ClientMetadataOptions options);

  std::shared_ptr<const MetadataSnapshot> snapshot() const;
  // Adds a topic to those the client fetches; a new one asks for an update.
  void add_topic(const std::string& topic);
  void request_update();
  // Asks for every topic of the cluster (Metadata with topics = null), for
  // a consumer's regex subscription; the snapshot then lists them all.
  // Off by default; turning it on asks for an update.
  void set_fetch_all_topics(bool all);
  // Waits (up to max_wait_ms) until the topic has partitions; returns their
  // count, or the topic's error, or TIMEOUT.
  Result<int32_t> await_topic(const std::string& topic, int64_t max_wait_ms);
  // Sends a Metadata request when one is due. Returns the ms until the next
  // one may be due (for the owner's wait).
  int64_t poll(RequestSender& sender);
  // Wakes waiters in await_topic() with `why` (the owner is closing).
  void close(const Status& why);

 private:
  void on_answer(Result<RawResponse> r, const Node& node);

  ClientMetadataOptions options_;
  std::shared_ptr<Clock> clock_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::shared_ptr<const MetadataSnapshot> snap_;
  std::set<std::string> topics_;
  bool update_requested_ = true;
  bool all_topics_ = false;
  bool in_flight_ = false;
  int64_t last_refresh_ms_ = -1;
  int64_t next_attempt_ms_ = 0;
  size_t next_node_ = 0;
  Status closed_;
  bool is_closed_ = false;
};

}  // namespace spool::client
