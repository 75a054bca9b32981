// rl::cli::Table — a plain-text table for the command line: a header row, then rows of
// cells, each column as wide as its widest cell, text left-aligned and numbers
// right-aligned, two spaces between columns.
//
//   Table table({{"method"}, {"rows", Align::kRight}});
//   table.addRow({"SCAN_AND_FETCH", "2,000"});
//   table.print(stdout, /*indent=*/2);
//
// Cells are UTF-8; widths count code points. Thread-safety: a value, one thread at a time.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace rl::cli {

enum class Align { kLeft, kRight };

struct Column {
  std::string title;
  Align align = Align::kLeft;
};

class Table {
 public:
  explicit Table(std::vector<Column> columns);

  // REQUIRES: one cell per column.
  void addRow(std::vector<std::string> cells);

  void print(std::FILE* out, int indent = 0) const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

// 1234567 -> "1,234,567".
std::string groupDigits(int64_t value);

// A count and its noun, grouped: plural(1, "key", "keys") is "1 key", plural(8000, ...)
// "8,000 keys".
std::string plural(int64_t n, std::string_view one, std::string_view many);

// A byte count for people: "200 B", "250,000 B" below 1 MB, then "5.2 MB" (10^6 bytes).
std::string formatBytes(int64_t bytes);

// A duration for people: "31 us", "4.12 ms", "12.3 ms", "412 ms", "3.42 s".
std::string formatSeconds(double seconds);

}  // namespace rl::cli
