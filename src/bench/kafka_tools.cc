// Kafka's Java performance tools as bench workloads (see kafka_tools.h).
#include "bench/kafka_tools.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "bench/kafka_peer.h"

namespace spool::bench {
namespace {

constexpr const char* kPkg = "org.apache.kafka.tools.";

std::string tail(const std::string& s, size_t n = 1500) { return s.size() > n ? "..." + s.substr(s.size() - n) : s; }

std::vector<std::string> java_argv(const JavaTools& j, const std::string& main_class) {
  return {j.java, "-Xmx512m", "-XX:+UseG1GC", "-Djava.awt.headless=true",
          "-Dlog4j2.configurationFile=" + j.log4j_file, "-cp", j.classpath, std::string(kPkg) + main_class};
}

Result<std::string> run_tool(const JavaTools& j, const std::string& main_class, const std::vector<std::string>& args,
                             double timeout_s) {
  std::vector<std::string> argv = java_argv(j, main_class);
  argv.insert(argv.end(), args.begin(), args.end());
  auto r = run_command(argv, timeout_s, j.log_path);
  if (!r) return r.status();
  if (r->timed_out) return Status::error(main_class + " timed out after " + std::to_string(timeout_s) + " s");
  if (r->exit_code != 0)
    return Status::error(main_class + " exited with " + std::to_string(r->exit_code) + ": " + tail(r->out));
  return r->out;
}

bool to_double(const std::string& s, double* v) {
  const char* b = s.c_str();
  while (*b == ' ') ++b;
  char* end = nullptr;
  *v = std::strtod(b, &end);
  if (end == b) return false;
  while (*end == ' ') ++end;
  return *end == '\0';
}

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string f;
  while (std::getline(ss, f, sep)) {
    size_t a = f.find_first_not_of(' '), b = f.find_last_not_of(" \r");
    out.push_back(a == std::string::npos ? "" : f.substr(a, b - a + 1));
  }
  return out;
}

// The number right before `suffix` in `line` ("... 19 ms 99th" with suffix " ms 99th").
bool number_before(const std::string& line, const std::string& suffix, double* v) {
  size_t at = line.find(suffix);
  if (at == std::string::npos) return false;
  size_t b = at;
  while (b > 0 && (std::isdigit(static_cast<unsigned char>(line[b - 1])) || line[b - 1] == '.')) --b;
  return b < at && to_double(line.substr(b, at - b), v);
}

// The number right after `prefix` in `line`.
bool number_after(const std::string& line, const std::string& prefix, double* v) {
  size_t at = line.find(prefix);
  if (at == std::string::npos) return false;
  size_t b = at + prefix.size(), e = b;
  while (e < line.size() && (std::isdigit(static_cast<unsigned char>(line[e])) || line[e] == '.')) ++e;
  return e > b && to_double(line.substr(b, e - b), v);
}

}  // namespace

Status write_log4j_config(const std::string& path) {
  std::ofstream out(path, std::ios::trunc);
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
         "<!-- written by spool bench: Kafka tools log warnings to stderr only -->\n"
         "<Configuration status=\"WARN\">\n"
         "  <Appenders><Console name=\"err\" target=\"SYSTEM_ERR\">"
         "<PatternLayout pattern=\"%d %p %c: %m%n\"/></Console></Appenders>\n"
         "  <Loggers><Root level=\"WARN\"><AppenderRef ref=\"err\"/></Root></Loggers>\n"
         "</Configuration>\n";
  out.close();
  if (!out) return Status::error("cannot write " + path);
  return Status::ok();
}

Result<Throughput> parse_producer_performance(const std::string& out, int size) {
  std::stringstream ss(out);
  std::string line, summary;
  // The final summary is the last line with percentiles (progress lines have none).
  while (std::getline(ss, line))
    if (line.find(" records sent, ") != std::string::npos && line.find(" ms 99.9th") != std::string::npos)
      summary = line;
  if (summary.empty()) return Status::error("no ProducerPerformance summary line in: " + tail(out, 600));
  double n = 0, rate = 0;
  if (!number_before(summary, " records sent, ", &n) || !number_before(summary, " records/sec", &rate) ||
      !(rate > 0) || !(n > 0))
    return Status::error("unreadable ProducerPerformance summary: " + summary);
  Throughput t;
  t.messages = static_cast<int64_t>(n);
  t.bytes = t.messages * size;
  t.seconds = n / rate;
  return t;
}

