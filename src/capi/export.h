// Marks a definition as part of the library's ABI (everything else is hidden).
#pragma once

#define RL_C_EXPORT extern "C" __attribute__((visibility("default")))
