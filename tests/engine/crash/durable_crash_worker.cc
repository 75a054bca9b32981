// The crash test's worker (tests/engine/durable_crash_test.cc), run as its own process:
//
//   durable_crash_worker hold <dir>
//       opens the store, sets "held" to "yes", prints "ready", and keeps the store open until
//       its standard input closes (the second-owner test).
//   durable_crash_worker commit <dir> <first id> <threads>
//       opens the store with sync on commit, prints "ready", then commits from <threads>
//       threads until killed. Thread t commits transactions t + first, t + first + threads,
//       ...; transaction n sets tx/<n>/0 .. tx/<n>/<n % 5> to n and adds 1 to "count". Before
//       each commit it prints "start <n>", after commit() returns "ack <n>".
//   durable_crash_worker large <dir> <data MiB> <cache MiB> <window MiB>
//       writes <data MiB> of 1000-byte values (relaxed sync) into a store with that block
//       cache and window budget, reads them all back in batches, and prints
//       "rows <n> hwm_kb <peak RSS>" (the larger-than-memory test).
//   durable_crash_worker static <dir>
//       opens the store into a database held in a static, sets "static" to "kept", prints
//       "ready" and returns from main: the store is destroyed at exit, after RocksDB's own
//       singletons (the static-teardown test).
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fdb/database.h"
#include "fdb/error.h"
#include "fdb/transaction.h"

namespace {

// One line per write(2), so lines from several threads never interleave.
void say(const std::string& line) {
  std::string out = line + "\n";
  if (::write(1, out.data(), out.size()) != static_cast<ssize_t>(out.size())) std::_Exit(3);
}

std::string txKey(int64_t id, int part) {
  char key[48];
  std::snprintf(key, sizeof key, "tx/%012lld/%d", static_cast<long long>(id), part);
  return key;
}

// Emplaced in main, so destroyed at exit after what RocksDB made while opening the store.
std::optional<fdb::Database> staticDatabase;

int holdInStatic(const std::string& dir) {
  staticDatabase.emplace(fdb::Database::open("file:" + dir));
  staticDatabase->run([](fdb::Transaction& tr) { tr.set("static", "kept"); });
  say("ready");
  return 0;
}

int hold(const std::string& dir) {
  fdb::Database db = fdb::Database::open("file:" + dir);
  db.run([](fdb::Transaction& tr) { tr.set("held", "yes"); });
  say("ready");
  char buffer[64];
  while (::read(0, buffer, sizeof buffer) > 0) {
  }
  return 0;
}

int commit(const std::string& dir, int64_t first, int threads) {
  fdb::Database db = fdb::Database::open("file:" + dir);  // sync on commit: the default
  say("ready");
  std::string one(8, '\0');
  one[0] = 1;
  std::vector<std::thread> committers;
  for (int t = 0; t < threads; ++t) {
    committers.emplace_back([&, t] {
      for (int64_t id = first + t;; id += threads) {
        fdb::Transaction tr = db.createTransaction();
        while (true) {
          try {
            for (int part = 0; part <= id % 5; ++part) tr.set(txKey(id, part), std::to_string(id));
            tr.atomicOp("count", one, fdb::MutationType::kAdd);
            say("start " + std::to_string(id));
            tr.commit().get();
            say("ack " + std::to_string(id));
            break;
          } catch (const fdb::Error& e) {
            tr.onError(e).get();
          }
        }
      }
    });
  }
  for (std::thread& committer : committers) committer.join();
  return 0;
}

// VmHWM of /proc/self/status: the peak resident set, in KiB.
int64_t peakRssKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmHWM:")) return std::strtoll(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

int large(const std::string& dir, int64_t dataMib, int64_t cacheMib, int64_t windowMib) {
  fdb::EngineOptions options;
  options.durable.sync = fdb::EngineOptions::Durable::Sync::kRelaxed;
  options.durable.cacheBytes = cacheMib << 20;
  options.durable.windowBytes = windowMib << 20;
  fdb::Database db = fdb::Database::open("file:" + dir, options);
  constexpr int kValueBytes = 1000;
  constexpr int64_t kRowsPerCommit = 200;
  const int64_t rows = (dataMib << 20) / kValueBytes;
  auto keyOf = [](int64_t i) {
    char key[32];
    std::snprintf(key, sizeof key, "big/%010lld", static_cast<long long>(i));
    return std::string(key);
  };
  auto valueOf = [](int64_t i) {  // incompressible, and different for every row
    std::string value(kValueBytes, '\0');
    uint64_t x = static_cast<uint64_t>(i) * 0x9e3779b97f4a7c15ULL + 1;
    for (char& c : value) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      c = static_cast<char>(x);
    }
    return value;
  };
  for (int64_t first = 0; first < rows; first += kRowsPerCommit) {
    db.run([&](fdb::Transaction& tr) {
      for (int64_t i = first; i < std::min(rows, first + kRowsPerCommit); ++i) {
        tr.set(keyOf(i), valueOf(i));
      }
    });
  }
  const int64_t writtenHwm = peakRssKib();
  int64_t seen = 0;
  std::string from = "big/";
  while (true) {
    fdb::RangeOptions batch;
    batch.limit = 1000;
    std::vector<fdb::KeyValue> got = db.run([&](fdb::Transaction& tr) {
      fdb::RangeResult result = tr.getRange(fdb::KeySelector::firstGreaterOrEqual(from),
                                            fdb::KeySelector::firstGreaterOrEqual("big0"), batch)
                                    .get();
      std::vector<fdb::KeyValue> owned;
      for (const auto& row : result.rows) owned.push_back(fdb::KeyValue(row));
      return owned;
    });
    if (got.empty()) break;
    for (const fdb::KeyValue& row : got) {
      if (row.key != keyOf(seen) || row.value != valueOf(seen)) {
        std::fprintf(stderr, "durable_crash_worker: row %lld is wrong\n",
                     static_cast<long long>(seen));
        return 4;
      }
      ++seen;
    }
    from = got.back().key + '\0';
  }
  say("rows " + std::to_string(seen) + " hwm_kb " + std::to_string(peakRssKib()) +
      " written_hwm_kb " + std::to_string(writtenHwm));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::strcmp(argv[1], "hold") == 0) return hold(argv[2]);
    if (argc == 3 && std::strcmp(argv[1], "static") == 0) return holdInStatic(argv[2]);
    if (argc == 6 && std::strcmp(argv[1], "large") == 0) {
      return large(argv[2], std::strtoll(argv[3], nullptr, 10), std::strtoll(argv[4], nullptr, 10),
                   std::strtoll(argv[5], nullptr, 10));
    }
    if (argc == 5 && std::strcmp(argv[1], "commit") == 0) {
      return commit(argv[2], std::strtoll(argv[3], nullptr, 10), std::atoi(argv[4]));
    }
  } catch (const fdb::Error& e) {
    std::fprintf(stderr, "durable_crash_worker: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: durable_crash_worker hold <dir> | static <dir> | commit <dir> <first id> "
               "<threads> | large <dir> <data MiB> <cache MiB> <window MiB>\n");
  return 2;
}
