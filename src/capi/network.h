// The network thread of the C API (docs/capi.md, "The network"): fdb_setup_network once,
// fdb_run_network blocking on the thread the client dedicates to it until fdb_stop_network,
// completion hooks after the loop. The embedded engine needs no network, but FoundationDB's clients
// expect pending futures to complete on this thread, so completions are queued here.
//
// Thread-safety: every method may be called from any thread.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "capi/fdb_c_api.h"

namespace fdb::capi {

class Network {
 public:
  static Network& instance();

  fdb_error_t setOption(FDBNetworkOption option, const uint8_t* value, int length);
  fdb_error_t setup();
  fdb_error_t run();
  fdb_error_t stop();
  fdb_error_t addCompletionHook(void (*hook)(void*), void* parameter);
  bool isSetUp() const;

  // Queues `task` to run on the network thread. A stop runs the tasks queued before it
  // (run() returns once the queue is empty); once the network has stopped, `drop` runs
  // instead, on the posting thread: no callback runs, but what the task owned is released.
  void post(std::function<void()> task, std::function<void()> drop);
  // Whether the calling thread is inside fdb_run_network.
  static bool onNetworkThread();

 private:
  enum class State { kNotSetUp, kSetUp, kRunning, kStopped };

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  State state_ = State::kNotSetUp;
  bool stopRequested_ = false;
  struct Task {
    std::function<void()> run;
    std::function<void()> drop;
  };
  std::deque<Task> tasks_;
  std::vector<std::pair<void (*)(void*), void*>> completionHooks_;
};

}  // namespace fdb::capi
