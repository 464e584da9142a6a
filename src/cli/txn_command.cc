#include "cli/txn_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/admin_connect.h"
#include "cli/client_options.h"
#include "protocol/error_code.h"

namespace spool::cli {

using protocol::ErrorCode;

namespace {

std::string error_text(ErrorCode code) { return std::string(protocol::error_name(code)); }

// A failure as the command reports it: the broker's error name when the
// broker refused, else what went wrong on the way.
std::string failure_text(const Status& st) {
  const auto code = static_cast<ErrorCode>(st.kafka_code());
  if (st.kafka_code() == 0 || code == ErrorCode::kNetworkException || code == ErrorCode::kRequestTimedOut ||
      code == ErrorCode::kUnsupportedVersion)
    return st.message();
  return error_text(code);
}

int run_list(const TxnArgs& a, client::Admin& admin, std::ostream& out, std::ostream& err) {
  auto resp = admin.list_transactions(a.states, a.producer_ids);
  if (!resp) {
    err << "spool txn list: " << resp.status().message() << "\n";
    return kExitFailure;
  }
  for (const auto& s : resp->unknown_state_filters) err << "spool txn list: unknown state '" << s << "' ignored\n";
  auto rows = resp->transaction_states;
  std::sort(rows.begin(), rows.end(), [](const auto& x, const auto& y) { return x.transactional_id < y.transactional_id; });
  if (a.output == OutputFormat::kJson) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& t : rows)
      j.push_back({{"transactional_id", t.transactional_id}, {"producer_id", t.producer_id}, {"state", t.transaction_state}});
    out << j.dump(2) << "\n";
    return kExitOk;
  }
  out << std::left << std::setw(40) << "TRANSACTIONAL_ID" << std::setw(14) << "PRODUCER_ID" << "STATE\n";
  for (const auto& t : rows)
    out << std::left << std::setw(40) << t.transactional_id << std::setw(14) << t.producer_id << t.transaction_state
        << "\n";
  return kExitOk;
}

int run_describe(const TxnArgs& a, client::Admin& admin, std::ostream& out, std::ostream& err) {
  int rc = kExitOk;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& id : a.transactional_ids) {
    auto described = admin.describe_transaction(id);
    if (!described) {
      err << "spool txn describe " << id << ": " << failure_text(described.status()) << "\n";
      rc = kExitFailure;
      continue;
    }
    const auto& s = described->state;
    const int32_t coordinator_id = described->coordinator.id;
    if (s.error_code != ErrorCode::kNone) {
      err << "spool txn describe " << id << ": " << error_text(s.error_code) << "\n";
      rc = kExitFailure;
      continue;
    }
    std::string parts;
    nlohmann::json jparts = nlohmann::json::array();
    for (const auto& t : s.topic_partitions) {
      for (int32_t p : t.partition_indexes) {
        parts += (parts.empty() ? "" : ",") + t.name + "-" + std::to_string(p);
        jparts.push_back({{"topic", t.name}, {"partition", p}});
      }
    }
    if (a.output == OutputFormat::kJson) {
      all.push_back({{"transactional_id", s.transactional_id},
                     {"coordinator", coordinator_id},
                     {"state", s.transaction_state},
                     {"producer_id", s.producer_id},
                     {"producer_epoch", s.producer_epoch},
                     {"transaction_timeout_ms", s.transaction_timeout_ms},
                     {"transaction_start_time_ms", s.transaction_start_time_ms},
                     {"partitions", jparts}});
      continue;
    }
    out << "TransactionalId:   " << s.transactional_id << "\n"
        << "Coordinator:       " << coordinator_id << "\n"
        << "State:             " << s.transaction_state << "\n"
        << "ProducerId:        " << s.producer_id << "\n"
        << "ProducerEpoch:     " << s.producer_epoch << "\n"
        << "TimeoutMs:         " << s.transaction_timeout_ms << "\n"
        << "StartTimeMs:       " << s.transaction_start_time_ms << "\n"
        << "TopicPartitions:   " << (parts.empty() ? "-" : parts) << "\n\n";
  }
  if (a.output == OutputFormat::kJson) out << all.dump(2) << "\n";
  return rc;
}

}  // namespace

void configure_txn(CLI::App& app, CliArgs& args) {
  CLI::App* txn = app.add_subcommand("txn", "List and describe transactions");
  txn->require_subcommand(1);
  TxnArgs& t = args.txn;
  CLI::App* list = txn->add_subcommand("list", "Transactional ids with producer id and state");
  list->add_option("--state", t.states, "Only these states, e.g. Ongoing (repeatable or comma-separated)")
      ->delimiter(',');
  list->add_option("--producer-id", t.producer_ids, "Only these producer ids (repeatable or comma-separated)")
      ->delimiter(',');
  add_client_options(list, t);
  list->callback([&args] {
    args.command = "txn";
    args.txn.action = "list";
  });
  CLI::App* describe = txn->add_subcommand("describe", "State, producer and partitions of transactional ids");
  describe->add_option("transactional_id", t.transactional_ids, "Transactional id(s)")->required();
  add_client_options(describe, t);
  describe->callback([&args] {
    args.command = "txn";
    args.txn.action = "describe";
  });
}

int run_txn_command(const TxnArgs& a) { return run_txn_command(a, std::cout, std::cerr); }

int run_txn_command(const TxnArgs& a, std::ostream& out, std::ostream& err) {
  auto admin = open_admin(a.bootstrap_server, a.timeout_ms);
  if (!admin) {
    err << "spool txn " << a.action << ": " << a.bootstrap_server << ": " << admin.status().message() << "\n";
    return kExitFailure;
  }
  if (a.action == "list") return run_list(a, **admin, out, err);
  if (a.action == "describe") return run_describe(a, **admin, out, err);
  err << "spool txn: unknown action '" << a.action << "'\n";
  return kExitUsage;
}

}  // namespace spool::cli
