// Command-line arguments of `spool` and the CLI11 wiring that fills them.
//
// configure_app() declares every subcommand and its options on a CLI::App;
// parsing fills a CliArgs, which main() then hands to the command's runner. Keeping the
// two apart lets tests parse argument lists without a broker. CLI11 reports
// usage errors by throwing CLI::ParseError: exceptions stay at this edge.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bench/runner.h"

namespace CLI {
class App;
}

namespace spool::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // the operation failed (broker error, connection)
inline constexpr int kExitUsage = 2;    // bad arguments or configuration

struct BrokerArgs {
  std::optional<std::string> config_file;
  std::vector<std::string> overrides;  // "key=value", applied in order after the file
};

enum class OutputFormat { kTable, kJson };

struct TopicArgs {
  std::string action;  // create | list | describe | delete | add-partitions | delete-records | alter-config
  std::string bootstrap_server = "127.0.0.1:9092";
  OutputFormat output = OutputFormat::kTable;
  int timeout_ms = 30000;
  std::string name;                  // create/delete: required; describe: optional (empty = all)
  int32_t partitions = -1;           // create: -1 = broker default (num.partitions); add-partitions: new total
  int32_t replication_factor = -1;   // -1 = broker default (default.replication.factor)
  std::vector<std::string> configs;  // "key=value" topic configs
  int32_t partition = 0;             // delete-records: the partition
  bool all_partitions = false;       // delete-records: every partition of the topic (progress on stderr)
  int64_t offset = -1;               // delete-records: new log start offset (-1 = high watermark)
  // alter-config (IncrementalAlterConfigs): "key=value" to set, append to or
  // subtract from (list keys), and keys whose override is removed.
  std::vector<std::string> set_configs, append_configs, subtract_configs, delete_configs;
  // reassign (kafka-reassign-partitions.sh): one of generate | execute |
  // verify | cancel | list, and their files and options.
  std::string reassign_mode;
  bool reassign_generate = false, reassign_execute = false, reassign_verify = false, reassign_cancel = false,
       reassign_list = false;
  std::string topics_to_move_file, reassignment_file;
  std::string broker_list;  // "0,1,2"
  int64_t throttle = -1;    // bytes/s; -1: none
  bool disable_rack_aware = false;
  bool preserve_throttles = false;
};

// `spool group ...` (kafka-consumer-groups.sh). Cross-option rules are
// checked by validate_group_args() (cli/group_parse.h) when parsing ends.
struct GroupArgs {
  std::string action;  // list | describe | delete | reset-offsets | delete-offsets
  std::string bootstrap_server = "127.0.0.1:9092";
  OutputFormat output = OutputFormat::kTable;
  int timeout_ms = 30000;
  std::vector<std::string> groups;  // describe/delete: one or more; reset/delete-offsets: exactly one
  bool all_groups = false;          // describe: every consumer group instead of `groups`
  std::vector<std::string> states;  // list: state filter (canonical names, e.g. "Empty")
  bool members = false;             // describe --members
  bool state = false;               // describe --state
  bool verbose = false;             // describe --members --verbose: show the assignment
  std::vector<std::string> topics;  // "topic" or "topic:p,p"
  bool all_topics = false;
  // reset-offsets: exactly one of these
  bool to_earliest = false;
  bool to_latest = false;
  bool to_current = false;
  std::optional<int64_t> to_offset;
  std::optional<int64_t> shift_by;
  std::optional<std::string> to_datetime;
  bool execute = false;
  bool dry_run = false;
};

// `spool txn ...` (kafka-transactions.sh list/describe).
struct TxnArgs {
  std::string action;  // list | describe
  std::string bootstrap_server = "127.0.0.1:9092";
  OutputFormat output = OutputFormat::kTable;
  int timeout_ms = 30000;
  std::vector<std::string> states;             // list: state filter (Kafka's names, e.g. "Ongoing")
  std::vector<int64_t> producer_ids;           // list: producer id filter
  std::vector<std::string> transactional_ids;  // describe: one or more
};

// `spool cluster describe`: brokers, controller, under-replicated and
// offline partitions.
struct ClusterArgs {
  std::string action;  // describe | elect-leaders
  std::string bootstrap_server = "127.0.0.1:9092";
  OutputFormat output = OutputFormat::kTable;
  int timeout_ms = 30000;
  // elect-leaders
  bool preferred = false;
  bool unclean = false;
  bool all_topic_partitions = false;
  std::string topic;
  std::vector<int32_t> partitions;
};

// `spool config describe|alter` (kafka-configs.sh for brokers): one of
// --broker N, --broker-defaults or --broker-logger N (checked when parsing ends).
struct ConfigArgs {
  std::string action;  // describe | alter
  std::string bootstrap_server = "127.0.0.1:9092";
  OutputFormat output = OutputFormat::kTable;
  int timeout_ms = 30000;
  std::optional<int32_t> broker;         // a broker's own configs (sent to that broker)
  bool broker_defaults = false;          // the cluster-wide defaults (any broker answers)
  std::optional<int32_t> broker_logger;  // a broker's logger levels
  bool all = false;                      // describe: every key, not only the dynamic ones
  std::string add_config;                // alter: "k=v,k2=[a,b]"
  std::string delete_config;             // alter: "k,k2"
};

