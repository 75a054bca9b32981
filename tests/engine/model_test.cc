// Model-based randomized test of the in-memory engine: random single-threaded operation
// sequences run against both the engine (through the public fdb:: API on
// Database::open("memory:")) and the reference model (reference_model.h), with every read
// result, every `more` flag and every commit outcome compared after each step.
//
// Up to three transactions are open at once and interleaved over a small key alphabet, so
// that reads, writes and conflict ranges collide constantly. On a mismatch the test prints
// the seed, the failing step, the log of the steps so far and a minimized reproduction
// (the sequence greedily shortened while it still produces a mismatch).
//
// Environment:
//   RL_MODEL_SEED=<n>       base seed (sequence i runs with seed n + i); default below
//   RL_MODEL_SEQUENCES=<n>  number of sequences (default 600)
//   RL_MODEL_STEPS=<n>      steps per sequence (default 300)
//   RL_MODEL_TRACE=1        print every step to stderr as it runs (for crashes and hangs)
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "engine/reference_model.h"
#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/error.h"
#include "fdb/key_selector.h"
#include "fdb/transaction.h"
#include "fdb/types.h"

namespace fdb {
namespace {

constexpr uint64_t kDefaultBaseSeed = 0x5eed2026;
constexpr int kDefaultSequences = 600;
constexpr int kDefaultSteps = 300;
constexpr int kSlots = 3;  // transactions open at once

uint64_t envOr(const char* name, uint64_t fallback) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return fallback;
  return std::strtoull(value, nullptr, 0);
}

// ---------------------------------------------------------------------------------------
// The model itself, pinned to examples of docs/semantics.md ("Key selectors", "Range reads",
// "Atomic operations", "Conflict ranges"), so that a mismatch in the randomized test is not the
// model's fault.

using refmodel::applyAtomic;
using refmodel::AtomicOp;

std::optional<std::string> absent() { return std::nullopt; }

TEST(ReferenceModelTest, AtomicOpsFollowSection4) {
  using namespace std::string_literals;
  const std::string e = "";  // present but empty
  EXPECT_EQ(applyAtomic(AtomicOp::kAdd, absent(), "\x01\x00"s), "\x01\x00"s);
  EXPECT_EQ(applyAtomic(AtomicOp::kAdd, e, "\x01\x00"s), "\x01\x00"s);
  EXPECT_EQ(applyAtomic(AtomicOp::kAdd, std::string("\xff\x00"s), "\x01\x00"s), "\x00\x01"s);
  EXPECT_EQ(applyAtomic(AtomicOp::kAdd, std::string("\xff\xff\x07"), "\x01\x00"s), "\x00\x00"s);
  EXPECT_EQ(applyAtomic(AtomicOp::kAdd, std::string("\x05"), ""), "");
  EXPECT_EQ(applyAtomic(AtomicOp::kBitAnd, absent(), "\x0f"), "\x0f");
  EXPECT_EQ(applyAtomic(AtomicOp::kBitAnd, e, "\x0f\x0f"), std::string(2, '\0'));
  EXPECT_EQ(applyAtomic(AtomicOp::kBitAnd, std::string("\x03"), "\x0f\x0f"), "\x03\x00"s);
  EXPECT_EQ(applyAtomic(AtomicOp::kBitOr, e, "\x0f"), "\x0f");
  EXPECT_EQ(applyAtomic(AtomicOp::kBitOr, std::string("\x30\x01\x02"), "\x03"), "\x33");
  EXPECT_EQ(applyAtomic(AtomicOp::kBitXor, std::string("\x03"), "\x01\x05"), "\x02\x05");
  EXPECT_EQ(applyAtomic(AtomicOp::kBitXor, std::string("\x03"), ""), "");
  EXPECT_EQ(applyAtomic(AtomicOp::kAppendIfFits, e, "ab"), "ab");
  EXPECT_EQ(applyAtomic(AtomicOp::kAppendIfFits, std::string("x"), ""), "x");
  EXPECT_EQ(applyAtomic(AtomicOp::kAppendIfFits, std::string("x"), "ab"), "xab");
  const std::string big(60000, 'b');
  EXPECT_EQ(applyAtomic(AtomicOp::kAppendIfFits, big, big), big);  // would exceed 100,000
  EXPECT_EQ(applyAtomic(AtomicOp::kMax, e, "\x01"), "\x01");
  EXPECT_EQ(applyAtomic(AtomicOp::kMax, std::string("\x05\x00\x09"s), "\x06\x00"s), "\x06\x00"s);
  EXPECT_EQ(applyAtomic(AtomicOp::kMax, std::string("\x07"), "\x06\x00"s), "\x07\x00"s);
  EXPECT_EQ(applyAtomic(AtomicOp::kMax, std::string("\x07"), ""), "");
  EXPECT_EQ(applyAtomic(AtomicOp::kMin, absent(), "\x05"), "\x05");
  EXPECT_EQ(applyAtomic(AtomicOp::kMin, e, "\x05\x01"), std::string(2, '\0'));
  EXPECT_EQ(applyAtomic(AtomicOp::kMin, std::string("\x01\x02"), "\x02\x01"), "\x02\x01");
  EXPECT_EQ(applyAtomic(AtomicOp::kMin, std::string("\x09"), "\x02\x01"), "\x09\x00"s);
  EXPECT_EQ(applyAtomic(AtomicOp::kByteMin, e, "a"), "");
  EXPECT_EQ(applyAtomic(AtomicOp::kByteMin, absent(), "a"), "a");
  EXPECT_EQ(applyAtomic(AtomicOp::kByteMin, std::string("ab"), "a"), "a");
  EXPECT_EQ(applyAtomic(AtomicOp::kByteMax, std::string("ab"), "a\xff"), "a\xff");
  EXPECT_EQ(applyAtomic(AtomicOp::kCompareAndClear, std::string("v"), "v"), absent());
  EXPECT_EQ(applyAtomic(AtomicOp::kCompareAndClear, std::string("v"), "w"), "v");
  EXPECT_EQ(applyAtomic(AtomicOp::kCompareAndClear, absent(), ""), absent());
  EXPECT_EQ(applyAtomic(AtomicOp::kCompareAndClear, e, ""), absent());
}

TEST(ReferenceModelTest, SelectorsAndLimitsFollowSection3) {
  const refmodel::KeyValueMap view = {{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}};
  using refmodel::resolveSelector;
  EXPECT_EQ(resolveSelector(view, {"b", false, 0}), "a");  // lastLessThan
  EXPECT_EQ(resolveSelector(view, {"b", true, 0}), "b");   // lastLessOrEqual
  EXPECT_EQ(resolveSelector(view, {"b", true, 1}), "c");   // firstGreaterThan
  EXPECT_EQ(resolveSelector(view, {"b", false, 1}), "b");  // firstGreaterOrEqual
  EXPECT_EQ(resolveSelector(view, {"b", false, 3}), "d");
  EXPECT_EQ(resolveSelector(view, {"d", false, 2}), "\xff");
  EXPECT_EQ(resolveSelector(view, {"a", false, 0}), "");
  EXPECT_EQ(resolveSelector(view, {"\xff", false, 0}), "d");

  refmodel::ModelDatabase db;
  db.appendCommit(view, {});
  refmodel::ModelTransaction model(&db);
  // Each read in a new transaction: what one read learns would let the next stop early.
  struct {
    refmodel::ModelTransaction* model;
    refmodel::RangeReadResult getRange(const refmodel::RangeRequest& request, bool snapshot) {
      model->reset();
      return model->getRange(request, snapshot);
    }
  } tr{&model};
  refmodel::RangeRequest request;
  request.begin = {"", false, 1};
  request.end = {"\xff", false, 1};
  request.limit = 2;  // 2 of 4 rows: more
  EXPECT_EQ(tr.getRange(request, true).rows.size(), 2u);
  EXPECT_TRUE(tr.getRange(request, true).more);
  request.limit = 4;  // a limit reached at the exact end still says more
  EXPECT_TRUE(tr.getRange(request, true).more);
  request.limit = 5;
  EXPECT_FALSE(tr.getRange(request, true).more);
  request.limit = 0;
  request.targetBytes = 1;  // at least one row
  EXPECT_EQ(tr.getRange(request, true).rows.size(), 1u);
  request.targetBytes = 11;  // 10 bytes a row: the crossing row is included
  EXPECT_EQ(tr.getRange(request, true).rows.size(), 2u);
  request.targetBytes = 0;
  request.mode = refmodel::Mode::kExact;
  EXPECT_EQ(tr.getRange(request, true).error, refmodel::kExactModeWithoutLimits);
  request.mode = refmodel::Mode::kIterator;
  request.reverse = true;
  request.limit = 1;
  EXPECT_EQ(tr.getRange(request, true).rows.front().first, "d");
}

TEST(ReferenceModelTest, ConflictsFollowSection25) {
  refmodel::ModelDatabase db;
  refmodel::ModelTransaction reader(&db);
  reader.set("a", "1");
  reader.get("a", false);  // known locally: no conflict
  reader.atomicOp("b", "\x01", AtomicOp::kAdd);
  reader.get("b", false);  // atomic op on an unknown base: conflict
  reader.clearRange("c", "e");
  reader.addReadConflictRange("b", "f");  // minus [c, e)
  EXPECT_EQ(reader.readConflicts(),
            (std::vector<refmodel::Range>{{"b", std::string("b\0", 2)}, {"b", "c"}, {"e", "f"}}));

  refmodel::ModelTransaction writer(&db);
  writer.set(std::string("b\0", 2), "x");  // outside [b, b\0), inside [b, c)
  EXPECT_TRUE(writer.commit());
  EXPECT_FALSE(reader.commit());

  refmodel::ModelTransaction readOnly(&db);
  readOnly.get("z", false);
  refmodel::ModelTransaction other(&db);
  other.set("z", "1");
  EXPECT_TRUE(other.commit());
  EXPECT_TRUE(readOnly.commit());  // no writes: nothing is checked

  refmodel::ModelTransaction conflictOnly(&db);
  conflictOnly.get("z", false);
  conflictOnly.addWriteConflictRange("q", "r");  // not read-only any more
  refmodel::ModelTransaction other2(&db);
  other2.clear("z");
  EXPECT_TRUE(other2.commit());
  EXPECT_FALSE(conflictOnly.commit());
}

// ---------------------------------------------------------------------------------------
// Steps: plain data, so that a failing sequence can be replayed and minimized.

enum class StepKind {
  kNewTransaction,
  kGet,
  kGetKey,
  kGetRange,
  kGetRangeAll,
  kSet,
  kClear,
  kClearRange,
  kAtomicOp,
  kAddReadConflictRange,
  kAddWriteConflictRange,
  kCommit,
  kReset,
  kCheckDatabase,
};

// What to do with a transaction whose commit failed.
enum class AfterFailure { kDiscard, kReset, kOnError };

struct Step {
  StepKind kind = StepKind::kNewTransaction;
  int slot = 0;
  bool snapshot = false;
  std::string key;       // key, range begin
  std::string argument;  // value, atomic param, range end
  MutationType mutation = MutationType::kAdd;
  KeySelector begin;  // getKey's selector, getRange's begin
  KeySelector end;
  bool keyRangeForm = false;  // getRange(KeyRange{key, argument}, options)
  RangeOptions options;       // getRange; getRangeAll uses limit and reverse
  AfterFailure afterFailure = AfterFailure::kDiscard;
};

// Bytes as a quoted printable string. Long values are abbreviated to a prefix, their length
// and a 64-bit FNV-1a hash, which keeps the logs readable and text comparison exact in
// practice.
std::string showBytes(std::string_view bytes) {
  constexpr size_t kShown = 24;
  if (bytes.size() <= 2 * kShown) return "\"" + printable(bytes) + "\"";
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : bytes) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  std::ostringstream out;
  out << "\"" << printable(bytes.substr(0, kShown)) << "\"...(" << bytes.size() << " bytes, fnv "
      << std::hex << hash << ")";
  return out.str();
}

