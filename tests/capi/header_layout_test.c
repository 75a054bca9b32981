/*
 * <foundationdb/fdb_c.h> as a C compiler lays it out: every struct size, alignment and field
 * offset, and the option and enum codes of header_expectations.h (taken from the spec),
 * checked at compile time (_Static_assert, so this file is C11) and again at run time, which
 * prints any mismatch and exits non-zero. Built at API 720 and 730 (CMakeLists.txt).
 */
#ifndef FDB_API_VERSION
#define FDB_API_VERSION 730
#endif
#include <foundationdb/fdb_c.h>
#include <stddef.h>
#include <stdio.h>

_Static_assert(sizeof(void*) == 8 && sizeof(int) == 4, "the expected layouts are LP64 layouts");

/* Compile time. */
#define FACT_SIZE(type, size, align)                     \
  _Static_assert(sizeof(type) == (size), #type " size"); \
  _Static_assert(_Alignof(type) == (align), #type " alignment")
#define FACT_OFFSET(type, field, offset) \
  _Static_assert(offsetof(type, field) == (offset), #type "." #field " offset")
#define FACT_CODE(enum_type, name, value) _Static_assert((name) == (value), #name)
#define FACT_CONSTANT(name, value) _Static_assert((name) == (value), #name)
#include "header_expectations.h"
#undef FACT_SIZE
#undef FACT_OFFSET
#undef FACT_CODE
#undef FACT_CONSTANT

static int checks = 0;
static int failures = 0;

static void check(const char* what, long long actual, long long expected) {
  ++checks;
  if (actual != expected) {
    ++failures;
    fprintf(stderr, "MISMATCH %s: header has %lld, expected %lld\n", what, actual, expected);
  }
}

int main(void) {
  /* Run time: the same table, so that a report lists every mismatch at once. */
#define FACT_SIZE(type, size, align)                   \
  check(#type " size", (long long)sizeof(type), size); \
  check(#type " alignment", (long long)_Alignof(type), align)
#define FACT_OFFSET(type, field, offset) \
  check(#type "." #field " offset", (long long)offsetof(type, field), offset)
#define FACT_CODE(enum_type, name, value) check(#name, (long long)(name), value)
#define FACT_CONSTANT(name, value) check(#name, (long long)(name), value)
#include "header_expectations.h"

  printf("fdb_c.h at API %d, as C: %d facts checked, %d mismatches\n", FDB_API_VERSION, checks,
         failures);
  return failures == 0 ? 0 : 1;
}
