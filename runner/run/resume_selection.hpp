#pragma once
// Which points a --resume continues: the selection (--only, --set) its first run recorded in the
// manifest (runner/spec/point_filter.hpp). `runner CONFIG --out DIR --resume` needs no --only
// again; another selection would run other points into the folder and leave the recorded ones
// behind as foreign, so it is refused.
#include <filesystem>

#include "runner/spec/point_filter.hpp"

namespace runner {

// The manifest's selection when `given` is empty, `given` when it is the same or the manifest
// (absent, unreadable) records none and `given` is empty too; throws Refused naming both when
// they differ.
PointSelection resumed_selection(const std::filesystem::path& manifest,
                                 const PointSelection& given);

}  // namespace runner
