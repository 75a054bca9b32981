// clientbench — the client workloads of docs/benchmarks.md ("clientbench"), one transaction per
// iteration, on these arms in one binary:
//   rl                the embedded engine through the fdb:: client API
//   rl_delay250       the same with a simulated 250 us one-way network delay
//   rl_c              the same engine through the C API called directly, as a binding
//                     does, on this build's libfdb_c.so (src/capi/): rl_c / rl is what the
//                     C boundary costs
//   rl_capi           the same engine through the FoundationDB backend (src/fdbc/, an fdb:
//                     address) on that libfdb_c.so: fdb:: over the C API, as when running
//                     on a real cluster
//   rl_capi_delay250  rl_capi with the simulated 250 us delay (futures then complete on the
//                     library's network thread)
//   rocksdb           the peer: RocksDB's OptimisticTransactionDB over an in-memory Env —
//                     what a user would pick instead for an embedded transactional store
//   rl_durable        the engine on a durable store (file:<dir>) with sync on commit
//   rocksdb_durable   its peer: OptimisticTransactionDB on disk, commits with sync=true, in
//                     the same directory tree (RL_BENCH_DIR, default the temporary directory)
// and groupcommit64/{rl_durable,rocksdb_durable}: 64 threads committing set100 transactions
// at once, reporting commits per WAL sync and commits per second.
//
// Cluster mode (RL_CLIENTBENCH_CLUSTER_FILE=<cluster file>): the C-API arms run on the
// database that cluster file names, through the libfdb_c the backend picks by its own rules
// (RL_FDB_C_LIBRARY, else the system's libfdb_c.so; include/fdbc/library.h), every key under
// the run's prefix ("clientbench", <run id>), which is cleared before and after each arm and
// at the end. A process loads one libfdb_c, so rl_c, rl_capi and rl_capi_delay250 (this
// build's library) are left out; the arms are named after the library that was loaded:
//   fdb_c             the C API called directly, waiting as a synchronous binding does
//   fdb_capi          the FoundationDB backend (fdb:: over the C API)
// or rl_c_prefixed and rl_capi_prefixed when it is this project's own library, allowed on
// purpose with RL_FDB_C_ALLOW_EMBEDDED=1 (the embedded engine behind whatever the cluster
// file names: how the mode is tested without a cluster). The other arms run as without it.
// docs/benchmarks.md defines each workload's peer operation and how to read the output.
//
// Counters per iteration (= per transaction): p50/p90/p99 latency (ns), process CPU (ns),
// allocations and allocated bytes (malloc, calloc, realloc and operator new, all libraries).
// Label: digest=<hex> (result_digest.h) of what the first transaction returned — the value or
// rows read, the keys written and that the commit succeeded — the same on every arm. (It is
// hashed inside that first timed iteration: at most microseconds once in a run of thousands.)
#include <benchmark/benchmark.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/statistics.h>
#include <rocksdb/utilities/optimistic_transaction_db.h>
#include <rocksdb/utilities/transaction.h>
#include <time.h>

#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "alloc_counter.h"
#include "fdb/bytes.h"
#include "fdb/database.h"
#include "fdb/durable.h"
#include "fdb/error.h"
#include "fdb/tuple.h"
#include "fdbc/client.h"
#include "fdbc/library.h"
#include "result_digest.h"

