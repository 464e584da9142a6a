// Log::open: stray-file cleanup, segment loading and crash recovery.
#include <dirent.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "storage/batch_scanner.h"
#include "storage/checkpoint.h"
#include "storage/file_util.h"
#include "storage/fs.h"
#include "storage/log.h"

namespace spool::storage {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<std::vector<std::string>> list_files(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return errno_status("opendir " + dir);
  std::vector<std::string> out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

// Next offset after the last well-framed batch of a file (header walk only).
int64_t scan_next_offset(const std::string& path, int64_t base) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return base;
  int fd = ::fileno(f);
  auto size = file_size(fd);
  int64_t next = base;
  if (size) {
    BatchScanner sc(fd, 0, *size);
    while (sc.next(false) == BatchScanner::Step::kBatch) next = sc.header().last_offset() + 1;
  }
  std::fclose(f);
  return next;
}

}  // namespace

Status Log::clean_stray_files() {
  auto files = list_files(dir_);
  if (!files) return files.status();
  // A finished cleaner/split writes `<base>.log.swap`; it replaces the
  // segments whose base offsets fall inside its offset range. Finish that
  // swap; partial outputs (.cleaned) and pending deletions (.deleted) go.
  for (const auto& name : *files) {
    std::string path = dir_ + "/" + name;
    if (ends_with(name, ".deleted") || ends_with(name, ".cleaned") || ends_with(name, ".tmp")) {
      spdlog::info("{}: removing stray file {}", dir_, name);
      remove_file_quiet(path);
    } else if (ends_with(name, ".index.swap") || ends_with(name, ".timeindex.swap") ||
               ends_with(name, ".txnindex.swap")) {
      remove_file_quiet(path);  // indexes are rebuilt from the swapped-in log
    }
  }
  for (const auto& name : *files) {
    if (!ends_with(name, ".log.swap")) continue;
    auto base = parse_segment_file_name(name.substr(0, name.size() - 5), ".log");
    std::string path = dir_ + "/" + name;
    if (!base) {
      spdlog::warn("{}: removing unparsable swap file {}", dir_, name);
      remove_file_quiet(path);
      continue;
    }
    int64_t next = scan_next_offset(path, *base);
    for (const auto& other : *files) {
      auto ob = parse_segment_file_name(other, ".log");
      if (ob && *ob >= *base && *ob < std::max(next, *base + 1)) {
        spdlog::info("{}: swap {} replaces segment {}", dir_, name, other);
        remove_file_quiet(dir_ + "/" + other);
      }
    }
    std::string target = dir_ + "/" + segment_file_name(*base, ".log");
    if (fs().rename(path.c_str(), target.c_str()) != 0) return errno_status("rename " + path);
    remove_file_quiet(dir_ + "/" + segment_file_name(*base, ".index"));
    remove_file_quiet(dir_ + "/" + segment_file_name(*base, ".timeindex"));
  }
  // Index files without a log are leftovers of a deletion.
  files = list_files(dir_);
  if (!files) return files.status();
  for (const auto& name : *files) {
    for (const char* ext : {".index", ".timeindex"}) {
      auto b = parse_segment_file_name(name, ext);
      if (b && !path_exists(dir_ + "/" + segment_file_name(*b, ".log"))) {
        spdlog::info("{}: removing orphan index {}", dir_, name);
        remove_file_quiet(dir_ + "/" + name);
      }
    }
  }
  return Status::ok();
}

Result<std::shared_ptr<Log>> Log::open(OpenOptions o) {
  std::shared_ptr<Log> log(new Log(o));
  Status s = make_dirs(o.dir);
  if (!s) return s;
  s = log->load(o);
  if (!s) return s;
  return log;
}

