// How a handler hands its topic lifecycle work to the admin executor
// (broker/admin_executor.h): the handler validates on the reactor, then
// submits `work`, which does the rest and answers through the request's
// RequestContext (thread-safe). `fail` answers instead when the executor
// refuses the job (queue full: REQUEST_TIMED_OUT; shutting down:
// NOT_CONTROLLER, both as the Status's Kafka code). Exactly one of them runs.
// Without an executor (hand-wired tests) `work` runs inline, before return.
#pragma once

#include <string>
#include <utility>

#include "broker/admin_executor.h"
#include "broker/broker_context.h"

namespace spool::broker {

inline void run_admin_job(BrokerContext& b, std::string what, AdminExecutor::Work work, AdminExecutor::Fail fail) {
  if (b.admin == nullptr) {
    work();
    return;
  }
  b.admin->submit(std::move(what), std::move(work), std::move(fail));
}

}  // namespace spool::broker
