// Client quotas in the metadata store (Kafka's ZooKeeper layout, see
// client_quota_entity.h: /config/users/<u>, /config/clients/<c>,
// /config/users/<u>/clients/<c>, {"version":1,"config":{"producer_byte_rate":
// "1048576",...}}; a user node shares its config with the user's SCRAM
// credentials), and the broker's ClientQuotaManager that enforces them.
//   * load_client_quotas: every entity at start.
//   * apply_client_quota: one entity after a change notification
//     ("users/..." or "clients/..." entity paths).
//   * describe_client_quotas / alter_client_quotas: DescribeClientQuotas and
//     AlterClientQuotas with Kafka's filter semantics, validation and error
//     codes (INVALID_REQUEST for a bad entity, key or value;
//     UNSUPPORTED_VERSION for an entity type Kafka does not know). Entities
//     of type "ip" (connection_creation_rate, KIP-612) are refused: Spool
//     enforces only max.connection.creation.rate. An entry's edits apply
//     all or none; the entries of one request are independent.
// Blocking store round trips: call off the reactors (admin executor, the
// config-change thread, start-up). Thread-safe (the store and the manager are).
#pragma once

#include <string>

#include "broker/client_quota_manager.h"
#include "cluster/metadata_store.h"
#include "cluster/zk_data.h"
#include "protocol/alter_client_quotas_request.h"
#include "protocol/alter_client_quotas_response.h"
#include "protocol/describe_client_quotas_request.h"
#include "protocol/describe_client_quotas_response.h"
#include "util/status.h"

namespace spool::broker {

Status load_client_quotas(cluster::MetadataStore& store, ClientQuotaManager& quotas);

// `entity_path`: "users/U", "clients/C" or "users/U/clients/C" as a
// notification names it; anything else is logged and ignored.
void apply_client_quota(ClientQuotaManager& quotas, const std::string& entity_path, const cluster::EntityConfig& config);

protocol::DescribeClientQuotasResponse describe_client_quotas(cluster::MetadataStore& store,
                                                              const protocol::DescribeClientQuotasRequest& req);

// `notify`: write the /config/changes notification (a cluster); `quotas` is
// updated here either way.
protocol::AlterClientQuotasResponse alter_client_quotas(cluster::MetadataStore& store, ClientQuotaManager& quotas,
                                                        const protocol::AlterClientQuotasRequest& req, bool notify);

}  // namespace spool::broker
