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
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::strcmp(argv[1], "hold") == 0) return hold(argv[2]);
    if (argc == 5 && std::strcmp(argv[1], "commit") == 0) {
      return commit(argv[2], std::strtoll(argv[3], nullptr, 10), std::atoi(argv[4]));
    }
  } catch (const fdb::Error& e) {
    std::fprintf(stderr, "durable_crash_worker: %s\n", e.what());
    return 1;
  }
  std::fprintf(stderr,
               "usage: durable_crash_worker hold <dir> | commit <dir> <first id> <threads>\n");
  return 2;
}
