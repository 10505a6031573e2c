#pragma once
#include <cstdio>
#include <vector>

#include "runner/record.hpp"

namespace runner {

// The table printed at the end of a run: per kernel, dtype and size the fastest ok variant with
// its figure, then the counts by status and the reasons of points that did not run.
void print_summary(const std::vector<Record>& records, std::size_t planned, std::FILE* out);

}  // namespace runner
