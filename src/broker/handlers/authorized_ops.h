// Kafka's authorized-operations bit sets (AclOperation codes) as a broker
// without an authorizer reports them: every operation that applies to the
// resource type is allowed. Used by Metadata (v8+), DescribeCluster and
// DescribeTopicPartitions when a client asks for them.
#pragma once

#include <cstdint>

namespace spool::broker {

// READ 3, WRITE 4, CREATE 5, DELETE 6, ALTER 7, DESCRIBE 8,
// DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11 (Kafka answers 3576).
inline constexpr int32_t kTopicAuthorizedOperations =
    (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);

// CREATE 5, ALTER 7, DESCRIBE 8, CLUSTER_ACTION 9, DESCRIBE_CONFIGS 10,
// ALTER_CONFIGS 11, IDEMPOTENT_WRITE 12 (Kafka answers 8096).
inline constexpr int32_t kClusterAuthorizedOperations =
    (1 << 5) | (1 << 7) | (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (1 << 12);

static_assert(kTopicAuthorizedOperations == 3576);
static_assert(kClusterAuthorizedOperations == 8096);

}  // namespace spool::broker
