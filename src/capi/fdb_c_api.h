// The C API as this library implements it: the public header at its latest version.
#pragma once

#ifndef FDB_API_VERSION
#define FDB_API_VERSION 730
#endif
#include "foundationdb/fdb_c.h"
