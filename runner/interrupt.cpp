#include "runner/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>

namespace runner {

namespace {
std::atomic<int> g_signal{0};

extern "C" void on_signal(int sig) {
  if (g_signal.load() != 0 && sig == SIGINT) _exit(130);
  g_signal.store(sig);
}
}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  // Writing to a worker that just died must fail with EPIPE, not kill the run.
  std::signal(SIGPIPE, SIG_IGN);
}

bool interrupt_requested() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }

}  // namespace runner
