#include "broker/admin_api/admin_listener.h"

#include <gtest/gtest.h>

namespace spool::broker {
namespace {

TEST(AdminListener, ParsesHttpAddressesAndEmpty) {
  auto d = parse_admin_listener(kDefaultAdminListener);
  ASSERT_TRUE(d && *d);
  EXPECT_EQ((*d)->host, "127.0.0.1");
  EXPECT_EQ((*d)->port, 9644);
  auto any = parse_admin_listener("http://:0");
  ASSERT_TRUE(any && *any);
  EXPECT_EQ((*any)->host, "");
  EXPECT_EQ((*any)->port, 0);
  auto off = parse_admin_listener("");
  ASSERT_TRUE(off);
  EXPECT_FALSE(*off);
}

TEST(AdminListener, RefusesTlsAndMalformedValues) {
  auto tls = parse_admin_listener("https://127.0.0.1:9644");
  ASSERT_FALSE(tls);
  EXPECT_NE(tls.status().message().find("TLS on the admin listener is not supported yet"), std::string::npos);
  for (const char* bad : {"127.0.0.1:9644", "http://127.0.0.1", "http://127.0.0.1:99999", "http://127.0.0.1:-1",
                          "http://127.0.0.1:9644/path", "http://[::1]:9644", "http://h:12x", "ftp://h:1"})
    EXPECT_FALSE(parse_admin_listener(bad)) << bad;
}

}  // namespace
}  // namespace spool::broker
