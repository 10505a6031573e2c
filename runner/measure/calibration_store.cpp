#include "runner/measure/calibration_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <fstream>

#include <fmt/format.h>

#include "runner/base/durable_file.hpp"
#include "runner/base/user_cache.hpp"

namespace runner {

namespace fs = std::filesystem;

namespace {

// A host name as a folder name: what is not a letter, a digit, '.', '-' or '_' becomes '-'.
std::string host_folder(std::string_view host) {
  std::string out;
  for (char c : host)
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_' ? c : '-';
  return out.empty() || out[0] == '.' ? "unknown-host" + out : out;
}

// Whether this user may create and write files in `dir` (or make it, where it does not exist).
bool writable(const fs::path& dir) {
  std::error_code ec;
  fs::path probe = dir;
  while (!probe.empty() && !fs::exists(probe, ec)) probe = probe.parent_path();
  return !probe.empty() && ::access(probe.c_str(), W_OK | X_OK) == 0;
}

}  // namespace

std::string model_slug(std::string_view model) {
  std::string slug;
  for (char c : model) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      slug += static_cast<char>(std::tolower(u));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-') slug.pop_back();
  return slug.empty() ? "unknown" : slug;
}

CalibrationKey cpu_calibration_key(std::string_view host, std::string_view cpu_model, int cores) {
  const std::string file = fmt::format("cpu-{}-{}c.json", model_slug(cpu_model), cores);
  return {"cpu", std::string(host), file, file, fmt::format("{} ({} cores)", cpu_model, cores)};
}

CalibrationKey gpu_calibration_key(std::string_view host, std::string_view gpu_name,
                                   std::string_view uuid) {
  const std::string legacy = "gpu-" + model_slug(gpu_name) + ".json";
  if (uuid.empty()) return {"gpu", std::string(host), legacy, legacy, std::string(gpu_name)};
  return {"gpu", std::string(host), "gpu-" + model_slug(uuid) + ".json", legacy,
          fmt::format("{} ({})", gpu_name, uuid)};
}

nlohmann::ordered_json read_calibration(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return nullptr;
  try {
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(in);
    return doc.is_object() ? doc : nlohmann::ordered_json(nullptr);
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

CalibrationStore::CalibrationStore(const fs::path& explicit_dir) {
  if (!explicit_dir.empty()) {
    folders_ = {explicit_dir};
    write_folder_ = explicit_dir;
    return;
  }
  const fs::path user = user_cache_dir("calibration");
  if (const char* site = std::getenv("RUNNER_CALIBRATION_DIR"); site && *site) {
    folders_ = {fs::path(site), user};
    write_folder_ = writable(site) ? fs::path(site) : user;
  } else {
    folders_ = {user};
    write_folder_ = user;
  }
}

std::optional<StoredCalibration> CalibrationStore::find(const CalibrationKey& key) const {
  for (const auto& folder : folders_)
    for (const fs::path& file :
         {folder / host_folder(key.host) / key.file, folder / key.legacy_file}) {
      nlohmann::ordered_json doc = read_calibration(file);
      if (doc.is_object()) return StoredCalibration{file, std::move(doc)};
    }
  return std::nullopt;
}

fs::path CalibrationStore::file_for(const CalibrationKey& key) const {
  return write_folder_ / host_folder(key.host) / key.file;
}

fs::path CalibrationStore::store(const CalibrationKey& key,
                                 const nlohmann::ordered_json& doc) const {
  const fs::path file = file_for(key);
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  write_file_atomically(file, doc.dump(2) + "\n");
  return file;
}

std::string CalibrationStore::describe() const {
  std::string text;
  for (std::size_t i = 0; i < folders_.size(); ++i) {
    text += (i ? ", " : "") + folders_[i].string();
    if (folders_.size() > 1 && i == 0) text += " (site)";
  }
  return text;
}

CalibrationLock::CalibrationLock(const fs::path& folder) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  fd_ = ::open((folder / ".lock").c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (fd_ >= 0) ::flock(fd_, LOCK_EX);
}

CalibrationLock::~CalibrationLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace runner
