// PartitionMovements: the general sticky algorithm's record of which
// partitions moved between which members during one assignment (Kafka's
// AbstractStickyAssignor.PartitionMovements). It lets a move undo an earlier
// opposite move of the same topic instead of adding a second one, and tells
// whether the result is "sticky": no two members traded partitions of one
// topic both ways. Used only inside sticky_general_builder.cc and its tests.
// Plain value; not thread-safe; no failure modes.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "util/topic_partition.h"

namespace spool::client::sticky {

class PartitionMovements {
 public:
  // Records `partition` moving from `from` to `to` (folding it into an
  // earlier move of the same partition, or cancelling it if it goes back).
  void move_partition(const TopicPartition& partition, const std::string& from, const std::string& to);

  // The partition to move when `partition` should go from `from` to `to`: if
  // a partition of the same topic moved from `to` to `from` earlier, moving
  // that one back keeps the assignment stickier. Among several, the smallest.
  TopicPartition partition_to_move(const TopicPartition& partition, std::string from, const std::string& to) const;

  // False if, for some topic, partitions moved both ways between two members.
  bool is_sticky() const;

 private:
  using Pair = std::pair<std::string, std::string>;  // source member, destination member

  Pair remove_record(const TopicPartition& partition);
  void add_record(const TopicPartition& partition, const Pair& pair);
  static bool is_linked(const std::string& src, const std::string& dst, std::set<Pair> pairs,
                        std::vector<std::string>& path);
  static bool has_cycles(const std::set<Pair>& pairs);

  std::map<std::string, std::map<Pair, std::set<TopicPartition>>> by_topic_;
  std::map<TopicPartition, Pair> movements_;
};

}  // namespace spool::client::sticky