namespace {

constexpr int kKeys = 1000;

std::string keyOf(int i) { return "key" + std::to_string(100000 + i); }

enum class Workload {
  kGrv,
  kGet100,
  kGet1000,
  kGet10000,
  kRead1000,
  kRange10,
  kRange100,
  kSet100,
  kRyw,
  kBatchSet50,
  kBatchSet50x1000,
};

size_t valueSize(Workload w) {
  switch (w) {
    case Workload::kGet1000:
    case Workload::kRead1000:
    case Workload::kBatchSet50x1000: return 1000;
    case Workload::kGet10000: return 10000;
    default: return 100;
  }
}

int64_t processCpuNanos() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Runs `transaction` once per iteration and reports the counters of the file comment.
template <typename Transaction>
void measure(benchmark::State& state, Transaction&& transaction) {
  std::vector<int64_t> latencies;
  latencies.reserve(1 << 20);
  int64_t cpuBefore = processCpuNanos();
  rl::bench::AllocationCounts allocBefore = rl::bench::allocationCounts();
  int64_t i = 0;
  for (auto _ : state) {
    auto start = std::chrono::steady_clock::now();
    transaction(i++);
    auto end = std::chrono::steady_clock::now();
    if (latencies.size() < latencies.capacity()) {
      latencies.push_back(
          std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count());
    }
  }
  rl::bench::AllocationCounts spent = rl::bench::allocationCounts() - allocBefore;
  int64_t cpu = processCpuNanos() - cpuBefore;
  double n = static_cast<double>(state.iterations());
  std::sort(latencies.begin(), latencies.end());
  auto percentile = [&](double p) {
    if (latencies.empty()) return 0.0;
    return static_cast<double>(
        latencies[static_cast<size_t>(p * static_cast<double>(latencies.size() - 1))]);
  };
  state.counters["p50_ns"] = percentile(0.50);
  state.counters["p90_ns"] = percentile(0.90);
  state.counters["p99_ns"] = percentile(0.99);
  state.counters["cpu_ns"] = static_cast<double>(cpu) / n;
  // (latencies' own vector reserve happened before counting started)
  state.counters["allocs"] = static_cast<double>(spent.allocations) / n;
  state.counters["bytes"] = static_cast<double>(spent.bytes) / n;
}

// ---- Stores on disk (the durable arms) ------------------------------------------------

// Where the durable arms keep their stores: RL_BENCH_DIR, else the temporary directory. Ours
// and the peer's are on the same disk.
std::filesystem::path durableRoot() {
  const char* dir = std::getenv("RL_BENCH_DIR");
  return dir != nullptr && *dir != '\0' ? std::filesystem::path(dir)
                                        : std::filesystem::temp_directory_path();
}

// A fresh directory for one run's store, removed with it.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& arm) {
    static std::atomic<int> runs{0};
    path_ = durableRoot() / ("clientbench_" + std::to_string(::getpid()) + "_" + arm + "_" +
                             std::to_string(runs++));
    std::filesystem::remove_all(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// ---- Cluster mode ---------------------------------------------------------------------
//
// RL_CLIENTBENCH_CLUSTER_FILE names the cluster file; RL_CLIENTBENCH_RUN_ID the run (default
// "<unix seconds>-<pid>-<random>"). Every key the C-API arms write is the tuple
// ("clientbench", <run id>, keyOf(i)), so they share a cluster with anything but this run.

struct ClusterMode {
  std::string clusterFile;
  std::string runId;
  std::string prefix;  // ("clientbench", <run id>) packed
  fdb::fdbc::ClientLibraryInfo library;
  std::string cArm;     // the arms' names, after the library: fdb_c or rl_c_prefixed
  std::string capiArm;  // fdb_capi or rl_capi_prefixed
};

// Set in cluster mode (before any benchmark is registered).
std::optional<ClusterMode> cluster;

// Every key of the run: [prefix, prefix + 0xff).
fdb::KeyRange clusterRange() { return fdb::KeyRange{cluster->prefix, cluster->prefix + '\xff'}; }

// The key of row i on the cluster: the prefix followed by keyOf(i) packed as a tuple string
// (0x02, the bytes, 0x00: keyOf has no NUL byte to escape).
std::string clusterKeyOf(int i) {
  std::string key = cluster->prefix;
  key += '\x02';
  key += keyOf(i);
  key += '\x00';
  return key;
}

// Clears every key of the run, in a transaction that gives up after 30 s (an unreachable
// cluster fails with transaction_timed_out, 1031, instead of hanging).
void clearClusterKeys(fdb::Database& db) {
  db.run([](fdb::Transaction& tr) {
    tr.setOption(fdb::TransactionOption::kTimeout, 30000);
    tr.clearRange(clusterRange());
  });
}

// The cluster's database through the backend, opened on first use and then shared by every
// arm (one connection, as an application holds one); nullopt until a cluster arm runs.
std::optional<fdb::Database> clusterDb;

fdb::Database& clusterDatabase() {
  if (!clusterDb) clusterDb = fdb::Database::open("fdb:" + cluster->clusterFile);
  return *clusterDb;
}

// The same for the C arm: its own FDBDatabase, created on first use and shared by its runs.
FDBDatabase* clusterCDb = nullptr;

// Runs one cluster arm's `body`: the run's keys are cleared before it and after it. An
// fdb::Error (a failed clear or seeding, an error the retry loop does not retry) skips the
// arm with its message.
template <typename Body>
void runOnCluster(benchmark::State& state, Body&& body) {
  try {
    fdb::Database& db = clusterDatabase();
    clearClusterKeys(db);
    body(db);
    clearClusterKeys(db);
  } catch (const fdb::Error& e) {
    if (!state.error_occurred()) state.SkipWithError(e.what());
  }
}

// At the end of a cluster run: clears the run's keys once more, checks that none is left and
// closes the database (before exit: its handle must not outlive what it uses, such as the
// durable store's RocksDB when the cluster file names one of ours). Returns false (saying why
// on stderr) when that fails.
bool finishCluster() {
  if (!clusterDb) return true;  // no cluster arm ran
  struct Close {
    ~Close() {
      if (clusterCDb != nullptr)
        fdb::fdbc::Client::instance().api().fdb_database_destroy(clusterCDb);
      clusterCDb = nullptr;
      clusterDb.reset();
    }
  } close;
  try {
    clearClusterKeys(*clusterDb);
    size_t left = clusterDb->run([](fdb::Transaction& tr) {
      tr.setOption(fdb::TransactionOption::kTimeout, 30000);
      fdb::RangeOptions options;
      options.limit = 1;
      return tr.getRange(clusterRange(), options).get().rows.size();
    });
    if (left != 0) {
      std::fprintf(stderr, "clientbench: keys are left under %s after clearing them\n",
                   fdb::printable(cluster->prefix).c_str());
      return false;
    }
  } catch (const fdb::Error& e) {
    std::fprintf(stderr, "clientbench: could not clear the run's keys under %s: %s\n",
                 fdb::printable(cluster->prefix).c_str(), e.what());
    return false;
  }
  return true;
}

// ---- Our engine ---------------------------------------------------------------------

// How an arm reaches the engine: directly, through the C boundary, or directly on a durable
// store (sync on commit) in `durableDir`.
enum class Path { kDirect, kCApi, kDurable };

// A cluster file naming a fresh private in-memory database ("memory:"), for the rl_capi arms:
// every fdb_create_database on it opens a new one. Written on first use.
std::optional<std::filesystem::path> capiClusterPath;

const std::string& capiClusterFile() {
  static const std::string path = [] {
    capiClusterPath = std::filesystem::temp_directory_path() /
                      ("clientbench_" + std::to_string(::getpid()) + ".cluster");
    std::ofstream(*capiClusterPath) << "memory:\n";
    return capiClusterPath->string();
  }();
  return path;
}

// The library loaded for the rl_capi arms, or why it could not be.
std::optional<std::string> capiLoadError;

// Rows a seeding transaction writes: 100 on our own databases (under 10 MB, the transaction
// size limit); on a cluster up to 1 MB of values (FoundationDB's advice for a transaction),
// so 1,000 rows in one transaction but for 10 kB values (100).
int seedRowsPerTransaction(Workload w, bool onCluster) {
  if (!onCluster) return 100;
  return static_cast<int>(std::min<size_t>(kKeys, 1000000 / valueSize(w)));
}

// Writes the 1,000 rows of the workload's value size: key(i) for i in [0, kKeys).
template <typename Key>
void seedEngine(fdb::Database& db, Workload w, int rowsPerTransaction, Key&& key) {
  std::string value(valueSize(w), 'v');
  for (int start = 0; start < kKeys; start += rowsPerTransaction) {
    db.run([&](fdb::Transaction& tr) {
      for (int i = start; i < std::min(kKeys, start + rowsPerTransaction); ++i) {
        tr.set(key(i), value);
      }
    });
  }
}

fdb::Database openEngine(Workload w, int64_t oneWayDelayMicros, Path path,
                         const std::filesystem::path& durableDir = {}) {
  fdb::Database db = [&] {
    if (path == Path::kDurable) return fdb::Database::open("file:" + durableDir.string());
    if (path == Path::kDirect) {
      fdb::EngineOptions options;
      options.oneWayDelayMicros = oneWayDelayMicros;
      return fdb::Database::open("memory:", options);
    }
    // Our libfdb_c reads the simulated delay from the environment when a database is created.
    if (oneWayDelayMicros > 0) {
      ::setenv("RECORDLAYER_ONE_WAY_DELAY_US", std::to_string(oneWayDelayMicros).c_str(), 1);
    }
    fdb::Database opened = fdb::Database::open("fdb:" + capiClusterFile());
    ::unsetenv("RECORDLAYER_ONE_WAY_DELAY_US");
    return opened;
  }();
  seedEngine(db, w, seedRowsPerTransaction(w, false), keyOf);
  return db;
}

// The workload's transactions on `db`, one an iteration, with the counters of measure() and
// round trips. kOnCluster: keys under the run's prefix (clusterKeyOf), and an error onError
// retries is retried in the same iteration (counted in `retries`); otherwise keys are keyOf
// and nothing is retried (the engine gives no error here: one would end the process).
template <bool kOnCluster>
void measureEngine(benchmark::State& state, Workload w, fdb::Database& db) {
  auto key = [](int i) {
    if constexpr (kOnCluster) {
      return clusterKeyOf(i);
    } else {
      return keyOf(i);
    }
  };
  const fdb::RoundTrips setupTrips = db.roundTrips();
  const std::string value(valueSize(w), 'w');
  fdb::RangeOptions rangeOptions;
  rangeOptions.mode = fdb::StreamingMode::kWantAll;
  bool ok = true;
  rl::bench::ResultDigest digest;
  rl::bench::ResultDigest* d = nullptr;  // the first transaction's: see the file comment
  auto addValue = [&](const std::optional<fdb::Bytes>& v) {
    if (d != nullptr) d->add(v ? std::string_view(*v) : std::string_view("(absent)"));
  };
  auto attempt = [&](fdb::Transaction& tr, int k) {
    switch (w) {
      case Workload::kGrv: {
        const int64_t version = tr.getReadVersion().get();
        benchmark::DoNotOptimize(version);
        if (d != nullptr) d->add(version > 0 ? "version" : "no version");
        break;
      }
      case Workload::kGet100:
      case Workload::kGet1000:
      case Workload::kGet10000: {
        const auto v = tr.get(key(k)).get();
        ok &= v.has_value();
        addValue(v);
        break;
      }
      case Workload::kRead1000: {
        const auto v = tr.snapshot().get(key(k)).get();
        ok &= v.has_value();
        addValue(v);
        break;
      }
      case Workload::kRange10:
      case Workload::kRange100: {
        int rows = w == Workload::kRange10 ? 10 : 100;
        int first = k % (kKeys - rows);
        fdb::RangeResult r =
            tr.getRange(fdb::KeyRange{key(first), key(first + rows)}, rangeOptions).get();
        ok &= static_cast<int>(r.rows.size()) == rows;
        if (d != nullptr) {
          for (const auto& row : r.rows) {
            d->add(std::string_view(row.key));
            d->add(std::string_view(row.value));
          }
        }
        break;
      }
      case Workload::kSet100:
        tr.set(key(k), value);
        tr.commit().get();
        if (d != nullptr) {
          d->add(key(k));
          d->add("committed");
        }
        break;
      case Workload::kRyw: {
        const std::string rywKey = key(k);
        tr.set(rywKey, value);
        const auto v = tr.get(rywKey).get();
        ok &= v.has_value();
        addValue(v);
        tr.cancel();
        break;
      }
      case Workload::kBatchSet50:
      case Workload::kBatchSet50x1000:
        for (int j = 0; j < 50; ++j) tr.set(key((k + j) % kKeys), value);
        tr.commit().get();
        if (d != nullptr) {
          for (int j = 0; j < 50; ++j) d->add(key((k + j) % kKeys));
          d->add("committed");
        }
        break;
    }
  };
  int64_t retries = 0;
  measure(state, [&](int64_t i) {
    int k = static_cast<int>(i % kKeys);
    d = i == 0 ? &digest : nullptr;
    fdb::Transaction tr = db.createTransaction();
    if constexpr (kOnCluster) {
      while (true) {
        try {
          attempt(tr, k);
          break;
        } catch (const fdb::Error& e) {
          tr.onError(e).get();  // throws what it does not retry
          ++retries;
        }
      }
    } else {
      attempt(tr, k);
    }
  });
  if (!ok) state.SkipWithError("a read returned the wrong result");
  digest.publish(state);
  const double n = static_cast<double>(std::max<int64_t>(1, state.iterations()));
  int64_t trips = db.roundTrips().total() - setupTrips.total();
  state.counters["round_trips"] = static_cast<double>(trips) / n;
  if constexpr (kOnCluster) state.counters["retries"] = static_cast<double>(retries) / n;
}

void runEngine(benchmark::State& state, Workload w, int64_t oneWayDelayMicros,
               Path path = Path::kDirect) {
  if (path == Path::kCApi && capiLoadError) {
    state.SkipWithError(capiLoadError->c_str());
    return;
  }
  std::optional<ScratchDir> durableDir;
  if (path == Path::kDurable) durableDir.emplace("rl_durable");
  fdb::Database db = openEngine(w, oneWayDelayMicros, path,
                                durableDir ? durableDir->path() : std::filesystem::path());
  measureEngine<false>(state, w, db);
}

// The fdb_capi (or rl_capi_prefixed) arm: the backend on the cluster.
void runEngineOnCluster(benchmark::State& state, Workload w) {
  runOnCluster(state, [&](fdb::Database& db) {
    seedEngine(db, w, seedRowsPerTransaction(w, true), clusterKeyOf);
    measureEngine<true>(state, w, db);
  });
}

// ---- Our engine through the C API, called directly ---------------------------------
//
// What a binding does: the workloads written against fdb_c.h's functions on the loaded
// libfdb_c. Without a cluster it is this build's libfdb_c.so with no simulated delay, so
// every future is born ready (one that is not is an error here): rl_c / rl is what the C
// boundary itself costs. kOnCluster (the fdb_c or rl_c_prefixed arm): the cluster file's
// database, keys under the run's prefix, each future waited for with
// fdb_future_block_until_ready, and an error fdb_transaction_on_error retries retried in the
// same iteration (counted in `retries`).

template <bool kOnCluster>
void runC(benchmark::State& state, Workload w) {
  if (capiLoadError) {
    state.SkipWithError(capiLoadError->c_str());
    return;
  }
  auto key = [](int i) {
    if constexpr (kOnCluster) {
      return clusterKeyOf(i);
    } else {
      return keyOf(i);
    }
  };
  const fdb::fdbc::CApi& c = fdb::fdbc::Client::instance().api();
  auto u8 = [](const std::string& s) { return reinterpret_cast<const uint8_t*>(s.data()); };
  auto len = [](const std::string& s) { return static_cast<int>(s.size()); };
  // Without a cluster a fresh database for this run, destroyed at its end; on the cluster the
  // shared one.
  FDBDatabase* db = kOnCluster ? clusterCDb : nullptr;
  if (db == nullptr) {
    const std::string& clusterFile = kOnCluster ? cluster->clusterFile : capiClusterFile();
    if (fdb_error_t error = c.fdb_create_database(clusterFile.c_str(), &db); error != 0) {
      state.SkipWithError(
          ("fdb_create_database failed: " + std::to_string(error) + " " + c.fdb_get_error(error))
              .c_str());
      return;
    }
    if constexpr (kOnCluster) clusterCDb = db;
  }
  bool ok = true;
  rl::bench::ResultDigest digest;
  rl::bench::ResultDigest* d = nullptr;  // the first transaction's: see the file comment
  fdb_error_t failure = 0;               // the first error that failed the arm
  int64_t retries = 0;
  // A future's error once it is ready (0 when it succeeded); without a cluster it must be
  // born ready.
  auto wait = [&](FDBFuture* f) -> fdb_error_t {
    if constexpr (kOnCluster) {
      if (fdb_error_t error = c.fdb_future_block_until_ready(f); error != 0) return error;
    } else {
      ok &= c.fdb_future_is_ready(f) != 0;
    }
    return c.fdb_future_get_error(f);
  };
  // Runs attempt(tr) in a new transaction; attempt returns the error of the future that
  // failed, 0 when all succeeded. On a cluster, errors fdb_transaction_on_error retries are
  // retried; any other error fails the arm.
  auto transact = [&](auto&& attempt) {
    FDBTransaction* tr = nullptr;
    if (fdb_error_t error = c.fdb_database_create_transaction(db, &tr); error != 0) {
      ok = false;
      if (failure == 0) failure = error;
      return;
    }
    while (true) {
      fdb_error_t error = attempt(tr);
      if (error == 0) break;
      if constexpr (kOnCluster) {
        FDBFuture* f = c.fdb_transaction_on_error(tr, error);
        fdb_error_t retry = wait(f);
        c.fdb_future_destroy(f);
        if (retry == 0) {
          ++retries;
          continue;
        }
        error = retry;
      }
      ok = false;
      if (failure == 0) failure = error;
      break;
    }
    c.fdb_transaction_destroy(tr);
  };
  // Reads `key`, which must be there: the read's error, 0 when it succeeded.
  auto getPresent = [&](FDBTransaction* tr, const std::string& key, fdb_bool_t snapshot) {
    FDBFuture* f = c.fdb_transaction_get(tr, u8(key), len(key), snapshot);
    fdb_error_t error = wait(f);
    fdb_bool_t present = 0;
    const uint8_t* bytes = nullptr;
    int length = 0;
    if (error == 0) ok &= c.fdb_future_get_value(f, &present, &bytes, &length) == 0 && present;
    if (error == 0 && d != nullptr) {
      d->add(present ? std::string_view(reinterpret_cast<const char*>(bytes),
                                        static_cast<size_t>(length))
                     : std::string_view("(absent)"));
    }
    c.fdb_future_destroy(f);
    return error;
  };
  auto commit = [&](FDBTransaction* tr) {
    FDBFuture* f = c.fdb_transaction_commit(tr);
    fdb_error_t error = wait(f);
    c.fdb_future_destroy(f);
    return error;
  };
  {
    std::string value(valueSize(w), 'v');
    const int rows = seedRowsPerTransaction(w, kOnCluster);
    for (int start = 0; start < kKeys; start += rows) {
      transact([&](FDBTransaction* tr) {
        for (int i = start; i < std::min(kKeys, start + rows); ++i) {
          std::string rowKey = key(i);
          c.fdb_transaction_set(tr, u8(rowKey), len(rowKey), u8(value), len(value));
        }
        return commit(tr);
      });
    }
  }
  const std::string value(valueSize(w), 'w');
  retries = 0;  // the measured transactions' only
  measure(state, [&](int64_t i) {
    int k = static_cast<int>(i % kKeys);
    d = i == 0 ? &digest : nullptr;
    // Each workload builds its keys as the direct arm does (none for grv).
    transact([&](FDBTransaction* tr) -> fdb_error_t {
      switch (w) {
        case Workload::kGrv: {
          FDBFuture* f = c.fdb_transaction_get_read_version(tr);
          fdb_error_t error = wait(f);
          int64_t version = 0;
          if (error == 0) ok &= c.fdb_future_get_int64(f, &version) == 0;
          benchmark::DoNotOptimize(version);
          if (error == 0 && d != nullptr) d->add(version > 0 ? "version" : "no version");
          c.fdb_future_destroy(f);
          return error;
        }
        case Workload::kGet100:
        case Workload::kGet1000:
        case Workload::kGet10000:
        case Workload::kRead1000: {
          fdb_bool_t snapshot = w == Workload::kRead1000;
          const std::string getKey = key(k);
          return getPresent(tr, getKey, snapshot);
        }
        case Workload::kRange10:
        case Workload::kRange100: {
          int rows = w == Workload::kRange10 ? 10 : 100;
          int first = k % (kKeys - rows);
          std::string begin = key(first), end = key(first + rows);
          FDBFuture* f =
              c.fdb_transaction_get_range(tr, u8(begin), len(begin), 0, 1, u8(end), len(end), 0, 1,
                                          0, 0, FDB_STREAMING_MODE_WANT_ALL, 1, 0, 0);
          fdb_error_t error = wait(f);
          const FDBKeyValue* kvs = nullptr;
          int count = 0;
          fdb_bool_t more = 0;
          if (error == 0) {
            ok &= c.fdb_future_get_keyvalue_array(f, &kvs, &count, &more) == 0 && count == rows;
            for (int r = 0; d != nullptr && r < count; ++r) {
              d->add(std::string_view(reinterpret_cast<const char*>(kvs[r].key),
                                      static_cast<size_t>(kvs[r].key_length)));
              d->add(std::string_view(reinterpret_cast<const char*>(kvs[r].value),
                                      static_cast<size_t>(kvs[r].value_length)));
            }
          }
          c.fdb_future_destroy(f);
          return error;
        }
        case Workload::kSet100: {
          const std::string setKey = key(k);
          c.fdb_transaction_set(tr, u8(setKey), len(setKey), u8(value), len(value));
          const fdb_error_t error = commit(tr);
          if (error == 0 && d != nullptr) {
            d->add(setKey);
            d->add("committed");
          }
          return error;
        }
        case Workload::kRyw: {
          const std::string rywKey = key(k);
          c.fdb_transaction_set(tr, u8(rywKey), len(rywKey), u8(value), len(value));
          fdb_error_t error = getPresent(tr, rywKey, 0);
          if (error == 0) c.fdb_transaction_cancel(tr);
          return error;
        }
        case Workload::kBatchSet50:
        case Workload::kBatchSet50x1000:
          for (int j = 0; j < 50; ++j) {
            std::string batchKey = key((k + j) % kKeys);
            c.fdb_transaction_set(tr, u8(batchKey), len(batchKey), u8(value), len(value));
          }
          if (const fdb_error_t error = commit(tr); error != 0 || d == nullptr) return error;
          for (int j = 0; j < 50; ++j) d->add(key((k + j) % kKeys));
          d->add("committed");
          return 0;
      }
      return 0;
    });
  });
  if constexpr (!kOnCluster) c.fdb_database_destroy(db);
  const double n = static_cast<double>(std::max<int64_t>(1, state.iterations()));
  if constexpr (kOnCluster) state.counters["retries"] = static_cast<double>(retries) / n;
  if (failure != 0) {
    state.SkipWithError(
        ("a C call failed: " + std::to_string(failure) + " " + c.fdb_get_error(failure)).c_str());
  } else if (!ok) {
    state.SkipWithError("a C call failed or returned the wrong result");
  } else {
    digest.publish(state);
  }
}

// The fdb_c (or rl_c_prefixed) arm: the C API on the cluster.
void runCOnCluster(benchmark::State& state, Workload w) {
  runOnCluster(state, [&](fdb::Database&) { runC<true>(state, w); });
}

// ---- RocksDB OptimisticTransactionDB ------------------------------------------------

struct RocksDbPeer {
  std::unique_ptr<rocksdb::Env> env;
  std::optional<ScratchDir> dir;  // durable: the store on disk
  std::shared_ptr<rocksdb::Statistics> statistics;
  std::unique_ptr<rocksdb::OptimisticTransactionDB> db;

  // `durable`: on disk (commits then sync: see runRocksDb), else over an in-memory Env.
  explicit RocksDbPeer(Workload w, bool durable = false) {
    rocksdb::Options options;
    options.create_if_missing = true;
    std::string path = "/clientbench";
    if (durable) {
      dir.emplace("rocksdb_durable");
      path = dir->path().string();
      statistics = rocksdb::CreateDBStatistics();
      options.statistics = statistics;
    } else {
      env.reset(rocksdb::NewMemEnv(rocksdb::Env::Default()));
      options.env = env.get();
    }
    rocksdb::OptimisticTransactionDB* raw = nullptr;
    rocksdb::Status s = rocksdb::OptimisticTransactionDB::Open(options, path, &raw);
    if (!s.ok()) throw std::runtime_error(s.ToString());
    db.reset(raw);
    std::string value(valueSize(w), 'v');
    for (int i = 0; i < kKeys; ++i) db->Put(rocksdb::WriteOptions(), keyOf(i), value);
  }
  ~RocksDbPeer() {
    db.reset();  // before its Env
  }
};

void runRocksDb(benchmark::State& state, Workload w, bool durable = false) {
  RocksDbPeer peer(w, durable);
  rocksdb::OptimisticTransactionDB& db = *peer.db;
  rocksdb::WriteOptions writeOptions;
  writeOptions.sync = durable;
  rocksdb::OptimisticTransactionOptions snapshotOptions;
  snapshotOptions.set_snapshot = true;
  const std::string value(valueSize(w), 'w');
  bool ok = true;
  rl::bench::ResultDigest digest;
  measure(state, [&](int64_t i) {
    int k = static_cast<int>(i % kKeys);
    rl::bench::ResultDigest* d = i == 0 ? &digest : nullptr;  // see the file comment
    std::string out;
    switch (w) {
      case Workload::kGrv: {  // begin a transaction and take a snapshot
        std::unique_ptr<rocksdb::Transaction> txn(
            db.BeginTransaction(writeOptions, snapshotOptions));
        benchmark::DoNotOptimize(txn->GetSnapshot());
        if (d != nullptr) d->add(txn->GetSnapshot() != nullptr ? "version" : "no version");
        break;
      }
      case Workload::kGet100:
      case Workload::kGet1000:
      case Workload::kGet10000: {  // a serializable read: tracked for conflict checking
        std::unique_ptr<rocksdb::Transaction> txn(
            db.BeginTransaction(writeOptions, snapshotOptions));
        rocksdb::ReadOptions ro;
        ro.snapshot = txn->GetSnapshot();
        ok &= txn->GetForUpdate(ro, keyOf(k), &out).ok();
        if (d != nullptr) d->add(out);
        break;
      }
      case Workload::kRead1000: {  // a snapshot read
        const rocksdb::Snapshot* snapshot = db.GetBaseDB()->GetSnapshot();
        rocksdb::ReadOptions ro;
        ro.snapshot = snapshot;
        ok &= db.GetBaseDB()->Get(ro, keyOf(k), &out).ok();
        db.GetBaseDB()->ReleaseSnapshot(snapshot);
        if (d != nullptr) d->add(out);
        break;
      }
      case Workload::kRange10:
      case Workload::kRange100: {
        int rows = w == Workload::kRange10 ? 10 : 100;
        int first = k % (kKeys - rows);
        std::unique_ptr<rocksdb::Transaction> txn(
            db.BeginTransaction(writeOptions, snapshotOptions));
        rocksdb::ReadOptions ro;
        ro.snapshot = txn->GetSnapshot();
        std::string end = keyOf(first + rows);
        std::unique_ptr<rocksdb::Iterator> it(txn->GetIterator(ro));
        int seen = 0;
        for (it->Seek(keyOf(first)); it->Valid() && it->key().ToString() < end; it->Next()) {
          benchmark::DoNotOptimize(it->value().data());
          if (d != nullptr) {
            d->add(it->key().ToStringView());
            d->add(it->value().ToStringView());
          }
          ++seen;
        }
        ok &= seen == rows;
        break;
      }
      case Workload::kSet100: {
        std::unique_ptr<rocksdb::Transaction> txn(
            db.BeginTransaction(writeOptions, snapshotOptions));
        txn->Put(keyOf(k), value);
        const bool committed = txn->Commit().ok();
        ok &= committed;
        if (d != nullptr && committed) {
          d->add(keyOf(k));
          d->add("committed");
        }
        break;
      }
      case Workload::kRyw: {  // put, read it back within the transaction, roll back
        std::unique_ptr<rocksdb::Transaction> txn(
            db.BeginTransaction(writeOptions, snapshotOptions));
        const std::string key = keyOf(k);
        txn->Put(key, value);
        ok &= txn->Get(rocksdb::ReadOptions(), key, &out).ok();
        if (d != nullptr) d->add(out);
        txn->Rollback();
        break;
      }
      case Workload::kBatchSet50:
      case Workload::kBatchSet50x1000: {
        std::unique_ptr<rocksdb::Transaction> txn(
            db.BeginTransaction(writeOptions, snapshotOptions));
        for (int j = 0; j < 50; ++j) txn->Put(keyOf((k + j) % kKeys), value);
        const bool committed = txn->Commit().ok();
        ok &= committed;
        if (d != nullptr && committed) {
          for (int j = 0; j < 50; ++j) d->add(keyOf((k + j) % kKeys));
          d->add("committed");
        }
        break;
      }
    }
  });
  if (!ok) {
    state.SkipWithError("a RocksDB operation failed");
  } else {
    digest.publish(state);
  }
}

// ---- Group commit: 64 committers at once ---------------------------------------------
//
// One iteration: 64 threads each commit kCommitsEach set100 transactions (distinct keys per
// thread, so no conflicts), all started together. Reports commits per WAL sync and commits
// per second of the whole batch (manual time: the batch's wall time).

constexpr int kCommitters = 64;
constexpr int kCommitsEach = 8;

template <typename Commit>
void runCommitters(benchmark::State& state, Commit&& commit) {
  const std::string value(100, 'w');
  int64_t commits = 0;
  double seconds = 0;
  for (auto _ : state) {
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    auto start = std::chrono::steady_clock::now();
    for (int t = 0; t < kCommitters; ++t) {
      threads.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < kCommitters) {
        }
        for (int i = 0; i < kCommitsEach; ++i) commit(keyOf((t * kCommitsEach + i) % kKeys), value);
      });
    }
    for (std::thread& thread : threads) thread.join();
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(elapsed);
    seconds += elapsed;
    commits += kCommitters * kCommitsEach;
  }
  state.counters["commits_per_s"] = static_cast<double>(commits) / seconds;
}

