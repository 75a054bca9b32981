// <foundationdb/fdb_c.h> as a C++ compiler sees it: the layouts and codes of
// header_expectations.h (FoundationDB 7.3's values), checked at compile time (static_assert,
// which also checks that each code belongs to its enum type) and again at run time, plus the
// key-selector macros. The C view of the same table is header_layout_test.c.
#define FDB_API_VERSION 730
#include <foundationdb/fdb_c.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace {

static_assert(sizeof(void*) == 8 && sizeof(int) == 4, "the expected layouts are LP64 layouts");

// Compile time.
#define FACT_SIZE(type, size, align)                           \
  static_assert(sizeof(type) == (size), #type " size");        \
  static_assert(alignof(type) == (align), #type " alignment"); \
  static_assert(std::is_standard_layout<type>::value, #type " is standard-layout")
#define FACT_OFFSET(type, field, offset) \
  static_assert(offsetof(type, field) == (offset), #type "." #field " offset")
#define FACT_CODE(enum_type, name, expected)  \
  static_assert((name) == (expected), #name); \
  static_assert(std::is_same<decltype(name), enum_type>::value, #name " is an " #enum_type)
#define FACT_CONSTANT(name, expected) static_assert((name) == (expected), #name)
#include "header_expectations.h"
#undef FACT_SIZE
#undef FACT_OFFSET
#undef FACT_CODE
#undef FACT_CONSTANT

TEST(CapiHeader, StructLayoutsMatchFoundationDB) {
#define FACT_SIZE(type, size, align)                                        \
  EXPECT_EQ(sizeof(type), static_cast<std::size_t>(size)) << #type " size"; \
  EXPECT_EQ(alignof(type), static_cast<std::size_t>(align)) << #type " alignment"
#define FACT_OFFSET(type, field, offset) \
  EXPECT_EQ(offsetof(type, field), static_cast<std::size_t>(offset)) << #type "." #field
#define FACT_CODE(enum_type, name, expected) static_cast<void>(0)
#define FACT_CONSTANT(name, expected) static_cast<void>(0)
#include "header_expectations.h"
#undef FACT_SIZE
#undef FACT_OFFSET
#undef FACT_CODE
#undef FACT_CONSTANT
}

TEST(CapiHeader, OptionAndEnumCodesMatchFoundationDB) {
  int codes = 0;
#define FACT_SIZE(type, size, align) static_cast<void>(0)
#define FACT_OFFSET(type, field, offset) static_cast<void>(0)
#define FACT_CODE(enum_type, name, expected) \
  ++codes;                                   \
  EXPECT_EQ(static_cast<long long>(name), expected) << #name
#define FACT_CONSTANT(name, expected) EXPECT_EQ(name, expected) << #name
#include "header_expectations.h"
#undef FACT_SIZE
#undef FACT_OFFSET
#undef FACT_CODE
#undef FACT_CONSTANT
  // Every option and enum code of 7.3, the predicates and the blob-granule mutation types.
  EXPECT_EQ(codes, 55 + 19 + 49 + 7 + 15 + 2 + 3 + 2);
}

// Records the four selector arguments the FDB_KEYSEL_* macros expand to.
FDBKeySelector selector(const uint8_t* key, int key_length, fdb_bool_t or_equal, int offset) {
  return FDBKeySelector{FDBKey{key, key_length}, or_equal, offset};
}

TEST(CapiHeader, KeySelectorMacrosExpandToFoundationDBsArguments) {
  const uint8_t key[] = {'k', 'e', 'y'};
  const FDBKeySelector last_less_than = selector(FDB_KEYSEL_LAST_LESS_THAN(key, 3));
  const FDBKeySelector last_less_or_equal = selector(FDB_KEYSEL_LAST_LESS_OR_EQUAL(key, 3));
  const FDBKeySelector first_greater_than = selector(FDB_KEYSEL_FIRST_GREATER_THAN(key, 3));
  const FDBKeySelector first_greater_or_equal = selector(FDB_KEYSEL_FIRST_GREATER_OR_EQUAL(key, 3));
  for (const FDBKeySelector& s :
       {last_less_than, last_less_or_equal, first_greater_than, first_greater_or_equal}) {
    // Copies: gtest binds references, and FDBKey's fields are only 4-byte aligned.
    const uint8_t* keyPointer = s.key.key;
    int keyLength = s.key.key_length;
    EXPECT_EQ(keyPointer, key);
    EXPECT_EQ(keyLength, 3);
  }
  EXPECT_EQ(last_less_than.orEqual, 0);
  EXPECT_EQ(last_less_than.offset, 0);
  EXPECT_EQ(last_less_or_equal.orEqual, 1);
  EXPECT_EQ(last_less_or_equal.offset, 0);
  EXPECT_EQ(first_greater_than.orEqual, 1);
  EXPECT_EQ(first_greater_than.offset, 1);
  EXPECT_EQ(first_greater_or_equal.orEqual, 0);
  EXPECT_EQ(first_greater_or_equal.offset, 1);
}

TEST(CapiHeader, ApiVersionMacrosFollowTheChosenVersion) {
  EXPECT_EQ(FDB_API_VERSION, 730);
  EXPECT_EQ(FDB_LATEST_API_VERSION, 730);
  // A mapped row's nested range result points at ordinary rows.
  EXPECT_TRUE((std::is_same<decltype(FDBGetRangeReqAndResult::data), FDBKeyValue*>::value));
  EXPECT_TRUE((std::is_same<decltype(FDBKeyValue::key), const uint8_t*>::value));
}

}  // namespace
