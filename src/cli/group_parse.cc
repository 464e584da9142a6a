#include "cli/group_parse.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <ctime>
#include <limits>

namespace spool::cli {
namespace {

constexpr size_t kMaxTopicNameLength = 249;  // Kafka's limit

bool legal_topic_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
}

// Reads exactly `n` digits at `pos`; advances pos.
std::optional<int> digits(const std::string& s, size_t& pos, size_t n) {
  if (pos + n > s.size()) return std::nullopt;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[pos + i];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  pos += n;
  return v;
}

bool expect(const std::string& s, size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

}  // namespace

Result<TopicPartitionSpec> parse_topic_partitions(const std::string& spec) {
  TopicPartitionSpec out;
  size_t colon = spec.find(':');
  out.topic = spec.substr(0, colon);
  if (out.topic.empty()) return Status::error("--topic '" + spec + "': empty topic name");
  if (out.topic.size() > kMaxTopicNameLength) {
    return Status::error("--topic '" + spec + "': topic name longer than 249 characters");
  }
  if (!std::all_of(out.topic.begin(), out.topic.end(), legal_topic_char) || out.topic == "." || out.topic == "..") {
    return Status::error("--topic '" + spec + "': illegal topic name (allowed: letters, digits, '.', '_', '-')");
  }
  if (colon == std::string::npos) return out;
  std::string list = spec.substr(colon + 1);
  if (list.empty()) return Status::error("--topic '" + spec + "': no partitions after ':' (expected topic:0,1,...)");
  size_t pos = 0;
  while (true) {
    size_t comma = list.find(',', pos);
    std::string item = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    bool numeric = !item.empty() && item.size() <= 10 &&
                   std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
    int64_t v = numeric ? std::stoll(item) : -1;
    if (!numeric || v > std::numeric_limits<int32_t>::max()) {
      return Status::error("--topic '" + spec + "': bad partition '" + item +
                           "' (expected non-negative integers separated by ',')");
    }
    out.partitions.push_back(static_cast<int32_t>(v));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  std::sort(out.partitions.begin(), out.partitions.end());
  out.partitions.erase(std::unique(out.partitions.begin(), out.partitions.end()), out.partitions.end());
  return out;
}

Result<int64_t> parse_iso8601_ms(const std::string& text) {
  auto bad = [&text](const std::string& why) {
    return Status::error("bad date-time '" + text + "': " + why +
                         " (expected YYYY-MM-DDTHH:MM:SS[.mmm] with optional Z or +HH:MM)");
  };
  size_t pos = 0;
  auto year = digits(text, pos, 4);
  if (!year || !expect(text, pos, '-')) return bad("year");
  auto month = digits(text, pos, 2);
  if (!month || !expect(text, pos, '-')) return bad("month");
  auto day = digits(text, pos, 2);
  if (!day || !expect(text, pos, 'T')) return bad("day or missing 'T'");
  auto hour = digits(text, pos, 2);
  if (!hour || !expect(text, pos, ':')) return bad("hour");
  auto minute = digits(text, pos, 2);
  if (!minute || !expect(text, pos, ':')) return bad("minute");
  auto second = digits(text, pos, 2);
  if (!second) return bad("second");
  int millis = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t start = pos;
    while (pos < text.size() && pos - start < 3 && text[pos] >= '0' && text[pos] <= '9') ++pos;
    size_t n = pos - start;
    if (n == 0) return bad("fraction");
    millis = std::stoi(text.substr(start, n));
    for (size_t i = n; i < 3; ++i) millis *= 10;
  }
  std::optional<int> zone_minutes;
  if (pos < text.size()) {
    char c = text[pos];
    if (c == 'Z' || c == 'z') {
      ++pos;
      zone_minutes = 0;
    } else if (c == '+' || c == '-') {
      ++pos;
      auto zh = digits(text, pos, 2);
      if (!zh) return bad("zone offset");
      int zm = 0;
      if (pos < text.size()) {
        bool colon = expect(text, pos, ':');
        auto m = digits(text, pos, 2);
        if (!m) return bad("zone offset");
        (void)colon;
        zm = *m;
      }
      if (*zh > 18 || zm > 59) return bad("zone offset out of range");
      zone_minutes = (c == '+' ? 1 : -1) * (*zh * 60 + zm);
    } else {
      return bad("unexpected '" + std::string(1, c) + "'");
    }
  }
  if (pos != text.size()) return bad("trailing characters");

  using namespace std::chrono;
  year_month_day ymd{std::chrono::year{*year}, std::chrono::month{static_cast<unsigned>(*month)},
                     std::chrono::day{static_cast<unsigned>(*day)}};
  if (!ymd.ok()) return bad("no such date");
  if (*hour > 23 || *minute > 59 || *second > 59) return bad("time out of range");

  if (zone_minutes) {
    int64_t days = sys_days{ymd}.time_since_epoch().count();
    int64_t secs = days * 86400 + *hour * 3600 + *minute * 60 + *second - int64_t{*zone_minutes} * 60;
    return secs * 1000 + millis;
  }
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = *month - 1;
  tm.tm_mday = *day;
  tm.tm_hour = *hour;
  tm.tm_min = *minute;
  tm.tm_sec = *second;
  tm.tm_isdst = -1;
  std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return bad("not representable in the local time zone");
  return static_cast<int64_t>(t) * 1000 + millis;
}

Result<std::vector<AssignedTopic>> decode_consumer_assignment(ByteSpan data) {
  std::vector<AssignedTopic> out;
  if (data.empty()) return out;
  ByteReader r(data);
  int16_t version = r.i16();
  if (!r.ok() || version < 0) return Status::error("bad consumer assignment: version");
  int32_t topics = r.i32();
  if (!r.ok() || topics < 0 || static_cast<size_t>(topics) > r.remaining() / 6) {
    return Status::error("bad consumer assignment: topic count");
  }
  for (int32_t i = 0; i < topics; ++i) {
    AssignedTopic t;
    int16_t len = r.i16();
    if (!r.ok() || len < 0) return Status::error("bad consumer assignment: topic name");
    ByteSpan name = r.take(static_cast<size_t>(len));
    int32_t n = r.i32();
    if (!r.ok() || n < 0 || static_cast<size_t>(n) > r.remaining() / 4) {
      return Status::error("bad consumer assignment: partition count");
    }
    t.topic.assign(reinterpret_cast<const char*>(name.data()), name.size());
    for (int32_t j = 0; j < n; ++j) t.partitions.push_back(r.i32());
    out.push_back(std::move(t));
  }
  // User data follows (nullable bytes); newer versions may append more, and
  // none of it matters to the offsets view, so it is not required to parse.
  if (!r.ok()) return Status::error("bad consumer assignment: truncated");
  return out;
}

Bytes encode_consumer_assignment(const std::vector<AssignedTopic>& topics, int16_t version) {
  ByteWriter w;
  w.i16(version);
  w.i32(static_cast<int32_t>(topics.size()));
  for (const auto& t : topics) {
    w.i16(static_cast<int16_t>(t.topic.size()));
    w.bytes(as_span(t.topic));
    w.i32(static_cast<int32_t>(t.partitions.size()));
    for (int32_t p : t.partitions) w.i32(p);
  }
  w.i32(-1);  // null user data
  return w.buffer();
}

ResetSpec reset_spec_of(const GroupArgs& a) {
  if (a.to_latest) return {ResetKind::kLatest, 0};
  if (a.to_current) return {ResetKind::kCurrent, 0};
  if (a.to_offset) return {ResetKind::kToOffset, *a.to_offset};
  if (a.shift_by) return {ResetKind::kShiftBy, *a.shift_by};
  if (a.to_datetime) {
    auto ms = parse_iso8601_ms(*a.to_datetime);
    return {ResetKind::kToDatetime, ms ? *ms : 0};
  }
  return {ResetKind::kEarliest, 0};
}

Result<int64_t> reset_target(const ResetSpec& spec, const PartitionOffsets& p) {
  auto clamp = [&p](int64_t v) { return std::clamp(v, p.log_start, std::max(p.log_start, p.log_end)); };
  switch (spec.kind) {
    case ResetKind::kEarliest:
      return p.log_start;
    case ResetKind::kLatest:
      return p.log_end;
    case ResetKind::kCurrent:
      if (!p.committed) return Status::error("no committed offset to keep (--to-current)");
      return clamp(*p.committed);
    case ResetKind::kToOffset:
      return clamp(spec.value);
    case ResetKind::kShiftBy: {
      if (!p.committed) return Status::error("no committed offset to shift from (--shift-by)");
      int64_t v = *p.committed;
      int64_t d = spec.value;
      // Saturate instead of overflowing; clamping follows anyway.
      if (d > 0 && v > std::numeric_limits<int64_t>::max() - d) return p.log_end;
      if (d < 0 && v < std::numeric_limits<int64_t>::min() - d) return p.log_start;
      return clamp(v + d);
    }
    case ResetKind::kToDatetime:
      // No record at or after the time: the log end, as Kafka does.
      return clamp(p.at_datetime.value_or(p.log_end));
  }
  return Status::error("unknown reset kind");
}

Status validate_group_args(const GroupArgs& a) {
  const std::string who = "spool group " + a.action + ": ";
  if (a.action == "reset-offsets" || a.action == "delete-offsets") {
    if (a.groups.size() != 1) return Status::error(who + "exactly one group is required");
  }
  if (a.action == "describe" && a.groups.empty() == !a.all_groups) {
    return Status::error(who + "give group ids or --all-groups");
  }
  if (a.action == "describe" && a.members && a.state) {
    return Status::error(who + "--members and --state cannot be combined");
  }
  if (a.action == "describe" && a.verbose && !a.members) {
    return Status::error(who + "--verbose applies only to --members");
  }
  for (const auto& g : a.groups) {
    if (g.empty()) return Status::error(who + "empty group id");
  }
  if (a.action == "delete-offsets") {
    if (a.topics.empty()) return Status::error(who + "--topic is required");
  }
  if (a.action != "reset-offsets" && a.action != "delete-offsets") return Status::ok();
  for (const auto& t : a.topics) {
    auto spec = parse_topic_partitions(t);
    if (!spec) return Status::error(who + spec.status().message());
  }
  if (a.action == "delete-offsets") return Status::ok();

  if (a.topics.empty() == !a.all_topics) {
    return Status::error(who + "give either --topic (repeatable) or --all-topics");
  }
  int specs = int{a.to_earliest} + int{a.to_latest} + int{a.to_current} + int{a.to_offset.has_value()} +
              int{a.shift_by.has_value()} + int{a.to_datetime.has_value()};
  if (specs != 1) {
    return Status::error(who + (specs == 0 ? "a reset spec is required" : "only one reset spec may be given") +
                         ": --to-earliest, --to-latest, --to-current, --to-offset N, --shift-by N or "
                         "--to-datetime YYYY-MM-DDTHH:MM:SS[.mmm]");
  }
  if (a.to_offset && *a.to_offset < 0) return Status::error(who + "--to-offset must be >= 0");
  if (a.to_datetime) {
    auto ms = parse_iso8601_ms(*a.to_datetime);
    if (!ms) return Status::error(who + "--to-datetime: " + ms.status().message());
    if (*ms < 0) return Status::error(who + "--to-datetime: before 1970-01-01T00:00:00Z");
  }
  if (a.execute && a.dry_run) return Status::error(who + "--execute and --dry-run cannot be combined");
  return Status::ok();
}

Result<std::string> canonical_group_state(const std::string& s) {
  static const std::array<const char*, 5> kStates{"PreparingRebalance", "CompletingRebalance", "Stable", "Dead",
                                                  "Empty"};
  auto lower = [](std::string v) {
    for (auto& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v;
  };
  for (const char* st : kStates) {
    if (lower(st) == lower(s)) return std::string(st);
  }
  return Status::error("unknown group state '" + s +
                       "' (valid: PreparingRebalance, CompletingRebalance, Stable, Dead, Empty)");
}

}  // namespace spool::cli
