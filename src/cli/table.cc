#include "table.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/core.h>

namespace rl::cli {
namespace {

size_t displayWidth(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

}  // namespace

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::addRow(std::vector<std::string> cells) {
  if (cells.size() != columns_.size()) {
    throw std::logic_error(
        fmt::format("a table row of {} cells for {} columns", cells.size(), columns_.size()));
  }
  rows_.push_back(std::move(cells));
}

void Table::print(std::FILE* out, int indent) const {
  std::vector<size_t> widths;
  for (const Column& column : columns_) widths.push_back(displayWidth(column.title));
  for (const auto& row : rows_) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], displayWidth(row[i]));
  }
  auto printRow = [&](auto cellOf) {
    std::string line(static_cast<size_t>(std::max(indent, 0)), ' ');
    for (size_t i = 0; i < columns_.size(); ++i) {
      const std::string& cell = cellOf(i);
      const std::string pad(widths[i] - displayWidth(cell), ' ');
      const bool last = i + 1 == columns_.size();
      if (columns_[i].align == Align::kRight) {
        line += pad + cell;
      } else {
        line += cell;
        if (!last) line += pad;
      }
      if (!last) line += "  ";
    }
    fmt::print(out, "{}\n", line);
  };
  printRow([&](size_t i) -> const std::string& { return columns_[i].title; });
  for (const auto& row : rows_) {
    printRow([&](size_t i) -> const std::string& { return row[i]; });
  }
}

std::string groupDigits(int64_t value) {
  const uint64_t magnitude =
      value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
  const std::string digits = std::to_string(magnitude);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return value < 0 ? "-" + out : out;
}

std::string plural(int64_t n, std::string_view one, std::string_view many) {
  return fmt::format("{} {}", groupDigits(n), n == 1 ? one : many);
}

std::string formatBytes(int64_t bytes) {
  if (bytes < 1'000'000) return groupDigits(bytes) + " B";
  return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
}

std::string formatSeconds(double seconds) {
  const double ms = seconds * 1e3;
  if (ms < 1) return fmt::format("{:.0f} us", ms * 1e3);
  if (ms < 10) return fmt::format("{:.2f} ms", ms);
  if (ms < 100) return fmt::format("{:.1f} ms", ms);
  if (ms < 1'000) return fmt::format("{:.0f} ms", ms);
  return fmt::format("{:.2f} s", seconds);
}

}  // namespace rl::cli
