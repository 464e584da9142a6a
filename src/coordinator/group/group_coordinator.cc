// Skeleton: every request answers COORDINATOR_NOT_AVAILABLE until the state
// machine lands.
#include "coordinator/group/group_coordinator.h"

namespace spool::coordinator {

struct GroupCoordinator::Impl {
  OffsetsLog& log;
  GroupCoordinatorOptions options;
};

GroupCoordinator::GroupCoordinator(OffsetsLog& log, GroupCoordinatorOptions options)
    : impl_(std::make_unique<Impl>(Impl{log, std::move(options)})) {}
GroupCoordinator::~GroupCoordinator() { shutdown(); }

int32_t GroupCoordinator::partition_for(const std::string& group_id) const {
  int32_t h = 0;
  for (unsigned char c : group_id) h = static_cast<int32_t>(31u * static_cast<uint32_t>(h) + c);
  const int32_t n = impl_->log.partition_count();
  return n <= 0 ? 0 : (h & 0x7fffffff) % n;
}
Status GroupCoordinator::load_partition(int32_t) { return Status::ok(); }
void GroupCoordinator::unload_partition(int32_t) {}
bool GroupCoordinator::is_loading(int32_t) const { return false; }
ErrorCode GroupCoordinator::coordinator_status(const std::string&) const { return ErrorCode::kCoordinatorNotAvailable; }
void GroupCoordinator::join_group(JoinGroupParams p, std::function<void(JoinGroupResult)> done) {
  JoinGroupResult r;
  r.error = ErrorCode::kCoordinatorNotAvailable;
  r.member_id = p.member_id;
  done(std::move(r));
}
void GroupCoordinator::sync_group(SyncGroupParams, std::function<void(SyncGroupResult)> done) {
  done(SyncGroupResult{ErrorCode::kCoordinatorNotAvailable, {}});
}
ErrorCode GroupCoordinator::heartbeat(const std::string&, const std::string&, const std::optional<std::string>&,
                                      int32_t) {
  return ErrorCode::kCoordinatorNotAvailable;
}
LeaveGroupResult GroupCoordinator::leave_group(const std::string&, const std::vector<LeavingMember>&) {
  LeaveGroupResult r;
  r.error = ErrorCode::kCoordinatorNotAvailable;
  return r;
}
void GroupCoordinator::commit_offsets(OffsetCommitParams p, std::function<void(PartitionErrors)> done) {
  PartitionErrors errs;
  for (auto& o : p.offsets) errs.emplace_back(o.tp, ErrorCode::kCoordinatorNotAvailable);
  done(std::move(errs));
}
OffsetFetchResult GroupCoordinator::fetch_offsets(const std::string&,
                                                  const std::optional<std::vector<TopicPartitionKey>>&, bool) {
  OffsetFetchResult r;
  r.error = ErrorCode::kCoordinatorNotAvailable;
  return r;
}
void GroupCoordinator::delete_offsets(const std::string&, const std::vector<TopicPartitionKey>&,
                                      std::function<void(ErrorCode, PartitionErrors)> done) {
  done(ErrorCode::kCoordinatorNotAvailable, {});
}
std::vector<DescribedGroup> GroupCoordinator::describe_groups(const std::vector<std::string>& ids) {
  std::vector<DescribedGroup> out;
  for (auto& id : ids) {
    DescribedGroup g;
    g.error = ErrorCode::kCoordinatorNotAvailable;
    g.group_id = id;
    out.push_back(std::move(g));
  }
  return out;
}
std::pair<ErrorCode, std::vector<ListedGroup>> GroupCoordinator::list_groups(const std::vector<std::string>&) {
  return {ErrorCode::kCoordinatorNotAvailable, {}};
}
void GroupCoordinator::delete_groups(const std::vector<std::string>& ids,
                                     std::function<void(std::vector<std::pair<std::string, ErrorCode>>)> done) {
  std::vector<std::pair<std::string, ErrorCode>> out;
  for (auto& id : ids) out.emplace_back(id, ErrorCode::kCoordinatorNotAvailable);
  done(std::move(out));
}
void GroupCoordinator::advance_clock(int64_t) {}
int GroupCoordinator::expire_offsets_now() { return 0; }
void GroupCoordinator::shutdown() {}

}  // namespace spool::coordinator
