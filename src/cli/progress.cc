#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/core.h>

#include "table.h"

namespace rl::cli {

Progress::Progress(std::string what, int64_t total)
    : what_(std::move(what)),
      total_(std::max<int64_t>(total, 0)),
      terminal_(::isatty(STDERR_FILENO) == 1) {}

Progress::~Progress() { finish(); }

void Progress::update(int64_t done, const std::string& note) {
  done_ = total_ == 0 ? std::max<int64_t>(done, 0) : std::clamp<int64_t>(done, 0, total_);
  note_ = note;
  if (terminal_) {
    const auto now = std::chrono::steady_clock::now();
    if (now - lastDraw_ < std::chrono::milliseconds(50) && (total_ == 0 || done_ < total_)) {
      return;
    }
    lastDraw_ = now;
    draw();
  } else if (total_ > 0) {
    const int quarters = static_cast<int>(done_ * 4 / total_);
    if (quarters <= quartersShown_) return;
    quartersShown_ = quarters;
    draw();
  }
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (terminal_) {
    draw();
    fmt::print(stderr, "\n");
  } else if (total_ == 0 || (quartersShown_ < 4 && done_ == total_)) {
    draw();
  }
  std::fflush(stderr);
}

void Progress::draw() {
  const std::string count = total_ == 0
                                ? groupDigits(done_)
                                : fmt::format("{}/{}", groupDigits(done_), groupDigits(total_));
  // After a bar's "done/total", two spaces; after a lone count, the note is its unit
  // ("6,002 keys").
  const std::string note = note_.empty() ? "" : (total_ == 0 ? " " : "  ") + note_;
  if (!terminal_) {
    fmt::print(stderr, "{}: {}{}\n", what_, count, note);
    return;
  }
  if (total_ == 0) {
    fmt::print(stderr, "\r{}: {}{}\x1b[K", what_, count, note);
    std::fflush(stderr);
    return;
  }
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(done_ * kWidth / total_);
  const std::string bar = std::string(static_cast<size_t>(filled), '#') +
                          std::string(static_cast<size_t>(kWidth - filled), '-');
  // \r back to the line's start, \x1b[K clears what a longer earlier line left.
  fmt::print(stderr, "\r{} [{}] {:>3}%  {}{}\x1b[K", what_, bar, done_ * 100 / total_, count, note);
  std::fflush(stderr);
}

}  // namespace rl::cli
