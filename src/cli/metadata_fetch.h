// One Metadata round trip for the CLI (through client::Admin, which keeps
// the answer for its routing): brokers, cluster id, controller and topics
// with their partitions (leader, epoch, replicas, ISR, offline), as the
// plain structs the formatters print. Used by `spool topic`, `spool cluster`
// and the reassignment steps.
#pragma once

#include <string>

#include "cli/cluster_format.h"
#include "client/admin/admin.h"
#include "util/status.h"

namespace spool::cli {

// only_topic empty: every topic. Topics and partitions come back sorted,
// brokers by id.
Result<ClusterInfo> fetch_cluster_metadata(client::Admin& admin, const std::string& only_topic);
// Whether `broker` is among the cluster's live brokers.
bool is_live(const ClusterInfo& cluster, int32_t broker);
// Ok when the cluster names a controller that is among its live brokers;
// else "the cluster names no live controller" or "broker N is not live".
// (The Admin would fall back to any node; the commands that need the
// controller refuse instead, naming why.)
Status live_controller(const ClusterInfo& cluster);

}  // namespace spool::cli
