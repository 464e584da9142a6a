// `spool bench`: validate the options, run the benchmark (bench/runner.h),
// print the report's path. Exit codes: 0 report written with at least one
// measurement; 1 nothing measured or the report could not be written;
// 2 bad options. `--peer kafka` without Java or the Kafka peer is exit 1.
#pragma once

#include "bench/runner.h"

namespace spool::cli {

int run_bench_command(const bench::BenchOptions& options);

}  // namespace spool::cli