Result<Throughput> parse_consumer_performance(const std::string& out, int size) {
  std::stringstream ss(out);
  std::string line;
  std::vector<std::string> header, values;
  while (std::getline(ss, line)) {
    if (line.rfind("start.time,", 0) == 0) {
      header = split(line, ',');
      if (std::getline(ss, line)) values = split(line, ',');
      break;
    }
  }
  if (header.empty() || values.size() != header.size())
    return Status::error("no ConsumerPerformance header and values in: " + tail(out, 600));
  auto col = [&](const std::string& name, double* v) {
    for (size_t k = 0; k < header.size(); ++k)
      if (header[k] == name) return to_double(values[k], v);
    return false;
  };
  double n = 0, rate = 0;
  if (!col("data.consumed.in.nMsg", &n) || !col("fetch.nMsg.sec", &rate) || !(n > 0) || !(rate > 0))
    return Status::error("unreadable ConsumerPerformance figures: " + line);
  Throughput t;
  t.messages = static_cast<int64_t>(n);
  t.bytes = t.messages * size;
  t.seconds = n / rate;
  return t;
}

Result<LatencySummary> parse_end_to_end_latency(const std::string& out) {
  std::stringstream ss(out);
  std::string line;
  bool got = false;
  LatencySummary s;
  while (std::getline(ss, line)) {
    if (line.rfind("Percentiles:", 0) != 0) continue;
    double p50 = 0, p99 = 0, p999 = 0;
    if (!number_after(line, "50th = ", &p50) || !number_after(line, " 99th = ", &p99) ||
        !number_after(line, "99.9th = ", &p999))
      return Status::error("unreadable EndToEndLatency percentiles: " + line);
    s.p50_us = p50 * 1000;
    s.p99_us = p99 * 1000;
    s.p999_us = p999 * 1000;
    got = true;
  }
  if (!got) return Status::error("no EndToEndLatency percentiles in: " + tail(out, 600));
  return s;
}

Result<Throughput> run_producer_performance(const JavaTools& j, const Target& t, const std::string& topic, int size,
                                            bool acks_all, int64_t records, double timeout_s) {
  if (auto st = t.create_topic(NewTopic{topic, 1, {}}); !st) return st;
  auto out = run_tool(j, "ProducerPerformance",
                      {"--bootstrap-server", t.bootstrap, "--topic", topic, "--num-records", std::to_string(records),
                       "--record-size", std::to_string(size), "--throughput", "-1", "--reporting-interval",
                       "600000", "--command-property", std::string("acks=") + (acks_all ? "all" : "1")},
                      timeout_s);
  if (!out) return out.status();
  auto r = parse_producer_performance(*out, size);
  if (r && r->messages != records)
    return Status::error("ProducerPerformance sent " + std::to_string(r->messages) + " of " + std::to_string(records));
  return r;
}

Result<Throughput> run_consumer_performance(const JavaTools& j, const Target& t, const std::string& topic,
                                            int size, int64_t records, double timeout_s) {
  static int group_seq = 0;
  auto out = run_tool(j, "ConsumerPerformance",
                      {"--bootstrap-server", t.bootstrap, "--topic", topic, "--num-records", std::to_string(records),
                       "--group", "bench-perf-" + std::to_string(getpid()) + "-" + std::to_string(++group_seq),
                       "--timeout", "60000", "--command-property", "auto.offset.reset=earliest"},
                      timeout_s);
  if (!out) return out.status();
  auto r = parse_consumer_performance(*out, size);
  if (r && r->messages < records)
    return Status::error("ConsumerPerformance read " + std::to_string(r->messages) + " of " + std::to_string(records));
  return r;
}

Result<LatencySummary> run_end_to_end_latency(const JavaTools& j, const Target& t, const std::string& topic,
                                              int size, int records, double timeout_s) {
  if (auto st = t.create_topic(NewTopic{topic, 1, {}}); !st) return st;
  auto out = run_tool(j, "EndToEndLatency",
                      {"--bootstrap-server", t.bootstrap, "--topic", topic, "--num-records", std::to_string(records),
                       "--producer-acks", "1", "--record-size", std::to_string(size)},
                      timeout_s);
  if (!out) return out.status();
  auto r = parse_end_to_end_latency(*out);
  if (r) r->samples = static_cast<size_t>(records);
  return r;
}

}  // namespace spool::bench
