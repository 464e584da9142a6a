#include "cluster/controller/election.h"

#include <algorithm>

namespace spool::cluster::controller {
namespace {

bool contains(const std::vector<int32_t>& v, int32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

std::optional<ElectionOutcome> elect_initial(const std::vector<int32_t>& assignment, const std::set<int32_t>& live) {
  ElectionOutcome out;
  for (int32_t r : assignment) {
    if (live.count(r) != 0 && !contains(out.isr, r)) out.isr.push_back(r);
  }
  if (out.isr.empty()) return std::nullopt;
  out.leader = out.isr.front();
  return out;
}

std::optional<ElectionOutcome> elect_offline(const std::vector<int32_t>& assignment, const std::vector<int32_t>& isr,
                                             const std::set<int32_t>& live, bool unclean_enabled) {
  for (int32_t r : assignment) {
    if (live.count(r) != 0 && contains(isr, r)) {
      ElectionOutcome out;
      out.leader = r;
      for (int32_t i : isr) {
        if (live.count(i) != 0) out.isr.push_back(i);
      }
      return out;
    }
  }
  if (!unclean_enabled) return std::nullopt;
  for (int32_t r : assignment) {
    if (live.count(r) != 0) return ElectionOutcome{r, {r}, true};
  }
  return std::nullopt;
}

std::optional<ElectionOutcome> elect_reassign(const std::vector<int32_t>& target_replicas,
                                              const std::vector<int32_t>& isr, const std::set<int32_t>& live) {
  for (int32_t r : target_replicas) {
    if (live.count(r) != 0 && contains(isr, r)) return ElectionOutcome{r, isr, false};
  }
  return std::nullopt;
}

std::optional<ElectionOutcome> elect_preferred(const std::vector<int32_t>& assignment, const std::vector<int32_t>& isr,
                                               const std::set<int32_t>& live) {
  if (assignment.empty()) return std::nullopt;
  int32_t preferred = assignment.front();
  if (live.count(preferred) == 0 || !contains(isr, preferred)) return std::nullopt;
  return ElectionOutcome{preferred, isr, false};
}

std::optional<ElectionOutcome> elect_controlled_shutdown(const std::vector<int32_t>& assignment,
                                                         const std::vector<int32_t>& isr,
                                                         const std::set<int32_t>& live_or_shutting_down,
                                                         const std::set<int32_t>& shutting_down) {
  for (int32_t r : assignment) {
    if (live_or_shutting_down.count(r) != 0 && contains(isr, r) && shutting_down.count(r) == 0) {
      ElectionOutcome out;
      out.leader = r;
      for (int32_t i : isr) {
        if (shutting_down.count(i) == 0) out.isr.push_back(i);
      }
      return out;
    }
  }
  return std::nullopt;
}

}  // namespace spool::cluster::controller
