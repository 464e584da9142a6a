#include "util/sd_notify.h"

#include <spdlog/spdlog.h>
#include <systemd/sd-daemon.h>

#include <cstring>

namespace spool {
namespace {

void notify(const char* state) {
  // 0: no NOTIFY_SOCKET, nothing to do; < 0: -errno of the send.
  const int r = sd_notify(/*unset_environment=*/0, state);
  if (r < 0) spdlog::warn("sd_notify {}: {}", state, std::strerror(-r));
}

}  // namespace

void notify_ready() { notify("READY=1"); }

void notify_stopping() { notify("STOPPING=1"); }

}  // namespace spool
