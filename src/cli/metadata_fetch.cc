#include "cli/metadata_fetch.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "protocol/metadata_response.h"

namespace spool::cli {

namespace proto = spool::protocol;

namespace {

ClusterInfo cluster_info(const proto::MetadataResponse& resp) {
  ClusterInfo out;
  out.cluster_id = resp.cluster_id.value_or("");
  out.controller_id = resp.controller_id;
  for (const auto& b : resp.brokers) out.brokers.push_back(BrokerInfo{b.node_id, b.host, b.port, b.rack});
  std::sort(out.brokers.begin(), out.brokers.end(), [](const BrokerInfo& a, const BrokerInfo& b) { return a.id < b.id; });
  for (const auto& t : resp.topics) {
    TopicInfo ti;
    ti.name = t.name.value_or("");
    ti.internal = t.is_internal;
    ti.error_code = proto::to_int(t.error_code);
    for (const auto& p : t.partitions) {
      ti.partitions.push_back(PartitionInfo{p.partition_index, p.leader_id, p.leader_epoch, p.replica_nodes,
                                            p.isr_nodes, p.offline_replicas, proto::to_int(p.error_code)});
    }
    std::sort(ti.partitions.begin(), ti.partitions.end(),
              [](const PartitionInfo& a, const PartitionInfo& b) { return a.partition < b.partition; });
    out.topics.push_back(std::move(ti));
  }
  std::sort(out.topics.begin(), out.topics.end(), [](const TopicInfo& a, const TopicInfo& b) { return a.name < b.name; });
  return out;
}

}  // namespace

Result<ClusterInfo> fetch_cluster_metadata(client::Admin& admin, const std::string& only_topic) {
  std::optional<std::vector<std::string>> topics;
  if (!only_topic.empty()) topics = std::vector<std::string>{only_topic};
  auto resp = admin.metadata(topics);
  if (!resp) return resp.status();
  return cluster_info(*resp);
}

bool is_live(const ClusterInfo& cluster, int32_t broker) {
  return std::any_of(cluster.brokers.begin(), cluster.brokers.end(),
                     [broker](const BrokerInfo& b) { return b.id == broker; });
}

Status live_controller(const ClusterInfo& cluster) {
  if (cluster.controller_id < 0) return Status::error("the cluster names no live controller");
  if (!is_live(cluster, cluster.controller_id))
    return Status::error("broker " + std::to_string(cluster.controller_id) + " is not live");
  return Status::ok();
}

}  // namespace spool::cli