void runGroupCommitEngine(benchmark::State& state) {
  ScratchDir dir("groupcommit_rl");
  fdb::Database db = openEngine(Workload::kSet100, 0, Path::kDurable, dir.path());
  fdb::DurableStoreStats before = fdb::durableStoreStats(db);
  runCommitters(state, [&](const std::string& key, const std::string& value) {
    db.run([&](fdb::Transaction& tr) { tr.set(key, value); });
  });
  fdb::DurableStoreStats after = fdb::durableStoreStats(db);
  state.counters["commits_per_sync"] =
      static_cast<double>(after.loggedCommits - before.loggedCommits) /
      static_cast<double>(std::max<int64_t>(1, after.walSyncs - before.walSyncs));
}

void runGroupCommitRocksDb(benchmark::State& state) {
  RocksDbPeer peer(Workload::kSet100, /*durable=*/true);
  rocksdb::WriteOptions writeOptions;
  writeOptions.sync = true;
  uint64_t syncsBefore = peer.statistics->getTickerCount(rocksdb::WAL_FILE_SYNCED);
  std::atomic<int64_t> committed{0};
  std::atomic<bool> ok{true};
  runCommitters(state, [&](const std::string& key, const std::string& value) {
    while (true) {
      std::unique_ptr<rocksdb::Transaction> txn(peer.db->BeginTransaction(writeOptions));
      txn->Put(key, value);
      rocksdb::Status s = txn->Commit();
      if (s.ok()) break;
      if (!s.IsBusy() && !s.IsTryAgain()) {
        ok = false;
        break;
      }
    }
    ++committed;
  });
  uint64_t syncs = peer.statistics->getTickerCount(rocksdb::WAL_FILE_SYNCED) - syncsBefore;
  state.counters["commits_per_sync"] =
      static_cast<double>(committed.load()) / static_cast<double>(std::max<uint64_t>(1, syncs));
  if (!ok) state.SkipWithError("a RocksDB commit failed");
}

