#include "runner/base/task_limit.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "runner/base/cpu_affinity.hpp"

namespace runner {

namespace {

// The marker of a binary started again with a fitted OPENBLAS_NUM_THREADS: "FIT/WANTED/LIMIT/USE".
constexpr const char* kFittedMarker = "RUNNER_OPENBLAS_FITTED_TO_TASKS";
// A worker process and its watchdog thread (runner/run/worker_process.cpp).
constexpr int kWorkerTasks = 2;

// Whether the kernel enforces RLIMIT_NPROC on this process (kernel/fork.c: not for the root user,
// nor with CAP_SYS_RESOURCE or CAP_SYS_ADMIN).
bool limit_applies() {
  if (::getuid() == 0) return false;
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &header, data) != 0) return true;
  const auto has = [&](int cap) { return (data[cap / 32].effective >> (cap % 32)) & 1u; };
  return !has(CAP_SYS_RESOURCE) && !has(CAP_SYS_ADMIN);
}

// "Uid:" (real uid first) and "Threads:" of /proc/PID/status, read with plain system calls: this
// also runs before the C++ runtime has started (the early entry).
bool read_status(const char* pid, uid_t* real_uid, long* threads) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%s/status", pid);
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char text[4096];
  const ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  if (n <= 0) return false;
  text[n] = '\0';
  const char* uid = std::strstr(text, "\nUid:");
  const char* count = std::strstr(text, "\nThreads:");
  if (!uid || !count) return false;
  *real_uid = static_cast<uid_t>(std::strtoul(uid + 5, nullptr, 10));
  *threads = std::strtol(count + 9, nullptr, 10);
  return true;
}

long tasks_of_user(uid_t uid) {
  DIR* proc = ::opendir("/proc");
  if (!proc) return 0;
  long total = 0;
  while (const dirent* e = ::readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    uid_t owner = 0;
    long threads = 0;
    if (read_status(e->d_name, &owner, &threads) && owner == uid) total += threads;
  }
  ::closedir(proc);
  return total;
}

// OpenBLAS's own choice of threads: its variables (as it reads them), else the CPUs it may use.
int openblas_wanted_threads(char** envp) {
  for (const char* name : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"}) {
    const std::size_t len = std::strlen(name);
    for (char** e = envp; e && *e; ++e)
      if (std::strncmp(*e, name, len) == 0 && (*e)[len] == '=') {
        const long n = std::strtol(*e + len + 1, nullptr, 10);
        if (n > 0) return static_cast<int>(std::min(n, 4096L));
      }
  }
  return usable_cpus();
}

void fit_openblas_before_it_starts(int, char** argv, char** envp) {
  for (char** e = envp; e && *e; ++e)
    if (std::strncmp(*e, kFittedMarker, std::strlen(kFittedMarker)) == 0) return;  // started again
  const auto limit = task_limit();
  if (!limit) return;
  const int wanted = openblas_wanted_threads(envp);
  // The pool's threads beyond the caller's, leaving room for a worker and its watchdog.
  const int fit =
      static_cast<int>(std::clamp<long>(limit->headroom() - kWorkerTasks + 1, 1, wanted));
  if (fit >= wanted) return;
  std::vector<char*> env;
  for (char** e = envp; e && *e; ++e)
    if (std::strncmp(*e, "OPENBLAS_NUM_THREADS=", 21) != 0) env.push_back(*e);
  char threads[64], marker[160];
  std::snprintf(threads, sizeof threads, "OPENBLAS_NUM_THREADS=%d", fit);
  std::snprintf(marker, sizeof marker, "%s=%d/%d/%ld/%ld", kFittedMarker, fit, wanted, limit->limit,
                limit->in_use);
  env.push_back(threads);
  env.push_back(marker);
  env.push_back(nullptr);
  ::execve("/proc/self/exe", argv, env.data());  // returns only on failure: go on as we are
}

[[gnu::section(".preinit_array"),
  gnu::used]] void (*const kFitOpenBlasEarly)(int, char**, char**) = fit_openblas_before_it_starts;

}  // namespace

std::string TaskLimit::describe() const {
  return fmt::format(
      "the per-user process limit (ulimit -u {}; {} process{} and thread{} of this "
      "user run)",
      limit, in_use, in_use == 1 ? "" : "es", in_use == 1 ? "" : "s");
}

std::optional<TaskLimit> task_limit() {
  rlimit rl{};
  if (::getrlimit(RLIMIT_NPROC, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY || !limit_applies())
    return std::nullopt;
  return TaskLimit{static_cast<long>(rl.rlim_cur), tasks_of_user(::getuid())};
}

std::optional<std::string> tasks_do_not_fit(int more, const std::string& what) {
  if (more <= 0) return std::nullopt;
  const auto limit = task_limit();
  if (!limit || limit->headroom() >= more) return std::nullopt;
  return fmt::format("thread limit: {} needs {} more thread{}, but {} leaves room for {}", what,
                     more, more == 1 ? "" : "s", limit->describe(), limit->headroom());
}

std::optional<std::string> threads_do_not_fit(int threads_in_all, const std::string& what) {
  uid_t uid = 0;
  long threads_now = 1;
  read_status("self", &uid, &threads_now);
  return tasks_do_not_fit(threads_in_all - static_cast<int>(threads_now), what);
}

int threads_within_task_limit(int wanted, int reserve) {
  const auto limit = task_limit();
  if (!limit) return std::max(wanted, 1);
  return static_cast<int>(
      std::clamp<long>(limit->headroom() - reserve + 1, 1, std::max(wanted, 1)));
}

std::string task_limit_note() {
  const auto limit = task_limit();
  if (!limit || limit->headroom() > kWorkerTasks) return "";
  return fmt::format("; {} is reached", limit->describe());
}

std::optional<std::string> openblas_fitted_to_task_limit() {
  const char* marker = std::getenv(kFittedMarker);
  int fit = 0, wanted = 0;
  long limit = 0, in_use = 0;
  if (!marker || std::sscanf(marker, "%d/%d/%ld/%ld", &fit, &wanted, &limit, &in_use) != 4 ||
      fit >= wanted)
    return std::nullopt;
  ::unsetenv(kFittedMarker);  // warned once, not again by a binary started again
  return fmt::format("{} leaves room for {} OpenBLAS thread{} (of {}): OPENBLAS_NUM_THREADS={}",
                     TaskLimit{limit, in_use}.describe(), fit, fit == 1 ? "" : "s", wanted, fit);
}

}  // namespace runner
