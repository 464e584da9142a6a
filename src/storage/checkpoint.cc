#include "storage/checkpoint.h"

#include <charconv>

#include "storage/file_util.h"

namespace spool::storage {
namespace {

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

template <typename T>
bool parse_int(std::string_view s, T& out) {
  if (s.empty()) return false;
  auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

Status bad(std::string what) { return Status::error("malformed checkpoint: " + what, kStorageError); }

// Shared header: "0\n<count>\n", then exactly count lines.
Result<std::vector<std::vector<std::string_view>>> parse_body(std::string_view text, size_t fields) {
  auto lines = split_lines(text);
  if (lines.size() < 2 || lines[0] != "0") return bad("version line");
  int64_t count = 0;
  if (!parse_int(lines[1], count) || count < 0) return bad("count line");
  std::vector<std::vector<std::string_view>> rows;
  for (size_t i = 2; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    auto f = split_fields(lines[i]);
    if (f.size() != fields) return bad("line " + std::to_string(i + 1));
    rows.push_back(std::move(f));
  }
  if (static_cast<int64_t>(rows.size()) != count) return bad("expected " + std::to_string(count) + " entries");
  return rows;
}

}  // namespace

std::string format_offset_checkpoint(const OffsetMap& offsets) {
  std::string out = "0\n" + std::to_string(offsets.size()) + "\n";
  for (const auto& [tp, off] : offsets)
    out += tp.topic + " " + std::to_string(tp.partition) + " " + std::to_string(off) + "\n";
  return out;
}

Result<OffsetMap> parse_offset_checkpoint(std::string_view text) {
  auto rows = parse_body(text, 3);
  if (!rows) return rows.status();
  OffsetMap out;
  for (const auto& f : *rows) {
    TopicPartition tp{std::string(f[0]), 0};
    int64_t off = 0;
    if (!valid_topic_name(f[0]) || !parse_int(f[1], tp.partition) || tp.partition < 0 || !parse_int(f[2], off) ||
        off < 0)
      return bad("entry for " + std::string(f[0]));
    out[tp] = off;
  }
  return out;
}

Result<OffsetMap> read_offset_checkpoint(const std::string& path) {
  if (!path_exists(path)) return OffsetMap{};
  auto text = read_small_file(path);
  if (!text) return text.status();
  auto r = parse_offset_checkpoint(*text);
  if (!r) return Status::error(path + ": " + r.status().message(), kStorageError);
  return r;
}

Status write_offset_checkpoint(const std::string& path, const OffsetMap& offsets) {
  return write_file_atomic(path, format_offset_checkpoint(offsets));
}

std::string format_epoch_checkpoint(const std::vector<EpochEntry>& entries) {
  std::string out = "0\n" + std::to_string(entries.size()) + "\n";
  for (const auto& e : entries) out += std::to_string(e.epoch) + " " + std::to_string(e.start_offset) + "\n";
  return out;
}

Result<std::vector<EpochEntry>> parse_epoch_checkpoint(std::string_view text) {
  auto rows = parse_body(text, 2);
  if (!rows) return rows.status();
  std::vector<EpochEntry> out;
  for (const auto& f : *rows) {
    EpochEntry e{};
    if (!parse_int(f[0], e.epoch) || e.epoch < 0 || !parse_int(f[1], e.start_offset) || e.start_offset < 0)
      return bad("epoch entry");
    if (!out.empty() && (e.epoch <= out.back().epoch || e.start_offset < out.back().start_offset))
      return bad("epochs out of order");
    out.push_back(e);
  }
  return out;
}

Result<std::optional<MetaProperties>> read_meta_properties(const std::string& path) {
  if (!path_exists(path)) return std::optional<MetaProperties>();
  auto text = read_small_file(path, 1 << 16);
  if (!text) return text.status();
  MetaProperties m;
  bool have_id = false;
  for (auto line : split_lines(*text)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos) return Status::error(path + ": malformed line", kStorageError);
    auto key = line.substr(0, eq), val = line.substr(eq + 1);
    if (key == "broker.id" || key == "node.id") {
      if (!parse_int(val, m.broker_id)) return Status::error(path + ": bad broker.id", kStorageError);
      have_id = true;
    } else if (key == "cluster.id") {
      m.cluster_id = std::string(val);
    } else if (key == "version") {
      if (val != "0" && val != "1") return Status::error(path + ": unsupported version " + std::string(val), kStorageError);
    }
  }
  if (!have_id) return Status::error(path + ": no broker.id", kStorageError);
  return std::optional<MetaProperties>(m);
}

Status write_meta_properties(const std::string& path, const MetaProperties& meta) {
  std::string out = "#\n#Written by Spool\nversion=0\nbroker.id=" + std::to_string(meta.broker_id) + "\n";
  if (!meta.cluster_id.empty()) out += "cluster.id=" + meta.cluster_id + "\n";
  return write_file_atomic(path, out);
}

std::string format_partition_metadata(const Uuid& topic_id) {
  return "version: 0\ntopic_id: " + uuid_to_text(topic_id) + "\n";
}

Result<Uuid> parse_partition_metadata(std::string_view text) {
  auto lines = split_lines(text);
  auto field = [&](size_t i, std::string_view key) -> std::optional<std::string_view> {
    if (i >= lines.size()) return std::nullopt;
    std::string_view line = lines[i];
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.starts_with(key) || line.size() < key.size() + 2 || line.substr(key.size(), 2) != ": ")
      return std::nullopt;
    return line.substr(key.size() + 2);
  };
  auto version = field(0, "version");
  if (!version) return bad("partition.metadata: no version line");
  if (*version != "0") return bad("partition.metadata: unsupported version " + std::string(*version));
  auto id_text = field(1, "topic_id");
  if (!id_text) return bad("partition.metadata: no topic_id line");
  auto id = uuid_from_text(*id_text);
  if (!id) return bad("partition.metadata: bad topic_id '" + std::string(*id_text) + "'");
  for (size_t i = 2; i < lines.size(); ++i)
    if (!lines[i].empty()) return bad("partition.metadata: trailing data");
  return *id;
}

Result<std::optional<Uuid>> read_partition_metadata(const std::string& partition_dir) {
  const std::string path = partition_dir + "/" + kPartitionMetadata;
  if (!path_exists(path)) return std::optional<Uuid>();
  auto text = read_small_file(path, 1 << 12);
  if (!text) return text.status();
  auto id = parse_partition_metadata(*text);
  if (!id) return Status::error(path + ": " + id.status().message(), kStorageError);
  return std::optional<Uuid>(*id);
}

Status write_partition_metadata(const std::string& partition_dir, const Uuid& topic_id) {
  return write_file_atomic(partition_dir + "/" + kPartitionMetadata, format_partition_metadata(topic_id));
}

bool valid_topic_name(std::string_view topic) {
  if (topic.empty() || topic.size() > 249 || topic == "." || topic == "..") return false;
  for (char c : topic)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
          c == '-'))
      return false;
  return true;
}

std::optional<TopicPartition> parse_partition_dir(std::string_view name) {
  size_t dash = name.rfind('-');
  if (dash == std::string_view::npos || dash == 0) return std::nullopt;
  TopicPartition tp{std::string(name.substr(0, dash)), 0};
  if (!valid_topic_name(tp.topic) || !parse_int(name.substr(dash + 1), tp.partition) || tp.partition < 0)
    return std::nullopt;
  return tp;
}

}  // namespace spool::storage
