#include "cli/bench_command.h"

#include <csignal>
#include <iostream>

#include "bench/client_memory.h"
#include "cli/cli_args.h"

namespace spool::cli {

int run_bench_command(const bench::BenchOptions& options) {
  if (!options.client_rss_probe.empty())  // a child of the client family (bench/client_memory.h)
    return bench::client_rss_probe_main(options.client_rss_probe, options.bootstrap, options.client_rss_topic,
                                        options.client_rss_partitions);
  if (auto st = bench::validate_bench_options(options); !st) {
    std::cerr << "spool bench: " << st.message() << "\n";
    return kExitUsage;
  }
  // A broker that goes away mid-request must fail that workload, not kill
  // the bench (librdkafka uses MSG_NOSIGNAL, the bench's own sockets may not).
  std::signal(SIGPIPE, SIG_IGN);
  // The peer must be what was asked for (--peer kafka without Java fails here).
  if (auto peer = bench::resolve_peer(options); !peer) {
    std::cerr << "spool bench: " << peer.status().message() << "\n";
    return kExitFailure;
  }
  bench::BenchOutcome out = bench::run_bench(options);
  for (const auto& c : out.checks)
    std::cerr << "  " << (c.measured_ok ? (c.met ? "met     " : "NOT met ") : "n/a     ") << c.name << ": "
              << c.measured << " (goal " << c.goal << ")\n";
  if (!out.report_written) {
    std::cerr << "spool bench: the report could not be written: " << out.error << "\n";
    return kExitFailure;
  }
  std::cout << out.markdown_path << "\n";
  if (out.measured == 0) {
    std::cerr << "spool bench: nothing could be measured (see the notes in " << out.markdown_path << ")\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace spool::cli
