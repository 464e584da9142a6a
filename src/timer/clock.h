// The timer module's time source is Spool's one Clock (util/clock.h); these
// names keep the module's earlier spelling. Timers read monotonic_ms()
// (alias now_ms()), never wall time.
#pragma once

#include "util/clock.h"

namespace spool::timer {

using Clock = spool::Clock;
using SteadyClock = spool::SystemClock;
using ManualClock = spool::ManualClock;

}  // namespace spool::timer
