// The peer: librdkafka's in-process mock cluster (one broker on loopback),
// the yardstick every Spool figure is compared with. It keeps all data in
// memory, so the runner makes a fresh cluster per run instead of letting
// topics pile up.
// Ownership: owns the mock cluster and the rd_kafka_t hosting it; both die
// with the object. Threading: the cluster runs on librdkafka's threads;
// the object itself is driven from one thread. Failure: create() returns an
// error Status.
#pragma once

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <memory>
#include <string>

#include "util/status.h"

namespace spool::bench {

class PeerCluster {
 public:
  static Result<std::unique_ptr<PeerCluster>> create();
  ~PeerCluster();
  PeerCluster(const PeerCluster&) = delete;
  PeerCluster& operator=(const PeerCluster&) = delete;

  const std::string& bootstrap() const { return bootstrap_; }
  // The mock has no CreateTopics; its own API creates the topic.
  Status create_topic(const std::string& name, int partitions);

 private:
  PeerCluster() = default;
  rd_kafka_t* rk_ = nullptr;
  rd_kafka_mock_cluster_t* mc_ = nullptr;
  std::string bootstrap_;
};

// "librdkafka <version> mock cluster".
std::string peer_description();

}  // namespace spool::bench
