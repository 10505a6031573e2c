#pragma once
#include <string>

namespace runner {

// Stop requests for a run. SIGINT, SIGTERM, SIGHUP and SIGQUIT, and the signals batch systems send
// before they end a job (SIGUSR1, SIGUSR2, SIGALRM: Slurm's --signal; SIGXCPU: a CPU-time limit),
// all ask the run to stop:
//  - the first one after the point in flight (or sooner, between its samples);
//  - a second one at once: the point in flight is abandoned and its worker killed;
//  - a third one exits on the spot with the code of the first (a run stuck where it cannot look
//    at the flag). The files are valid even then: every write is an append of whole lines or an
//    atomic rename; the manifest still says "running" and --resume works as after kill -9.
// After the first two the run finishes its files, marks the manifest "interrupted", prints the
// resume command and exits 128 + the first signal (129 SIGHUP, 130 SIGINT, 131 SIGQUIT, 138
// SIGUSR1, 140 SIGUSR2, 142 SIGALRM, 143 SIGTERM, 152 SIGXCPU). A worker process that receives one
// of these signals reports it to the parent, which stops the run the same way
// (runner/run/worker_process.hpp).
void install_interrupt_handlers();
bool interrupt_requested();
bool stop_now_requested();  // a second stop signal arrived
int interrupt_signal();     // the first signal received, 0 if none
// Stops the run as if `sig` had arrived (a worker reported that it received it). Never
// overrides a signal this process received itself.
void request_interrupt(int sig);
// Back to "no signal received": a freshly forked worker starts from there.
void reset_interrupt_state();

// "SIGTERM", "SIGINT", ... ("signal 42" for others).
std::string signal_name(int sig);

// Thrown by the measurement loop when a stop was requested between samples.
struct Interrupted {};

}  // namespace runner
