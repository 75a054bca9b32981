// ResultDigest: a digest of what a benchmark's operations returned (rows, their order, their
// checksums), published as the benchmark's label `digest=<16 hex digits>` so that a campaign
// (tools/campaign/, docs/campaigns/README.md) can check that the arms it compares computed
// the same results before it compares their times. A digest covers a fixed, iteration-count
// independent part of the results (a suite's file comment says which), so two runs of one
// case on any arm agree exactly when their results do.
//
//   ResultDigest digest;
//   digest.add(id);  digest.add(value);   // in the order the rows came
//   digest.publish(state);                // the label: digest=...
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace rl::bench {

class ResultDigest {
 public:
  // Bytes, length-prefixed (so "ab","c" and "a","bc" differ).
  void add(std::string_view bytes) {
    add(static_cast<int64_t>(bytes.size()));
    for (unsigned char c : bytes) mix(c);
  }
  void add(int64_t value) {
    auto u = static_cast<uint64_t>(value);
    for (int i = 0; i < 8; ++i) mix(static_cast<unsigned char>(u >> (8 * i)));
  }
  void add(const char* text) { add(std::string_view(text)); }

  std::string hex() const {
    char out[17];
    std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h_));
    return out;
  }
  void publish(benchmark::State& state) const { state.SetLabel("digest=" + hex()); }

 private:
  void mix(unsigned char c) { h_ = (h_ ^ c) * 0x100000001b3ull; }  // FNV-1a, 64 bits
  uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace rl::bench
