#include "runner/slurm/shard_exit.hpp"

#include <fstream>
#include <sstream>

namespace runner::slurm {

std::optional<ShardExit> read_shard_exit(const std::filesystem::path& run_dir,
                                         const std::string& tag) {
  std::ifstream in(run_dir / "logs" / (tag + ".exit"));
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  ShardExit e;
  bool have_exit = false;
  std::istringstream words(line);
  for (std::string word; words >> word;) {
    const auto eq = word.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = word.substr(0, eq), value = word.substr(eq + 1);
    if (key == "exit") {
      try {
        e.exit_code = std::stoi(value);
        have_exit = true;
      } catch (const std::exception&) {
      }
    } else if (key == "drained") {
      e.drained = value == "1";
    } else if (key == "node") {
      e.node = value;
    } else if (key == "start") {
      e.start = value;
    } else if (key == "end") {
      e.end = value;
    }
  }
  if (!have_exit) return std::nullopt;
  return e;
}

}  // namespace runner::slurm
