#include "bench/svg_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "bench/number_format.h"

namespace spool::bench {
namespace {

constexpr double kCharWidth = 7.3;  // 12px monospace, close enough for layout
constexpr double kBarArea = 480;
constexpr double kBarHeight = 12;
constexpr double kMargin = 16;
constexpr double kValueRoom = 160;

struct Series {
  const char* target;
  const char* color;
};
constexpr Series kSeries[] = {{"spool", "#1f77b4"},        {"spool-nodurable", "#aec7e8"},
                               {"kafka", "#ff7f0e"},        {"kafka-flush1", "#d62728"},
                               {"mock", "#9467bd"},         {"machine", "#7f7f7f"}};
constexpr const char* kBetter = "#2ca02c";
constexpr const char* kWorse = "#d62728";

struct Bar {
  const char* color;
  double value;  // median
  std::string label;
};

struct Row {
  std::string label;
  std::vector<Bar> bars;
};

struct Panel {
  std::string title;
  std::vector<Row> rows;
};

// Accumulates SVG elements top to bottom.
class Canvas {
 public:
  void text(double x, double y, std::string_view s, const char* extra = "") {
    body_ += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\"{}>{}</text>\n", x, y, extra, xml_escape(s));
  }
  void rect(double x, double y, double w, double h, const char* color) {
    body_ += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"/>\n", x, y,
                         std::max(w, 0.0), h, color);
  }
  void line(double x1, double y1, double x2, double y2, const char* color) {
    body_ += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\"/>\n", x1, y1,
                         x2, y2, color);
  }
  std::string finish(double width, double height, std::string_view title) const {
    std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out += fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} "
        "{1:.0f}\" font-family=\"sans-serif\" font-size=\"12\">\n",
        width, height);
    out += fmt::format("<title>{}</title>\n", xml_escape(title));
    out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"white\"/>\n", width, height);
    out += body_;
    out += "</svg>\n";
    return out;
  }

 private:
  std::string body_;
};

double label_width(const std::vector<Panel>& panels) {
  size_t n = 10;
  for (const auto& p : panels)
    for (const auto& row : p.rows) n = std::max(n, row.label.size());
  return static_cast<double>(n) * kCharWidth + 12;
}

// One entry per series that has a bar in `panels` (none for the ratio plot).
void legend(Canvas& c, double x, double y, const std::vector<Panel>& panels) {
  for (const auto& s : kSeries) {
    bool used = false;
    for (const auto& p : panels)
      for (const auto& row : p.rows)
        for (const auto& b : row.bars) used = used || std::string_view(b.color) == s.color;
    if (!used) continue;
    c.rect(x, y - 10, 12, 12, s.color);
    c.text(x + 16, y, s.target);
    x += 24 + static_cast<double>(std::string_view(s.target).size()) * kCharWidth;
  }
}

// Draws the panels; `scale` maps (panel, value) to a bar length in [0, kBarArea].
template <typename Scale, typename Axis>
std::string draw(const std::string& title, const std::vector<Panel>& panels, Scale scale, Axis axis) {
  Canvas c;
  const double lw = label_width(panels);
  const double x0 = kMargin + lw;
  double y = kMargin + 14;
  c.text(kMargin, y, title, " font-size=\"15\" font-weight=\"bold\"");
  y += 22;
  legend(c, kMargin, y, panels);
  y += 14;
  for (size_t pi = 0; pi < panels.size(); ++pi) {
    const Panel& p = panels[pi];
    y += 22;
    c.text(kMargin, y, p.title, " font-weight=\"bold\"");
    y += 8;
    const double top = y;
    auto row_height = [](const Row& row) {
      return static_cast<double>(std::max<size_t>(row.bars.size(), 1)) * (kBarHeight + 2) + 6;
    };
    double bottom = top;
    for (const auto& row : p.rows) bottom += row_height(row);
    axis(c, pi, x0, top, bottom);  // first, so gridlines stay behind the bars
    for (const auto& row : p.rows) {
      const double row_h = row_height(row);
      c.text(kMargin, y + row_h / 2 + 2, row.label, " font-family=\"monospace\"");
      double by = y + 3;
      for (const auto& b : row.bars) {
        double w = scale(pi, b.value);
        c.rect(x0, by, w, kBarHeight, b.color);
        c.text(x0 + w + 4, by + kBarHeight - 2, b.label, " font-size=\"11\"");
        by += kBarHeight + 2;
      }
      y += row_h;
    }
  }
  return c.finish(x0 + kBarArea + kValueRoom + kMargin, y + kMargin + 14, title);
}

