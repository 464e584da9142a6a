// One Metadata round trip for the CLI: brokers, cluster id, controller and
// topics with their partitions (leader, epoch, replicas, ISR, offline), as the
// plain structs the formatters print. Used by `spool topic list|describe` and
// `spool cluster describe`.
#pragma once

#include <string>

#include "cli/cluster_format.h"
#include "client/admin/admin.h"
#include "client/blocking_client.h"
#include "util/status.h"

namespace spool::cli {

// only_topic empty: every topic. Topics and partitions come back sorted,
// brokers by id.
Result<ClusterInfo> fetch_cluster_metadata(client::Admin& admin, const std::string& only_topic);
// The same over a BlockingClient, for the commands not yet on Admin.
Result<ClusterInfo> fetch_cluster_metadata(client::BlockingClient& c, const std::string& only_topic);

}  // namespace spool::cli
