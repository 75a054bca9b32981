// What `rl --version` prints: the version, the commit it was built from, and what is built
// in (the address schemes, the embedded engine's storage, the C library), for users and bug
// reports (docs/cli.md, "Version").
#pragma once

#include <string>

namespace rl::cli {

std::string versionText();

}  // namespace rl::cli
