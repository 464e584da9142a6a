// TopicEntries: a response's per-topic array filled from results that come
// one partition at a time. operator[](topic) returns the topic's entry,
// appending one (with its name field set) on first use, so topics keep the
// order of their first partition. `name` is the entry's name field (its
// `name` or `topic`, per message). Holds a reference to the array: use it
// while the response is being built. Not thread-safe; no failure.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace spool::broker {

template <class Entry>
class TopicEntries {
 public:
  TopicEntries(std::vector<Entry>& entries, std::string Entry::*name) : entries_(entries), name_(name) {}

  Entry& operator[](const std::string& topic) {
    auto [it, added] = index_.emplace(topic, entries_.size());
    if (added) entries_.emplace_back().*name_ = topic;
    return entries_[it->second];
  }

 private:
  std::vector<Entry>& entries_;
  std::string Entry::*name_;
  std::map<std::string, size_t> index_;
};

}  // namespace spool::broker
