#pragma once
#include <filesystem>
#include <optional>
#include <string>

namespace runner {

// The results folder of a run, watched: deleted or moved while the run goes on (a cleanup script,
// a user tidying up), the records went on into deleted files and the run ended with "8 records
// are safe in c" for a folder that did not exist. The run checks between points and stops.
class OutputWatch {
 public:
  // Holds the folder open (O_PATH) as it is now; a folder that cannot be opened is not watched.
  explicit OutputWatch(const std::filesystem::path& dir);
  ~OutputWatch();
  OutputWatch(const OutputWatch&) = delete;
  OutputWatch& operator=(const OutputWatch&) = delete;

  struct Lost {
    bool deleted = false;            // gone with its records
    std::filesystem::path moved_to;  // else: where it is now (a rename on the same file system)
  };
  // nullopt while `dir` still names the folder the run started in.
  std::optional<Lost> check() const;

 private:
  std::filesystem::path dir_;
  int fd_ = -1;
};

}  // namespace runner
