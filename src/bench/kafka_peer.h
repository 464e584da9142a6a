// The Apache Kafka 4.4 peer of `spool bench --peer kafka`: a single-node
// KRaft broker driven through the repository's scripts/kafka-peer (start DIR
// PORT [key=value...] | stop DIR | kill9 DIR | classpath), and the child
// process plumbing the bench uses for it and for Kafka's own Java tools.
//
// Finding the script: --kafka-peer PATH, else $SPOOL_KAFKA_PEER, else
// <source tree>/scripts/kafka-peer where the source tree is the parent of the
// build dir holding the running spool binary (<repo>/build*/spool), else
// ./scripts/kafka-peer. Java: a `java` executable on $PATH.
//
// Extra listeners (broker_process.h) reach the script as
// KAFKA_PEER_EXTRA_LISTENERS / KAFKA_PEER_EXTRA_PROTOCOLS in its environment;
// their settings (ssl.*, sasl.*) are ordinary key=value overrides.
//
// Ownership: KafkaPeer owns the broker it started (the JVM whose pid the
// script writes to DIR/kafka.pid); the destructor kill -9s a broker still
// running. It does not delete DIR. Not thread-safe: drive it from one
// thread. Failure: Status with the reason and the tail of the logs.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "bench/broker_process.h"
#include "util/status.h"

namespace spool::bench {

// The kafka-peer script to use (see the header comment), or an error naming
// the places that were tried. `option` is --kafka-peer (may be empty),
// `exe` the resolved spool executable (may be empty).
Result<std::string> locate_kafka_peer(const std::string& option, const std::string& exe);
// The same search for any script of the source tree: `option` (named
// `option_name` in messages), else $`env_var`, else <source tree>/`rel_path`
// next to the build dir of `exe`, else ./`rel_path`.
Result<std::string> locate_repo_script(const std::string& option, const std::string& option_name,
                                       const std::string& env_var, const std::string& rel_path,
                                       const std::string& exe);
// The first executable `java` on $PATH, or empty.
std::string find_java();

struct CommandResult {
  int exit_code = -1;   // -1: killed (signal or time-out)
  bool timed_out = false;
  std::string out;      // standard output (at most ~4 MB kept)
};
// Runs argv (argv[0] is a path) with stdin from /dev/null, stdout captured,
// stderr appended to `log_path` (or discarded when empty); kills it with
// SIGKILL after `timeout_s`. `env`: "KEY=VALUE" entries set (or replaced)
// in the child's environment. Error only when it could not be started.
Result<CommandResult> run_command(const std::vector<std::string>& argv, double timeout_s,
                                  const std::string& log_path, const std::vector<std::string>& env = {});

// `kafka-peer classpath` (the Kafka 4.4 jars incl. kafka-tools).
Result<std::string> kafka_classpath(const std::string& script);

class KafkaPeer : public ManagedBroker {
 public:
  // `dir` is the peer's own dir (created); `overrides` are broker
  // key=value settings; the script's stderr goes to `log_path`; `extra`
  // listeners are served (and advertised) after the PLAINTEXT one.
  KafkaPeer(std::string script, std::string dir, std::vector<std::string> overrides, std::string log_path,
            std::vector<ExtraListener> extra = {});
  ~KafkaPeer() override;
  KafkaPeer(const KafkaPeer&) = delete;
  KafkaPeer& operator=(const KafkaPeer&) = delete;

  // The first start picks a free port (and retries once on a new port);
  // later starts reuse it and the data.
  Status start(double timeout_s) override;
  Status start_listening(double timeout_s) override;
  Status finish_start(double timeout_s) override;
  void kill9() override;
  Status stop(double timeout_s) override;
  pid_t serving_pid() const override;
  std::string bootstrap() const override { return "127.0.0.1:" + std::to_string(port_); }
  std::string log_tail(size_t max_chars = 2000) const override;
  bool running() const;
  const std::string& dir() const { return dir_; }
  std::string data_dir() const { return dir_ + "/data"; }

 private:
  std::vector<std::string> start_argv() const;
  std::vector<std::string> start_env() const;

  std::string script_;
  std::string dir_;
  std::vector<std::string> overrides_;
  std::string log_path_;
  std::vector<ExtraListener> extra_;
  int port_ = 0;
  pid_t pending_start_ = -1;  // the start script while start_listening's broker comes up
};

}  // namespace spool::bench
