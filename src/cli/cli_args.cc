#include "cli/cli_args.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>

#include "cli/client_options.h"
#include "cli/cluster_command.h"
#include "cli/config_command.h"
#include "cli/topic_reassign.h"
#include "cli/group_parse.h"
#include "cli/txn_command.h"
#include "cli/acl_command.h"
#include "cli/consume_command.h"
#include "cli/produce_command.h"
#include "cli/quota_command.h"
#include "cli/user_command.h"

namespace spool::cli {
namespace {

// Runs the cross-option checks when a group subcommand's parsing ends, so a
// bad combination is a usage error like any other.
void finish_group(CliArgs& args, const std::string& action) {
  args.command = "group";
  args.group.action = action;
  if (auto st = validate_group_args(args.group); !st) throw CLI::ValidationError(st.message());
}

void configure_group(CLI::App& app, CliArgs& args) {
  CLI::App* group =
      app.add_subcommand("group", "List, describe and delete consumer groups; reset or delete their offsets");
  group->require_subcommand(1);
  GroupArgs& g = args.group;

  CLI::App* list = group->add_subcommand("list", "List consumer groups with state and protocol type");
  list->add_option("--state", g.states, "Only groups in these states (repeatable or comma-separated)")
      ->delimiter(',')
      ->transform(CLI::Validator(
          [](std::string& s) {
            auto canonical = canonical_group_state(s);
            if (!canonical) return canonical.status().message();
            s = *canonical;
            return std::string();
          },
          "STATE"));
  add_client_options(list, g);
  list->callback([&args] { finish_group(args, "list"); });

  CLI::App* describe = group->add_subcommand("describe", "Offsets and lag per partition, members, or state");
  describe->add_option("group", g.groups, "Group id(s)");
  describe->add_flag("--all-groups", g.all_groups, "Describe every consumer group");
  auto* members = describe->add_flag("--members", g.members, "List members and their partition counts");
  auto* state = describe->add_flag("--state", g.state, "Show coordinator, state, assignment strategy, #members");
  members->excludes(state);
  describe->add_flag("--verbose", g.verbose, "With --members: the instance id and the assigned partitions");
  add_client_options(describe, g);
  describe->callback([&args] { finish_group(args, "describe"); });

  CLI::App* del = group->add_subcommand("delete", "Delete inactive groups and their offsets");
  del->add_option("group", g.groups, "Group id(s)")->required();
  add_client_options(del, g);
  del->callback([&args] { finish_group(args, "delete"); });

  CLI::App* reset =
      group->add_subcommand("reset-offsets", "Plan (default) or --execute an offset reset of an inactive group");
  reset->add_option("group", g.groups, "Group id")->required()->expected(1);
  reset->add_option("--topic", g.topics, "topic or topic:p,p (repeatable)")->allow_extra_args(false);
  reset->add_flag("--all-topics", g.all_topics, "Every topic the group has committed offsets for");
  reset->add_flag("--to-earliest", g.to_earliest, "Reset to the log start offset");
  reset->add_flag("--to-latest", g.to_latest, "Reset to the log end offset");
  reset->add_flag("--to-current", g.to_current, "Keep the committed offset (clamped to the log)");
  reset->add_option("--to-offset", g.to_offset, "Reset to this offset (clamped to [log start, log end])");
  reset->add_option("--shift-by", g.shift_by, "Move the committed offset by N (may be negative; clamped)");
  reset->add_option("--to-datetime", g.to_datetime,
                    "First offset at or after YYYY-MM-DDTHH:MM:SS[.mmm][Z|+HH:MM] (local time without a zone)");
  reset->add_flag("--execute", g.execute, "Commit the new offsets (default: only print the plan)");
  reset->add_flag("--dry-run", g.dry_run, "Only print the plan (the default)");
  add_client_options(reset, g);
  reset->callback([&args] { finish_group(args, "reset-offsets"); });

  CLI::App* delete_offsets =
      group->add_subcommand("delete-offsets", "Delete a group's committed offsets of topics or partitions");
  delete_offsets->add_option("group", g.groups, "Group id")->required()->expected(1);
  delete_offsets->add_option("--topic", g.topics, "topic or topic:p,p (repeatable)")
      ->required()
      ->allow_extra_args(false);
  add_client_options(delete_offsets, g);
  delete_offsets->callback([&args] { finish_group(args, "delete-offsets"); });
}

void configure_bench(CLI::App& app, CliArgs& args) {
  bench::BenchOptions& b = args.bench;
  CLI::App* bench = app.add_subcommand(
      "bench", "Benchmark Spool against Apache Kafka 4.4 (or librdkafka's mock cluster) and the machine's limits; "
               "write a report");
  bench->add_option("--bootstrap", b.bootstrap, "Use this running broker (host:port) instead of starting one");
  bench->add_option("--data-dir", b.data_dir, "Parent dir of the bench's temp data (default $TMPDIR or /tmp)");
  bench->add_option("--broker-override", b.broker_overrides, "key=value passed to the bench's broker (repeatable)")
      ->allow_extra_args(false);
  bench->add_option("--output-dir", b.output_dir, "Where the report (.md, .csv, .svg) is written")
      ->capture_default_str();
  bench->add_option("--repetitions", b.repetitions, "Runs of each workload; the report quotes medians (default 3)");
  bench->add_option("--messages", b.messages, "100 B messages per produce run; 1 KB runs send a quarter, consume reads a third (default 3e6)");
  bench->add_option("--duration", b.duration_s, "Max seconds of sending per produce run (default 5)");
  bench->add_option("--restart-mb", b.restart_mb, "Log size written before kill -9 in the restart workload (default 1024)");
  bench->add_option("--latency-messages", b.latency_messages, "Messages per latency run (default 2000)");
  bench->add_option("--latency-rate", b.latency_rate, "msg/s of the fixed-rate latency run (default 1000)");
  bench->add_option("--workloads", b.workloads, "Only these: machine,produce,consume,latency,rss,restart,kafka-tools,client,cluster,security,"
                    "operability, or one workload of an opt-in family: cluster/<name>, security/<name>, operability/<name> "
                    "(default: all but cluster, security and operability, which are opt-in)")
      ->delimiter(',');
  bench->add_flag("--quick", b.quick, "Tiny sizes, one repetition, 3 produce combinations (seconds)");
  bench->add_flag("--all-combos", b.all_combos, "All 16 produce combinations instead of the standard 8");
  bench->add_option("--peer", b.peer,
                    "kafka: Apache Kafka 4.4 through scripts/kafka-peer (the default when java is on PATH and the "
                    "script and its jars are found); mock: librdkafka's in-process mock cluster");
  bench->add_option("--kafka-peer", b.kafka_peer,
                    "Path of scripts/kafka-peer (default: $SPOOL_KAFKA_PEER, else <source tree>/scripts/kafka-peer "
                    "next to the build dir holding this spool binary, else ./scripts/kafka-peer)");
  bench->add_flag("--skip-peer", b.skip_peer, "Run no peer at all (Spool and the machine only)");
  bench->add_flag("--profile", b.profile, "perf-profile the broker on one extra run of each missed target");
  bench->add_option("--client", b.client,
                    "librdkafka (default) or native: the client of the produce family (the client family always "
                    "runs both)")
      ->capture_default_str();
  // Hidden: the client family's memory probe runs as a child `spool bench` (bench/client_memory.h).
  bench->add_option("--client-rss-probe", b.client_rss_probe)->group("");
  bench->add_option("--client-rss-topic", b.client_rss_topic)->group("");
  bench->add_option("--client-rss-partitions", b.client_rss_partitions)->group("");
  bench->callback([&args] { args.command = "bench"; });
}

}  // namespace

void configure_app(CLI::App& app, CliArgs& args) {
  app.description("Spool: a Kafka-wire-compatible streaming log broker");
  app.require_subcommand(1);

  CLI::App* broker = app.add_subcommand("broker", "Run a broker (Kafka server.properties keys)");
  broker->add_option("--config,-c", args.broker.config_file, "Java .properties file (Kafka's server.properties)")
      ->check(CLI::ExistingFile);
  broker->add_option("--override", args.broker.overrides, "Config override key=value (repeatable, applied in order)")
      ->allow_extra_args(true);
  broker->callback([&args] { args.command = "broker"; });

  CLI::App* topic = app.add_subcommand("topic", "Create, list, describe, grow and delete topics; delete records");
  topic->require_subcommand(1);
  TopicArgs& t = args.topic;

  CLI::App* create = topic->add_subcommand("create", "Create a topic");
  create->add_option("name", t.name, "Topic name")->required();
  create->add_option("--partitions,-p", t.partitions, "Number of partitions (default: broker's num.partitions)")
      ->check(CLI::Range(1, 1000000));
  create->add_option("--replication-factor,-r", t.replication_factor,
                     "Replication factor (default: broker's default.replication.factor)")
      ->check(CLI::Range(1, 32767));
  create->add_option("--config", t.configs, "Topic config key=value (repeatable)")->allow_extra_args(true);
  add_client_options(create, t);
  create->callback([&args] { args.command = "topic"; args.topic.action = "create"; });

  CLI::App* list = topic->add_subcommand("list", "List topic names");
  add_client_options(list, t);
  list->callback([&args] { args.command = "topic"; args.topic.action = "list"; });

  CLI::App* describe = topic->add_subcommand("describe", "Show partitions, leaders, replicas and ISR");
  describe->add_option("name", t.name, "Topic name (default: every topic)");
  add_client_options(describe, t);
  describe->callback([&args] { args.command = "topic"; args.topic.action = "describe"; });

  CLI::App* del = topic->add_subcommand("delete", "Delete a topic");
  del->add_option("name", t.name, "Topic name")->required();
  add_client_options(del, t);
  del->callback([&args] { args.command = "topic"; args.topic.action = "delete"; });

  CLI::App* grow = topic->add_subcommand("add-partitions", "Increase a topic's partition count");
  grow->add_option("name", t.name, "Topic name")->required();
  grow->add_option("--partitions,-p", t.partitions, "New total number of partitions")
      ->required()
      ->check(CLI::Range(1, 1000000));
  add_client_options(grow, t);
  grow->callback([&args] { args.command = "topic"; args.topic.action = "add-partitions"; });

  CLI::App* trim = topic->add_subcommand("delete-records", "Delete a partition's records below an offset");
  trim->add_option("name", t.name, "Topic name")->required();
  auto* one = trim->add_option("--partition", t.partition, "Partition")->check(CLI::NonNegativeNumber)->capture_default_str();
  trim->add_flag("--all-partitions", t.all_partitions,
                 "Every partition of the topic, in requests of 100 partitions, with progress on stderr")
      ->excludes(one);
  trim->add_option("--offset", t.offset, "New log start offset; -1 = the high watermark (delete everything)")
      ->required()
      ->check(CLI::Range(int64_t{-1}, INT64_MAX));
  add_client_options(trim, t);
  trim->callback([&args] { args.command = "topic"; args.topic.action = "delete-records"; });

  CLI::App* alter = topic->add_subcommand("alter-config", "Change a topic's config overrides (takes effect at once)");
  alter->add_option("name", t.name, "Topic name")->required();
  alter->add_option("--set", t.set_configs, "Set key=value (repeatable)")->allow_extra_args(false);
  alter->add_option("--delete", t.delete_configs, "Remove the override of key (repeatable)")->allow_extra_args(false);
  alter->add_option("--append", t.append_configs, "Append key=item to a list key, e.g. cleanup.policy (repeatable)")
      ->allow_extra_args(false);
  alter->add_option("--subtract", t.subtract_configs, "Remove key=item from a list key (repeatable)")
      ->allow_extra_args(false);
  add_client_options(alter, t);
  alter->callback([&args] { args.command = "topic"; args.topic.action = "alter-config"; });
  configure_topic_reassign(topic, args);

  configure_group(app, args);
  configure_txn(app, args);
  configure_cluster(app, args);
  configure_config(app, args);
  configure_user(app, args);
  configure_acl(app, args);
  configure_quota(app, args);
  configure_produce(app, args);
  configure_consume(app, args);
  configure_bench(app, args);
}

}  // namespace spool::cli
