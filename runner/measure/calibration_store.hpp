#pragma once
// Where the calibrated ceilings of each machine are kept: one calibration per machine and device,
// not per working folder, so that a run from any folder finds what the machine measured before.
//
//   the user's cache     $XDG_CACHE_HOME/runner/calibration (~/.cache/runner/calibration): read,
//                        and written where the site folder is not
//   a site folder        $RUNNER_CALIBRATION_DIR: read first (a site may calibrate its nodes once
//                        for everyone), written when the user may write there
//   an explicit folder   --calibration-dir / calibrate --out: read and written alone
//
// In each, one subfolder per host, one file per device:
//   HOST/cpu-<model>-<cores>c.json   the CPU at the cores this process may use (a Slurm allocation
//                                    of 8 cores of a 64-core node is its own machine for ceilings)
//   HOST/gpu-<uuid>.json             a GPU by its UUID: this board, whatever its slot
//   HOST/gpu-<model>.json            a GPU whose UUID is unknown (HIP builds)
// Files of earlier releases at the top of a folder (cpu-<model>-<cores>c.json, gpu-<model>.json,
// keyed by model alone) are still read. A run copies the documents it used into its results
// folder (calibration/), and its manifest holds them: the provenance of every pct_peak_*.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace runner {

// "NVIDIA H100 80GB HBM3" → "nvidia-h100-80gb-hbm3": lower case, runs of anything else than
// letters and digits become one '-'.
std::string model_slug(std::string_view model);

// One device of one machine in the store.
struct CalibrationKey {
  std::string kind;         // "cpu" or "gpu"
  std::string host;         // the machine's host name
  std::string file;         // its file in the host's folder: "cpu-amd-epyc-2c.json"
  std::string legacy_file;  // the model-keyed name of earlier releases, at a folder's top
  std::string device;  // in words, for messages: "AMD EPYC (2 cores)", "NVIDIA H100 (GPU-8f..)"
};
CalibrationKey cpu_calibration_key(std::string_view host, std::string_view cpu_model, int cores);
CalibrationKey gpu_calibration_key(std::string_view host, std::string_view gpu_name,
                                   std::string_view uuid);

// A stored document and where it was read.
struct StoredCalibration {
  std::filesystem::path file;
  nlohmann::ordered_json doc;
};

// Reads a calibration file; null when absent or unreadable.
nlohmann::ordered_json read_calibration(const std::filesystem::path& file);

class CalibrationStore {
 public:
  // `explicit_dir` non-empty: that folder alone. Empty: the site folder ($RUNNER_CALIBRATION_DIR)
  // and the user's cache.
  explicit CalibrationStore(const std::filesystem::path& explicit_dir = {});

  // The first folder that holds the device (its host's file, else a legacy file); nullopt if none.
  std::optional<StoredCalibration> find(const CalibrationKey& key) const;
  // Where a new measurement of the device goes.
  std::filesystem::path file_for(const CalibrationKey& key) const;
  // Writes a document there, made atomically (readers see the old or the new one).
  std::filesystem::path store(const CalibrationKey& key, const nlohmann::ordered_json& doc) const;
  // The folders read, in order, and the one written.
  const std::vector<std::filesystem::path>& folders() const { return folders_; }
  const std::filesystem::path& write_folder() const { return write_folder_; }
  // "~/.cache/runner/calibration" or "/apps/cal (site), ~/.cache/runner/calibration": for messages.
  std::string describe() const;

 private:
  std::vector<std::filesystem::path> folders_;
  std::filesystem::path write_folder_;
};

// Holds an exclusive flock on FOLDER/.lock for its lifetime: concurrent runs on one machine (the
// shards of a Slurm array on one node) measure a device once, and one marks it stale at a time.
class CalibrationLock {
 public:
  explicit CalibrationLock(const std::filesystem::path& folder);
  ~CalibrationLock();
  CalibrationLock(const CalibrationLock&) = delete;
  CalibrationLock& operator=(const CalibrationLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace runner
