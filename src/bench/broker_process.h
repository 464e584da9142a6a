// A `spool broker` child process for the bench: spawned from the running
// executable (/proc/self/exe) on a loopback port and a data dir the bench
// owns, killed with SIGKILL or stopped with SIGTERM, restarted on the same
// dir and port. Also the /proc and port helpers the RSS and restart
// workloads need.
// Ownership: the object owns the child; the destructor kills a still-running
// child (SIGKILL) so a failing workload never leaks a broker. It does not
// delete the data dir. Not thread-safe: drive it from one thread.
// Failure: Status/Result with the reason and the tail of the broker's log.
// Listeners: PLAINTEXT on the bench's port (the readiness check, admin
// clients), plus optional ExtraListeners (SSL, SASL_SSL, ...) on ports the
// caller picked, advertised as served, with Kafka's
// listener.security.protocol.map.
// Admin HTTP listener (admin.listener): off (`admin.listener=` is passed
// explicitly, after the caller's overrides, so no bench broker depends on
// the default port 9644 being free) unless enable_admin_listener() was
// called, which serves it on a loopback port picked at the first start and
// kept across restarts (admin_port()).
// ManagedBroker is what the RSS and restart workloads drive: a `spool
// broker` child (BrokerProcess) or the Apache Kafka peer (kafka_peer.h).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "util/status.h"

namespace spool::bench {

// Path of the running executable (the `spool` binary that runs the bench).
Result<std::string> self_executable();
// A loopback TCP port that was free a moment ago.
Result<int> free_loopback_port();
// True if 127.0.0.1:port accepts a TCP connection within `timeout_ms`.
bool port_accepts(int port, int timeout_ms);
// The last `max_chars` of a file ("..." first when cut), empty when unreadable.
std::string file_tail(const std::string& path, size_t max_chars);
// VmRSS of `pid` in MB (10^6 bytes), from /proc/<pid>/status.
Result<double> process_rss_MB(pid_t pid);
// CPU time `pid` has used so far, user + system of all its threads, in
// seconds with nanosecond resolution (the process CPU-time clock of
// clock_getcpuclockid; /proc/<pid>/stat's utime + stime counts 10 ms ticks).
Result<double> process_cpu_seconds(pid_t pid);

// A listener besides PLAINTEXT: Kafka's listener name (its lower case
// names the listener.name.<name>.* keys), security protocol and port.
struct ExtraListener {
  std::string name;      // e.g. "SSL", "SASLSSL"
  std::string protocol;  // PLAINTEXT | SSL | SASL_PLAINTEXT | SASL_SSL
  int port = 0;
  std::string bootstrap() const { return "127.0.0.1:" + std::to_string(port); }
};
// "NAME://127.0.0.1:PORT,..." and "NAME:PROTOCOL,..." of `extra`.
std::string listener_list(const std::vector<ExtraListener>& extra);
std::string protocol_list(const std::vector<ExtraListener>& extra);

// A broker process the bench starts, kills and restarts on the same dir and
// port. Not thread-safe: drive it from one thread.
class ManagedBroker {
 public:
  virtual ~ManagedBroker() = default;
  // Starts the broker and returns once it serves (Spool: its port accepts;
  // Kafka: the peer script's Metadata check passed).
  virtual Status start(double timeout_s) = 0;
  // The restart workload's start: returns as soon as the client port
  // accepts TCP connections (the same point for every broker), so the
  // caller's client times the rest; finish_start() then reaps helpers.
  virtual Status start_listening(double timeout_s) { return start(timeout_s); }
  virtual Status finish_start(double /*timeout_s*/) { return Status::ok(); }
  // SIGKILL and wait (no-op if not running).
  virtual void kill9() = 0;
  // SIGTERM and wait; error when it did not exit cleanly.
  virtual Status stop(double timeout_s) = 0;
  // The serving process (Kafka: the JVM), -1 when unknown.
  virtual pid_t serving_pid() const = 0;
  virtual std::string bootstrap() const = 0;
  virtual std::string log_tail(size_t max_chars = 2000) const = 0;
};

class BrokerProcess : public ManagedBroker {
 public:
  BrokerProcess(std::string exe, std::string data_dir, std::vector<std::string> overrides,
                std::string log_path, std::vector<ExtraListener> extra_listeners = {});
  ~BrokerProcess() override;
  BrokerProcess(const BrokerProcess&) = delete;
  BrokerProcess& operator=(const BrokerProcess&) = delete;

  // Spawns the broker and waits until its port accepts connections. The
  // first start picks a free port (retrying once if it lost the race);
  // later starts reuse it.
  Status start(double timeout_s) override;
  // SIGKILL and reap (no-op if not running).
  void kill9() override;
  // SIGTERM, SIGKILL after `timeout_s`; returns the exit status text.
  Status stop(double timeout_s) override;
  bool running();
  // Serve the admin HTTP listener on a free loopback port from the next
  // start on (call before start()).
  void enable_admin_listener() { admin_wanted_ = true; }

  pid_t pid() const { return pid_; }
  int port() const { return port_; }
  // The admin listener's port once started; 0 when it is off.
  int admin_port() const { return admin_port_; }
  pid_t serving_pid() const override { return pid_; }
  std::string bootstrap() const override { return "127.0.0.1:" + std::to_string(port_); }
  const std::string& data_dir() const { return data_dir_; }
  const std::string& log_path() const { return log_path_; }
  std::string log_tail(size_t max_chars = 2000) const override;

 private:
  Status spawn();

  std::string exe_;
  std::string data_dir_;
  std::vector<std::string> overrides_;
  std::string log_path_;
  std::vector<ExtraListener> extra_;
  int port_ = 0;
  bool admin_wanted_ = false;
  int admin_port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace spool::bench