std::vector<Bar> bars_for(const Report& r, const std::string& workload, const std::string& metric) {
  std::vector<Bar> out;
  for (const auto& s : kSeries) {
    const Measurement* m = r.find(workload, s.target, metric);
    if (m == nullptr || m->runs.empty()) continue;
    double v = m->median();
    out.push_back(Bar{s.color, v, fmt::format("{} {}", s.target, format_with_unit(metric, v))});
  }
  return out;
}

std::vector<std::string> workloads_in_order(const Report& r) {
  std::vector<std::string> out;
  for (const auto& m : r.measurements)
    if (std::find(out.begin(), out.end(), m.workload) == out.end()) out.push_back(m.workload);
  return out;
}

}  // namespace

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // Control characters other than tab/newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n') out += '?';
        else out += ch;
    }
  }
  return out;
}

std::string throughput_svg(const Report& r) {
  const std::pair<const char*, const char*> metrics[] = {{"msgs_per_s", "Throughput, messages per second"},
                                                         {"MB_per_s", "Throughput, MB/s (10^6 bytes)"}};
  std::vector<Panel> panels;
  std::vector<double> max_value;
  std::vector<std::string> panel_metric;
  for (const auto& [metric, title] : metrics) {
    Panel p{title, {}};
    double mx = 0;
    for (const auto& w : workloads_in_order(r)) {
      auto bars = bars_for(r, w, metric);
      if (bars.empty()) continue;
      for (const auto& b : bars)
        if (std::isfinite(b.value)) mx = std::max(mx, b.value);
      p.rows.push_back(Row{w, std::move(bars)});
    }
    if (p.rows.empty()) continue;
    panels.push_back(std::move(p));
    max_value.push_back(mx);
    panel_metric.push_back(metric);
  }
  if (panels.empty()) return "";
  auto scale = [&](size_t pi, double v) {
    if (!(max_value[pi] > 0) || !std::isfinite(v) || v <= 0) return 0.0;
    return std::min(v / max_value[pi], 1.0) * kBarArea;
  };
  auto axis = [&](Canvas& c, size_t pi, double x0, double top, double bottom) {
    c.line(x0, top, x0, bottom, "black");
    c.text(x0 + kBarArea - 160, bottom + 12,
           fmt::format("linear scale, full width = {}", format_with_unit(panel_metric[pi], max_value[pi])),
           " font-size=\"10\" fill=\"#555\"");
  };
  return draw("Throughput per workload and broker (medians)", panels, scale, axis);
}

