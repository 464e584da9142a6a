// The targets of issue 7 section 3, checked against a Report. One
// TargetCheck per line of the report's summary table, in a fixed order; a
// target whose measurements are missing (or unusable, e.g. a zero divisor)
// comes back with measured_ok=false and "not measured: ...". Pure function.
#pragma once

#include <vector>

#include "bench/measurement.h"

namespace spool::bench {

// The restart target is judged on whichever restart/kill9/<N>MB workload the
// report has (N=1024 preferred, else the largest N); `measured` names N.
std::vector<TargetCheck> check_targets(const Report& r);

}  // namespace spool::bench
