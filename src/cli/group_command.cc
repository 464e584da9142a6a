#include "cli/group_command.h"

#include <algorithm>
#include <iostream>
#include <set>
#include <tuple>

#include "cli/group_admin.h"
#include "cli/group_format.h"
#include "cli/group_parse.h"
#include "cli/topic_format.h"
#include "client/host_port.h"
#include "protocol/error_code.h"

namespace spool::cli {
namespace {

using protocol::ErrorCode;

constexpr int64_t kLatest = -1;
constexpr int64_t kEarliest = -2;

bool group_missing(const GroupDescription& d) {
  return d.error_code == static_cast<int16_t>(ErrorCode::kGroupIdNotFound) || d.state == "Dead";
}

int do_list(GroupAdmin& admin, const GroupArgs& a, std::ostream& out, std::ostream& err, const std::string& who) {
  auto groups = admin.list_groups(a.states);
  if (!groups) {
    err << who << groups.status().message() << "\n";
    return kExitFailure;
  }
  out << format_group_list(*groups, a.output);
  return kExitOk;
}

// Fills d.offsets: committed offsets joined with log end offsets and the
// members' assignment.
Status fill_offsets(GroupAdmin& admin, GroupDescription& d) {
  auto committed = admin.committed_offsets(d.group_id);
  if (!committed) return committed.status();
  auto keys = partitions_of(d.members, *committed);
  auto ends = admin.list_offsets(keys, kLatest);
  if (!ends) return ends.status();
  std::map<TopicPartitionKey, int64_t> log_end;
  for (const auto& [k, r] : *ends) {
    if (r.error_code == 0 && r.offset >= 0) log_end[k] = r.offset;
  }
  d.offsets = build_offset_rows(d.members, *committed, log_end);
  return Status::ok();
}

int do_describe(GroupAdmin& admin, const GroupArgs& a, std::ostream& out, std::ostream& err, const std::string& who) {
  std::string view = a.members ? "members" : a.state ? "state" : "offsets";
  std::vector<GroupDescription> shown;
  int rc = kExitOk;
  std::vector<std::string> ids = a.groups;
  if (a.all_groups) {
    auto listed = admin.list_groups({});
    if (!listed) {
      err << who << listed.status().message() << "\n";
      return kExitFailure;
    }
    // Consumer groups only, as Kafka's tool (a group of offsets only has no type).
    for (const auto& g : *listed) {
      if (g.protocol_type == "consumer" || g.protocol_type.empty()) ids.push_back(g.group_id);
    }
  }
  for (const auto& g : ids) {
    auto d = admin.describe_group(g);
    if (!d) {
      err << who << "group '" << g << "': " << d.status().message() << "\n";
      rc = kExitFailure;
      continue;
    }
    if (group_missing(*d) || d->error_code != 0) {
      rc = kExitFailure;
      if (group_missing(*d)) {
        err << "Error: consumer group '" << g << "' does not exist.\n";
      } else {
        err << "Error: consumer group '" << g << "': " << group_error_text(d->error_code) << "\n";
      }
      if (a.output == OutputFormat::kJson) shown.push_back(std::move(*d));
      continue;
    }
    if (view == "offsets" || a.output == OutputFormat::kJson) {
      if (auto st = fill_offsets(admin, *d); !st) {
        err << who << "group '" << g << "': " << st.message() << "\n";
        rc = kExitFailure;
        continue;
      }
    }
    shown.push_back(std::move(*d));
  }
  if (!shown.empty() || a.output == OutputFormat::kJson) out << format_group_describe(shown, view, a.verbose, a.output);
  return rc;
}

int do_delete(GroupAdmin& admin, const GroupArgs& a, std::ostream& out, std::ostream& err, const std::string& who) {
  std::vector<GroupOpResult> results;
  bool ok = true;
  for (const auto& g : a.groups) {
    auto code = admin.delete_group(g);
    if (!code) {
      err << who << "group '" << g << "': " << code.status().message() << "\n";
      ok = false;
      continue;
    }
    results.push_back({g, *code});
    ok = ok && *code == 0;
  }
  (ok ? out : err) << format_group_delete(results, a.output);
  return ok ? kExitOk : kExitFailure;
}

// The partitions named by --topic specs (every partition when a spec has
// none). Unknown topics or partitions are an error naming them.
Result<std::vector<TopicPartitionKey>> resolve_topics(GroupAdmin& admin, const std::vector<std::string>& specs) {
  std::set<TopicPartitionKey> out;
  for (const auto& s : specs) {
    auto spec = parse_topic_partitions(s);
    if (!spec) return spec.status();
    auto existing = admin.topic_partitions(spec->topic);
    if (!existing) return existing.status();
    if (spec->partitions.empty()) {
      for (int32_t p : *existing) out.emplace(spec->topic, p);
      continue;
    }
    for (int32_t p : spec->partitions) {
      if (!std::binary_search(existing->begin(), existing->end(), p)) {
        return Status::error("topic '" + spec->topic + "' has no partition " + std::to_string(p) + " (it has " +
                                 std::to_string(existing->size()) + ")",
                             static_cast<int16_t>(ErrorCode::kUnknownTopicOrPartition));
      }
      out.emplace(spec->topic, p);
    }
  }
  return std::vector<TopicPartitionKey>(out.begin(), out.end());
}

int do_reset(GroupAdmin& admin, const GroupArgs& a, std::ostream& out, std::ostream& err, const std::string& who) {
  const std::string& group = a.groups.front();
  auto d = admin.describe_group(group);
  if (!d) {
    err << who << d.status().message() << "\n";
    return kExitFailure;
  }
  if (d->error_code != 0 && !group_missing(*d)) {
    err << who << "group '" << group << "': " << group_error_text(d->error_code) << "\n";
    return kExitFailure;
  }
  // Kafka's rule: only an inactive group (Empty, or not there at all) is reset.
  if (!group_missing(*d) && d->state != "Empty") {
    err << "Error: assignments can only be reset if the group '" << group
        << "' is inactive, but the current state is " << d->state << ". Stop its consumers first.\n";
    return kExitFailure;
  }
  auto committed = admin.committed_offsets(group);
  if (!committed) {
    err << who << committed.status().message() << "\n";
    return kExitFailure;
  }
  std::vector<TopicPartitionKey> keys;
  if (a.all_topics) {
    for (const auto& [k, off] : *committed) keys.push_back(k);
    if (keys.empty()) {
      err << who << "group '" << group
          << "' has no committed offsets, so --all-topics selects nothing; name them with --topic\n";
      return kExitFailure;
    }
  } else {
    auto r = resolve_topics(admin, a.topics);
    if (!r) {
      err << who << r.status().message() << "\n";
      return kExitFailure;
    }
    keys = std::move(*r);
  }
  ResetSpec spec = reset_spec_of(a);
  auto starts = admin.list_offsets(keys, kEarliest);
  auto ends = starts ? admin.list_offsets(keys, kLatest) : starts;
  Result<std::map<TopicPartitionKey, OffsetLookup>> at_time = std::map<TopicPartitionKey, OffsetLookup>{};
  if (ends && spec.kind == ResetKind::kToDatetime) at_time = admin.list_offsets(keys, spec.value);
  for (const auto* r : {&starts, &ends, &at_time}) {
    if (!*r) {
      err << who << r->status().message() << "\n";
      return kExitFailure;
    }
  }
  std::vector<ResetPlanRow> plan;
  std::map<TopicPartitionKey, int64_t> to_commit;
  bool planned_all = true;
  for (const auto& k : keys) {
    ResetPlanRow row{group, k.first, k.second, std::nullopt, std::nullopt, ""};
    PartitionOffsets po;
    if (auto it = committed->find(k); it != committed->end()) po.committed = row.current_offset = it->second;
    const OffsetLookup& s = (*starts)[k];
    const OffsetLookup& e = (*ends)[k];
    int16_t lookup_error = s.error_code != 0 ? s.error_code : e.error_code;
    if (spec.kind == ResetKind::kToDatetime) {
      const OffsetLookup& t = (*at_time)[k];
      if (lookup_error == 0) lookup_error = t.error_code;
      if (t.offset >= 0) po.at_datetime = t.offset;
    }
    if (lookup_error != 0) {
      row.error = group_error_text(lookup_error);
    } else {
      po.log_start = s.offset;
      po.log_end = e.offset;
      auto target = reset_target(spec, po);
      if (target) {
        row.new_offset = *target;
        to_commit[k] = *target;
      } else {
        row.error = target.status().message();
      }
    }
    planned_all = planned_all && row.error.empty();
    plan.push_back(std::move(row));
  }
  if (!a.execute) {
    out << format_reset_plan(plan, a.output);
    if (!a.dry_run) err << "Dry run: no offsets were changed (add --execute to apply the plan).\n";
    if (!planned_all) err << who << "some partitions have no target offset (see ERROR)\n";
    return planned_all ? kExitOk : kExitFailure;
  }
  if (!planned_all) {
    out << format_reset_plan(plan, a.output);
    err << who << "nothing was committed: some partitions have no target offset (see ERROR)\n";
    return kExitFailure;
  }
  auto results = admin.commit_offsets(group, to_commit);
  if (!results) {
    err << who << results.status().message() << "\n";
    return kExitFailure;
  }
  bool ok = true;
  std::set<int16_t> codes;
  for (auto& row : plan) {
    int16_t code = (*results)[{row.topic, row.partition}];
    if (code != 0) {
      row.error = group_error_text(code);
      codes.insert(code);
      ok = false;
    }
  }
  out << format_reset_plan(plan, a.output);
  if (!ok) {
    for (int16_t code : codes) {
      err << "Error: resetting offsets of group '" << group << "' failed: " << group_error_text(code) << "\n";
    }
  }
  return ok ? kExitOk : kExitFailure;
}

int do_delete_offsets(GroupAdmin& admin, const GroupArgs& a, std::ostream& out, std::ostream& err,
                      const std::string& who) {
  const std::string& group = a.groups.front();
  std::vector<OffsetDeleteRow> rows;
  std::vector<TopicPartitionKey> keys;
  for (const auto& s : a.topics) {
    auto spec = parse_topic_partitions(s);
    if (!spec) {
      err << who << spec.status().message() << "\n";
      return kExitUsage;
    }
    if (!spec->partitions.empty()) {
      for (int32_t p : spec->partitions) keys.emplace_back(spec->topic, p);
      continue;
    }
    auto parts = admin.topic_partitions(spec->topic);
    if (!parts) {
      // Reported per topic like Kafka, without stopping the others.
      rows.push_back({spec->topic, -1, parts.status().kafka_code() > 0
                                            ? parts.status().kafka_code()
                                            : static_cast<int16_t>(ErrorCode::kUnknownTopicOrPartition)});
      continue;
    }
    for (int32_t p : *parts) keys.emplace_back(spec->topic, p);
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  int16_t group_error = 0;
  if (!keys.empty()) {
    auto r = admin.delete_offsets(group, keys);
    if (!r) {
      err << who << r.status().message() << "\n";
      return kExitFailure;
    }
    group_error = r->error_code;
    for (const auto& k : keys) {
      auto it = r->partitions.find(k);
      int16_t code = it != r->partitions.end() ? it->second : group_error;
      rows.push_back({k.first, k.second, code});
    }
  }
  std::sort(rows.begin(), rows.end(), [](const OffsetDeleteRow& x, const OffsetDeleteRow& y) {
    return std::tie(x.topic, x.partition) < std::tie(y.topic, y.partition);
  });
  bool ok = group_error == 0 &&
            std::all_of(rows.begin(), rows.end(), [](const OffsetDeleteRow& r) { return r.error_code == 0; });
  (ok ? out : err) << format_offset_delete(group, group_error, rows, a.output);
  return ok ? kExitOk : kExitFailure;
}

}  // namespace

int run_group_command(const GroupArgs& args) { return run_group_command(args, std::cout, std::cerr); }

int run_group_command(const GroupArgs& a, std::ostream& out, std::ostream& err) {
  const std::string who = "spool group " + a.action + ": ";
  if (auto st = validate_group_args(a); !st) {
    err << st.message() << "\n";
    return kExitUsage;
  }
  auto addr = client::parse_host_port(a.bootstrap_server);
  if (!addr) {
    err << who << "--bootstrap-server: " << addr.status().message() << "\n";
    return kExitUsage;
  }
  auto admin = GroupAdmin::open(a.bootstrap_server, a.timeout_ms);
  if (!admin) {
    err << who << admin.status().message() << "\n";
    return kExitFailure;
  }
  if (a.action == "list") return do_list(*admin, a, out, err, who);
  if (a.action == "describe") return do_describe(*admin, a, out, err, who);
  if (a.action == "delete") return do_delete(*admin, a, out, err, who);
  if (a.action == "reset-offsets") return do_reset(*admin, a, out, err, who);
  if (a.action == "delete-offsets") return do_delete_offsets(*admin, a, out, err, who);
  err << who << "unknown action\n";
  return kExitUsage;
}

}  // namespace spool::cli
