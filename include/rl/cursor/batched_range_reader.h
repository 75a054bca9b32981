// rl::BatchedRangeReader — the rows of a key range read in batches, for cursors: each batch's
// rows are views into that batch's result, which the reader keeps alive (and shares through
// batch()), and the next batch is requested as soon as one arrives, so that it is on its
// way while this one is consumed. The row limit, if any, is spread over the batches. A source
// with `int nextBatchRows(const Result& batch)` sizes the batches after `batch` itself (a row
// count read in EXACT mode; 0: the streaming mode decides).
//
// `Source` issues one batch: `fdb::Future<Result> read(const fdb::KeySelector& begin,
// const fdb::KeySelector& end, const fdb::RangeOptions& options)`, Result being
// fdb::RangeResult (plain range reads) or fdb::MappedRangeResult (mapped range reads).
//
//   BatchedRangeReader<fdb::RangeResult, PlainRangeSource> rows(source, begin, end, 0,
//                                                               fdb::StreamingMode::kIterator,
//                                                               /*reverse=*/false);
//   while (const fdb::KeyValueRef* row = rows.next()) use(*row);
//
// Thread-safety: one thread at a time.
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <utility>

#include "fdb/future.h"
#include "fdb/key_selector.h"
#include "fdb/types.h"

namespace rl {

template <typename Result, typename Source>
class BatchedRangeReader {
 public:
  using Row = std::remove_cvref_t<decltype(std::declval<const Result&>().rows[0])>;

  // Reads [begin, end) (selectors), at most `rowLimit` rows (0: no limit). The first batch is
  // requested at once.
  BatchedRangeReader(Source source, fdb::KeySelector begin, fdb::KeySelector end, int rowLimit,
                     fdb::StreamingMode mode, bool reverse)
      : source_(std::move(source)),
        begin_(std::move(begin)),
        end_(std::move(end)),
        rowLimit_(rowLimit),
        rowsLeftToAsk_(rowLimit),
        mode_(mode),
        reverse_(reverse) {
    request();
  }

  // The next row, or nullptr when the reads are done. Valid while batch() holds its result
  // (until the reader moves to the next batch, or longer for whoever shares batch()).
  const Row* next() {
    while (true) {
      if (batch_ && index_ < batch_->rows.size()) return &batch_->rows[index_++];
      if (!pending_) return nullptr;
      batch_ = std::make_shared<const Result>(std::move(*pending_).get());
      pending_.reset();
      index_ = 0;
      const Result& batch = *batch_;
      if (rowLimit_ != 0) rowsLeftToAsk_ -= static_cast<int>(batch.rows.size());
      if constexpr (requires { source_.nextBatchRows(batch); }) {
        batchRows_ = source_.nextBatchRows(batch);
      }
      if (batch.more && !batch.rows.empty() && (rowLimit_ == 0 || rowsLeftToAsk_ > 0)) {
        // Ask for the next batch now, so that it arrives while this one is consumed.
        const std::string_view lastKey = batch.rows.back().key;
        if (reverse_) {
          end_ = fdb::KeySelector::firstGreaterOrEqual(lastKey);
        } else {
          begin_ = fdb::KeySelector::firstGreaterThan(lastKey);
        }
        request();
      }
    }
  }

  // The result the last row returned came from.
  const std::shared_ptr<const Result>& batch() const { return batch_; }
  // Range reads issued so far (the first one at construction).
  int batchesRequested() const { return batchesRequested_; }

 private:
  void request() {
    fdb::RangeOptions options;
    options.limit = rowLimit_ == 0 ? 0 : rowsLeftToAsk_;
    options.mode = mode_;
    if (batchRows_ > 0) {
      // The source sized the batch itself: exactly that many rows (or the rows left).
      options.limit = options.limit == 0 ? batchRows_ : std::min(options.limit, batchRows_);
      options.mode = fdb::StreamingMode::kExact;
    }
    options.iteration = iteration_++;
    options.reverse = reverse_;
    pending_ = source_.read(begin_, end_, options);
    ++batchesRequested_;
  }

  Source source_;
  fdb::KeySelector begin_;
  fdb::KeySelector end_;
  int rowLimit_;
  int rowsLeftToAsk_;  // with a row limit: rows the remaining reads may return
  fdb::StreamingMode mode_;
  bool reverse_;
  int iteration_ = 1;
  int batchRows_ = 0;  // > 0: the source's size for the next batch
  int batchesRequested_ = 0;
  std::optional<fdb::Future<Result>> pending_;
  std::shared_ptr<const Result> batch_;
  size_t index_ = 0;
};

}  // namespace rl