// `spool user scram set|delete|describe` (kafka-configs.sh --entity-type
// users with SCRAM-SHA-* keys).
struct UserArgs {
  std::string action;  // scram-set | scram-delete | scram-describe
  std::string bootstrap_server = "127.0.0.1:9092";
  OutputFormat output = OutputFormat::kTable;
  int timeout_ms = 30000;
  std::vector<std::string> users;  // set/delete: exactly one; describe: none = every user
  std::string mechanism = "SCRAM-SHA-256";
  std::optional<std::string> password;       // set: --password
  std::optional<std::string> password_file;  // set: --password-file (first line)
  int32_t iterations = 8192;
};

// `spool acl add|remove|list` (kafka-acls.sh --add/--remove/--list).
struct AclArgs {
  std::string action;  // add | remove | list
  std::string bootstrap_server = "127.0.0.1:9092";
  OutputFormat output = OutputFormat::kTable;
  int timeout_ms = 30000;
  std::vector<std::string> topics, groups, transactional_ids;  // the resources (repeatable)
  bool cluster = false;
  std::optional<std::string> pattern_type;  // add/remove: literal (default) | prefixed; list: + any, match
  std::vector<std::string> allow_principals, deny_principals;  // "User:alice"
  std::vector<std::string> allow_hosts, deny_hosts;            // default "*"
  std::vector<std::string> operations;                         // default All (add); any (remove)
  std::optional<std::string> principal;                        // list: only this principal's
};

// `spool quota describe|alter` (kafka-configs.sh --entity-type users/clients
// with quota keys; kafka-client-quotas in the Admin API).
struct QuotaArgs {
  std::string action;  // describe | alter
  std::string bootstrap_server = "127.0.0.1:9092";
  OutputFormat output = OutputFormat::kTable;
  int timeout_ms = 30000;
  std::optional<std::string> user, client_id;  // the entity's names
  bool user_default = false, client_id_default = false;
  bool strict = false;              // describe: only entities with exactly the given parts
  std::string add;                  // alter: "producer_byte_rate=1048576,request_percentage=50"
  std::string remove;               // alter: "consumer_byte_rate,..."
  bool validate_only = false;       // alter
};

// `spool produce TOPIC` (kafka-console-producer.sh, kcat -P): lines from
// stdin become records.
struct ProduceArgs {
  std::string topic;
  std::string bootstrap_server = "127.0.0.1:9092";
  std::string command_config;             // Kafka client properties file
  std::vector<std::string> properties;    // --property k=v (any producer key; wins over the file)
  std::optional<std::string> key_separator;  // split each line into key and value
  std::vector<std::string> headers;       // --header k=v on every record
  int32_t partition = -1;
  std::optional<std::string> acks, compression;
  std::optional<int64_t> linger_ms;
  std::optional<bool> idempotence;        // --idempotence / --no-idempotence
  std::optional<std::string> transactional_id;  // all of stdin in one transaction
  int64_t timeout_ms = 60000;             // the wait for the last answers at the end
};

// `spool consume TOPIC...` (kafka-console-consumer.sh, kcat -C): records
// to stdout (cli/consume_command.h describes the options).
struct ConsumeArgs {
  std::vector<std::string> topics;
  std::string include;                    // --include REGEX: subscribe to matching topics (with --group)
  std::string bootstrap_server = "127.0.0.1:9092";
  std::string command_config;             // Kafka client properties file
  std::vector<std::string> properties;    // --property k=v (any consumer key; wins over the file)
  std::string group;                      // empty: no group (partitions assigned)
  std::vector<int32_t> partitions;        // --partition N (repeatable)
  bool from_beginning = false;
  std::string offset;                     // N, -N, earliest, latest; empty: none
  std::optional<int64_t> from_time;       // ms since the epoch
  int64_t max_messages = -1;
  int64_t timeout_ms = -1;                // exit after this long without a record
  std::string isolation_level;            // read_committed | read_uncommitted
  std::string format = "text";            // text | json
  bool print_key = false, print_headers = false, print_partition = false, print_offset = false,
       print_timestamp = false;
};

struct CliArgs {
  std::string command;  // broker | topic | group | txn | cluster | config | user | acl | quota | bench
  BrokerArgs broker;
  TopicArgs topic;
  GroupArgs group;
  TxnArgs txn;
  ClusterArgs cluster;
  ConfigArgs config;
  UserArgs user;
  AclArgs acl;
  QuotaArgs quota;
  ProduceArgs produce;
  ConsumeArgs consume;
  bench::BenchOptions bench;  // `spool bench`: checked by validate_bench_options() when run
};

void configure_app(CLI::App& app, CliArgs& args);

}  // namespace spool::cli
