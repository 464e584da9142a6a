// Randomized properties of "sticky" and "cooperative-sticky" (in the spirit
// of Kafka's testReassignmentWithRandomSubscriptionsAndChanges and
// testLargeAssignmentWithMultipleConsumersLeavingAndRandomSubscription):
// every subscribed partition is assigned exactly once to a subscriber;
// member loads differ by at most one when everyone subscribes to the same
// topics; and partitions that can stay with their owner do. Seeded: the seed
// of a failing round is in the failure message; SPOOL_ASSIGNOR_SEED=<n>
// replays from it.
#include <cstdlib>
#include <random>

#include "assignor_sticky_fixture.h"

namespace spool::client {
namespace {

using namespace testing;  // NOLINT: test helpers

uint64_t base_seed() {
  const char* env = std::getenv("SPOOL_ASSIGNOR_SEED");
  return env ? std::strtoull(env, nullptr, 10) : 20240601;
}

class StickyProperties : public StickyFixture {
 protected:
  // Every member that stayed, subscribed to all topics, keeps what it owned
  // up to the smallest fair share (it may give up only the excess).
  void check_kept(const MemberSubscriptions& before, const MemberPartitions& after, const PartitionCounts& counts) {
    int64_t total = 0;
    for (const auto& [topic, n] : counts) total += n;
    const size_t min_quota = static_cast<size_t>(total / static_cast<int64_t>(after.size()));
    for (const auto& [member, tps] : after) {
      const auto now = as_set(tps);
      size_t kept = 0, owned = 0;
      for (const TopicPartition& p : before.at(member).owned_partitions) {
        auto c = counts.find(p.topic);
        if (c == counts.end() || p.partition >= c->second) continue;
        ++owned;
        kept += now.count(p);
      }
      EXPECT_GE(kept, std::min(owned, min_quota)) << member << " lost partitions it could keep";
    }
  }
};

TEST_P(StickyProperties, RandomSubscriptionsAndChanges) {
  for (int round = 0; round < 60; ++round) {
    const uint64_t seed = base_seed() + static_cast<uint64_t>(round);
    SCOPED_TRACE("seed " + std::to_string(seed) + " (SPOOL_ASSIGNOR_SEED=" + std::to_string(seed) + " replays it)");
    std::mt19937_64 rng(seed);
    auto pick = [&](int lo, int hi) { return static_cast<int>(std::uniform_int_distribution<int>(lo, hi)(rng)); };
    assignor_ = make();

    const int topic_count = pick(1, 12);
    PartitionCounts counts;
    std::vector<std::string> topics;
    for (int i = 0; i < topic_count; ++i) {
      topics.push_back(topic_name(i, 20));
      counts[topics.back()] = pick(1, 10);
    }
    const bool uniform = round % 2 == 0;
    auto random_topics = [&]() {
      if (uniform) return topics;
      std::vector<std::string> some;
      for (const auto& t : topics) {
        if (pick(0, 2) != 0) some.push_back(t);
      }
      if (some.empty()) some.push_back(topics[static_cast<size_t>(pick(0, topic_count - 1))]);
      return some;
    };
    const int member_count = pick(1, 15);
    MemberSubscriptions subs;
    for (int i = 0; i < member_count; ++i) subs[consumer_name(i, 40)] = sub(random_topics());

    MemberPartitions a = assign(counts, subs);
    verify(subs, a, counts);
    if (uniform) {
      EXPECT_TRUE(is_fully_balanced(a));
    }

    // Next generation: some members leave, some join, (non-uniform) some
    // change topics; everyone reports what it owns.
    MemberSubscriptions next;
    for (const auto& [member, s] : subs) {
      if (subs.size() > 1 && pick(0, 4) == 0) continue;  // leaves
      const bool change = !uniform && pick(0, 3) == 0;
      next[member] = v2(change ? random_topics() : s.topics, a[member], 2);
    }
    for (int i = member_count; i < member_count + pick(0, 3); ++i) {
      next[consumer_name(i, 40)] = v2(random_topics(), {}, 2);
    }
    const MemberSubscriptions reported = next;
    a = assign(counts, next);
    if (uniform) {
      check_kept(reported, a, counts);
    } else {
      EXPECT_TRUE(assignor_->is_sticky());
    }
    verify(next, a, counts);
    if (uniform) {
      EXPECT_TRUE(is_fully_balanced(a));
    }
    if (HasFailure()) return;  // one seed's report is enough
  }
}

INSTANTIATE_TEST_SUITE_P(BothStickyAssignors, StickyProperties, ::testing::Values("sticky", "cooperative-sticky"),
                         [](const auto& info) { return info.param == "sticky" ? "Sticky" : "CooperativeSticky"; });

}  // namespace
}  // namespace spool::client