std::string formatSelector(const KeySelector& s) {
  std::ostringstream out;
  out << "sel(" << showBytes(s.key) << ", " << (s.orEqual ? "orEqual" : "-") << ", "
      << (s.offset >= 0 ? "+" : "") << s.offset << ")";
  return out.str();
}

const char* modeName(StreamingMode mode) {
  switch (mode) {
    case StreamingMode::kWantAll: return "WANT_ALL";
    case StreamingMode::kIterator: return "ITERATOR";
    case StreamingMode::kExact: return "EXACT";
    case StreamingMode::kSmall: return "SMALL";
    case StreamingMode::kMedium: return "MEDIUM";
    case StreamingMode::kLarge: return "LARGE";
    case StreamingMode::kSerial: return "SERIAL";
  }
  return "?";
}

const char* mutationName(MutationType type) {
  switch (type) {
    case MutationType::kAdd: return "ADD";
    case MutationType::kBitAnd: return "BIT_AND";
    case MutationType::kBitOr: return "BIT_OR";
    case MutationType::kBitXor: return "BIT_XOR";
    case MutationType::kAppendIfFits: return "APPEND_IF_FITS";
    case MutationType::kMax: return "MAX";
    case MutationType::kMin: return "MIN";
    case MutationType::kByteMin: return "BYTE_MIN";
    case MutationType::kByteMax: return "BYTE_MAX";
    case MutationType::kCompareAndClear: return "COMPARE_AND_CLEAR";
    default: return "?";
  }
}

