// ControllerConfig: the inputs the controller takes from the broker's
// configuration (Kafka's KafkaConfig keys in the comments) and its clock.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace spool::cluster::controller {

struct ControllerConfig {
  int32_t broker_id = -1;  // broker.id
  // inter.broker.listener.name: the endpoint of a leader that LeaderAndIsr's
  // live leaders name (followers fetch from it).
  std::string inter_broker_listener = "PLAINTEXT";
  // unclean.leader.election.enable, the broker default (Kafka's false).
  bool unclean_leader_election_enable = false;
  // The topic-level unclean.leader.election.enable override, when the topic
  // has one (read from /config/topics/T by the caller). Empty = no overrides.
  std::function<std::optional<bool>(const std::string& topic)> topic_unclean_leader_election;
  bool delete_topic_enable = true;  // delete.topic.enable
  // Preferred-leader balancing (Kafka's checkAndTriggerAutoLeaderRebalance):
  // auto.leader.rebalance.enable, leader.imbalance.per.broker.percentage and
  // leader.imbalance.check.interval.seconds (in ms here; <= 0: no timer, the
  // check runs only when trigger_leader_rebalance() asks).
  bool auto_leader_rebalance_enable = true;
  int32_t leader_imbalance_per_broker_percentage = 10;
  int64_t leader_imbalance_check_interval_ms = 300000;
  // Wall clock in ms for the /controller timestamp; empty = system clock.
  std::function<int64_t()> now_ms;
  // 64-bit random draws for topic ids the controller adds; empty = seeded
  // from std::random_device.
  std::function<uint64_t()> random;

  bool unclean_enabled_for(const std::string& topic) const {
    if (topic_unclean_leader_election) {
      if (auto v = topic_unclean_leader_election(topic)) return *v;
    }
    return unclean_leader_election_enable;
  }
};

}  // namespace spool::cluster::controller
