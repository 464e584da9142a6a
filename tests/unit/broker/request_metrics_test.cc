// Unit tests of RequestMetrics (broker/metrics/request_metrics.h): what each
// record call counts, and the series /metrics renders for the request time
// split, named as the JMX exporter names Kafka's RequestMetrics.
#include "broker/metrics/request_metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace spool::broker {
namespace {

std::string render() {
  util::PromText out;
  RequestMetrics::instance().render(out);
  return out.take();
}

bool has_line(const std::string& text, const std::string& line) {
  return text.find("\n" + line + "\n") != std::string::npos;
}

TEST(RequestMetrics, TheTimeSplitIsRenderedPerApiInKafkasOrder) {
  const int16_t produce = 0;  // Produce
  auto& m = RequestMetrics::instance();
  m.record_handled(produce, /*queue_ms=*/2, /*local_ms=*/3);
  m.record_answered(produce, /*remote_ms=*/40, /*send_ms=*/5, /*total_ms=*/50);
  m.record_handled(produce, 0.5, 0.25);
  m.record_answered(produce, 0, 0.125, 1);
  const std::string text = render();

  EXPECT_TRUE(has_line(text, "kafka_network_requestmetrics_requests_total{request=\"Produce\"} 2")) << text;
  const struct {
    const char* name;
    const char* sum;
  } expected[] = {
      {"kafka_network_requestmetrics_requestqueuetimems", "2.5"},
      {"kafka_network_requestmetrics_localtimems", "3.25"},
      {"kafka_network_requestmetrics_remotetimems", "40"},
      {"kafka_network_requestmetrics_responsesendtimems", "5.125"},
      {"kafka_network_requestmetrics_totaltimems", "51"},
  };
  size_t last = 0;
  for (const auto& e : expected) {
    const std::string name = e.name;
    const size_t at = text.find("# TYPE " + name + " histogram\n");
    ASSERT_NE(at, std::string::npos) << name << "\n" << text;
    EXPECT_GT(at, last) << name << " out of order";
    last = at;
    EXPECT_TRUE(has_line(text, name + "_count{request=\"Produce\"} 2")) << name << "\n" << text;
    EXPECT_TRUE(has_line(text, name + "_sum{request=\"Produce\"} " + e.sum)) << name << "\n" << text;
    EXPECT_TRUE(has_line(text, name + "_bucket{request=\"Produce\",le=\"+Inf\"} 2")) << name;
  }
}

TEST(RequestMetrics, AnAnswerWithoutAHandledRequestCountsNoRequest) {
  // A SASL exchange before authentication is answered (and timed) without
  // reaching an API's handler.
  const int16_t api = 17;  // SaslHandshake
  RequestMetrics::instance().record_answered(api, 0, 1, 1);
  const std::string text = render();
  EXPECT_TRUE(has_line(text, "kafka_network_requestmetrics_totaltimems_count{request=\"SaslHandshake\"} 1")) << text;
  EXPECT_TRUE(has_line(text, "kafka_network_requestmetrics_requests_total{request=\"SaslHandshake\"} 0")) << text;
  EXPECT_TRUE(has_line(text, "kafka_network_requestmetrics_requestqueuetimems_count{request=\"SaslHandshake\"} 0"))
      << text;
}

TEST(RequestMetrics, ApiKeysOutOfRangeAreIgnored) {
  auto& m = RequestMetrics::instance();
  m.record_handled(-1, 1, 1);
  m.record_answered(RequestMetrics::kMaxApiKey, 1, 1, 1);
  SUCCEED();  // no crash, nothing to render for them
}

}  // namespace
}  // namespace spool::broker