// The step as a call, e.g. t1.snapshot.get("a").
std::string describe(const Step& step) {
  std::ostringstream out;
  const std::string t = "t" + std::to_string(step.slot) + (step.snapshot ? ".snapshot" : "");
  switch (step.kind) {
    case StepKind::kNewTransaction:
      out << "t" << step.slot << " = db.createTransaction(); getReadVersion()";
      break;
    case StepKind::kGet: out << t << ".get(" << showBytes(step.key) << ")"; break;
    case StepKind::kGetKey: out << t << ".getKey(" << formatSelector(step.begin) << ")"; break;
    case StepKind::kGetRange: {
      const RangeOptions& o = step.options;
      out << t << ".getRange(";
      if (step.keyRangeForm) {
        out << "[" << showBytes(step.key) << ", " << showBytes(step.argument) << ")";
      } else {
        out << formatSelector(step.begin) << ", " << formatSelector(step.end);
      }
      out << ", limit=" << o.limit << " targetBytes=" << o.targetBytes
          << " mode=" << modeName(o.mode) << " iteration=" << o.iteration
          << " reverse=" << o.reverse << ")";
      break;
    }
    case StepKind::kGetRangeAll:
      out << t << ".getRangeAll([" << showBytes(step.key) << ", " << showBytes(step.argument)
          << "), limit=" << step.options.limit << ", reverse=" << step.options.reverse << ")";
      break;
    case StepKind::kSet:
      out << t << ".set(" << showBytes(step.key) << ", " << showBytes(step.argument) << ")";
      break;
    case StepKind::kClear: out << t << ".clear(" << showBytes(step.key) << ")"; break;
    case StepKind::kClearRange:
      out << t << ".clearRange(" << showBytes(step.key) << ", " << showBytes(step.argument) << ")";
      break;
    case StepKind::kAtomicOp:
      out << t << ".atomicOp(" << showBytes(step.key) << ", " << showBytes(step.argument) << ", "
          << mutationName(step.mutation) << ")";
      break;
    case StepKind::kAddReadConflictRange:
      out << t << ".addReadConflictRange(" << showBytes(step.key) << ", "
          << showBytes(step.argument) << ")";
      break;
    case StepKind::kAddWriteConflictRange:
      out << t << ".addWriteConflictRange(" << showBytes(step.key) << ", "
          << showBytes(step.argument) << ")";
      break;
    case StepKind::kCommit:
      out << t << ".commit()  [on failure: "
          << (step.afterFailure == AfterFailure::kDiscard ? "discard"
              : step.afterFailure == AfterFailure::kReset ? "reset(); getReadVersion()"
                                                          : "onError(1020); getReadVersion()")
          << "]";
      break;
    case StepKind::kReset: out << t << ".reset(); getReadVersion()"; break;
    case StepKind::kCheckDatabase:
      out << "check: fresh transaction getRangeAll([\"\", \"\\xff\")) == model";
      break;
  }
  return out.str();
}

