#include "client/consumer/sticky_assignor.h"

namespace spool::client {

std::optional<Bytes> StickyAssignor::subscription_user_data(const std::set<std::string>& topics) const {
  (void)topics;
  if (!assigned_) return std::nullopt;
  return encode_sticky_user_data(MemberData{*assigned_, generation_});
}

void StickyAssignor::on_assignment(const Assignment& assignment, int32_t generation) {
  assigned_ = assignment.partitions;
  generation_ = generation;
}

MemberData StickyAssignor::member_data(const Subscription& subscription) const {
  if (!subscription.user_data || subscription.user_data->empty()) return MemberData{};
  return decode_sticky_user_data(*subscription.user_data);
}

}  // namespace spool::client
