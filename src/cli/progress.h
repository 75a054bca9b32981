// rl::cli::Progress — progress of a long operation on standard error.
//
// On a terminal it is a bar redrawn in place (at most 20 times a second) and finished with a
// newline; elsewhere (a pipe, a file, a test) it is plain text: one line at each quarter,
// so logs stay readable. With an unknown total (0) it is a count without a bar on a
// terminal, and one line at the end elsewhere.
//
//   Progress progress("saving orders", total);
//   for (...) { ...; progress.update(done, fmt::format("{} MB", mb)); }
//   progress.finish();
//
// Thread-safety: one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace rl::cli {

class Progress {
 public:
  // `total` 0 (or less): not known in advance.
  Progress(std::string what, int64_t total);
  ~Progress();  // finish()es

  // `done` of `total` so far; `note` follows the count ("5.2 MB"; with an unknown total, the
  // count's unit: "6,002 keys, 202,300 B").
  void update(int64_t done, const std::string& note = {});
  // Draws the last state and ends the line (once).
  void finish();

 private:
  void draw();

  std::string what_;
  int64_t total_;  // 0: unknown
  int64_t done_ = 0;
  std::string note_;
  bool terminal_;
  bool finished_ = false;
  int quartersShown_ = 0;
  std::chrono::steady_clock::time_point lastDraw_{};
};

}  // namespace rl::cli