// ---------------------------------------------------------------------------------------
// Result formatting: both sides are rendered to the same text and compared as strings
// (printable() is injective; long values are compared through their length and hash).

std::string formatError(int code) {
  return "error " + std::to_string(code) + " (" + std::string(errorName(code)) + ")";
}

std::string formatValue(const std::optional<std::string>& value) {
  return value ? showBytes(*value) : "absent";
}

std::string formatRows(const std::vector<std::pair<std::string, std::string>>& rows) {
  std::string out = "[";
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) out += ", ";
    out += showBytes(rows[i].first) + "=" + showBytes(rows[i].second);
  }
  return out + "]";
}

// Owned rows (getRangeAll) or the views of a RangeResult.
template <typename Rows>
std::string formatRows(const Rows& rows) {
  std::vector<std::pair<std::string, std::string>> pairs;
  for (const auto& kv : rows) pairs.emplace_back(kv.key, kv.value);
  return formatRows(pairs);
}

std::string formatRanges(const std::vector<refmodel::Range>& ranges, size_t from) {
  std::string out;
  for (size_t i = from; i < ranges.size(); ++i) {
    if (!out.empty()) out += " ";
    out += "[" + showBytes(ranges[i].begin) + ", " + showBytes(ranges[i].end) + ")";
  }
  return out;
}

// Runs `call` against the engine; its result text, or the error it threw.
template <typename F>
std::string attempt(F&& call) {
  try {
    return call();
  } catch (const Error& e) {
    return formatError(e.code());
  } catch (const std::exception& e) {
    return std::string("exception: ") + e.what();
  }
}

refmodel::Selector toModel(const KeySelector& s) { return {s.key, s.orEqual, s.offset}; }

// ---------------------------------------------------------------------------------------
// The runner: one engine database and one model database, driven step by step.

struct Stats {
  int64_t steps = 0;
  int64_t reads = 0;
  int64_t commitsOk = 0;
  int64_t commitsConflicted = 0;
  int64_t checks = 0;
};

struct StepOutcome {
  std::string log;  // the step, the model's answer, and on mismatch the engine's
  bool mismatch = false;
};

class Runner {
 public:
  explicit Runner(Stats* stats) : db_(Database::open("memory:")), stats_(stats) {}

  bool isOpen(int slot) const { return slots_[slot].real.has_value(); }
  // The model's view of an open transaction (for generating meaningful params).
  refmodel::KeyValueMap modelView(int slot) const { return slots_[slot].model->view(); }