void registerAll() {
  struct Named {
    const char* name;
    Workload workload;
  };
  static const Named kWorkloads[] = {
      {"grv", Workload::kGrv},
      {"get100", Workload::kGet100},
      {"get1000", Workload::kGet1000},
      {"get10000", Workload::kGet10000},
      {"read1000", Workload::kRead1000},
      {"range10", Workload::kRange10},
      {"range100", Workload::kRange100},
      {"set100", Workload::kSet100},
      {"ryw", Workload::kRyw},
      {"batchset50", Workload::kBatchSet50},
      {"batchset50x1000", Workload::kBatchSet50x1000},
  };
  for (const Named& w : kWorkloads) {
    Workload workload = w.workload;
    benchmark::RegisterBenchmark((std::string(w.name) + "/rl").c_str(),
                                 [workload](benchmark::State& s) { runEngine(s, workload, 0); });
    benchmark::RegisterBenchmark((std::string(w.name) + "/rocksdb").c_str(),
                                 [workload](benchmark::State& s) { runRocksDb(s, workload); });
    benchmark::RegisterBenchmark((std::string(w.name) + "/rl_delay250").c_str(),
                                 [workload](benchmark::State& s) { runEngine(s, workload, 250); })
        ->UseRealTime();
    if (cluster) {
      benchmark::RegisterBenchmark(
          (std::string(w.name) + "/" + cluster->capiArm).c_str(),
          [workload](benchmark::State& s) { runEngineOnCluster(s, workload); })
          ->UseRealTime();
      benchmark::RegisterBenchmark((std::string(w.name) + "/" + cluster->cArm).c_str(),
                                   [workload](benchmark::State& s) { runCOnCluster(s, workload); })
          ->UseRealTime();
    } else {
      benchmark::RegisterBenchmark(
          (std::string(w.name) + "/rl_capi").c_str(),
          [workload](benchmark::State& s) { runEngine(s, workload, 0, Path::kCApi); });
      benchmark::RegisterBenchmark((std::string(w.name) + "/rl_c").c_str(),
                                   [workload](benchmark::State& s) { runC<false>(s, workload); });
      benchmark::RegisterBenchmark(
          (std::string(w.name) + "/rl_capi_delay250").c_str(),
          [workload](benchmark::State& s) { runEngine(s, workload, 250, Path::kCApi); })
          ->UseRealTime();
    }
    benchmark::RegisterBenchmark(
        (std::string(w.name) + "/rl_durable").c_str(),
        [workload](benchmark::State& s) { runEngine(s, workload, 0, Path::kDurable); })
        ->UseRealTime();
    benchmark::RegisterBenchmark(
        (std::string(w.name) + "/rocksdb_durable").c_str(),
        [workload](benchmark::State& s) { runRocksDb(s, workload, /*durable=*/true); })
        ->UseRealTime();
  }
  benchmark::RegisterBenchmark("groupcommit64/rl_durable", runGroupCommitEngine)->UseManualTime();
  benchmark::RegisterBenchmark("groupcommit64/rocksdb_durable", runGroupCommitRocksDb)
      ->UseManualTime();
}

