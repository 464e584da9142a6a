// Golden byte strings for the ACL APIs (defined ahead of their handlers) at
// v0 and v1. Literals: "User:a" 0006 557365723a61 · "*" 0001 2a · "t" 0001 74.
#include <gtest/gtest.h>

#include "golden.h"
#include "protocol/create_acls_request.h"
#include "protocol/create_acls_response.h"
#include "protocol/delete_acls_request.h"
#include "protocol/delete_acls_response.h"
#include "protocol/describe_acls_request.h"
#include "protocol/describe_acls_response.h"

namespace spool::protocol {
namespace {

using testing::check_golden;

TEST(GoldenDescribeAcls, RequestAndResponse) {
  DescribeAclsRequest m;
  m.resource_type_filter = 2;
  m.principal_filter = "User:a";
  m.operation = 1;
  m.permission_type = 1;
  check_golden(m, 0, "02 | ffff | 0006 557365723a61 | ffff | 01 | 01");
  check_golden(m, 1, "02 | ffff | 03 | 0006 557365723a61 | ffff | 01 | 01");

  DescribeAclsResponse r;
  DescribeAclsResponse::DescribeAclsResource res;
  res.resource_type = 2;
  res.resource_name = "t";
  res.acls.push_back({"User:a", "*", 3, 3});
  r.resources.push_back(res);
  check_golden(r, 0,
               "00000000 | 0000 | ffff | 00000001 | 02 | 0001 74 | 00000001 |"
               "0006 557365723a61 | 0001 2a | 03 | 03");
  check_golden(r, 1,
               "00000000 | 0000 | ffff | 00000001 | 02 | 0001 74 | 03 | 00000001 |"
               "0006 557365723a61 | 0001 2a | 03 | 03");
}

TEST(GoldenCreateAcls, RequestAndResponse) {
  CreateAclsRequest m;
  m.creations.push_back({2, "t", 3, "User:a", "*", 3, 3});
  check_golden(m, 0, "00000001 | 02 | 0001 74 | 0006 557365723a61 | 0001 2a | 03 | 03");
  check_golden(m, 1, "00000001 | 02 | 0001 74 | 03 | 0006 557365723a61 | 0001 2a | 03 | 03");
  CreateAclsResponse r;
  r.results.push_back({ErrorCode::kNone, std::nullopt});
  check_golden(r, 0, "00000000 | 00000001 | 0000 | ffff");
  check_golden(r, 1, "00000000 | 00000001 | 0000 | ffff");
}

TEST(GoldenDeleteAcls, RequestAndResponse) {
  DeleteAclsRequest m;
  DeleteAclsRequest::DeleteAclsFilter f;
  f.resource_type_filter = 1;
  f.resource_name_filter = "t";
  f.operation = 1;
  f.permission_type = 1;
  m.filters.push_back(f);
  check_golden(m, 0, "00000001 | 01 | 0001 74 | ffff | ffff | 01 | 01");
  check_golden(m, 1, "00000001 | 01 | 0001 74 | 03 | ffff | ffff | 01 | 01");

  DeleteAclsResponse r;
  DeleteAclsResponse::DeleteAclsFilterResult fr;
  DeleteAclsResponse::DeleteAclsMatchingAcl acl;
  acl.resource_type = 2;
  acl.resource_name = "t";
  acl.principal = "User:a";
  acl.host = "*";
  acl.operation = 3;
  acl.permission_type = 3;
  fr.matching_acls.push_back(acl);
  r.filter_results.push_back(fr);
  check_golden(r, 0,
               "00000000 | 00000001 | 0000 | ffff | 00000001 | 0000 | ffff | 02 | 0001 74 |"
               "0006 557365723a61 | 0001 2a | 03 | 03");
  check_golden(r, 1,
               "00000000 | 00000001 | 0000 | ffff | 00000001 | 0000 | ffff | 02 | 0001 74 | 03 |"
               "0006 557365723a61 | 0001 2a | 03 | 03");
}

}  // namespace
}  // namespace spool::protocol