  StepOutcome run(const Step& step) {
    ++stats_->steps;
    StepOutcome outcome;
    outcome.log = describe(step);
    if (step.kind == StepKind::kCheckDatabase) {
      checkDatabase(outcome);
      return outcome;
    }
    if (step.kind == StepKind::kNewTransaction) {
      openTransaction(step.slot, outcome);
      return outcome;
    }
    Slot& slot = slots_[step.slot];
    if (!slot.real) {
      outcome.log += "  (skipped: no open transaction)";
      return outcome;
    }
    Transaction& real = *slot.real;
    refmodel::ModelTransaction& model = *slot.model;
    const size_t conflictsBefore = model.readConflicts().size();
    switch (step.kind) {
      case StepKind::kGet: {
        ++stats_->reads;
        std::string expected = formatValue(model.get(step.key, step.snapshot));
        std::string actual = attempt([&] {
          return formatValue(step.snapshot ? real.snapshot().get(step.key).get()
                                           : real.get(step.key).get());
        });
        compare(outcome, expected, actual);
        break;
      }
      case StepKind::kGetKey: {
        ++stats_->reads;
        std::string expected = showBytes(model.getKey(toModel(step.begin), step.snapshot));
        std::string actual = attempt([&] {
          return showBytes(step.snapshot ? real.snapshot().getKey(step.begin).get()
                                         : real.getKey(step.begin).get());
        });
        compare(outcome, expected, actual);
        break;
      }
      case StepKind::kGetRange: {
        ++stats_->reads;
        refmodel::RangeRequest request;
        if (step.keyRangeForm) {
          request.begin = {step.key, false, 1};
          request.end = {step.argument, false, 1};
        } else {
          request.begin = toModel(step.begin);
          request.end = toModel(step.end);
        }
        request.limit = step.options.limit;
        request.targetBytes = step.options.targetBytes;
        request.mode = static_cast<refmodel::Mode>(static_cast<int>(step.options.mode));
        request.iteration = step.options.iteration;
        request.reverse = step.options.reverse;
        refmodel::RangeReadResult result = model.getRange(request, step.snapshot);
        std::string expected =
            result.error != 0 ? formatError(result.error)
                              : formatRows(result.rows) + " more=" + std::to_string(result.more);
        std::string actual = attempt([&] {
          RangeResult r;
          if (step.keyRangeForm) {
            KeyRange range{step.key, step.argument};
            r = step.snapshot ? real.snapshot().getRange(range, step.options).get()
                              : real.getRange(range, step.options).get();
          } else {
            r = step.snapshot ? real.snapshot().getRange(step.begin, step.end, step.options).get()
                              : real.getRange(step.begin, step.end, step.options).get();
          }
          return formatRows(r.rows) + " more=" + std::to_string(r.more);
        });
        compare(outcome, expected, actual);
        break;
      }
      case StepKind::kGetRangeAll: {
        ++stats_->reads;
        std::string expected = formatRows(model.getRangeAll(
            {step.key, step.argument}, step.options.limit, step.options.reverse, step.snapshot));
        std::string actual = attempt([&] {
          KeyRange range{step.key, step.argument};
          return formatRows(
              step.snapshot
                  ? real.snapshot().getRangeAll(range, step.options.limit, step.options.reverse)
                  : real.getRangeAll(range, step.options.limit, step.options.reverse));
        });
        compare(outcome, expected, actual);
        break;
      }
      case StepKind::kSet:
        model.set(step.key, step.argument);
        compareWrite(outcome, [&] { real.set(step.key, step.argument); });
        break;
      case StepKind::kClear:
        model.clear(step.key);
        compareWrite(outcome, [&] { real.clear(step.key); });
        break;
      case StepKind::kClearRange:
        model.clearRange(step.key, step.argument);
        compareWrite(outcome, [&] { real.clearRange(step.key, step.argument); });
        break;
      case StepKind::kAtomicOp:
        model.atomicOp(step.key, step.argument,
                       static_cast<refmodel::AtomicOp>(static_cast<int>(step.mutation)));
        compareWrite(outcome, [&] { real.atomicOp(step.key, step.argument, step.mutation); });
        break;
      case StepKind::kAddReadConflictRange:
        model.addReadConflictRange(step.key, step.argument);
        compareWrite(outcome, [&] { real.addReadConflictRange(step.key, step.argument); });
        break;
      case StepKind::kAddWriteConflictRange:
        model.addWriteConflictRange(step.key, step.argument);
        compareWrite(outcome, [&] { real.addWriteConflictRange(step.key, step.argument); });
        break;
      case StepKind::kCommit: commit(step, outcome); return outcome;
      case StepKind::kReset: {
        model.reset();
        std::string actual = attempt([&] {
          real.reset();
          real.getReadVersion().get();
          return std::string("ok");
        });
        compare(outcome, "ok", actual);
        outcome.log += "  (read version = model v" + std::to_string(model.readVersion()) + ")";
        break;
      }
      case StepKind::kNewTransaction:
      case StepKind::kCheckDatabase: break;  // handled above
    }
    if (model.readConflicts().size() > conflictsBefore) {
      outcome.log +=
          "  {read conflicts += " + formatRanges(model.readConflicts(), conflictsBefore) + "}";
    }
    return outcome;
  }

 private:
  struct Slot {
    std::optional<Transaction> real;
    std::optional<refmodel::ModelTransaction> model;
  };

  static void compare(StepOutcome& outcome, const std::string& expected,
                      const std::string& actual) {
    outcome.log += " -> " + expected;
    if (expected != actual) {
      outcome.mismatch = true;
      outcome.log += "\n      MISMATCH: engine returned " + actual;
    }
  }

  // Writes have no result; they must simply not throw (their errors would be deferred).
  template <typename F>
  static void compareWrite(StepOutcome& outcome, F&& call) {
    std::string actual = attempt([&] {
      call();
      return std::string("ok");
    });
    if (actual != "ok") {
      outcome.mismatch = true;
      outcome.log += "\n      MISMATCH: engine threw " + actual;
    }
  }

  void openTransaction(int index, StepOutcome& outcome) {
    Slot& slot = slots_[index];
    slot.real.reset();
    slot.model.reset();
    std::string actual = attempt([&] {
      slot.real.emplace(db_.createTransaction());
      slot.real->getReadVersion().get();
      return std::string("ok");
    });
    slot.model.emplace(&modelDb_);
    compare(outcome, "ok", actual);
    outcome.log += "  (read version = model v" + std::to_string(slot.model->readVersion()) + ")";
  }

