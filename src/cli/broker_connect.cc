#include "cli/broker_connect.h"

#include <algorithm>

namespace spool::cli {

Result<client::BlockingClient> connect_to_broker(const ClusterInfo& cluster, int32_t broker_id, int timeout_ms) {
  auto b = std::find_if(cluster.brokers.begin(), cluster.brokers.end(),
                        [&](const BrokerInfo& x) { return x.id == broker_id; });
  if (b == cluster.brokers.end()) return Status::error("broker " + std::to_string(broker_id) + " is not live");
  auto c = client::BlockingClient::connect(b->host, static_cast<uint16_t>(b->port), timeout_ms);
  if (!c) return Status::error("broker " + std::to_string(broker_id) + ": " + c.status().message());
  return std::move(*c);
}

Result<client::BlockingClient> connect_to_controller(const ClusterInfo& cluster, int timeout_ms) {
  if (cluster.controller_id < 0) return Status::error("the cluster names no live controller");
  auto c = connect_to_broker(cluster, cluster.controller_id, timeout_ms);
  if (!c) return Status::error("controller: " + c.status().message());
  return c;
}

}  // namespace spool::cli
