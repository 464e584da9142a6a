#include "util/progress_log.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace spool::util {
namespace {

TEST(ProgressLog, QuietWhenFastThenLinesAtMostOncePerInterval) {
  std::vector<std::string> lines;
  ProgressLog quiet("job", "parts", 10, [&lines](const std::string& l) { lines.push_back(l); },
                    std::chrono::hours(1));
  quiet.advance(5);
  quiet.advance(5);
  quiet.finish();
  EXPECT_TRUE(lines.empty());  // nothing took long: nothing said, not even 100%

  ProgressLog slow("job", "parts", 4, [&lines](const std::string& l) { lines.push_back(l); },
                   std::chrono::milliseconds(20));
  slow.advance(1);  // before the first interval: quiet
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  slow.advance(1);
  slow.advance(1);  // within the interval of the last line: quiet
  slow.finish();
  EXPECT_EQ(lines, (std::vector<std::string>{"job: 50% (2/4 parts)", "job: 100% (4/4 parts)"}));
}

TEST(ProgressLog, LineFormat) {
  EXPECT_EQ(ProgressLog::line("log recovery", "segments", 1, 3), "log recovery: 33% (1/3 segments)");
  EXPECT_EQ(ProgressLog::line("x", "y", 0, 0), "x: 100% (0/0 y)");
}

}  // namespace
}  // namespace spool::util
