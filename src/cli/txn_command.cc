#include "cli/txn_command.h"

#include <CLI/CLI.hpp>

#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "cli/client_options.h"
#include "client/blocking_client.h"
#include "protocol/describe_transactions_request.h"
#include "protocol/describe_transactions_response.h"
#include "protocol/error_code.h"
#include "protocol/find_coordinator_request.h"
#include "protocol/find_coordinator_response.h"
#include "protocol/list_transactions_request.h"
#include "protocol/list_transactions_response.h"

namespace spool::cli {

using client::BlockingClient;
using protocol::ErrorCode;

namespace {

constexpr int8_t kTransactionKeyType = 1;

std::string error_text(ErrorCode code) { return std::string(protocol::error_name(code)); }

Result<BlockingClient> connect_to(const std::string& addr, int timeout_ms) {
  auto hp = client::parse_host_port(addr);
  if (!hp) return hp.status();
  return BlockingClient::connect(hp->first, hp->second, timeout_ms);
}

int run_list(const TxnArgs& a, BlockingClient& c, std::ostream& out, std::ostream& err) {
  auto v = c.negotiate<protocol::ListTransactionsRequest>();
  if (!v) {
    err << "spool txn list: " << v.status().message() << "\n";
    return kExitFailure;
  }
  protocol::ListTransactionsRequest req;
  req.state_filters = a.states;
  req.producer_id_filters = a.producer_ids;
  auto resp = c.call<protocol::ListTransactionsRequest, protocol::ListTransactionsResponse>(req, *v);
  if (!resp) {
    err << "spool txn list: " << resp.status().message() << "\n";
    return kExitFailure;
  }
  if (resp->error_code != ErrorCode::kNone) {
    err << "spool txn list: " << error_text(resp->error_code) << "\n";
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

int run_describe(const TxnArgs& a, BlockingClient& bootstrap, std::ostream& out, std::ostream& err) {
  auto fv = bootstrap.negotiate(protocol::FindCoordinatorRequest::kApiKey, 1, 2);
  if (!fv) {
    err << "spool txn describe: " << fv.status().message() << "\n";
    return kExitFailure;
  }
  int rc = kExitOk;
  nlohmann::json all = nlohmann::json::array();
  for (const auto& id : a.transactional_ids) {
    protocol::FindCoordinatorRequest fc;
    fc.key = id;
    fc.key_type = kTransactionKeyType;
    auto found = bootstrap.call<protocol::FindCoordinatorRequest, protocol::FindCoordinatorResponse>(fc, *fv);
    if (!found || found->error_code != ErrorCode::kNone) {
      err << "spool txn describe " << id << ": "
          << (found ? error_text(found->error_code) : found.status().message()) << "\n";
      rc = kExitFailure;
      continue;
    }
    auto coord = BlockingClient::connect(found->host, static_cast<uint16_t>(found->port), a.timeout_ms);
    if (!coord) {
      err << "spool txn describe " << id << ": coordinator " << found->host << ":" << found->port << ": "
          << coord.status().message() << "\n";
      rc = kExitFailure;
      continue;
    }
    auto dv = coord->negotiate<protocol::DescribeTransactionsRequest>();
    if (!dv) {
      err << "spool txn describe: " << dv.status().message() << "\n";
      return kExitFailure;
    }
    protocol::DescribeTransactionsRequest req;
    req.transactional_ids = {id};
    auto resp = coord->call<protocol::DescribeTransactionsRequest, protocol::DescribeTransactionsResponse>(req, *dv);
    if (!resp || resp->transaction_states.size() != 1) {
      err << "spool txn describe " << id << ": " << (resp ? "malformed answer" : resp.status().message()) << "\n";
      rc = kExitFailure;
      continue;
    }
    const auto& s = resp->transaction_states[0];
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
                     {"coordinator", found->node_id},
                     {"state", s.transaction_state},
                     {"producer_id", s.producer_id},
                     {"producer_epoch", s.producer_epoch},
                     {"transaction_timeout_ms", s.transaction_timeout_ms},
                     {"transaction_start_time_ms", s.transaction_start_time_ms},
                     {"partitions", jparts}});
      continue;
    }
    out << "TransactionalId:   " << s.transactional_id << "\n"
        << "Coordinator:       " << found->node_id << "\n"
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
  auto c = connect_to(a.bootstrap_server, a.timeout_ms);
  if (!c) {
    err << "spool txn " << a.action << ": " << a.bootstrap_server << ": " << c.status().message() << "\n";
    return kExitFailure;
  }
  if (a.action == "list") return run_list(a, *c, out, err);
  if (a.action == "describe") return run_describe(a, *c, out, err);
  err << "spool txn: unknown action '" << a.action << "'\n";
  return kExitUsage;
}

}  // namespace spool::cli
