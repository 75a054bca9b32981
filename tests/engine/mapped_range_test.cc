// Mapped range reads on the engine: the mapper's grammar, and that one mapped read is one
// engine operation however many entries it maps (the secondary reads run inside the engine,
// not as per-entry reads through the client API).
#include <gtest/gtest.h>

#include "engine/test_support.h"

#include "engine/mapper.h"
#include "engine/memory_database.h"
#include "fdb/database.h"
#include "fdb/error.h"
#include "fdb/tuple.h"

namespace fdb::engine {
namespace {

using namespace test_support;

TEST(Mapper, BuildsKeysFromIndexKeyAndValueElements) {
  Mapper mapper = Mapper::parse(Tuple{"records", "{K[2]}", "{V[0]}", "lit", "{...}"}.pack());
  EXPECT_TRUE(mapper.isRange());
  EXPECT_TRUE(mapper.usesValue());
  Bytes key = Tuple{"index", 10, int64_t{7}}.pack();
  Bytes value = Tuple{"x"}.pack();
  EXPECT_EQ(mapper.build(key, value), (Tuple{"records", 7, "x", "lit"}.pack()));
}

TEST(Mapper, UnescapesDoubledBracesIntoAByteStringLiteral) {
  Mapper mapper = Mapper::parse(Tuple{"a{{b}}", "{K[0]}"}.pack());
  EXPECT_FALSE(mapper.isRange());
  EXPECT_EQ(mapper.build(Tuple{1}.pack(), ""), (Tuple{ByteString{"a{b}"}, 1}.pack()));
}

TEST(Mapper, ErrorsCarryFoundationDbCodes) {
  EXPECT_EQ(errorCode([] { Mapper::parse("\x03"); }), 2043);  // not a tuple
  EXPECT_EQ(errorCode([] { Mapper::parse(Tuple{Tuple{1}}.pack()); }),
            2043);  // nested: not server tuple
  EXPECT_EQ(errorCode([] { Mapper::parse(Tuple{"{...}", "{K[0]}"}.pack()); }), 2032);
  EXPECT_EQ(errorCode([] { Mapper::parse(Tuple{"{K[x]}"}.pack()); }), 2030);
  Mapper outOfRange = Mapper::parse(Tuple{"{K[5]}"}.pack());
  EXPECT_EQ(errorCode([&] { outOfRange.build(Tuple{1}.pack(), ""); }), 2030);
  Mapper fromValue = Mapper::parse(Tuple{"{V[0]}"}.pack());
  EXPECT_EQ(errorCode([&] { fromValue.build(Tuple{1}.pack(), "\x03"); }), 2042);
  EXPECT_EQ(errorCode([&] { fromValue.build("\x03", Tuple{1}.pack()); }), 2041);
}

TEST(MappedRange, OneMappedReadIsOneEngineOperation) {
  Database db = Database::open("memory:");
  auto memory = std::dynamic_pointer_cast<MemoryDatabase>(db.backend());
  ASSERT_NE(memory, nullptr);
  db.run([](Transaction& tr) {
    for (int pk = 0; pk < 50; ++pk) {
      tr.set(Tuple{"index", pk % 7, pk}.pack(), "");
      tr.set(Tuple{"records", pk, "a"}.pack(), "A" + std::to_string(pk));
      tr.set(Tuple{"records", pk, "b"}.pack(), "B" + std::to_string(pk));
    }
  });
  Transaction tr = db.createTransaction();
  tr.getReadVersion().get();
  int64_t before = memory->engine()->stats().readOperations;
  RangeOptions options;
  options.mode = StreamingMode::kWantAll;
  MappedRangeResult result =
      tr.getMappedRange(KeySelector::firstGreaterOrEqual(Tuple{"index"}.range().begin),
                        KeySelector::firstGreaterOrEqual(Tuple{"index"}.range().end),
                        Tuple{"records", "{K[2]}", "{...}"}.pack(), options)
          .get();
  EXPECT_EQ(memory->engine()->stats().readOperations - before, 1);
  ASSERT_EQ(result.rows.size(), 50u);
  EXPECT_FALSE(result.more);
  for (const MappedKeyValue& entry : result.rows) {
    int64_t pk = Tuple::unpack(entry.key).getInt(2);
    ASSERT_EQ(entry.rangeRows.size(), 2u);
    EXPECT_EQ(entry.rangeRows[0].value, "A" + std::to_string(pk));
    EXPECT_EQ(entry.rangeRows[1].value, "B" + std::to_string(pk));
    EXPECT_EQ(entry.rangeBegin, (Tuple{"records", pk}.pack()));
  }
}

}  // namespace
}  // namespace fdb::engine
