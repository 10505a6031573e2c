#include "runner/plugin/plugin_build.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "runner/base/child_command.hpp"
#include "runner/base/durable_file.hpp"
#include "runner/base/user_cache.hpp"
#include "runner/plugin/content_hash.hpp"

namespace runner::plugin {

namespace {

namespace fs = std::filesystem;

constexpr double kCompileTimeoutSeconds = 900;

// How messages name a file: relative to the working directory when it is below it (as users
// type paths), else absolute.
std::string shown(const fs::path& file) {
  std::error_code ec;
  const fs::path rel = fs::relative(file, fs::current_path(ec), ec);
  if (!ec && !rel.empty() && *rel.begin() != "..") return rel.string();
  return file.string();
}

// The cache folder's lock, held while an entry is looked up and written.
class EntryLock {
 public:
  explicit EntryLock(const fs::path& file) {
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0)
      throw Refused(fmt::format("cannot create the plugin cache's lock {}: {}", file.string(),
                                std::strerror(errno)));
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~EntryLock() {
    if (fd_ >= 0) ::close(fd_);
  }
  EntryLock(const EntryLock&) = delete;
  EntryLock& operator=(const EntryLock&) = delete;

 private:
  int fd_ = -1;
};

// Headers of the runner itself and of the system are part of the plugin ABI (or of the
// machine): only the user's own are tracked.
class UserHeaders {
 public:
  UserHeaders() {
    std::error_code ec;
    for (const char* sub : {"runner", "kernels"}) {
      const fs::path dir = fs::weakly_canonical(runner_include_dir() / sub, ec);
      if (!ec) runner_dirs_.push_back(dir.string() + "/");
    }
  }
  bool is_user(const fs::path& canonical) const {
    const std::string s = canonical.string();
    if (s.starts_with("/usr/") || s.starts_with("/opt/rocm")) return false;
    for (const auto& dir : runner_dirs_)
      if (s.starts_with(dir)) return false;
    return true;
  }

