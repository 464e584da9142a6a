// Connections the admin commands need beyond the bootstrap broker: to one
// broker by id (BROKER config resources go to the broker they name) and to
// the controller Metadata names (ElectLeaders, partition reassignments: a
// ZooKeeper-mode broker that is not the controller answers NOT_CONTROLLER).
// Errors name the broker.
#pragma once

#include "cli/cluster_format.h"
#include "client/blocking_client.h"
#include "util/status.h"

namespace spool::cli {

Result<client::BlockingClient> connect_to_broker(const ClusterInfo& cluster, int32_t broker_id, int timeout_ms);
Result<client::BlockingClient> connect_to_controller(const ClusterInfo& cluster, int timeout_ms);

}  // namespace spool::cli
