// What the CUDA test programs check with: a failed condition prints its
// file, line and text and ends the program with status 1.
#pragma once

#include <cstdio>

#define CHECK(c)                                               \
  do {                                                         \
    if (!(c)) {                                                \
      std::printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #c); \
      return 1;                                                \
    }                                                          \
  } while (0)
