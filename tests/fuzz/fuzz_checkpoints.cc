// Fuzzes the readers of Kafka's small text files in a log dir
// (storage/checkpoint.h), which a broker reads at start: the offset
// checkpoints (recovery-point-offset-checkpoint, log-start-offset-
// checkpoint), leader-epoch-checkpoint, partition.metadata, meta.properties
// and the partition directory names. The first input byte picks the reader
// (mod 5), the rest is the file's text. Each reader must refuse or accept
// without crashing; what it accepts must survive the writer: the text the
// writer makes for the parsed value parses to the same value (so a broker
// that rewrites a checkpoint it read keeps what it said; the one exception,
// a meta.properties cluster id ending in CR, is skipped and explained below). A parsed
// leader-epoch checkpoint is also in order (epochs and start offsets rise),
// which the epoch cache relies on.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

#include "fuzz_scratch_dir.h"
#include "storage/checkpoint.h"

namespace {

using namespace spool;
using namespace spool::storage;

void offset_checkpoint(std::string_view text) {
  auto m = parse_offset_checkpoint(text);
  if (!m) return;
  auto again = parse_offset_checkpoint(format_offset_checkpoint(*m));
  if (!again || *again != *m) __builtin_trap();
}

void epoch_checkpoint(std::string_view text) {
  auto e = parse_epoch_checkpoint(text);
  if (!e) return;
  for (size_t i = 1; i < e->size(); ++i) {
    if ((*e)[i].epoch <= (*e)[i - 1].epoch || (*e)[i].start_offset < (*e)[i - 1].start_offset) __builtin_trap();
  }
  auto again = parse_epoch_checkpoint(format_epoch_checkpoint(*e));
  if (!again || *again != *e) __builtin_trap();
}

void partition_metadata(std::string_view text) {
  auto id = parse_partition_metadata(text);
  if (!id) return;
  auto again = parse_partition_metadata(format_partition_metadata(*id));
  if (!again || *again != *id) __builtin_trap();
}

void meta_properties(std::string_view text) {
  const std::string path = fuzz::scratch_dir("spool-fuzz-checkpoints").sub("meta.properties");
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
  }
  auto m = read_meta_properties(path);
  if (!m || !*m) return;
  // A line's one trailing CR is taken for a CRLF ending, so a cluster id
  // that itself ends in CR cannot be written back as it was read (Kafka's
  // properties files cannot carry one either; real ids are Uuid text).
  if (!(*m)->cluster_id.empty() && (*m)->cluster_id.back() == '\r') return;
  if (!write_meta_properties(path, **m)) __builtin_trap();
  auto again = read_meta_properties(path);
  if (!again || !*again || (*again)->broker_id != (*m)->broker_id || (*again)->cluster_id != (*m)->cluster_id)
    __builtin_trap();
}

void partition_dir(std::string_view name) {
  auto tp = parse_partition_dir(name);
  if (!tp) return;
  if (!valid_topic_name(tp->topic) || tp->partition < 0) __builtin_trap();
  auto again = parse_partition_dir(tp->dir_name());
  if (!again || *again != *tp) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 5) {
    case 0: offset_checkpoint(text); break;
    case 1: epoch_checkpoint(text); break;
    case 2: partition_metadata(text); break;
    case 3: meta_properties(text); break;
    case 4: partition_dir(text); break;
  }
  return 0;
}
