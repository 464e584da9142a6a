// Log lines about rejected input (a bad frame, a request the handler refused
// by closing, a connection over max.connections), rate-limited per client
// address through the Server's one LogRateLimiter (util/log_rate_limiter.h):
// a client sending thousands of bad frames costs a few lines per interval
// and one "suppressed K similar messages from ADDR in the last S s" line,
// not a line per frame. The Server also logs the counts of windows that
// ended without a later line, on a timer.
//
// Threading: any thread (the limiter locks). Failure: none.
#pragma once

#include <string_view>

#include <spdlog/spdlog.h>

#include "util/log_rate_limiter.h"

namespace spool::net {

template <typename... Args>
void log_rejected(LogRateLimiter& limiter, std::string_view address, spdlog::level::level_enum level,
                  spdlog::format_string_t<Args...> fmt, Args&&... args) {
  if (!spdlog::should_log(level)) return;
  const LogRateLimiter::Verdict v = limiter.check(address);
  if (v.summary) spdlog::log(level, "net: {}", LogRateLimiter::describe(*v.summary));
  if (v.log) spdlog::log(level, fmt, std::forward<Args>(args)...);
}

}  // namespace spool::net
