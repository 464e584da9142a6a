#include "storage/log_manager.h"

#include <dirent.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "storage/file_util.h"
#include "storage/fs.h"
#include "storage/meta_properties.h"
#include "util/progress_log.h"

namespace spool::storage {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<std::vector<std::string>> list_subdirs(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return errno_status("opendir " + dir);
  std::vector<std::string> out;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n == "." || n == "..") continue;
    struct stat st;
    if (::stat((dir + "/" + n).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) out.push_back(n);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

OffsetMap read_checkpoint_or_empty(const std::string& path) {
  auto r = read_offset_checkpoint(path);
  if (!r) {
    spdlog::warn("{}; treating it as absent (full recovery)", r.status().message());
    return {};
  }
  return *r;
}

// Kafka names deletion dirs `<topic>-<p>.<uuid hex>-delete`.
std::string hex_id() {
  std::string id = random_id();
  std::string out;
  for (unsigned char c : id) {
    static const char kHex[] = "0123456789abcdef";
    out.push_back(kHex[c & 0xf]);
  }
  return out.substr(0, 22) + std::to_string(now_ms() % 100000);
}

struct LoadTask {
  std::string root;
  TopicPartition tp;
  Log::OpenOptions opts;
  int64_t first_dirty = 0;  // cleaner checkpoint
};

// Makes durable what the recoveries of `tasks` wrote without syncing
// (truncated tails, rebuilt indexes, new segments, directory entries):
// one syncfs per log dir, which also commits the file system journal once
// rather than once per file.
Status sync_deferred_recoveries(const std::vector<LoadTask>& tasks) {
  std::set<std::string> roots;
  for (const auto& t : tasks)
    if (t.opts.defer_recovery_sync) roots.insert(t.root);
  for (const auto& root : roots) {
    int fd = fs().open(root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
    if (fd < 0) return errno_status("open " + root);
    int rc = fs().syncfs(fd);
    int err = errno;
    fs().close(fd);
    if (rc != 0) {
      errno = err;
      return errno_status("syncfs " + root);
    }
  }
  return Status::ok();
}

}  // namespace

Result<std::unique_ptr<LogManager>> LogManager::open(Options opts) {
  if (opts.log_dirs.empty()) return Status::error("no log.dirs configured", kStorageError);
  std::unique_ptr<LogManager> m(new LogManager(std::move(opts)));
  Status s = m->init();
  if (!s) return s;
  return m;
}

LogManager::~LogManager() { shutdown(); }

Status LogManager::init() {
  for (const auto& root : opts_.log_dirs) {
    Status s = make_dirs(root);
    if (!s) return s;
  }
  // Kafka's check: a dir of another broker or cluster refuses the start.
  auto cluster = check_meta_properties(opts_.log_dirs, opts_.cluster_id, opts_.broker_id);
  if (!cluster) return cluster.status();
  cluster_id_ = *cluster;
  std::vector<LoadTask> tasks;
  std::set<TopicPartition> seen;
  for (const auto& root : opts_.log_dirs) {
    bool clean = path_exists(root + "/" + kCleanShutdownMarker);
    auto recovery = read_checkpoint_or_empty(root + "/" + kRecoveryPointCheckpoint);
    auto starts = read_checkpoint_or_empty(root + "/" + kLogStartOffsetCheckpoint);
    auto cleaned = read_checkpoint_or_empty(root + "/" + kCleanerOffsetCheckpoint);
    auto dirs = list_subdirs(root);
    if (!dirs) return dirs.status();
    if (!clean && !dirs->empty())
      spdlog::info("{}: no clean-shutdown marker; recovering logs from their recovery points", root);
    for (const auto& name : *dirs) {
      std::string path = root + "/" + name;
      if (ends_with(name, "-delete")) {
        spdlog::info("removing partition dir pending deletion {}", path);
        (void)remove_all(path);
        continue;
      }
      if (ends_with(name, "-future") || ends_with(name, "-stray")) {
        spdlog::warn("skipping {} (replica move / stray dir not supported)", path);
        continue;
      }
      auto tp = parse_partition_dir(name);
      if (!tp) {
        spdlog::warn("skipping {}: not a <topic>-<partition> directory", path);
        continue;
      }
      if (!seen.insert(*tp).second)
        return Status::error("partition " + name + " found in more than one log dir", kStorageError);
      LoadTask t{root, *tp, {}};
      t.opts.dir = path;
      t.opts.topic = tp->topic;
      t.opts.partition = tp->partition;
      t.opts.config = opts_.config_for ? opts_.config_for(tp->topic) : opts_.defaults;
      auto rp = recovery.find(*tp);
      t.opts.recovery_point = rp == recovery.end() ? 0 : rp->second;
      auto ls = starts.find(*tp);
      t.opts.log_start_offset = ls == starts.end() ? 0 : ls->second;
      auto cp = cleaned.find(*tp);
      t.first_dirty = cp == cleaned.end() ? 0 : cp->second;
      // A log missing from the recovery checkpoint was never checkpointed:
      // scan it whole even after a clean shutdown claim.
      t.opts.clean_shutdown = clean && rp != recovery.end();
      // After a crash every partition may recover: a few fsyncs each cost
      // minutes over thousands of partitions, one syncfs below does not.
      t.opts.defer_recovery_sync = !t.opts.clean_shutdown;
      tasks.push_back(std::move(t));
    }
  }

  // Recover partitions in parallel; the first failure wins. Progress (share
  // of segments opened) is logged every few seconds once it takes that long.
  std::vector<size_t> segments(tasks.size(), 0);
  size_t total_segments = 0;
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::error_code ec;
    for (auto it = std::filesystem::directory_iterator(tasks[i].opts.dir, ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
      if (it->path().extension() == ".log") ++segments[i];
    total_segments += segments[i];
  }
  util::ProgressLog progress("log recovery", "segments", static_cast<int64_t>(total_segments),
                            [](const std::string& line) { spdlog::info("{}", line); });
  std::atomic<size_t> next{0};
  std::mutex res_mu;
  Status first_error = Status::ok();
  auto worker = [&] {
    for (size_t i = next++; i < tasks.size(); i = next++) {
      auto r = Log::open(tasks[i].opts);
      std::lock_guard lk(res_mu);
      progress.advance(static_cast<int64_t>(segments[i]));
      if (!r) {
        if (first_error) first_error = Status::error(tasks[i].opts.dir + ": " + r.status().message(), kStorageError);
        continue;
      }
      (*r)->set_first_dirty_offset(tasks[i].first_dirty);
      logs_[tasks[i].tp] = Entry{*r, tasks[i].root};
    }
  };
  int n = std::clamp(opts_.recovery_threads, 1, 64);
  std::vector<std::thread> pool;
  for (int i = 1; i < n; ++i) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  progress.finish();
  if (!first_error) return first_error;
  Status synced = sync_deferred_recoveries(tasks);
  if (!synced) return synced;

  for (const auto& root : opts_.log_dirs) {
    Status s = write_meta_properties(root + "/" + kMetaProperties, {opts_.broker_id, cluster_id_});
    if (!s) return s;
    std::string marker = root + "/" + kCleanShutdownMarker;
    if (path_exists(marker)) {
      // From now on a crash must be detectable at the next start.
      if (fs().unlink(marker.c_str()) != 0) return errno_status("remove " + marker);
      s = sync_dir(root);
      if (!s) return s;
    }
  }
  for (auto& [tp, e] : logs_) {
    e.log->set_flusher(&flusher_);
    arm_failure_handler(*e.log, e.root);
  }
  Status s = write_checkpoints();
  if (!s) return s;
  flusher_.start();
  housekeeper_ = std::thread([this] { housekeeping(); });
  cleaner_map_ = KeyOffsetMap(static_cast<size_t>(std::max<int64_t>(opts_.cleaner_dedupe_buffer_bytes, 1 << 20)));
  if (opts_.cleaner_enable) cleaner_ = std::thread([this] { cleaner_loop(); });
  spdlog::info("log manager: {} partition(s) loaded from {} dir(s)", logs_.size(), opts_.log_dirs.size());
  return Status::ok();
}

std::vector<std::shared_ptr<Log>> LogManager::logs() const {
  std::lock_guard lk(mu_);
  std::vector<std::shared_ptr<Log>> out;
  for (const auto& [tp, e] : logs_) out.push_back(e.log);
  return out;
}

std::shared_ptr<Log> LogManager::get(const std::string& topic, int32_t partition) const {
  std::lock_guard lk(mu_);
  auto it = logs_.find(TopicPartition{topic, partition});
  return it == logs_.end() ? nullptr : it->second.log;
}

Result<std::shared_ptr<Log>> LogManager::create(const std::string& topic, int32_t partition, const LogConfig& config) {
  if (!valid_topic_name(topic)) return Status::error("invalid topic name '" + topic + "'", 17);  // INVALID_TOPIC_EXCEPTION
  if (partition < 0) return Status::error("invalid partition " + std::to_string(partition), 37);
  std::lock_guard lk(mu_);
  if (shut_down_) return Status::error("log manager is shut down", kStorageError);
  TopicPartition tp{topic, partition};
  auto it = logs_.find(tp);
  if (it != logs_.end()) {
    it->second.log->update_config(config);
    return it->second.log;
  }
  // Place the new log in the dir holding the fewest partitions (Kafka's rule).
  // Offline dirs take nothing new.
  std::map<std::string, size_t> counts;
  for (const auto& d : opts_.log_dirs)
    if (!offline_dirs_.count(d)) counts[d] = 0;
  if (counts.empty()) return Status::error("every log dir is offline", kStorageError);
  for (const auto& [k, e] : logs_)
    if (counts.count(e.root)) counts[e.root]++;
  std::string root = counts.begin()->first;
  for (const auto& d : opts_.log_dirs)
    if (counts.count(d) && counts[d] < counts[root]) root = d;
  Log::OpenOptions o;
  o.dir = root + "/" + tp.dir_name();
  o.topic = topic;
  o.partition = partition;
  o.config = config;
  o.clean_shutdown = true;  // fresh (or leftover files get validated by load anyway)
  bool existed = path_exists(o.dir);
  if (existed) o.clean_shutdown = false;
  auto log = Log::open(o);
  // A new dir that did not become a log (out of descriptors or space) goes
  // again: nothing else knows of it, so nothing would ever remove it.
  auto drop_new_dir = [&] {
    if (!existed) (void)remove_all(o.dir);
  };
  if (!log) {
    drop_new_dir();
    return log.status();
  }
  Status s = sync_dir(root);
  if (!s) {
    log->reset();
    drop_new_dir();
    return s;
  }
  (*log)->set_flusher(&flusher_);
  arm_failure_handler(**log, root);
  logs_[tp] = Entry{*log, root};
  return *log;
}

void LogManager::arm_failure_handler(Log& log, const std::string& root) {
  log.set_failure_handler([this, root](const std::string& why) { fail_dir(root, why); });
}

void LogManager::set_dir_failure_listener(DirFailureListener listener) {
  std::lock_guard lk(mu_);
  dir_failure_listener_ = std::move(listener);
}

void LogManager::fail_dir(const std::string& root, const std::string& why) {
  std::vector<std::shared_ptr<Log>> victims;
  DirFailureListener listener;
  {
    std::lock_guard lk(mu_);
    if (!offline_dirs_.insert(root).second) return;
    for (const auto& [tp, e] : logs_)
      if (e.root == root) victims.push_back(e.log);
    listener = dir_failure_listener_;
  }
  for (const auto& log : victims) log->take_offline();
  spdlog::error("log dir {} is offline ({}): {} partition(s) answer KAFKA_STORAGE_ERROR until a restart", root, why,
                victims.size());
  if (listener) listener(root, why);
}

bool LogManager::dir_offline(const std::string& root) const {
  std::lock_guard lk(mu_);
  return offline_dirs_.count(root) > 0;
}

std::vector<std::string> LogManager::offline_dirs() const {
  std::lock_guard lk(mu_);
  return {offline_dirs_.begin(), offline_dirs_.end()};
}

Status LogManager::remove(const std::string& topic, int32_t partition) {
  if (!get(topic, partition))
    return Status::error("unknown partition " + topic + "-" + std::to_string(partition), 3);
  return remove_partitions({TopicPartition{topic, partition}});
}

Status LogManager::remove_topic(const std::string& topic, int32_t count) {
  std::vector<TopicPartition> all;
  for (int32_t p = 0; p < count; ++p) all.push_back(TopicPartition{topic, p});
  return remove_partitions(all);
}

Status LogManager::remove_partitions(const std::vector<TopicPartition>& partitions, std::vector<Status>* each) {
  if (each != nullptr) each->assign(partitions.size(), Status::ok());
  std::vector<std::pair<size_t, Entry>> gone;  // (index in partitions, entry)
  {
    std::lock_guard lk(mu_);
    for (size_t i = 0; i < partitions.size(); ++i) {
      auto it = logs_.find(partitions[i]);
      if (it == logs_.end()) continue;
      gone.emplace_back(i, it->second);
      logs_.erase(it);
    }
  }
  if (gone.empty()) return Status::ok();
  Status first = Status::ok();
  auto failed = [&](size_t i, const Status& s) {
    spdlog::warn("{}", s.message());
    if (each != nullptr && i < each->size() && (*each)[i]) (*each)[i] = s;
    if (first) first = s;
  };
  constexpr size_t kAll = static_cast<size_t>(-1);
  // As remove(): every rename (then one sync per log dir) before any file goes.
  std::vector<std::pair<size_t, std::string>> targets;
  std::map<std::string, std::vector<size_t>> roots;  // log dir -> partitions renamed in it
  for (const auto& [i, e] : gone) {
    (void)e.log->close();
    std::string target = e.log->dir() + "." + hex_id() + "-delete";
    if (fs().rename(e.log->dir().c_str(), target.c_str()) != 0) {
      failed(i, errno_status("rename " + e.log->dir()));
      continue;
    }
    targets.emplace_back(i, std::move(target));
    roots[e.root].push_back(i);
  }
  for (const auto& [root, in_it] : roots) {
    if (Status s = sync_dir(root); !s)
      for (size_t i : in_it) failed(i, s);
  }
  for (const auto& [i, target] : targets) {
    if (Status s = remove_all(target); !s) failed(i, s);
  }
  if (Status s = write_checkpoints(); !s) failed(kAll, s);
  return first;
}

Status LogManager::write_checkpoints() {
  std::lock_guard ck(checkpoint_mu_);
  struct RootMaps {
    OffsetMap recovery, starts, cleaner;
  };
  std::map<std::string, RootMaps> per_root;
  {
    std::lock_guard lk(mu_);
    for (const auto& d : opts_.log_dirs)
      if (!offline_dirs_.count(d)) per_root[d];
    for (const auto& [tp, e] : logs_) {
      if (!per_root.count(e.root)) continue;  // offline
      auto& m = per_root[e.root];
      m.recovery[tp] = e.log->flushed_offset();
      m.starts[tp] = e.log->log_start_offset();
      if (e.log->config().cleanup_policy_compact) m.cleaner[tp] = e.log->first_dirty_offset();
    }
  }
  Status result = Status::ok();
  for (const auto& [root, maps] : per_root) {
    Status s = write_offset_checkpoint(root + "/" + kRecoveryPointCheckpoint, maps.recovery);
    if (s) s = write_offset_checkpoint(root + "/" + kLogStartOffsetCheckpoint, maps.starts);
    if (s) s = write_offset_checkpoint(root + "/" + kCleanerOffsetCheckpoint, maps.cleaner);
    if (!s) {
      spdlog::error("writing checkpoints in {}: {}", root, s.message());
      result = s;
    }
  }
  return result;
}

Status LogManager::run_retention_once() {
  int64_t now = now_ms();
  int deleted = 0;
  for (const auto& log : logs()) {
    auto r = log->apply_retention(now);
    if (!r) spdlog::warn("{}: retention: {}", log->dir(), r.status().message());
    else deleted += *r;
  }
  // The moved log start offsets must survive a crash.
  if (deleted > 0) return write_checkpoints();
  return Status::ok();
}

void LogManager::housekeeping() {
  int64_t next_retention = now_ms() + opts_.retention_check_interval_ms;
  int64_t next_checkpoint = now_ms() + opts_.flush_checkpoint_interval_ms;
  std::unique_lock lk(hk_mu_);
  while (!hk_stop_) {
    int64_t wait = std::max<int64_t>(1, std::min(next_retention, next_checkpoint) - now_ms());
    hk_cv_.wait_for(lk, std::chrono::milliseconds(wait), [this] { return hk_stop_; });
    if (hk_stop_) break;
    lk.unlock();
    int64_t now = now_ms();
    if (now >= next_retention) {
      (void)run_retention_once();
      next_retention = now + opts_.retention_check_interval_ms;
    }
    if (now >= next_checkpoint) {
      (void)write_checkpoints();
      next_checkpoint = now + opts_.flush_checkpoint_interval_ms;
    }
    lk.lock();
  }
}

Result<int> LogManager::clean_due_logs(KeyOffsetMap& map) {
  int64_t now = now_ms();
  int cleaned = 0;
  Status first_error = Status::ok();
  // Filthiest first, as Kafka's cleaner picks its next log.
  std::vector<std::pair<double, std::shared_ptr<Log>>> due;
  for (const auto& log : logs()) {
    if (log->closed()) continue;
    auto info = log->cleanable_info(now);
    if (info.due) due.emplace_back(info.dirty_ratio, log);
  }
  std::stable_sort(due.begin(), due.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (const auto& [ratio, log] : due) {
    {
      std::lock_guard lk(hk_mu_);
      if (hk_stop_) break;
    }
    CleanOptions o;
    o.map = &map;
    o.abort = &cleaner_abort_;
    auto r = log->clean(now, o);
    if (!r) {
      // One bad log must not stop the others (Kafka marks it uncleanable).
      spdlog::warn("{}: cleaner: {}", log->dir(), r.status().message());
      if (first_error) first_error = r.status();
      continue;
    }
    if (r->cleaned) ++cleaned;
    now = now_ms();
  }
  if (cleaned > 0) {
    Status s = write_checkpoints();
    if (!s) return s;
  }
  if (cleaned == 0 && !first_error) return first_error;
  return cleaned;
}

Result<int> LogManager::run_cleaner_once() {
  std::lock_guard lk(cleaner_mu_);
  return clean_due_logs(cleaner_map_);
}

void LogManager::cleaner_loop() {
  for (;;) {
    Result<int> r = 0;
    {
      std::lock_guard lk(cleaner_mu_);
      r = clean_due_logs(cleaner_map_);
    }
    std::unique_lock lk(hk_mu_);
    if (hk_stop_) break;
    if (r && *r > 0) continue;  // more may be due right away
    hk_cv_.wait_for(lk, std::chrono::milliseconds(std::max<int64_t>(1, cleaner_backoff_ms_.load(std::memory_order_relaxed))),
                    [this] { return hk_stop_; });
    if (hk_stop_) break;
  }
}

void LogManager::stop_threads() {
  {
    std::lock_guard lk(hk_mu_);
    hk_stop_ = true;
  }
  cleaner_abort_ = true;
  hk_cv_.notify_all();
  if (housekeeper_.joinable()) housekeeper_.join();
  if (cleaner_.joinable()) cleaner_.join();
  flusher_.stop();
}

void LogManager::halt() {
  {
    std::lock_guard lk(mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  stop_threads();
}

void LogManager::shutdown() {
  {
    std::lock_guard lk(mu_);
    if (shut_down_) return;
    shut_down_ = true;
  }
  stop_threads();
  bool all_ok = true;
  for (const auto& log : logs()) {
    if (log->offline()) continue;  // its dir gets no marker
    Status s = log->flush();
    if (s) s = log->close();
    if (!s) {
      all_ok = false;
      spdlog::error("{}: shutdown: {}", log->dir(), s.message());
    }
  }
  if (!write_checkpoints()) all_ok = false;
  if (!all_ok) {
    spdlog::error("log manager: unclean shutdown (no marker written); next start recovers");
    return;
  }
  for (const auto& root : opts_.log_dirs) {
    if (dir_offline(root)) {
      spdlog::error("log manager: {} is offline: no clean-shutdown marker there; next start recovers it", root);
      continue;
    }
    std::string marker = root + "/" + kCleanShutdownMarker;
    int fd = fs().open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      spdlog::error("cannot write {}", marker);
      continue;
    }
    (void)full_sync(fd);
    fs().close(fd);
    (void)sync_dir(root);
  }
  spdlog::info("log manager: clean shutdown ({} flusher passes, {} fsync calls since start)", flusher_.passes(),
               sync_call_count());
}

}  // namespace spool::storage
