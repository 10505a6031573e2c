#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "runner/cli/commands.hpp"

namespace runner::cli {

namespace {
// analysis/ next to the binary's source tree (a build), or RUNNER_ANALYSIS_DIR.
std::filesystem::path analysis_dir() {
  if (const char* dir = std::getenv("RUNNER_ANALYSIS_DIR")) return dir;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec)
    for (auto dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path())
      if (std::filesystem::exists(dir / "analysis" / "report.py")) return dir / "analysis";
  return std::filesystem::path(RUNNER_SOURCE_DIR) / "analysis";
}
}  // namespace

int exec_analysis(const std::string& script, const std::vector<std::string>& args) {
  const auto path = analysis_dir() / script;
  // The system Python carries Debian's pandas and matplotlib; a python3 earlier on PATH may not.
  const char* python = std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  std::vector<std::string> words = {python, path.string()};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  execvp(python, argv.data());
  fmt::print(stderr, "error: cannot run {}: {}\n", python, std::strerror(errno));
  return 1;
}

}  // namespace runner::cli
