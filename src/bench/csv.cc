#include "bench/csv.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

namespace spool::bench {
namespace {

constexpr size_t kColumns = 5;

void append_row(std::string& out, std::string_view a, std::string_view b, std::string_view c,
                std::string_view d, std::string_view e) {
  out += csv_field(a);
  out += ',';
  out += csv_field(b);
  out += ',';
  out += csv_field(c);
  out += ',';
  out += csv_field(d);
  out += ',';
  out += csv_field(e);
  out += '\n';
}

struct Row {
  std::vector<std::string> fields;
  size_t line = 0;  // 1-based line where the row starts
};

// Splits RFC 4180 text into rows. Quoted fields may hold newlines.
Result<std::vector<Row>> split_rows(std::string_view text) {
  std::vector<Row> rows;
  Row row;
  std::string field;
  size_t line = 1;
  row.line = 1;
  size_t i = 0;
  bool field_started = false;  // something (even "") was read for this field
  auto end_field = [&] {
    row.fields.push_back(std::move(field));
    field.clear();
    field_started = false;
  };
  auto end_row = [&] {
    end_field();
    // A completely empty line (e.g. the trailing newline) is not a row.
    if (!(row.fields.size() == 1 && row.fields[0].empty())) rows.push_back(std::move(row));
    row = Row{};
    row.line = line;
  };
  while (i < text.size()) {
    char c = text[i];
    if (c == '"') {
      if (field_started || !field.empty())
        return Status::error(fmt::format("csv line {}: quote inside an unquoted field", line));
      ++i;
      size_t open_line = line;
      bool closed = false;
      while (i < text.size()) {
        char q = text[i];
        if (q == '"') {
          if (i + 1 < text.size() && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        if (q == '\n') ++line;
        field += q;
        ++i;
      }
      if (!closed) return Status::error(fmt::format("csv line {}: unterminated quoted field", open_line));
      field_started = true;
      if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
        return Status::error(fmt::format("csv line {}: text after a closing quote", line));
      continue;
    }
    if (c == ',') {
      end_field();
      ++i;
      continue;
    }
    if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') {
      ++i;
      continue;
    }
    if (c == '\n') {
      ++line;
      end_row();
      ++i;
      continue;
    }
    if (field_started) return Status::error(fmt::format("csv line {}: text after a closing quote", line));
    field += c;
    ++i;
  }
  if (field_started || !field.empty() || !row.fields.empty()) end_row();
  return rows;
}

bool parse_double(const std::string& s, double* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

bool parse_index(const std::string& s, long* out) {
  if (s.empty() || s.size() > 9) return false;
  long v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  if (v < 1) return false;
  *out = v;
  return true;
}

// Collects (index, value) pairs and checks they are exactly 1..n.
template <typename T>
Result<std::vector<T>> ordered(std::vector<std::pair<long, T>> items, const std::string& what) {
  std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<T> out;
  for (size_t k = 0; k < items.size(); ++k) {
    if (items[k].first != static_cast<long>(k + 1))
      return Status::error(fmt::format("csv: {}: run/index numbers are not 1..{}", what, items.size()));
    out.push_back(std::move(items[k].second));
  }
  return out;
}

}  // namespace

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string report_to_csv(const Report& r) {
  std::string out(kCsvHeader);
  out += '\n';
  append_row(out, "#meta", "started_at", "", "", r.started_at);
  append_row(out, "#meta", "host", "", "", r.host);
  append_row(out, "#meta", "spool_version", "", "", r.spool_version);
  append_row(out, "#meta", "peer", "", "", r.peer);
  append_row(out, "#meta", "repetitions", "", "", std::to_string(r.repetitions));
  for (size_t i = 0; i < r.targets.size(); ++i)
    append_row(out, "#target", r.targets[i].name, r.targets[i].guarantee, std::to_string(i + 1),
               r.targets[i].description);
  for (const auto& m : r.measurements) {
    if (m.runs.empty()) append_row(out, m.workload, m.target, m.metric, "", "");
    for (size_t i = 0; i < m.runs.size(); ++i)
      append_row(out, m.workload, m.target, m.metric, std::to_string(i + 1), fmt::format("{}", m.runs[i]));
  }
  for (size_t i = 0; i < r.notes.size(); ++i) append_row(out, "#note", "", "", std::to_string(i + 1), r.notes[i]);
  for (size_t i = 0; i < r.profiles.size(); ++i)
    append_row(out, "#profile", r.profiles[i].workload, "", std::to_string(i + 1), r.profiles[i].text);
  return out;
}

Result<Report> report_from_csv(std::string_view text) {
  auto rows = split_rows(text);
  if (!rows) return rows.status();
  if (rows->empty()) return Status::error("csv: empty input (no header)");
  const Row& header = rows->front();
  std::string joined;
  for (size_t k = 0; k < header.fields.size(); ++k) joined += (k ? "," : "") + header.fields[k];
  if (joined != kCsvHeader) return Status::error(fmt::format("csv: unexpected header '{}'", joined));

  Report r;
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, size_t> index;  // -> position in r.measurements
  std::vector<std::vector<std::pair<long, double>>> runs;
  std::vector<std::pair<long, std::string>> notes;
  std::vector<std::pair<long, Profile>> profiles;
  std::vector<std::pair<long, TargetInfo>> targets;

  for (size_t k = 1; k < rows->size(); ++k) {
    const Row& row = (*rows)[k];
    if (row.fields.size() != kColumns)
      return Status::error(
          fmt::format("csv line {}: {} fields, expected {}", row.line, row.fields.size(), kColumns));
    const auto& f = row.fields;
    if (f[0] == "#meta") {
      if (f[1] == "started_at") r.started_at = f[4];
      else if (f[1] == "host") r.host = f[4];
      else if (f[1] == "spool_version") r.spool_version = f[4];
      else if (f[1] == "peer") r.peer = f[4];
      else if (f[1] == "repetitions") {
        double v = 0;
        if (!parse_double(f[4], &v) || v < 0 || v > 1e6 || v != static_cast<int>(v))
          return Status::error(fmt::format("csv line {}: bad repetitions '{}'", row.line, f[4]));
        r.repetitions = static_cast<int>(v);
      } else {
        return Status::error(fmt::format("csv line {}: unknown #meta key '{}'", row.line, f[1]));
      }
      continue;
    }
    if (f[0] == "#target") {
      long n = 0;
      if (!parse_index(f[3], &n) || f[1].empty())
        return Status::error(fmt::format("csv line {}: bad #target row", row.line));
      targets.emplace_back(n, TargetInfo{f[1], f[4], f[2]});
      continue;
    }
    if (f[0] == "#note" || f[0] == "#profile") {
      long n = 0;
      if (!parse_index(f[3], &n)) return Status::error(fmt::format("csv line {}: bad index '{}'", row.line, f[3]));
      if (f[0] == "#note") notes.emplace_back(n, f[4]);
      else profiles.emplace_back(n, Profile{f[1], f[4]});
      continue;
    }
    if (f[0].empty() || f[0][0] == '#')
      return Status::error(fmt::format("csv line {}: bad workload '{}'", row.line, f[0]));
    Key key{f[0], f[1], f[2]};
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, r.measurements.size()).first;
      r.measurements.push_back(Measurement{f[0], f[1], f[2], {}});
      runs.emplace_back();
    }
    if (f[3].empty() && f[4].empty()) continue;  // a measurement without runs
    long n = 0;
    double v = 0;
    if (!parse_index(f[3], &n)) return Status::error(fmt::format("csv line {}: bad run '{}'", row.line, f[3]));
    if (!parse_double(f[4], &v)) return Status::error(fmt::format("csv line {}: bad value '{}'", row.line, f[4]));
    runs[it->second].emplace_back(n, v);
  }
  for (size_t k = 0; k < r.measurements.size(); ++k) {
    const auto& m = r.measurements[k];
    auto v = ordered(std::move(runs[k]), m.workload + " " + m.target + " " + m.metric);
    if (!v) return v.status();
    r.measurements[k].runs = std::move(*v);
  }
  auto n = ordered(std::move(notes), "#note");
  if (!n) return n.status();
  r.notes = std::move(*n);
  auto p = ordered(std::move(profiles), "#profile");
  if (!p) return p.status();
  r.profiles = std::move(*p);
  auto t = ordered(std::move(targets), "#target");
  if (!t) return t.status();
  r.targets = std::move(*t);
  return r;
}

}  // namespace spool::bench
