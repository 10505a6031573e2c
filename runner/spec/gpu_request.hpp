#pragma once
// Which GPUs a run uses (`--gpus`, the config's `gpus:`) and how points go to them (`--gpu-mode`,
// `gpu_mode:`), as written; runner/measure/gpu_devices.hpp matches a request with the GPUs there.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace runner {

struct GpuRequest {
  enum class Kind { all, count, list };
  Kind kind = Kind::all;  // every GPU the process may use (the default)
  int count = 0;          // count: the first N of them
  // list: indices into the process's list ("2") or UUIDs ("GPU-3fa8...", "MIG-..."), in order.
  std::vector<std::string> items;
  std::string text = "all";  // as written, for messages and the manifest
  // Where it was written, the start of every message about it: "--gpus 0,2", or for the config's
  // key "FILE:LINE:COL: gpus: [0, 2]" (a GPU the node lacks is found only once GPUs are probed).
  std::string origin = "--gpus all";
};

// Why `item` cannot name a GPU (an index, or a UUID as nvidia-smi -L shows it: GPU-..., MIG-...),
// or "" when it can.
std::string gpu_item_problem(std::string_view item);

// "all"; "N" (the first N GPUs); "A,B,..." (those GPUs: indices or UUIDs; one GPU as "2,"). Throws
// std::invalid_argument saying what is wrong.
// `syntax`: how the messages write a list of one GPU ("2," on the command line, [2] in a config).
enum class GpuRequestSyntax { command_line, yaml };
GpuRequest parse_gpu_request(std::string_view text,
                             GpuRequestSyntax syntax = GpuRequestSyntax::command_line);

// spread: each point runs once, on one of the GPUs (the default); each: every GPU point runs on
// every selected GPU (to compare the GPUs of a node).
enum class GpuMode { spread, each };
std::optional<GpuMode> parse_gpu_mode(std::string_view text);
std::string_view gpu_mode_name(GpuMode mode);

}  // namespace runner
