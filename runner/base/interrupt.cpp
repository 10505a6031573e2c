#include "runner/base/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <string.h>
#include <atomic>
#include <csignal>

#include "runner/base/exit_codes.hpp"

namespace runner {

namespace {

std::atomic<int> g_signal{0};  // the first stop signal
std::atomic<int> g_count{0};   // stop signals received

// Besides the terminal's and scancel's, every signal a batch system sends to end a job: Slurm's
// --signal=USR1@60 (or USR2, ALRM) before the time limit, SIGXCPU when a CPU-time limit is near.
// Their default action ends the process like kill -9 would (the manifest left "running").
constexpr int kStopSignals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT,
                                SIGUSR1, SIGUSR2, SIGALRM, SIGXCPU};

extern "C" void on_stop_signal(int sig) {
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig);
  if (g_count.fetch_add(1) + 1 >= 3) _exit(exit_code::kSignalBase + g_signal.load());
}

}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (int sig : kStopSignals) sigaction(sig, &sa, nullptr);
  // Writing to a worker that just died, or to a terminal that hung up, must fail with an error
  // the code handles (EPIPE, EIO), not end the run.
  std::signal(SIGPIPE, SIG_IGN);
  // A file-size limit (ulimit -f) must fail the write (EFBIG, handled like a full disk), not kill
  // the runner in the middle of one.
  std::signal(SIGXFSZ, SIG_IGN);
}

bool interrupt_requested() {
  return g_signal.load() != 0;
}
bool stop_now_requested() {
  return g_count.load() >= 2;
}
int interrupt_signal() {
  return g_signal.load();
}

void request_interrupt(int sig) {
  int expected = 0;
  if (g_signal.compare_exchange_strong(expected, sig)) g_count.fetch_add(1);
}

void reset_interrupt_state() {
  g_signal.store(0);
  g_count.store(0);
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace runner
