// open_admin: the client::Admin (client/admin/admin.h) a broker command runs
// on, from the options every such command shares (cli/client_options.h):
// bootstrap.servers from --bootstrap-server, request.timeout.ms and
// default.api.timeout.ms from --timeout-ms, client.id spool-cli, and the
// security --command-config gave (set_command_security; PLAINTEXT when
// none). The Admin connects lazily: a broker that cannot be reached fails
// the first call, not this one. A bad address fails here (the caller
// reports it as a usage error). The client's log goes to stderr
// (cli/cli_logging.h). Main thread only.
#pragma once

#include <memory>
#include <string>

#include "client/admin/admin.h"
#include "client/client_security.h"
#include "util/status.h"

namespace spool::cli {

// Set once while the command line is parsed (--command-config).
void set_command_security(std::shared_ptr<const client::ClientSecurity> security);

Result<std::unique_ptr<client::Admin>> open_admin(const std::string& bootstrap_server, int timeout_ms);

}  // namespace spool::cli
