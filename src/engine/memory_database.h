// The in-memory database behind the addresses memory: and memory:<name>.
#pragma once

#include <memory>
#include <string_view>

#include "engine/database_settings.h"
#include "engine/engine.h"
#include "fdb/backend.h"

namespace fdb::engine {

class MemoryDatabase final : public DatabaseBackend {
 public:
  explicit MemoryDatabase(std::shared_ptr<Engine> engine)
      : engine_(std::move(engine)), settings_(std::make_shared<DatabaseSettings>()) {}
  std::shared_ptr<TransactionBackend> createTransaction() override;
  void setOption(int code, std::optional<std::string_view> value) override;
  RoundTrips roundTrips() const override { return engine_->roundTrips(); }
  const std::shared_ptr<Engine>& engine() const { return engine_; }
  const std::shared_ptr<DatabaseSettings>& settings() const { return settings_; }

 private:
  std::shared_ptr<Engine> engine_;
  std::shared_ptr<DatabaseSettings> settings_;  // per handle, as FoundationDB's are
};

// `name` empty: a fresh private database. Otherwise the database of that name in this
// process, created on first use and kept while any handle to it is open.
// `options` configure a new engine; an existing named one keeps its own.
std::shared_ptr<MemoryDatabase> openMemoryDatabase(std::string_view name,
                                                   const EngineOptions& options = {});

}  // namespace fdb::engine
