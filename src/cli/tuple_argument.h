// A tuple given on the command line, in the text syntax of docs/tuple.md.
//
//   fdb::Tuple key = rl::cli::parseTupleArgument(R"(("orders", 42))");
//
// Thread-safety: a pure function.
#pragma once

#include <string>

#include "fdb/tuple.h"

namespace rl::cli {

// Parses `text`. A syntax error is thrown as std::invalid_argument saying what is wrong and
// at which character (counted in UTF-8 code points), with the text and a caret under that
// character when the text is one line.
fdb::Tuple parseTupleArgument(const std::string& text);

}  // namespace rl::cli
