// Service-manager notices (systemd's sd_notify protocol, for Type=notify
// units): notify_ready() sends READY=1 once the process serves, and
// notify_stopping() STOPPING=1 when its shutdown begins, so `systemctl start`
// returns only when clients can connect and `systemctl stop` shows the stop.
//
// Without NOTIFY_SOCKET in the environment (not started by systemd, or by a
// unit that is not Type=notify) both do nothing. A notice that cannot be sent
// is logged at warn and otherwise ignored: the process runs on, and systemd
// reports the missing READY=1 itself (TimeoutStartSec). NOTIFY_SOCKET stays
// set, so both calls work in either order. Thread-safe: libsystemd's
// sd_notify opens and closes its own socket per call.
#pragma once

namespace spool {

void notify_ready();
void notify_stopping();

}  // namespace spool