  void commit(const Step& step, StepOutcome& outcome) {
    Slot& slot = slots_[step.slot];
    const bool committed = slot.model->commit();
    std::string expected = committed ? "committed" : formatError(errors::kNotCommitted);
    std::string actual = attempt([&] {
      slot.real->commit().get();
      return std::string("committed");
    });
    compare(outcome, expected, actual);
    if (committed) {
      ++stats_->commitsOk;
      outcome.log += "  (model now at v" + std::to_string(modelDb_.latestVersion()) + ")";
      slot.real.reset();
      slot.model.reset();
      return;
    }
    ++stats_->commitsConflicted;
    switch (step.afterFailure) {
      case AfterFailure::kDiscard:
        slot.real.reset();
        slot.model.reset();
        return;
      case AfterFailure::kReset:
      case AfterFailure::kOnError: {
        if (outcome.mismatch) {  // the engine's transaction is in an unknown state
          slot.real.reset();
          slot.model.reset();
          return;
        }
        slot.model->reset();
        std::string retried = attempt([&] {
          if (step.afterFailure == AfterFailure::kReset) {
            slot.real->reset();
          } else {
            slot.real->onError(Error(errors::kNotCommitted)).get();
          }
          slot.real->getReadVersion().get();
          return std::string("ok");
        });
        if (retried != "ok") {
          outcome.mismatch = true;
          outcome.log += "\n      MISMATCH: retrying the transaction failed: " + retried;
        }
        outcome.log +=
            "  (read version = model v" + std::to_string(slot.model->readVersion()) + ")";
        return;
      }
    }
  }

  void checkDatabase(StepOutcome& outcome) {
    ++stats_->checks;
    const refmodel::KeyValueMap& state = modelDb_.latestState();
    std::string expected =
        formatRows(std::vector<std::pair<std::string, std::string>>(state.begin(), state.end()));
    std::string actual = attempt([&] {
      Transaction tr = db_.createTransaction();
      return formatRows(tr.getRangeAll(KeyRange{"", "\xff"}));
    });
    compare(outcome, expected, actual);
  }

  Database db_;
  refmodel::ModelDatabase modelDb_;
  std::array<Slot, kSlots> slots_;
  Stats* stats_;
};

// ---------------------------------------------------------------------------------------
// The generator: random steps over a small key alphabet, chosen with the runner's state in
// view (open slots, the model's current values for COMPARE_AND_CLEAR params).

class Generator {
 public:
  explicit Generator(uint64_t seed) : rng_(seed) {
    // One sequence in four stores mostly long values, so that the streaming modes' byte
    // limits (256 ... 120000 bytes) cut range reads.
    longValuePercent_ = chance(4) ? 40 : 5;
    keys_ = {"", "a", std::string("a\0", 2), "ab", "b", "c", "d\xfe"};
    static const char kAlphabet[] = {'\0', 'a', 'b', '\xfe'};
    for (int i = 0; i < 4; ++i) {
      std::string key;
      int length = pick(1, 3);
      for (int j = 0; j < length; ++j) key += kAlphabet[pick(0, 3)];
      keys_.push_back(key);
    }
  }

