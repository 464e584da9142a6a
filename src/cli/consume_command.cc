#include "cli/consume_command.h"

#include <CLI/CLI.hpp>

#include <atomic>
#include <charconv>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

#include "cli/consume_format.h"
#include "client/consumer/consumer.h"
#include "config/properties.h"

namespace spool::cli {

namespace {

std::atomic<bool> g_interrupted{false};

void on_signal(int) { g_interrupted.store(true); }

Result<std::pair<std::string, std::string>> split_kv(const std::string& s) {
  const auto eq = s.find('=');
  if (eq == std::string::npos || eq == 0) return Status::error("--property '" + s + "' is not key=value");
  return std::make_pair(s.substr(0, eq), s.substr(eq + 1));
}

// --offset: "earliest", "latest", N (absolute) or -N (N before the end).
struct StartOffset {
  enum class Kind { kNone, kEarliest, kLatest, kAbsolute, kFromEnd } kind = Kind::kNone;
  int64_t n = 0;
};

Result<StartOffset> parse_offset(const std::string& s) {
  StartOffset o;
  if (s.empty()) return o;
  if (s == "earliest") {
    o.kind = StartOffset::Kind::kEarliest;
    return o;
  }
  if (s == "latest") {
    o.kind = StartOffset::Kind::kLatest;
    return o;
  }
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) {
    return Status::error("--offset '" + s + "' is not a number, -N, earliest or latest");
  }
  o.kind = v < 0 || s[0] == '-' ? StartOffset::Kind::kFromEnd : StartOffset::Kind::kAbsolute;
  o.n = v < 0 ? -v : v;
  return o;
}

class Usage {
 public:
  explicit Usage(std::ostream& err) : err_(err) {}
  int operator()(const std::string& msg) const {
    err_ << "spool consume: " << msg << "\n";
    return kExitUsage;
  }

 private:
  std::ostream& err_;
};

// Starting positions of assigned partitions (--from-beginning, --offset, --from-time).
Status position_partitions(client::Consumer& c, const std::vector<TopicPartition>& parts, const ConsumeArgs& a,
                           const StartOffset& start, int64_t wait_ms) {
  if (a.from_beginning || start.kind == StartOffset::Kind::kEarliest) return c.seek_to_beginning(parts);
  if (start.kind == StartOffset::Kind::kLatest) return c.seek_to_end(parts);
  if (start.kind == StartOffset::Kind::kAbsolute) {
    for (const TopicPartition& tp : parts) {
      if (auto s = c.seek(tp, start.n); !s) return s;
    }
    return Status::ok();
  }
  if (start.kind == StartOffset::Kind::kFromEnd) {
    auto ends = c.end_offsets(parts, wait_ms);
    if (!ends) return ends.status();
    auto begins = c.beginning_offsets(parts, wait_ms);
    if (!begins) return begins.status();
    for (const TopicPartition& tp : parts) {
      const int64_t end = (*ends)[tp];
      const int64_t begin = (*begins)[tp];
      if (auto s = c.seek(tp, std::max(begin, end - start.n)); !s) return s;
    }
    return Status::ok();
  }
  if (a.from_time) {
    std::map<TopicPartition, int64_t> ts;
    for (const TopicPartition& tp : parts) ts[tp] = *a.from_time;
    auto found = c.offsets_for_times(ts, wait_ms);
    if (!found) return found.status();
    std::vector<TopicPartition> none;
    for (const auto& [tp, o] : *found) {
      if (o) {
        if (auto s = c.seek(tp, o->offset); !s) return s;
      } else {
        none.push_back(tp);
      }
    }
    if (!none.empty()) return c.seek_to_end(none);
  }
  return Status::ok();
}

}  // namespace

void configure_consume(CLI::App& app, CliArgs& args) {
  ConsumeArgs& c = args.consume;
  CLI::App* sub = app.add_subcommand("consume", "Print records of topics (kafka-console-consumer)");
  sub->add_option("topics", c.topics, "Topics");
  sub->add_option("--include", c.include, "Regex of the topics to read (with --group; instead of TOPIC...)");
  sub->add_option("--bootstrap-server,--bootstrap", c.bootstrap_server, "Broker address host:port[,...]")
      ->capture_default_str();
  sub->add_option("--command-config", c.command_config, "Kafka client properties file")->check(CLI::ExistingFile);
  sub->add_option("--property,-X", c.properties, "Consumer property key=value (repeatable)")->allow_extra_args(false);
  sub->add_option("--group", c.group, "Consumer group (subscribe; commits on exit)");
  sub->add_option("--partition", c.partitions, "Partition to read (repeatable; no group)")
      ->allow_extra_args(false)
      ->check(CLI::Range(0, INT32_MAX));
  sub->add_flag("--from-beginning", c.from_beginning, "Start at the log start when no offset is committed");
  sub->add_option("--offset", c.offset, "Start offset: N, -N (N before the end), earliest or latest");
  sub->add_option("--from-time", c.from_time, "Start at the first record at or after this timestamp (ms)")
      ->check(CLI::Range(int64_t{0}, INT64_MAX));
  sub->add_option("--max-messages", c.max_messages, "Exit after this many records")
      ->check(CLI::Range(int64_t{1}, INT64_MAX));
  sub->add_option("--timeout-ms", c.timeout_ms, "Exit when no record arrives for this long")
      ->check(CLI::Range(int64_t{1}, int64_t{24} * 3600 * 1000));
  sub->add_option("--isolation-level", c.isolation_level, "read_committed or read_uncommitted")
      ->check(CLI::IsMember({"read_committed", "read_uncommitted"}));
  sub->add_option("--format", c.format, "Output: text or json")->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  sub->add_flag("--print-key", c.print_key, "Print the key");
  sub->add_flag("--print-headers", c.print_headers, "Print the headers");
  sub->add_flag("--print-partition", c.print_partition, "Print the partition");
  sub->add_flag("--print-offset", c.print_offset, "Print the offset");
  sub->add_flag("--print-timestamp", c.print_timestamp, "Print the timestamp and its type");
  sub->callback([&args] { args.command = "consume"; });
}

