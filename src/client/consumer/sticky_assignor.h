// StickyAssignor ("sticky"): the eager sticky assignor. A member revokes
// everything before rejoining, so its previous assignment and generation
// travel in its user data (sticky_user_data.h, Kafka's
// StickyAssignorUserData v1), which member_data() always reads, whatever the
// subscription's owned partitions say. Balance and stickiness rules:
// abstract_sticky_assignor.h. Not thread-safe.
#pragma once

#include <optional>
#include <vector>

#include "client/consumer/abstract_sticky_assignor.h"

namespace spool::client {

class StickyAssignor : public AbstractStickyAssignor {
 public:
  static constexpr std::string_view kName = "sticky";

  std::string_view name() const override { return kName; }
  // Null until the first on_assignment(); then the last assignment and its
  // generation.
  std::optional<Bytes> subscription_user_data(const std::set<std::string>& topics) const override;
  void on_assignment(const Assignment& assignment, int32_t generation) override;
  // From the user data only; none (or empty) means no previous assignment.
  MemberData member_data(const Subscription& subscription) const override;

 private:
  std::optional<std::vector<TopicPartition>> assigned_;
  int32_t generation_ = kDefaultGeneration;
};

}  // namespace spool::client