 private:
  std::vector<std::string> runner_dirs_;
};

std::string describe_failure(const CommandOutput& r) {
  if (r.timed_out) return fmt::format("stopped after {:.0f} s", kCompileTimeoutSeconds);
  return fmt::format("exit {}", r.exit_code);
}

// The compiler's output with nvcc's `file(12): error` written `file:12: error`, as g++ and
// clang write it (editors and terminals link the form).
std::string compiler_output(const CommandOutput& r) {
  static const std::regex nvcc_location(R"(^(.*?)\((\d+)\): (error|warning|remark))");
  std::string text = r.err.empty() ? r.out : (r.out.empty() ? r.err : r.out + r.err);
  std::istringstream in(text);
  std::string out;
  for (std::string line; std::getline(in, line);)
    out += std::regex_replace(line, nvcc_location, "$1:$2: $3",
                              std::regex_constants::format_first_only) +
           "\n";
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

void run_step(const std::vector<std::string>& argv, const fs::path& source, const char* step) {
  CommandOutput r;
  try {
    r = run_child_command(argv, kCompileTimeoutSeconds);
  } catch (const std::exception& e) {
    throw PluginCompileError(fmt::format("plugin {}: cannot {}: {}", shown(source), step, e.what()),
                             "");
  }
  if (r.exit_code == 0 && !r.timed_out) return;
  throw PluginCompileError(
      fmt::format("plugin {} does not {} ({}); the compiler says:", shown(source), step,
                  describe_failure(r)),
      fmt::format("{}\n(command: {})", compiler_output(r), command_line(argv)));
}

struct Entry {
  fs::path dir;
  std::string source_hash;
};

// The entry's library when plugin.json still matches the source and its headers.
std::optional<BuiltPlugin> read_entry(const Entry& entry, const BuiltPlugin& wanted) {
  std::error_code ec;
  const fs::path meta = entry.dir / "plugin.json";
  if (!fs::exists(meta, ec) || !fs::exists(entry.dir / "plugin.so", ec)) return std::nullopt;
  try {
    std::ifstream in(meta);
    const nlohmann::json j = nlohmann::json::parse(in);
    if (j.at("source_hash") != entry.source_hash || j.at("abi") != plugin_abi() ||
        j.at("toolchain") != wanted.toolchain)
      return std::nullopt;
    BuiltPlugin hit = wanted;
    ContentHash content;
    content.add(entry.source_hash);
    for (const auto& h : j.at("headers")) {
      const fs::path header = h.at("path").get<std::string>();
      if (!fs::exists(header, ec) || file_hash(header) != h.at("hash").get<std::string>())
        return std::nullopt;
      content.add(header.string()).add(h.at("hash").get<std::string>());
      hit.headers.push_back(header);
    }
    hit.content_hash = content.hex();
    hit.library = entry.dir / "plugin.so";
    hit.from_cache = true;
    return hit;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable or from an older runner: build again
  }
}

}  // namespace

fs::path default_cache_dir() {
  if (const char* dir = std::getenv("RUNNER_PLUGIN_CACHE"); dir && *dir) return dir;
  return user_cache_dir("plugins");
}

std::vector<std::string> parse_depfile(const std::string& text) {
  // make syntax: "target: dep dep \<newline> dep"; a space inside a name is "\ ".
  std::vector<std::string> words;
  std::string word;
  bool after_colon = false;
  auto flush = [&] {
    if (!word.empty() && after_colon) words.push_back(word);
    word.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      const char next = text[i + 1];
      if (next == '\n' || next == '\r') {
        flush();
        ++i;
        continue;
      }
      if (next == ' ' || next == '#' || next == '\\') {
        word += next;
        ++i;
        continue;
      }
    }
    const bool ends_target =
        c == ':' && (i + 1 == text.size() || std::isspace(static_cast<unsigned char>(text[i + 1])));
    if (ends_target && !after_colon) {
      word.clear();
      after_colon = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      flush();
      if (c == '\n') after_colon = false;  // a line without "\" at its end: a new rule follows
      continue;
    }
    word += c;
  }
  flush();
  return words;
}

BuiltPlugin build_plugin(const fs::path& source_in, const fs::path& cache_dir) {
  std::error_code ec;
  const fs::path source = fs::absolute(source_in, ec);
  if (!fs::exists(source, ec))
    throw UsageError(fmt::format("plugin {}: no such file", shown(source)));
  if (!fs::is_regular_file(source, ec))
    throw UsageError(fmt::format("plugin {}: not a regular file", shown(source)));
  BuiltPlugin built;
  built.source = source;
  built.language = plugin_language(source);
  if (built.language == PluginLanguage::library) {
    built.library = source;
    built.content_hash = file_hash(source);
    built.from_cache = true;
    return built;
  }
  built.toolchain = toolchain_description(built.language);
  const std::string source_hash = file_hash(source);
  const std::string key =
      ContentHash().add(source_hash).add(plugin_abi()).add(built.toolchain).hex().substr(0, 16);
  const Entry entry{cache_dir / fmt::format("{}-{}", source.stem().string(), key), source_hash};
  fs::create_directories(cache_dir, ec);
  if (ec)
    throw Refused(
        fmt::format("cannot create the plugin cache {}: {} (set RUNNER_PLUGIN_CACHE to "
                    "a folder you can write)",
                    cache_dir.string(), ec.message()));
  EntryLock lock(entry.dir.string() + ".lock");
  if (auto hit = read_entry(entry, built)) return *hit;

  const auto start = std::chrono::steady_clock::now();
  const fs::path work = entry.dir.string() + fmt::format(".tmp-{}", ::getpid());
  fs::remove_all(work, ec);
  fs::create_directories(work, ec);
  if (ec) throw Refused(fmt::format("cannot create {}: {}", work.string(), ec.message()));
  PluginPaths paths;
  // The source as the user names it, so that the compiler's messages do too.
  paths.source = shown(source);
  paths.object = work / "plugin.o";
  paths.depfile = work / "plugin.d";
  paths.stamp_object = work / "stamp.o";
  paths.library = work / "plugin.so";
  const PluginCommands commands = plugin_commands(built.language, paths);
  try {
    run_step(commands.compile_source, source, "compile");
    run_step(commands.compile_stamp, source, "compile the runner's stamp");
    run_step(commands.link, source, "link");
  } catch (...) {
    fs::remove_all(work, ec);
    throw;
  }

  // The user headers it includes, from the compiler's dependency list.
  std::ifstream dep_in(paths.depfile);
  std::stringstream dep_text;
  dep_text << dep_in.rdbuf();
  const UserHeaders filter;
  std::set<fs::path> headers;
  const fs::path canonical_source = fs::weakly_canonical(source, ec);
  for (const auto& word : parse_depfile(dep_text.str())) {
    const fs::path dep = fs::weakly_canonical(fs::absolute(word, ec), ec);
    if (ec || dep == canonical_source || !filter.is_user(dep)) continue;
    headers.insert(dep);
  }
  nlohmann::json meta = {{"source", source.string()},
                         {"source_hash", source_hash},
                         {"abi", plugin_abi()},
                         {"toolchain", built.toolchain},
                         {"headers", nlohmann::json::array()}};
  ContentHash content;
  content.add(source_hash);
  for (const auto& h : headers) {
    const std::string hash = file_hash(h);
    meta["headers"].push_back({{"path", h.string()}, {"hash", hash}});
    content.add(h.string()).add(hash);
    built.headers.push_back(h);
  }
  built.content_hash = content.hex();
  built.build_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  meta["build_s"] = built.build_s;
  fs::create_directories(entry.dir, ec);
  fs::rename(paths.library, entry.dir / "plugin.so", ec);
  if (ec)
    throw Refused(
        fmt::format("cannot write {}: {}", (entry.dir / "plugin.so").string(), ec.message()));
  write_file_atomically(entry.dir / "plugin.json", meta.dump(2) + "\n");
  fs::remove_all(work, ec);
  built.library = entry.dir / "plugin.so";
  return built;
}

}  // namespace runner::plugin
