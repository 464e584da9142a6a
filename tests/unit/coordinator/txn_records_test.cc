// __transaction_state record format: round trips and refusal of bad bytes.
#include <gtest/gtest.h>

#include "coordinator/txn/txn_metadata.h"

namespace spool::coordinator {
namespace {

TxnMetadata sample() {
  TxnMetadata md;
  md.transactional_id = "tx-1";
  md.producer_id = 4242;
  md.last_producer_id = 17;
  md.producer_epoch = 7;
  md.last_producer_epoch = 6;
  md.txn_timeout_ms = 60000;
  md.state = TxnState::kPrepareCommit;
  md.partitions = {{"a", 0}, {"a", 3}, {"b", 1}};
  md.txn_start_timestamp = 1000;
  md.txn_last_update_timestamp = 2000;
  return md;
}

TEST(TxnRecords, KeyAndValueRoundTrip) {
  const TxnMetadata md = sample();
  Bytes key = encode_txn_key(md.transactional_id);
  auto id = decode_txn_key(ByteSpan(key));
  ASSERT_TRUE(id.is_ok()) << id.status().message();
  EXPECT_EQ(*id, "tx-1");
  Bytes value = encode_txn_value(md);
  auto back = decode_txn_value(*id, ByteSpan(value));
  ASSERT_TRUE(back.is_ok()) << back.status().message();
  EXPECT_EQ(*back, md);
}

TEST(TxnRecords, KeyLayoutIsVersionThenString) {
  Bytes key = encode_txn_key("ab");
  EXPECT_EQ(key, (Bytes{0, 0, 0, 2, 'a', 'b'}));
}

TEST(TxnRecords, EveryTruncationIsRefused) {
  Bytes value = encode_txn_value(sample());
  for (size_t n = 0; n < value.size(); ++n) {
    auto r = decode_txn_value("x", ByteSpan(value.data(), n));
    EXPECT_FALSE(r.is_ok()) << "prefix of " << n << " bytes decoded";
  }
  Bytes key = encode_txn_key("tx");
  for (size_t n = 0; n < key.size(); ++n) EXPECT_FALSE(decode_txn_key(ByteSpan(key.data(), n)).is_ok());
}

TEST(TxnRecords, BadVersionStateCountsAndTrailingBytesAreRefused) {
  Bytes value = encode_txn_value(sample());
  Bytes v = value;
  v[1] = 9;  // value version 9
  EXPECT_FALSE(decode_txn_value("x", ByteSpan(v)).is_ok());
  v = value;
  v[2 + 8 + 8 + 2 + 2 + 4] = 42;  // state byte
  EXPECT_FALSE(decode_txn_value("x", ByteSpan(v)).is_ok());
  v = value;
  // Topic count: a huge value must be refused without allocating.
  const size_t topics_at = 2 + 8 + 8 + 2 + 2 + 4 + 1;
  v[topics_at] = 0x7f;
  EXPECT_FALSE(decode_txn_value("x", ByteSpan(v)).is_ok());
  v = value;
  v.push_back(0);
  auto r = decode_txn_value("x", ByteSpan(v));
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("trailing"), std::string::npos);
  Bytes key = encode_txn_key("tx");
  key[1] = 1;
  EXPECT_FALSE(decode_txn_key(ByteSpan(key)).is_ok());
}

TEST(TxnRecords, StateNames) {
  EXPECT_STREQ(txn_state_name(TxnState::kPrepareEpochFence), "PrepareEpochFence");
  EXPECT_EQ(txn_state_from_name("CompleteCommit"), TxnState::kCompleteCommit);
  EXPECT_FALSE(txn_state_from_name("completecommit").has_value());
  EXPECT_FALSE(txn_state_from_name("Bogus").has_value());
}

}  // namespace
}  // namespace spool::coordinator