std::string latency_svg(const Report& r) {
  const std::pair<const char*, const char*> pcts[] = {
      {"p50_us", "p50"}, {"p99_us", "p99"}, {"p999_us", "p99.9"}, {"max_us", "max"}};
  std::vector<Panel> panels;
  double lo = INFINITY, hi = 0;
  for (const auto& w : workloads_in_order(r)) {
    if (w.rfind("latency/", 0) != 0) continue;
    Panel p{w, {}};
    for (const auto& [metric, label] : pcts) {
      auto bars = bars_for(r, w, metric);
      if (bars.empty()) continue;
      for (const auto& b : bars)
        if (std::isfinite(b.value) && b.value > 0) {
          lo = std::min(lo, b.value);
          hi = std::max(hi, b.value);
        }
      p.rows.push_back(Row{label, std::move(bars)});
    }
    if (!p.rows.empty()) panels.push_back(std::move(p));
  }
  if (panels.empty()) return "";
  // Whole decades, at least one, so that the gridlines are at 1/10/100... us.
  double dlo = hi > 0 ? std::floor(std::log10(lo)) : 0;
  double dhi = hi > 0 ? std::ceil(std::log10(hi)) : 1;
  if (dhi <= dlo) dhi = dlo + 1;
  auto scale = [&](size_t, double v) {
    if (!std::isfinite(v) || v <= 0) return 0.0;
    double f = (std::log10(v) - dlo) / (dhi - dlo);
    return std::clamp(f, 0.0, 1.0) * kBarArea + 1;  // +1: the smallest value stays visible
  };
  auto axis = [&](Canvas& c, size_t, double x0, double top, double bottom) {
    for (double d = dlo; d <= dhi + 1e-9; d += 1) {
      double x = x0 + (d - dlo) / (dhi - dlo) * kBarArea;
      c.line(x, top, x, bottom, "#cccccc");
      double us = std::pow(10.0, d);
      std::string label = us >= 1e6 ? fmt::format("{:g} s", us / 1e6)
                          : us >= 1e3 ? fmt::format("{:g} ms", us / 1e3)
                                      : fmt::format("{:g} us", us);
      c.text(x - 10, bottom + 12, label, " font-size=\"10\" fill=\"#555\"");
    }
  };
  return draw("End-to-end latency percentiles (medians of the runs, log scale)", panels, scale, axis);
}

std::string ratio_svg(const Report& r) {
  struct Primary {
    const char* prefix;
    const char* metric;
    bool higher_better;
  };
  const Primary primaries[] = {{"produce/", "msgs_per_s", true}, {"consume/", "MB_per_s", true},
                               {"latency/", "p99_us", false},    {"rss/", "rss_MB", false},
                               {"restart/", "seconds", false},   {"cluster/failover/", "seconds", false},
                               {"cluster/produce/", "msgs_per_s", true}, {"cluster/txn/", "txns_per_s", true},
                               {"cluster/coordinator-failover/", "seconds", false}};
  Panel panel{"Spool / Kafka per workload (log scale; green: Spool better, red: Kafka better)", {}};
  double lo = INFINITY, hi = 0;
  for (const auto& w : workloads_in_order(r)) {
    for (const auto& p : primaries) {
      if (w.rfind(p.prefix, 0) != 0) continue;
      const Measurement* s = r.find(w, "spool", p.metric);
      const Measurement* k = r.find(w, "kafka", p.metric);
      if (!s || !k || s->runs.empty() || k->runs.empty() || !(k->median() > 0) || !(s->median() > 0)) continue;
      double q = s->median() / k->median();
      if (!std::isfinite(q)) continue;
      lo = std::min(lo, q);
      hi = std::max(hi, q);
      bool better = p.higher_better ? q >= 1 : q <= 1;
      panel.rows.push_back(Row{w + " " + metric_unit(p.metric),
                               {Bar{better ? kBetter : kWorse, q, format_ratio(q)}}});
    }
  }
  if (panel.rows.empty()) return "";
  double dlo = std::min(std::floor(std::log10(lo)), -1.0);
  double dhi = std::max(std::ceil(std::log10(hi)), 1.0);
  auto scale = [&](size_t, double v) {
    if (!std::isfinite(v) || v <= 0) return 0.0;
    return std::clamp((std::log10(v) - dlo) / (dhi - dlo), 0.0, 1.0) * kBarArea + 1;
  };
  auto axis = [&](Canvas& c, size_t, double x0, double top, double bottom) {
    for (double d = dlo; d <= dhi + 1e-9; d += 1) {
      double x = x0 + (d - dlo) / (dhi - dlo) * kBarArea;
      c.line(x, top, x, bottom, d == 0 ? "black" : "#cccccc");
      c.text(x - 10, bottom + 12, fmt::format("{:g}x", std::pow(10.0, d)), " font-size=\"10\" fill=\"#555\"");
    }
  };
  return draw("Spool/Kafka ratio of the medians", {panel}, scale, axis);
}

}  // namespace spool::bench
