#include "cli/produce_command.h"

#include <CLI/CLI.hpp>

#include <atomic>
#include <iostream>
#include <mutex>
#include <string>

#include "client/producer/producer.h"
#include "config/properties.h"

namespace spool::cli {

namespace {

Result<std::pair<std::string, std::string>> split_kv(const std::string& s, const char* what) {
  const auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) return Status::error(std::string(what) + " '" + s + "' is not key=value");
  return std::make_pair(s.substr(0, eq), s.substr(eq + 1));
}

Bytes to_bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }

}  // namespace

void configure_produce(CLI::App& app, CliArgs& args) {
  ProduceArgs& p = args.produce;
  CLI::App* produce = app.add_subcommand("produce", "Send lines from stdin as records (kafka-console-producer)");
  produce->add_option("topic", p.topic, "Topic")->required();
  produce->add_option("--bootstrap-server,--bootstrap", p.bootstrap_server, "Broker address host:port[,...]")
      ->capture_default_str();
  produce->add_option("--command-config", p.command_config, "Kafka client properties file")
      ->check(CLI::ExistingFile);
  produce->add_option("--property,-X", p.properties, "Producer property key=value (repeatable)")
      ->allow_extra_args(false);
  produce->add_option("--key-separator", p.key_separator, "Split each line into key and value at this string");
  produce->add_option("--header", p.headers, "Header key=value on every record (repeatable)")
      ->allow_extra_args(false);
  produce->add_option("--partition", p.partition, "Partition for every record (default: the partitioner)")
      ->check(CLI::Range(0, INT32_MAX));
  produce->add_option("--acks", p.acks, "acks: all, -1, 0 or 1")
      ->check(CLI::IsMember({"all", "-1", "0", "1"}));
  produce->add_option("--compression", p.compression, "Codec: none, gzip, snappy, lz4, zstd")
      ->check(CLI::IsMember({"none", "gzip", "snappy", "lz4", "zstd"}));
  produce->add_option("--linger-ms", p.linger_ms, "linger.ms")->check(CLI::Range(int64_t{0}, int64_t{3600000}));
  produce->add_flag_function(
      "--idempotence", [&p](int64_t) { p.idempotence = true; }, "Enable idempotence (the default)");
  produce->add_flag_function(
      "--no-idempotence", [&p](int64_t) { p.idempotence = false; }, "Disable idempotence");
  produce->add_option("--transactional-id", p.transactional_id,
                      "Send all of stdin in one transaction (committed at the end, aborted on any error)");
  produce->add_option("--timeout-ms", p.timeout_ms, "How long to wait for the last answers at the end")
      ->check(CLI::Range(int64_t{1}, int64_t{3600} * 1000))
      ->capture_default_str();
  produce->callback([&args] { args.command = "produce"; });
}

int run_produce_command(const ProduceArgs& a) {
  // stdin through C stdio, one character at a time, costs more than sending.
  std::ios_base::sync_with_stdio(false);
  return run_produce_command(a, std::cin, std::cerr);
}

int run_produce_command(const ProduceArgs& a, std::istream& in, std::ostream& err) {
  config::PropertyList props;
  if (!a.command_config.empty()) {
    auto file = config::load_properties_file(a.command_config);
    if (!file) {
      err << "spool produce: " << a.command_config << ": " << file.status().message() << "\n";
      return kExitUsage;
    }
    props = std::move(*file);
  }
  props.emplace_back("bootstrap.servers", a.bootstrap_server);
  if (a.acks) props.emplace_back("acks", *a.acks);
  if (a.compression) props.emplace_back("compression.type", *a.compression);
  if (a.linger_ms) props.emplace_back("linger.ms", std::to_string(*a.linger_ms));
  if (a.idempotence) props.emplace_back("enable.idempotence", *a.idempotence ? "true" : "false");
  if (a.transactional_id) props.emplace_back("transactional.id", *a.transactional_id);
  for (const std::string& kv : a.properties) {
    auto p = split_kv(kv, "--property");
    if (!p) {
      err << "spool produce: " << p.status().message() << "\n";
      return kExitUsage;
    }
    props.push_back(*p);
  }
  std::vector<client::RecordHeader> headers;
  for (const std::string& kv : a.headers) {
    auto h = split_kv(kv, "--header");
    if (!h) {
      err << "spool produce: " << h.status().message() << "\n";
      return kExitUsage;
    }
    headers.push_back(client::RecordHeader{h->first, to_bytes(h->second)});
  }
  if (a.key_separator && a.key_separator->empty()) {
    err << "spool produce: --key-separator must not be empty\n";
    return kExitUsage;
  }
  std::vector<std::string> warnings;
  auto producer = client::Producer::create(props, {}, &warnings);
  if (!producer) {
    err << "spool produce: " << producer.status().message() << "\n";
    return kExitUsage;
  }
  for (const std::string& w : warnings) err << "spool produce: warning: " << w << "\n";
  client::Producer& producer_ref = **producer;
  const bool transactional = producer_ref.config().transactional_id.has_value();
  if (transactional) {
    Status s = producer_ref.init_transactions();
    if (s) s = producer_ref.begin_transaction();
    if (!s) {
      err << "spool produce: " << s.message() << "\n";
      producer_ref.close(0);
      return kExitFailure;
    }
  }

  std::mutex err_mu;
  std::atomic<int64_t> failed{0};
  auto report = [&](int64_t line, const Status& s) {
    std::lock_guard<std::mutex> lock(err_mu);
    err << "spool produce: line " << line << ": " << s.message() << "\n";
  };
  std::string line;
  int64_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    client::ProducerRecord r;
    r.topic = a.topic;
    r.partition = a.partition;
    r.headers = headers;
    if (a.key_separator) {
      const auto at = line.find(*a.key_separator);
      if (at == std::string::npos) {
        report(number, Status::error("no key separator '" + *a.key_separator + "' on the line"));
        ++failed;
        if (transactional) break;  // the transaction is lost: abort below
        continue;
      }
      r.key = to_bytes(std::string_view(line).substr(0, at));
      r.value = to_bytes(std::string_view(line).substr(at + a.key_separator->size()));
    } else {
      r.value = to_bytes(line);
    }
    Status s = (*producer)->send(std::move(r), [&, number](const client::RecordMetadata&, const Status& st) {
      if (st.is_ok()) return;
      ++failed;
      report(number, st);
    });
    if (!s) {
      // The callback already reported it and counted it.
      if (s.kafka_code() < 0 && s.message().find("closed") != std::string::npos) break;
    }
  }
  const bool flushed = producer_ref.flush(a.timeout_ms);
  if (transactional && flushed) {
    Status s = failed.load() > 0 ? Status::error("a record failed") : producer_ref.commit_transaction(a.timeout_ms);
    if (!s) {
      if (failed.load() == 0) err << "spool produce: commit failed: " << s.message() << "\n";
      Status aborted = producer_ref.abort_transaction(a.timeout_ms);
      err << "spool produce: transaction " << *a.transactional_id
          << (aborted ? " aborted" : " not aborted: " + aborted.message()) << "\n";
      failed += 1;
    }
  }
  producer_ref.close(flushed ? a.timeout_ms : 0);
  if (!flushed) {
    err << "spool produce: not every record was acknowledged within " << a.timeout_ms << " ms\n";
    return kExitFailure;
  }
  return failed.load() > 0 ? kExitFailure : 0;
}

}  // namespace spool::cli