  Step next(const Runner& runner) {
    std::vector<int> open, closed;
    for (int i = 0; i < kSlots; ++i) (runner.isOpen(i) ? open : closed).push_back(i);
    Step step;
    if (open.empty() || (!closed.empty() && chance(8))) {
      step.kind = StepKind::kNewTransaction;
      step.slot = closed[pick(0, static_cast<int>(closed.size()) - 1)];
      return step;
    }
    step.slot = open[pick(0, static_cast<int>(open.size()) - 1)];
    step.snapshot = chance(3);
    // Weights of the step kinds (a new transaction replacing an open one is rare).
    static const std::vector<std::pair<StepKind, int>> kWeights = {
        {StepKind::kNewTransaction, 1},
        {StepKind::kGet, 12},
        {StepKind::kGetKey, 8},
        {StepKind::kGetRange, 14},
        {StepKind::kGetRangeAll, 3},
        {StepKind::kSet, 12},
        {StepKind::kClear, 4},
        {StepKind::kClearRange, 4},
        {StepKind::kAtomicOp, 12},
        {StepKind::kAddReadConflictRange, 3},
        {StepKind::kAddWriteConflictRange, 3},
        {StepKind::kCommit, 10},
        {StepKind::kReset, 2},
        {StepKind::kCheckDatabase, 2},
    };
    int total = 0;
    for (const auto& [kind, weight] : kWeights) total += weight;
    int roll = pick(0, total - 1);
    for (const auto& [kind, weight] : kWeights) {
      if (roll < weight) {
        step.kind = kind;
        break;
      }
      roll -= weight;
    }
    switch (step.kind) {
      case StepKind::kNewTransaction:
      case StepKind::kReset:
      case StepKind::kCheckDatabase: step.snapshot = false; break;
      case StepKind::kGet: step.key = key(); break;
      case StepKind::kGetKey: step.begin = selector(); break;
      case StepKind::kGetRange:
        step.options.limit = chance(3) ? 0 : pick(1, 5);
        step.options.targetBytes = chance(3) ? pick(1, chance(2) ? 120 : 3000) : 0;
        step.options.mode = mode(step.options.limit > 0 || step.options.targetBytes > 0);
        step.options.iteration = pick(1, 12);
        step.options.reverse = chance(2);
        if (chance(3)) {
          step.keyRangeForm = true;
          step.key = key();
          step.argument = chance(6) ? kMaxKeyText : key();
          if (step.key > step.argument && !chance(4)) std::swap(step.key, step.argument);
        } else {
          step.begin = selector();
          step.end = selector();
        }
        break;
      case StepKind::kGetRangeAll:
        std::tie(step.key, step.argument) = range();
        step.options.reverse = chance(2);
        // Serializable getRangeAll is only modelled without a limit (see the model).
        step.options.limit = step.snapshot && chance(2) ? pick(1, 4) : 0;
        break;
      case StepKind::kSet:
        step.snapshot = false;
        step.key = key();
        step.argument = value();
        break;
      case StepKind::kClear:
        step.snapshot = false;
        step.key = key();
        break;
      case StepKind::kClearRange:
      case StepKind::kAddReadConflictRange:
      case StepKind::kAddWriteConflictRange:
        step.snapshot = false;
        std::tie(step.key, step.argument) = range();
        break;
      case StepKind::kAtomicOp: {
        step.snapshot = false;
        static const MutationType kTypes[] = {
            MutationType::kAdd,          MutationType::kBitAnd,
            MutationType::kBitOr,        MutationType::kBitXor,
            MutationType::kAppendIfFits, MutationType::kMax,
            MutationType::kMin,          MutationType::kByteMin,
            MutationType::kByteMax,      MutationType::kCompareAndClear};
        step.mutation = kTypes[pick(0, 9)];
        step.key = key();
        step.argument = value();
        if (step.mutation == MutationType::kAppendIfFits && chance(4)) {
          // Big enough that appending it to a giant value overflows 100,000 bytes.
          step.argument = std::string(static_cast<size_t>(pick(40000, 99000)), 'z');
        }
        if (step.mutation == MutationType::kCompareAndClear && chance(2)) {
          // Often compare against the value the transaction sees, so that it clears.
          refmodel::KeyValueMap view = runner.modelView(step.slot);
          auto it = view.find(step.key);
          if (it != view.end()) step.argument = it->second;
        }
        break;
      }
      case StepKind::kCommit: {
        step.snapshot = false;
        int r = pick(0, 19);
        step.afterFailure = r < 8    ? AfterFailure::kDiscard
                            : r < 17 ? AfterFailure::kReset
                                     : AfterFailure::kOnError;
        break;
      }
    }
    return step;
  }

 private:
  static inline const std::string kMaxKeyText = "\xff";

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(int oneIn) { return pick(0, oneIn - 1) == 0; }

  std::string key() { return keys_[pick(0, static_cast<int>(keys_.size()) - 1)]; }

  // begin <= end; the end is sometimes the end of the key space.
  std::pair<std::string, std::string> range() {
    std::string a = key();
    std::string b = chance(8) ? kMaxKeyText : key();
    if (a > b) std::swap(a, b);
    return {a, b};
  }

  KeySelector selector() {
    KeySelector s;
    s.key = chance(12) ? kMaxKeyText : key();
    s.orEqual = s.key != kMaxKeyText && chance(2);
    s.offset = pick(-3, 3);
    return s;
  }

  StreamingMode mode(bool hasLimit) {
    static const StreamingMode kModes[] = {StreamingMode::kWantAll, StreamingMode::kIterator,
                                           StreamingMode::kSmall,   StreamingMode::kMedium,
                                           StreamingMode::kLarge,   StreamingMode::kSerial,
                                           StreamingMode::kExact};
    return kModes[pick(0, hasLimit ? 6 : 5)];
  }

  std::string value() {
    static const char kAlphabet[] = {'\0', '\x01', 'x', 'y', '\x7f', '\x80', '\xff'};
    if (pick(0, 99) < longValuePercent_) {
      // Long values; rarely a giant one, so that APPEND_IF_FITS can overflow 100,000 bytes.
      int r = pick(0, 99);
      int length = r < 60 ? pick(50, 400) : r < 98 ? pick(1000, 6000) : pick(40000, 99000);
      return std::string(static_cast<size_t>(length), kAlphabet[pick(0, 6)]);
    }
    int r = pick(0, 99);
    if (r < 10) return std::string();
    if (r < 50) {  // short random bytes
      std::string v;
      int length = pick(1, 4);
      for (int i = 0; i < length; ++i) v += kAlphabet[pick(0, 6)];
      return v;
    }
    // An 8-byte little-endian number: small, or any.
    uint64_t n = chance(2) ? static_cast<uint64_t>(pick(0, 300)) : rng_();
    std::string v(8, '\0');
    for (int i = 0; i < 8; ++i) v[i] = static_cast<char>((n >> (8 * i)) & 0xff);
    return v;
  }

