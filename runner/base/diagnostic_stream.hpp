#pragma once

namespace runner {

// Diagnostics — progress lines, warnings, errors, the resume command — go to stderr, which may be
// a pipe whose reader is gone (`runner ... 2>&1 | head`), a file on a full disk or quota (a Slurm
// log), /dev/full. A write there must never stop a run: with a plain stderr the first progress
// line threw (fmt checks fwrite), std::terminate aborted the run after one point and left its
// manifest "running".
//
// Replaces the C stream `stderr` by one that writes to fd 2 and forgets what it could not write
// (no error flag, no exception, no SIGPIPE: the signal is blocked for the write and a pending one
// taken back). Call first thing in main, before anything keeps a copy of `stderr` (spdlog's sinks
// do). A terminal keeps the plain stream: the stream's file descriptor is what tells spdlog and
// others that they may colour, and a terminal that goes away sends SIGHUP, which stops the run in
// order (its last messages are written quietly, runner/run/experiment.cpp). What could not be
// written is counted (diagnostics_lost()).
void make_diagnostics_unfailing();

// Bytes of diagnostics that could not be written since make_diagnostics_unfailing().
long diagnostics_lost();

}  // namespace runner
