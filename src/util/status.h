// Status / Result<T>: the internal failure type (docs/ARCHITECTURE.md section 7).
// A Status is either ok or carries a message, an optional Kafka error code
// and, for a failed system call, its errno; Result<T> is a value or a Status. No exceptions cross module borders.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace spool {

class Status {
 public:
  Status() = default;
  static Status ok() { return Status(); }
  static Status error(std::string msg, int16_t kafka_code = -1) {
    Status s;
    s.failed_ = true;
    s.msg_ = std::move(msg);
    s.code_ = kafka_code;
    return s;
  }
  // A failed system call: its errno travels with the error (storage tells a
  // full disk from a failing one by it).
  static Status sys_error(std::string msg, int sys_errno, int16_t kafka_code = -1) {
    Status s = error(std::move(msg), kafka_code);
    s.errno_ = sys_errno;
    return s;
  }
  bool is_ok() const { return !failed_; }
  explicit operator bool() const { return !failed_; }
  const std::string& message() const { return msg_; }
  // Kafka error code to report to a client (-1 = UNKNOWN_SERVER_ERROR).
  int16_t kafka_code() const { return code_; }
  // The errno of a failed system call (sys_error); 0 otherwise.
  int sys_errno() const { return errno_; }

 private:
  bool failed_ = false;
  std::string msg_;
  int16_t code_ = 0;
  int errno_ = 0;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}    // NOLINT: must be an error
  bool is_ok() const { return v_.index() == 0; }
  explicit operator bool() const { return is_ok(); }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  T& operator*() { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Status& status() const {
    static const Status kOk;
    return is_ok() ? kOk : std::get<1>(v_);
  }

 private:
  std::variant<T, Status> v_;
};

}  // namespace spool
