#include "storage/batch_scanner.h"

#include <algorithm>

#include "storage/file_util.h"

namespace spool::storage {

bool BatchScanner::ensure(int64_t pos, size_t n) {
  if (pos + static_cast<int64_t>(n) > end_) return false;
  if (pos >= buf_start_ && pos + static_cast<int64_t>(n) <= buf_start_ + static_cast<int64_t>(buf_len_)) return true;
  size_t want = static_cast<size_t>(std::min<int64_t>(std::max(chunk_, n), end_ - pos));
  if (buf_.size() < want) buf_.resize(want);
  auto got = pread_full(fd_, buf_.data(), want, pos);
  if (!got) {
    io_ = got.status();
    return false;
  }
  buf_start_ = pos;
  buf_len_ = *got;
  return buf_len_ >= n;
}

BatchScanner::Step BatchScanner::next(bool full) {
  if (pos_ >= end_) return Step::kEnd;
  batch_pos_ = pos_;
  if (!ensure(pos_, record::kHeaderSize)) {
    if (!io_.is_ok()) return Step::kIoError;
    torn_ = "incomplete batch header";
    return Step::kTorn;
  }
  ByteSpan head(buf_.data() + (pos_ - buf_start_), record::kHeaderSize);
  auto h = record::read_header(head);
  if (!h) {
    torn_ = h.status().message();
    return Step::kTorn;
  }
  header_ = *h;
  if (header_.magic != 2) {
    torn_ = "bad magic " + std::to_string(header_.magic);
    return Step::kTorn;
  }
  if (header_.batch_length < static_cast<int32_t>(record::kHeaderSize - record::kLogOverhead) ||
      static_cast<int64_t>(header_.total_size()) > end_ - pos_) {
    torn_ = "batch length " + std::to_string(header_.batch_length) + " does not fit";
    return Step::kTorn;
  }
  if (header_.last_offset_delta < 0) {
    torn_ = "negative last offset delta";
    return Step::kTorn;
  }
  size_t total = header_.total_size();
  if (full) {
    if (!ensure(pos_, total)) {
      if (!io_.is_ok()) return Step::kIoError;
      torn_ = "short read";
      return Step::kTorn;
    }
    bytes_ = ByteSpan(buf_.data() + (pos_ - buf_start_), total);
  } else {
    bytes_ = head;
  }
  pos_ += static_cast<int64_t>(total);
  return Step::kBatch;
}

}  // namespace spool::storage