int run_consume_command(const ConsumeArgs& a) {
  std::ios_base::sync_with_stdio(false);
  return run_consume_command(a, std::cout, std::cerr);
}

int run_consume_command(const ConsumeArgs& a, std::ostream& out, std::ostream& err) {
  const Usage usage(err);
  if (a.topics.empty() == a.include.empty()) return usage("give either topics or --include REGEX");
  if (!a.include.empty() && a.group.empty()) return usage("--include needs --group (subscription by pattern)");
  if (!a.group.empty() && !a.partitions.empty()) return usage("--group and --partition cannot be used together");
  const int starts = (a.from_beginning ? 1 : 0) + (a.offset.empty() ? 0 : 1) + (a.from_time ? 1 : 0);
  if (starts > 1) return usage("--from-beginning, --offset and --from-time exclude each other");
  if (!a.group.empty() && (!a.offset.empty() || a.from_time)) {
    return usage("--offset and --from-time position assigned partitions: use them without --group");
  }
  auto start = parse_offset(a.offset);
  if (!start) return usage(start.status().message());

  config::PropertyList props;
  if (!a.command_config.empty()) {
    auto file = config::load_properties_file(a.command_config);
    if (!file) return usage(a.command_config + ": " + file.status().message());
    props = std::move(*file);
  }
  props.emplace_back("bootstrap.servers", a.bootstrap_server);
  if (!a.group.empty()) props.emplace_back("group.id", a.group);
  if (!a.isolation_level.empty()) props.emplace_back("isolation.level", a.isolation_level);
  props.emplace_back("auto.offset.reset", a.from_beginning ? "earliest" : "latest");
  for (const std::string& kv : a.properties) {
    auto p = split_kv(kv);
    if (!p) return usage(p.status().message());
    props.push_back(*p);
  }
  std::vector<std::string> warnings;
  auto created = client::Consumer::create(props, {}, &warnings);
  if (!created) return usage(created.status().message());
  for (const std::string& w : warnings) err << "spool consume: warning: " << w << "\n";
  client::Consumer& consumer = **created;

  const int64_t wait_ms = a.timeout_ms > 0 ? a.timeout_ms : 60000;
  auto fail = [&](const std::string& msg) {
    err << "spool consume: " << msg << "\n";
    consumer.close(0);
    return kExitFailure;
  };
  std::vector<TopicPartition> parts;
  for (const std::string& topic : a.topics) {
    auto count = consumer.partitions_for(topic, wait_ms);
    if (!count) return fail(count.status().message());
    if (!a.group.empty()) continue;
    if (a.partitions.empty()) {
      for (int32_t p = 0; p < *count; ++p) parts.emplace_back(topic, p);
    }
    for (int32_t p : a.partitions) {
      if (p >= *count) {
        return fail("partition " + std::to_string(p) + " of topic " + topic + " does not exist (it has " +
                    std::to_string(*count) + ")");
      }
      parts.emplace_back(topic, p);
    }
  }
  if (!a.include.empty()) {
    if (auto s = consumer.subscribe_pattern(a.include); !s) return usage(s.message());
  } else if (!a.group.empty()) {
    if (auto s = consumer.subscribe(a.topics); !s) return fail(s.message());
  } else {
    if (auto s = consumer.assign(parts); !s) return fail(s.message());
    if (auto s = position_partitions(consumer, parts, a, *start, wait_ms); !s) return fail(s.message());
  }

  g_interrupted.store(false);
  auto old_int = std::signal(SIGINT, on_signal);
  auto old_term = std::signal(SIGTERM, on_signal);
  const ConsumeFormat format = a.format == "json" ? ConsumeFormat::kJson : ConsumeFormat::kText;
  const ConsumeFields fields{a.print_key, a.print_headers, a.print_partition, a.print_offset, a.print_timestamp};
  int64_t printed = 0;
  int rc = 0;
  auto clock = system_clock();
  int64_t last_record_ms = clock->monotonic_ms();
  while (!g_interrupted.load() && (a.max_messages < 0 || printed < a.max_messages)) {
    int64_t poll_ms = 200;
    if (a.timeout_ms > 0) {
      const int64_t idle_left = a.timeout_ms - (clock->monotonic_ms() - last_record_ms);
      if (idle_left <= 0) break;
      poll_ms = std::min(poll_ms, idle_left);
    }
    auto records = consumer.poll(poll_ms);
    if (!records) {
      err << "spool consume: " << records.status().message() << "\n";
      rc = kExitFailure;
      break;
    }
    if (records->empty()) continue;
    last_record_ms = clock->monotonic_ms();
    std::map<TopicPartition, int64_t> unprinted;  // first record not printed, per partition
    for (const client::ConsumerRecord& r : *records) {
      const TopicPartition tp(r.topic, r.partition);
      if (a.max_messages >= 0 && printed >= a.max_messages) {
        unprinted.try_emplace(tp, r.offset);
        continue;
      }
      out << format_record(r, format, fields) << '\n';
      ++printed;
    }
    out.flush();
    // Positions (and so the commit on exit) stop after the last printed record.
    for (const auto& [tp, offset] : unprinted) (void)consumer.seek(tp, offset);
  }
  std::signal(SIGINT, old_int);
  std::signal(SIGTERM, old_term);
  out.flush();
  consumer.close(30000);
  err << "Processed a total of " << printed << " messages\n";
  return rc;
}

}  // namespace spool::cli
