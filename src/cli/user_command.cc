#include "cli/user_command.h"

#include <CLI/CLI.hpp>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/admin_connect.h"
#include "cli/client_options.h"
#include "protocol/alter_user_scram_credentials_request.h"
#include "protocol/alter_user_scram_credentials_response.h"
#include "protocol/describe_user_scram_credentials_request.h"
#include "protocol/describe_user_scram_credentials_response.h"
#include "protocol/error_code.h"
#include "security/scram.h"

namespace spool::cli {

using client::Admin;
using protocol::ErrorCode;

namespace {

std::string failure(ErrorCode code, const std::optional<std::string>& message) {
  std::string s(protocol::error_name(code));
  if (message && !message->empty()) s += ": " + *message;
  return s;
}

Result<std::string> password_of(const UserArgs& a) {
  if (a.password.has_value() == a.password_file.has_value()) {
    return Status::error("give exactly one of --password and --password-file");
  }
  if (a.password) return *a.password;
  std::ifstream in(*a.password_file);
  std::string line;
  if (!in || !std::getline(in, line)) return Status::error("cannot read a password from " + *a.password_file);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

int run_alter(const UserArgs& a, Admin& c, std::ostream& out, std::ostream& err) {
  const std::string what = a.action == "scram-set" ? "set" : "delete";
  auto mechanism = security::scram_mechanism_named(a.mechanism);
  if (!mechanism) {
    err << "spool user scram " << what << ": unknown mechanism '" << a.mechanism
        << "' (SCRAM-SHA-256 or SCRAM-SHA-512)\n";
    return kExitUsage;
  }
  protocol::AlterUserScramCredentialsRequest req;
  if (a.action == "scram-set") {
    auto password = password_of(a);
    if (!password) {
      err << "spool user scram set: " << password.status().message() << "\n";
      return kExitUsage;
    }
    Bytes salt = security::random_bytes(32);
    Bytes salted = security::scram_salted_password(*mechanism, *password, salt, a.iterations);
    req.upsertions.push_back({a.users[0], static_cast<int8_t>(*mechanism), a.iterations, std::move(salt),
                              std::move(salted)});
  } else {
    req.deletions.push_back({a.users[0], static_cast<int8_t>(*mechanism)});
  }
  auto resp = c.alter_user_scram_credentials(req);
  if (!resp) {
    err << "spool user scram " << what << ": " << resp.status().message() << "\n";
    return kExitFailure;
  }
  if (resp->results.size() != 1) {
    err << "spool user scram " << what << ": malformed answer\n";
    return kExitFailure;
  }
  const auto& r = resp->results[0];
  if (r.error_code != ErrorCode::kNone) {
    err << "spool user scram " << what << " " << r.user << ": " << failure(r.error_code, r.error_message) << "\n";
    return kExitFailure;
  }
  out << (what == "set" ? "Set " : "Deleted ") << a.mechanism << " credential of user " << r.user << "\n";
  return kExitOk;
}

int run_describe(const UserArgs& a, Admin& c, std::ostream& out, std::ostream& err) {
  protocol::DescribeUserScramCredentialsRequest req;
  if (!a.users.empty()) {
    req.users.emplace();
    for (const auto& u : a.users) req.users->push_back({u});
  }
  auto resp = c.describe_user_scram_credentials(req);
  if (!resp) {
    err << "spool user scram describe: " << resp.status().message() << "\n";
    return kExitFailure;
  }
  if (resp->error_code != ErrorCode::kNone) {
    err << "spool user scram describe: " << failure(resp->error_code, resp->error_message) << "\n";
    return kExitFailure;
  }
  int rc = kExitOk;
  nlohmann::json j = nlohmann::json::array();
  std::vector<std::tuple<std::string, std::string, int32_t>> rows;
  for (const auto& r : resp->results) {
    if (r.error_code != ErrorCode::kNone) {
      err << "spool user scram describe " << r.user << ": " << failure(r.error_code, r.error_message) << "\n";
      rc = kExitFailure;
      continue;
    }
    for (const auto& ci : r.credential_infos) {
      auto m = security::scram_mechanism_of_type(ci.mechanism);
      std::string name = m ? std::string(security::scram_name(*m)) : "UNKNOWN(" + std::to_string(ci.mechanism) + ")";
      rows.emplace_back(r.user, name, ci.iterations);
    }
  }
  std::sort(rows.begin(), rows.end());
  if (a.output == OutputFormat::kJson) {
    for (const auto& [user, mech, iterations] : rows)
      j.push_back({{"user", user}, {"mechanism", mech}, {"iterations", iterations}});
    out << j.dump(2) << "\n";
    return rc;
  }
  out << std::left << std::setw(32) << "USER" << std::setw(16) << "MECHANISM" << "ITERATIONS\n";
  for (const auto& [user, mech, iterations] : rows)
    out << std::left << std::setw(32) << user << std::setw(16) << mech << iterations << "\n";
  return rc;
}

}  // namespace

void configure_user(CLI::App& app, CliArgs& args) {
  CLI::App* user = app.add_subcommand("user", "Manage users' SASL credentials");
  user->require_subcommand(1);
  CLI::App* scram = user->add_subcommand("scram", "SCRAM-SHA-256 / SCRAM-SHA-512 credentials");
  scram->require_subcommand(1);
  UserArgs& u = args.user;
  auto mechanism = [&u](CLI::App* sub) {
    sub->add_option("--mechanism", u.mechanism, "SCRAM-SHA-256 or SCRAM-SHA-512")
        ->check(CLI::IsMember({"SCRAM-SHA-256", "SCRAM-SHA-512"}))
        ->capture_default_str();
  };
  CLI::App* set = scram->add_subcommand("set", "Create or replace a user's credential for one mechanism");
  set->add_option("--user", u.users, "User name")->required()->expected(1);
  mechanism(set);
  set->add_option("--password", u.password, "Password (visible to other local users: prefer --password-file)");
  set->add_option("--password-file", u.password_file, "File whose first line is the password")
      ->check(CLI::ExistingFile);
  set->add_option("--iterations", u.iterations, "PBKDF2 iterations (4096..16384)")
      ->check(CLI::Range(security::kScramMinIterations, security::kScramMaxIterations))
      ->capture_default_str();
  add_client_options(set, u);
  set->callback([&args] {
    args.command = "user";
    args.user.action = "scram-set";
  });
  CLI::App* del = scram->add_subcommand("delete", "Remove a user's credential for one mechanism");
  del->add_option("--user", u.users, "User name")->required()->expected(1);
  mechanism(del);
  add_client_options(del, u);
  del->callback([&args] {
    args.command = "user";
    args.user.action = "scram-delete";
  });
  CLI::App* describe = scram->add_subcommand("describe", "Mechanisms and iterations of users' credentials");
  describe->add_option("--user", u.users, "User name (repeatable; none = every user)");
  add_client_options(describe, u);
  describe->callback([&args] {
    args.command = "user";
    args.user.action = "scram-describe";
  });
}

int run_user_command(const UserArgs& a) { return run_user_command(a, std::cout, std::cerr); }

int run_user_command(const UserArgs& a, std::ostream& out, std::ostream& err) {
  auto c = open_admin(a.bootstrap_server, a.timeout_ms);
  if (!c) {
    err << "spool user: " << a.bootstrap_server << ": " << c.status().message() << "\n";
    return kExitFailure;
  }
  if (a.action == "scram-set" || a.action == "scram-delete") return run_alter(a, **c, out, err);
  if (a.action == "scram-describe") return run_describe(a, **c, out, err);
  err << "spool user: unknown action '" << a.action << "'\n";
  return kExitUsage;
}

}  // namespace spool::cli
