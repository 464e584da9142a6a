// The benchmark targets of issue 12 item 5, checked against a Report: each
// a ratio of Spool to Apache Kafka 4.4 measured in the same run with the
// same client (targets "spool", "kafka", "kafka-flush1"; measurement.h).
// One TargetCheck per line of the report's summary table, in a fixed order;
// a target whose measurements are missing (e.g. a --peer mock run, which
// has no Kafka) or unusable (a zero divisor) comes back with
// measured_ok=false and "not measured: ...". When the report has cluster
// rows (the opt-in cluster family), three more lines follow: Spool's
// failover at each session setting against session timeout + 1 s, and the
// RF=3 acks=all produce ratio to Kafka's 3-node cluster. When it has the
// security family's authorizer rows (opt-in too), one line per ACL count
// comes before those: Spool's produce with the authorizer at most 5% below
// produce without one (issue 17). When it has client-family rows, four
// lines compare Spool's native clients with librdkafka on the same broker:
// produce 100 B acks=1, produce 1 KB acks=all and consume 1 KB (native /
// librdkafka >= 1.0x), and producer memory per 1,000 partitions (<= 1.0x).
// Pure function.
#pragma once

#include <vector>

#include "bench/measurement.h"

namespace spool::bench {

// The restart target compares restart/kill9/<N>MB of Spool and Kafka at the
// same N (N=1024 preferred, else the largest N both have); `measured`
// names N.
std::vector<TargetCheck> check_targets(const Report& r);

}  // namespace spool::bench