  std::mt19937_64 rng_;
  std::vector<std::string> keys_;
  int longValuePercent_ = 5;
};

// ---------------------------------------------------------------------------------------
// Replay and minimization.

// Replays `steps` on a fresh engine and model; the index of the first mismatching step,
// or -1. `log` (if given) receives one line per step.
int replay(const std::vector<Step>& steps, std::vector<std::string>* log) {
  Stats stats;
  Runner runner(&stats);
  for (size_t i = 0; i < steps.size(); ++i) {
    StepOutcome outcome = runner.run(steps[i]);
    if (log != nullptr) log->push_back(outcome.log);
    if (outcome.mismatch) return static_cast<int>(i);
  }
  return -1;
}

// Removes steps (in shrinking chunks) while the sequence still fails.
std::vector<Step> minimize(std::vector<Step> steps) {
  int failing = replay(steps, nullptr);
  if (failing < 0) return steps;
  steps.resize(static_cast<size_t>(failing) + 1);
  int budget = 3000;  // replays
  for (size_t chunk = steps.size() / 2; chunk >= 1; chunk /= 2) {
    for (size_t start = 0; start < steps.size() && budget > 0;) {
      std::vector<Step> candidate(steps.begin(), steps.begin() + static_cast<ptrdiff_t>(start));
      candidate.insert(
          candidate.end(),
          steps.begin() + static_cast<ptrdiff_t>(std::min(start + chunk, steps.size())),
          steps.end());
      --budget;
      int f = candidate.empty() ? -1 : replay(candidate, nullptr);
      if (f >= 0) {
        candidate.resize(static_cast<size_t>(f) + 1);
        steps = std::move(candidate);
      } else {
        start += chunk;
      }
    }
    if (chunk == 1) break;
  }
  // Single-step removals until nothing more can go.
  for (bool progress = true; progress && budget > 0;) {
    progress = false;
    for (size_t start = 0; start + 1 < steps.size() && budget > 0;) {
      std::vector<Step> candidate = steps;
      candidate.erase(candidate.begin() + static_cast<ptrdiff_t>(start));
      --budget;
      int f = replay(candidate, nullptr);
      if (f >= 0) {
        candidate.resize(static_cast<size_t>(f) + 1);
        steps = std::move(candidate);
        progress = true;
      } else {
        ++start;
      }
    }
  }
  return steps;
}

std::string joinLog(const std::vector<std::string>& log) {
  std::string out;
  for (size_t i = 0; i < log.size(); ++i) out += "  [" + std::to_string(i) + "] " + log[i] + "\n";
  return out;
}

TEST(EngineModelTest, RandomSequencesMatchTheReferenceModel) {
  const uint64_t baseSeed = envOr("RL_MODEL_SEED", kDefaultBaseSeed);
  const int sequences = static_cast<int>(envOr("RL_MODEL_SEQUENCES", kDefaultSequences));
  const int stepsPerSequence = static_cast<int>(envOr("RL_MODEL_STEPS", kDefaultSteps));
  const bool trace = envOr("RL_MODEL_TRACE", 0) != 0;
  std::cout << "[model] base seed " << baseSeed << " (RL_MODEL_SEED=" << baseSeed
            << " reproduces), " << sequences << " sequences x " << stepsPerSequence << " steps\n";

  Stats stats;
  for (int sequence = 0; sequence < sequences; ++sequence) {
    const uint64_t seed = baseSeed + static_cast<uint64_t>(sequence);
    Generator generator(seed);
    Runner runner(&stats);
    std::vector<Step> steps;
    std::vector<std::string> log;
    for (int i = 0; i < stepsPerSequence; ++i) {
      // Every sequence ends with a full-database check.
      Step step;
      if (i + 1 == stepsPerSequence) {
        step.kind = StepKind::kCheckDatabase;
      } else {
        step = generator.next(runner);
      }
      steps.push_back(step);
      if (trace)
        std::cerr << "[model] seed " << seed << " [" << i << "] " << describe(steps.back()) << "\n";
      StepOutcome outcome = runner.run(steps.back());
      log.push_back(outcome.log);
      if (!outcome.mismatch) continue;

      std::vector<Step> minimal = minimize(steps);
      std::vector<std::string> minimalLog;
      replay(minimal, &minimalLog);
      ADD_FAILURE() << "Engine and reference model disagree.\n"
                    << "  seed " << seed << " (sequence " << sequence << " of base seed "
                    << baseSeed << "; RL_MODEL_SEED=" << seed
                    << " RL_MODEL_SEQUENCES=1 reproduces), step " << i << "\n"
                    << "Steps so far:\n"
                    << joinLog(log) << "Minimized reproduction (" << minimal.size() << " steps):\n"
                    << joinLog(minimalLog);
      return;
    }
  }
  std::cout << "[model] " << stats.steps << " steps, " << stats.reads << " reads, "
            << stats.commitsOk << " commits, " << stats.commitsConflicted << " not_committed, "
            << stats.checks << " database checks\n";
}

}  // namespace
}  // namespace fdb