Status Log::load(const OpenOptions& o) {
  Status s = clean_stray_files();
  if (!s) return s;
  epochs_.load();
  auto files = list_files(dir_);
  if (!files) return files.status();
  std::vector<int64_t> bases;
  for (const auto& name : *files)
    if (auto b = parse_segment_file_name(name, ".log")) bases.push_back(*b);
  std::sort(bases.begin(), bases.end());

  auto cfg = config_;
  // Recovery starts at the segment holding the recovery point.
  int64_t recover_from = INT64_MAX;
  if (!o.clean_shutdown && !bases.empty()) {
    recover_from = bases.front();
    for (int64_t b : bases)
      if (b <= o.recovery_point) recover_from = b;
  }
  std::vector<std::shared_ptr<Segment>> segs;
  bool recovered_any = false;
  auto on_batch = [this](const record::BatchHeader& h) {
    if (h.partition_leader_epoch >= 0) epochs_.assign(h.partition_leader_epoch, h.base_offset);
  };
  for (size_t i = 0; i < bases.size(); ++i) {
    bool last = i + 1 == bases.size();
    int64_t next_base = last ? INT64_MAX : bases[i + 1];
    auto seg = Segment::open(dir_, bases[i], cfg.segment_index_bytes, last);
    if (!seg) return seg.status();
    bool in_recovery_range = bases[i] >= recover_from;
    bool need_scan = in_recovery_range;
    if (!need_scan) {
      if (!(*seg)->indexes_existed()) {
        need_scan = true;
        spdlog::warn("{}: index files of segment {} missing; rebuilding", dir_, bases[i]);
      } else {
        auto ok = (*seg)->load(next_base);
        if (!ok) return ok.status();
        if (!*ok) {
          need_scan = true;
          spdlog::warn("{}: index of segment {} is corrupt or inconsistent; rebuilding", dir_, bases[i]);
        }
      }
    }
    int64_t dropped = 0;
    if (need_scan) {
      auto r = (*seg)->recover(cfg.index_interval_bytes, on_batch);
      if (!r) return r.status();
      dropped = *r;
      recovered_any = true;
      if ((*seg)->next_offset() > next_base) {
        // Overlaps the next segment: keep the prefix that fits.
        auto t = (*seg)->truncate_to(next_base);
        if (!t) return t.status();
        spdlog::warn("{}: segment {} overlapped segment {}; truncated {} bytes", dir_, bases[i], next_base, *t);
      }
    }
    if (need_scan && in_recovery_range)
      spdlog::info("{}: recovered segment {} (next offset {}, {} torn bytes truncated)", dir_, bases[i],
                   (*seg)->next_offset(), dropped);
    segs.push_back(*seg);
    if (dropped > 0 && in_recovery_range && !last) {
      // Everything after a torn point was written later and never made it
      // whole to disk either: drop it so offsets stay contiguous.
      for (size_t j = i + 1; j < bases.size(); ++j) {
        spdlog::warn("{}: deleting segment {} after truncated segment {}", dir_, bases[j], bases[i]);
        for (const char* ext : {".log", ".index", ".timeindex", ".txnindex"})
          remove_file_quiet(dir_ + "/" + segment_file_name(bases[j], ext));
      }
      break;
    }
  }

  int64_t start = o.log_start_offset;
  if (!segs.empty()) start = std::max(start, segs.front()->base_offset());
  int64_t end = segs.empty() ? start : segs.back()->next_offset();
  if (start > end) {
    // Checkpointed start beyond the data that survived: start over there.
    spdlog::warn("{}: log start offset {} beyond log end {}; starting empty at {}", dir_, start, end, start);
    for (auto& seg : segs) (void)seg->remove_files();
    segs.clear();
  }
  if (segs.empty()) {
    auto seg = Segment::open(dir_, start, cfg.segment_index_bytes, true);
    if (!seg) return seg.status();
    segs.push_back(*seg);
    end = start;
    dir_dirty_ = true;
  }
  for (size_t i = 0; i + 1 < segs.size(); ++i) {
    s = segs[i]->seal();  // trims indexes left preallocated by a crash
    if (!s) return s;
  }
  s = segs.back()->make_active();
  if (!s) return s;
  for (auto& seg : segs) segments_[seg->base_offset()] = seg;
  log_start_.store(start);
  log_end_.store(end);
  epochs_.truncate_from_end(end);
  epochs_.truncate_from_start(start);
  if (recovered_any && o.defer_recovery_sync) {
    // The opener syncs the whole file system once all logs are loaded.
    dir_dirty_ = false;
  } else if (recovered_any) {
    // The scanned bytes may only have been in the page cache of a crashed
    // process: make them durable before calling them recovered.
    for (auto& seg : segs) {
      s = seg->flush_data();
      if (s) s = seg->flush_indexes();
      if (!s) return s;
    }
    dir_dirty_ = true;
  }
  if (dir_dirty_) {
    s = sync_dir(dir_);
    if (!s) return s;
    dir_dirty_ = false;
  }
  if (o.defer_recovery_sync) {
    // Same file, written without its two syncs (the opener's syncfs covers
    // it); the cache stays dirty, so the next flush writes it the usual way.
    const std::string text = format_epoch_checkpoint(epochs_.entries());
    s = write_file_replace(dir_ + "/" + kLeaderEpochCheckpoint,
                           ByteSpan(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
  } else {
    s = epochs_.persist();
  }
  if (!s) spdlog::warn("{}: {}", dir_, s.message());
  // Any snapshot at or below the recovered end is consistent with the data
  // below it (recovery only ever cuts a suffix), as in Kafka's log loader.
  s = rebuild_producer_state_locked(end);
  if (!s) return s;
  // Pin what the replay found, so the next start (even after a crash) does
  // not scan the same batches again, e.g. for logs older than snapshots.
  if (!path_exists(dir_ + "/" + segment_file_name(end, ".snapshot"))) snapshot_producers_locked(end);
  flushed_.store(end);
  last_flush_ms_.store(now());
  return Status::ok();
}

}  // namespace spool::storage
