// `spool acl add|remove|list`: ACLs through the Admin API, as kafka-acls.sh
// --add/--remove/--list does.
//   * Resources: --topic, --group, --transactional-id (each repeatable) and
//     --cluster; --resource-pattern-type literal (default) or prefixed.
//   * add: one binding per resource x principal (--allow-principal /
//     --deny-principal, "User:alice") x host (--allow-host / --deny-host,
//     default "*") x --operation (repeatable, default All) (CreateAcls).
//   * remove: the same bindings as filters; with no principal, every ACL
//     on the named resources (any principal, host, operation) (DeleteAcls).
//     Prints what was removed.
//   * list: the ACLs on the named resources (none named: every resource),
//     --resource-pattern-type any (default), match, literal or prefixed,
//     --principal to keep one principal's (DescribeAcls).
// Tables or JSON on stdout, errors (Kafka error names) on stderr; returns 0,
// 1 (operation failed) or 2 (bad arguments).
#pragma once

#include <iosfwd>

#include "cli/cli_args.h"

namespace CLI {
class App;
}

namespace spool::cli {

// Declares `spool acl ...` on app (called by configure_app).
void configure_acl(CLI::App& app, CliArgs& args);

int run_acl_command(const AclArgs& args);
int run_acl_command(const AclArgs& args, std::ostream& out, std::ostream& err);

}  // namespace spool::cli
