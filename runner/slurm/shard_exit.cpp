#include "runner/slurm/shard_exit.hpp"

#include <fstream>
#include <map>
#include <sstream>

namespace runner::slurm {

namespace {

std::optional<int> to_int(const std::string& s) {
  try {
    std::size_t used = 0;
    const int v = std::stoi(s, &used);
    if (used == s.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace

std::optional<ShardExit> read_shard_exit(const std::filesystem::path& run_dir,
                                         const std::string& tag) {
  std::ifstream in(run_dir / "logs" / (tag + ".exit"));
  if (!in) return std::nullopt;
  std::optional<ShardExit> latest;
  for (std::string line; std::getline(in, line);) {
    // The batch script writes whole lines; one without its newline is being written, or was cut.
    if (in.eof()) break;
    std::map<std::string, std::string> fields;
    std::istringstream words(line);
    for (std::string word; words >> word;)
      if (const auto eq = word.find('='); eq != std::string::npos)
        fields[word.substr(0, eq)] = word.substr(eq + 1);
    const bool start_line = line.rfind("start ", 0) == 0;
    const int restarts = fields.count("restarts") ? to_int(fields["restarts"]).value_or(0) : 0;
    if (start_line) {
      ShardExit e;
      e.restarts = restarts;
      e.node = fields["node"];
      e.start = fields["start"];
      latest = e;
      continue;
    }
    const auto code = fields.count("exit") ? to_int(fields["exit"]) : std::nullopt;
    if (!code) continue;  // not an exit line
    // The exit line of the attempt started last, or (files of earlier releases) the only line.
    ShardExit e = latest && !latest->ended && latest->restarts == restarts ? *latest : ShardExit{};
    e.restarts = restarts;
    e.ended = true;
    e.exit_code = *code;
    e.drained = fields["drained"] == "1";
    if (!fields["node"].empty()) e.node = fields["node"];
    if (!fields["start"].empty()) e.start = fields["start"];
    e.end = fields["end"];
    latest = e;
  }
  return latest;
}

}  // namespace runner::slurm
