#pragma once
// One point, in the process that runs it (a worker, runner/run/worker_process.hpp): the record of
// a point from its spec to its measurement.
#include <string>

#include "runner/api/point.hpp"
#include "runner/api/registry.hpp"
#include "runner/results/record.hpp"
#include "runner/spec/config.hpp"

namespace runner {

// Runs one point in the calling process and returns its record (never throws for the point's own
// failures: they become status failed / skipped / invalid with the reason).
Record run_point(const ExperimentSpec& spec, const Point& point, const Registry& registry);

// The fields every record has before it is measured: the point's axes and provenance, status ok.
// `gpu` is passed in, never read here: the parent process builds records for points that crashed
// their worker and must not initialise CUDA (a forked child of a CUDA process cannot use CUDA).
Record base_record(const ExperimentSpec& spec, const Point& p, const VariantInfo* v,
                   const std::string& gpu);
void set_status(Record& r, Status s, const std::string& message);

}  // namespace runner
