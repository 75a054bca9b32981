// The continuation message must encode exactly as the Java Record Layer's does, so that a
// continuation handed out by one can resume a scan in the other.
#include <gtest/gtest.h>

#include <string>

#include "record_cursor.pb.h"

namespace {

TEST(ContinuationProto, EncodesAsTheJavaRecordLayer) {
  com::apple::foundationdb::record::KeyValueCursorContinuation continuation;
  continuation.set_inner_continuation(std::string("\x15\x2a", 2));
  continuation.set_magic_number(6773487359078157740LL);  // KeyValueCursorContinuation's magic
  // field 1, wire type 2 (length 2); field 2, wire type 1 (fixed 64, little endian).
  const std::string expected(
      "\x0a\x02\x15\x2a"
      "\x11\xac\xcd\x73\x98\xdd\x42\x00\x5e",
      13);
  EXPECT_EQ(continuation.SerializeAsString(), expected);
}

}  // namespace
