#include "cli/config_command.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <optional>

#include "cli/admin_connect.h"
#include "cli/client_options.h"
#include "cli/config_format.h"
#include "cli/topic_format.h"
#include "client/host_port.h"
#include "protocol/describe_configs_request.h"
#include "protocol/describe_configs_response.h"
#include "protocol/incremental_alter_configs_request.h"
#include "protocol/incremental_alter_configs_response.h"

namespace spool::cli {

namespace proto = spool::protocol;

namespace {

// Exactly one entity option, as kafka-configs.sh asks for one entity.
void check_entity(const ConfigArgs& a, const std::string& action) {
  const int n = int(a.broker.has_value()) + int(a.broker_defaults) + int(a.broker_logger.has_value());
  if (n != 1)
    throw CLI::ValidationError(action, "exactly one of --broker N, --broker-defaults or --broker-logger N is required");
}

void add_entity_options(CLI::App* sub, ConfigArgs& c) {
  sub->add_option("--broker", c.broker, "A broker's own configs (the request goes to that broker)")
      ->check(CLI::NonNegativeNumber);
  sub->add_flag("--broker-defaults", c.broker_defaults, "The cluster-wide broker defaults");
  sub->add_option("--broker-logger", c.broker_logger, "A broker's logger levels (not persisted)")
      ->check(CLI::NonNegativeNumber);
}

// The Admin's answer to a one-resource request (sent to broker N itself
// for a resource naming it, else to the bootstrap broker): the response
// when it holds exactly one result without an error, else prints why and
// nullopt.
template <class Resp, class Results>
std::optional<Resp> one_result(Result<Resp> resp, const Results& results_of, const std::string& who,
                               const ConfigEntity& e, std::ostream& err) {
  if (!resp) {
    err << who << resp.status().message() << "\n";
    return std::nullopt;
  }
  const auto& results = results_of(*resp);
  if (results.size() != 1) {
    err << who << "the broker answered " << results.size() << " results for one resource\n";
    return std::nullopt;
  }
  if (results[0].error_code != proto::ErrorCode::kNone) {
    err << who << entity_text(e) << ": " << kafka_error_name(proto::to_int(results[0].error_code)) << ": "
        << results[0].error_message.value_or("") << "\n";
    return std::nullopt;
  }
  return std::move(*resp);
}

int describe(client::Admin& c, const ConfigArgs& a, const ConfigEntity& e, std::ostream& out,
             std::ostream& err) {
  proto::DescribeConfigsRequest req;
  auto& res = req.resources.emplace_back();
  res.resource_type = e.resource_type;
  res.resource_name = e.name;
  res.configuration_keys = std::nullopt;
  req.include_synonyms = true;
  auto resp = one_result(c.describe_configs(req), [](const auto& r) -> const auto& { return r.results; },
                         "spool config describe: ", e, err);
  if (!resp) return kExitFailure;
  const auto& r = resp->results[0];
  std::vector<DescribedConfig> configs;
  for (const auto& x : r.configs) {
    DescribedConfig d{x.name, x.value, x.config_source, x.read_only, x.is_sensitive, {}};
    for (const auto& s : x.synonyms) d.synonyms.push_back({s.name, s.value, s.source});
    configs.push_back(std::move(d));
  }
  std::sort(configs.begin(), configs.end(), [](const auto& x, const auto& y) { return x.name < y.name; });
  out << format_config_describe(e, configs, a.all, a.output);
  return kExitOk;
}

int alter(client::Admin& c, const ConfigArgs& a, const ConfigEntity& e, std::ostream& out,
          std::ostream& err) {
  const std::string who = "spool config alter: ";
  proto::IncrementalAlterConfigsRequest req;
  auto& res = req.resources.emplace_back();
  res.resource_type = e.resource_type;
  res.resource_name = e.name;
  if (!a.add_config.empty()) {
    auto adds = parse_add_config(a.add_config);
    if (!adds) {
      err << who << adds.status().message() << "\n";
      return kExitUsage;
    }
    for (auto& [k, val] : *adds) {
      auto& op = res.configs.emplace_back();
      op.name = k;
      op.config_operation = 0;  // SET
      op.value = val;
    }
  }
  if (!a.delete_config.empty()) {
    auto dels = parse_delete_config(a.delete_config);
    if (!dels) {
      err << who << dels.status().message() << "\n";
      return kExitUsage;
    }
    for (auto& k : *dels) {
      auto& op = res.configs.emplace_back();
      op.name = k;
      op.config_operation = 1;  // DELETE
      op.value = std::nullopt;
    }
  }
  auto resp = one_result(c.incremental_alter_configs(req), [](const auto& r) -> const auto& { return r.responses; },
                         who, e, err);
  if (!resp) return kExitFailure;
  out << format_config_altered(e, a.output);
  return kExitOk;
}

}  // namespace

void configure_config(CLI::App& app, CliArgs& args) {
  CLI::App* config = app.add_subcommand("config", "Describe and alter dynamic broker configs and logger levels");
  config->require_subcommand(1);
  ConfigArgs& c = args.config;

  CLI::App* describe = config->add_subcommand("describe", "A broker's configs, the broker defaults, or loggers");
  add_entity_options(describe, c);
  describe->add_flag("--all", c.all, "Every config with its source, not only the dynamic ones");
  add_client_options(describe, c);
  describe->callback([&args] {
    check_entity(args.config, "describe");
    args.command = "config";
    args.config.action = "describe";
  });

  CLI::App* alter = config->add_subcommand("alter", "Set or remove dynamic configs (applied live, persisted)");
  add_entity_options(alter, c);
  alter->add_option("--add-config", c.add_config, "k=v,k2=[a,b]: set these (brackets around a value with commas)");
  alter->add_option("--delete-config", c.delete_config, "k,k2: remove these (back to the next source)");
  add_client_options(alter, c);
  alter->callback([&args] {
    check_entity(args.config, "alter");
    if (args.config.add_config.empty() && args.config.delete_config.empty())
      throw CLI::ValidationError("alter", "--add-config or --delete-config is required");
    if (!args.config.add_config.empty()) {
      if (auto adds = parse_add_config(args.config.add_config); !adds)
        throw CLI::ValidationError("alter", adds.status().message());
    }
    if (!args.config.delete_config.empty()) {
      if (auto dels = parse_delete_config(args.config.delete_config); !dels)
        throw CLI::ValidationError("alter", dels.status().message());
    }
    args.command = "config";
    args.config.action = "alter";
  });
}

int run_config_command(const ConfigArgs& a) { return run_config_command(a, std::cout, std::cerr); }

int run_config_command(const ConfigArgs& a, std::ostream& out, std::ostream& err) {
  const std::string who = "spool config " + a.action + ": ";
  const ConfigEntity e = config_entity(a);
  auto addr = client::parse_host_port(a.bootstrap_server);
  if (!addr) {
    err << who << "--bootstrap-server: " << addr.status().message() << "\n";
    return kExitUsage;
  }
  auto admin = open_admin(a.bootstrap_server, a.timeout_ms);
  if (!admin) {
    err << who << admin.status().message() << "\n";
    return kExitFailure;
  }
  if (a.action == "alter") return alter(**admin, a, e, out, err);
  return describe(**admin, a, e, out, err);
}

}  // namespace spool::cli
