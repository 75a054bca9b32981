#include "capi/network.h"

#include <algorithm>
#include <array>

namespace fdb::capi {
namespace {

thread_local bool insideRunNetwork = false;

// FDB_NET_OPTION_* codes of API 730 (docs/capi.md, "Network options"). None changes how the
// embedded engine behaves; they are accepted so clients that set them work unchanged.
constexpr std::array kNetworkOptions = {10, 20, 30, 31, 32, 33, 34, 35, 36, 37,   38,   39,
                                        40, 41, 42, 43, 45, 46, 47, 48, 49, 50,   51,   52,
                                        53, 54, 60, 61, 62, 63, 64, 65, 66, 67,   68,   69,
                                        70, 71, 72, 80, 81, 82, 83, 90, 91, 1000, 1001, 1002};

// Options whose parameter is an Int: exactly 8 bytes.
constexpr std::array kIntNetworkOptions = {31, 32, 50, 51, 65, 82, 83};

}  // namespace

Network& Network::instance() {
  // Never destroyed: a process may exit() while fdb_run_network still waits on another thread
  // (bindings' test harnesses do), and destroying the condition variable that thread waits on
  // blocks exit() for good (docs/capi.md, "The network").
  static Network* const network = new Network;
  return *network;
}

fdb_error_t Network::setOption(FDBNetworkOption option, const uint8_t* /*value*/, int length) {
  int code = codeOf(option);
  if (std::find(kNetworkOptions.begin(), kNetworkOptions.end(), code) == kNetworkOptions.end()) {
    return 2007;  // invalid_option
  }
  if (std::find(kIntNetworkOptions.begin(), kIntNetworkOptions.end(), code) !=
          kIntNetworkOptions.end() &&
      length != 8) {
    return 2006;  // invalid_option_value
  }
  return 0;
}

fdb_error_t Network::setup() {
  std::lock_guard lock(mutex_);
  if (state_ != State::kNotSetUp) return 2009;  // network_already_setup
  state_ = State::kSetUp;
  return 0;
}

bool Network::isSetUp() const {
  std::lock_guard lock(mutex_);
  return state_ != State::kNotSetUp;
}

fdb_error_t Network::run() {
  std::unique_lock lock(mutex_);
  if (state_ == State::kNotSetUp) return 2008;                              // network_not_setup
  if (state_ == State::kRunning || state_ == State::kStopped) return 2025;  // cannot be restarted
  state_ = State::kRunning;
  insideRunNetwork = true;
  while (true) {
    changed_.wait(lock, [&] { return stopRequested_ || !tasks_.empty(); });
    // A stop still delivers the completions already due: their operations are done, and
    // their callbacks (a binding's, which free what the operation held) would otherwise
    // never run. What completes after the queue ran dry is dropped.
    if (tasks_.empty()) break;
    Task task = std::move(tasks_.front());
    tasks_.pop_front();
    lock.unlock();
    task.run();
    lock.lock();
  }
  state_ = State::kStopped;  // the queue is empty: later posts drop their tasks
  insideRunNetwork = false;
  std::vector<std::pair<void (*)(void*), void*>> hooks;
  hooks.swap(completionHooks_);
  lock.unlock();
  for (const auto& [hook, parameter] : hooks) hook(parameter);
  return 0;
}

fdb_error_t Network::stop() {
  {
    std::lock_guard lock(mutex_);
    if (state_ == State::kNotSetUp) return 2008;  // network_not_setup
    stopRequested_ = true;
  }
  changed_.notify_all();
  return 0;
}

fdb_error_t Network::addCompletionHook(void (*hook)(void*), void* parameter) {
  std::lock_guard lock(mutex_);
  completionHooks_.emplace_back(hook, parameter);
  return 0;
}

void Network::post(std::function<void()> task, std::function<void()> drop) {
  {
    std::unique_lock lock(mutex_);
    if (state_ != State::kStopped) {
      tasks_.push_back(Task{std::move(task), std::move(drop)});
      lock.unlock();
      changed_.notify_one();
      return;
    }
  }
  drop();
}

bool Network::onNetworkThread() { return insideRunNetwork; }

void postToNetwork(std::function<void()> task, std::function<void()> drop) {
  Network::instance().post(std::move(task), std::move(drop));
}

}  // namespace fdb::capi