// Loads this build's libfdb_c.so for the rl_capi arms (on purpose: it is the embedded
// engine) and names it in the output's context.
void loadCApiLibrary() {
  try {
    fdb::fdbc::setLibraryPath(RL_FDB_C_EMBEDDED_LIBRARY);
    fdb::fdbc::allowEmbeddedLibrary(true);
    fdb::fdbc::ClientLibraryInfo lib = fdb::fdbc::loadClientLibrary();
    benchmark::AddCustomContext("rl_capi libfdb_c", lib.path + " (" + lib.clientVersion + ")");
  } catch (const fdb::Error& e) {
    capiLoadError = e.what();
    benchmark::AddCustomContext("rl_capi libfdb_c", std::string("not loaded: ") + e.what());
  }
}

// Cluster mode, when RL_CLIENTBENCH_CLUSTER_FILE names a cluster file: loads the libfdb_c
// the backend picks (nothing here chooses it or allows ours), names the arms after it and
// puts the run's cluster, prefix and library in the output's context. Returns false, saying
// why on stderr, when the mode was asked for and cannot run.
bool setUpClusterMode() {
  const char* file = std::getenv("RL_CLIENTBENCH_CLUSTER_FILE");
  if (file == nullptr || *file == '\0') return true;
  ClusterMode mode;
  mode.clusterFile = file;
  std::error_code error;
  if (!std::filesystem::is_regular_file(mode.clusterFile, error)) {
    std::fprintf(stderr, "clientbench: RL_CLIENTBENCH_CLUSTER_FILE=%s is not a file\n", file);
    return false;
  }
  const char* runId = std::getenv("RL_CLIENTBENCH_RUN_ID");
  if (runId != nullptr && *runId != '\0') {
    mode.runId = runId;
  } else {
    mode.runId = std::to_string(std::time(nullptr)) + "-" + std::to_string(::getpid()) + "-" +
                 std::to_string(std::random_device()() % 1000000);
  }
  mode.prefix = fdb::Tuple{"clientbench", mode.runId}.pack();
  try {
    mode.library = fdb::fdbc::loadClientLibrary();
  } catch (const fdb::Error& e) {
    std::fprintf(stderr, "clientbench: cluster mode: %s\n", e.what());
    return false;
  }
  mode.cArm = mode.library.embedded ? "rl_c_prefixed" : "fdb_c";
  mode.capiArm = mode.library.embedded ? "rl_capi_prefixed" : "fdb_capi";
  benchmark::AddCustomContext("cluster file", mode.clusterFile);
  benchmark::AddCustomContext("cluster run id", mode.runId);
  benchmark::AddCustomContext("cluster key prefix", fdb::printable(mode.prefix));
  benchmark::AddCustomContext("cluster libfdb_c",
                              mode.library.path + " (" + mode.library.clientVersion + ")");
  benchmark::AddCustomContext("cluster libfdb_c chosen by", mode.library.source);
  std::string arms = mode.capiArm + ", " + mode.cArm;
  if (mode.library.embedded) {
    arms +=
        ": this project's libfdb_c (allowed by RL_FDB_C_ALLOW_EMBEDDED), the embedded "
        "engine behind the cluster file, not a FoundationDB cluster";
    const char* delay = std::getenv("RECORDLAYER_ONE_WAY_DELAY_US");
    benchmark::AddCustomContext("cluster libfdb_c simulated one-way delay (us)",
                                delay != nullptr && *delay != '\0' ? delay : "none");
  }
  benchmark::AddCustomContext("cluster arms", arms);
  cluster = std::move(mode);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!setUpClusterMode()) return 1;
  if (!cluster) loadCApiLibrary();
  registerAll();
  benchmark::AddCustomContext("durable arms' directory", durableRoot().string());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  if (capiClusterPath) {
    std::error_code ignored;
    std::filesystem::remove(*capiClusterPath, ignored);
  }
  return finishCluster() ? 0 : 1;
}
