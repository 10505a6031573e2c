#pragma once
// The GPUs a run may use, and how a worker process is put on one (docs/measurement.md, "Several
// GPUs"). The runner's own process never initialises the GPU runtime (a forked CUDA context is
// unusable, and nodes in EXCLUSIVE_PROCESS mode allow one context per GPU): it asks a short-lived
// child process what the runtime sees, and starts each worker with CUDA_VISIBLE_DEVICES (or
// HIP_VISIBLE_DEVICES) set to the one device it measures, so that a worker's device 0 is its GPU.
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/measure/device_monitor.hpp"
#include "runner/spec/gpu_request.hpp"

namespace runner {

// One GPU this process may use.
struct GpuDevice {
  int index = 0;           // its position in this process's list: the records' gpu_index
  std::string visibility;  // what a worker's CUDA_VISIBLE_DEVICES is set to: the entry of this
                           // process's own list (an index, a GPU-/MIG- UUID) or its index
  std::string name, uuid, pci_bus_id;
  std::vector<int> cpus;  // the cores near it (NVML's CPU affinity, within this process's mask);
                          // empty when the node does not say

  nlohmann::json to_json() const;
};

struct GpuInventory {
  std::vector<GpuDevice> devices;
  bool predicted = false;           // listed by NVML (GpuListing::nvml_where_certain)
  std::string absent_reason;        // why there is none
  std::string visibility_variable;  // CUDA_VISIBLE_DEVICES or HIP_VISIBLE_DEVICES
  std::string visibility_value;     // its value in this process ("" when unset: `unset`)
  bool visibility_set = false;
  std::vector<std::string> notes;  // what the inventory did not trust (a core list too short)
};

// How probe_gpus() lists the GPUs.
//  - runtime: asks the GPU runtime in a child process. The truth, but it initialises the runtime
//    on every GPU of the node: 0.7 to 1.2 s on a node of 4 H200s, paid by every run.
//  - nvml_where_certain: asks NVML (milliseconds, no runtime) where CUDA's list follows from it
//    for certain: no GPU in MIG mode, CUDA_VISIBLE_DEVICES unset or naming GPUs NVML knows (by
//    UUID, or by index into NVML's list in PCI order), and CUDA's order known (all GPUs of one
//    model, or CUDA_DEVICE_ORDER=PCI_BUS_ID). Elsewhere, and in HIP builds, as `runtime`. The
//    inventory is then `predicted`: every worker's hello must confirm its GPU's UUID, and a run
//    whose hello disagrees starts again with the runtime's listing (GpuListingDisagrees).
enum class GpuListing { runtime, nvml_where_certain };

// What the GPU runtime sees, asked in a child process (this one stays without a GPU context), or
// predicted from NVML (above). A build without a GPU runtime, or a machine without a GPU, gives an
// empty inventory with the reason.
GpuInventory probe_gpus(GpuListing how = GpuListing::runtime);

// A worker's hello named another GPU (or none) than a predicted inventory gave it.
class GpuListingDisagrees : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// CUDA's list of GPUs as NVML's `gpus` imply it under `visibility` (CUDA_VISIBLE_DEVICES, nullopt
// when unset) and `device_order` (CUDA_DEVICE_ORDER, "" when unset): the devices in CUDA's order,
// each with its visibility entry, name, UUID and PCI bus id (no cores). Empty, with the reason in
// `why_not`, wherever CUDA's list does not follow for certain (GpuListing::nvml_where_certain).
std::vector<GpuDevice> predict_runtime_listing(std::vector<NvmlGpu> gpus,
                                               const std::optional<std::string>& visibility,
                                               const std::string& device_order,
                                               std::string& why_not);

// Tests only: bin/runner-test (tests/test_kernels/fake_gpus.cpp) makes probe_gpus() return `count`
// made-up GPUs, so that the scheduling of a run over several GPUs is tested where there is none
// (their workers see no GPU and record their points skipped). The shipped runner never calls it.
void use_fake_gpus_for_tests(int count);
// Tests only, with made-up GPUs: their listing is taken for NVML's (GpuInventory::predicted), so
// that their workers' hellos, which see no GPU, disagree with it (GpuListingDisagrees).
void predict_fake_gpus_for_tests();
// Tests only, with made-up GPUs: the worker of made-up GPU `index` dies before its hello, as one
// on a GPU whose driver fails at start, so that a GPU taken out of a run is tested end to end.
void fail_fake_gpu_for_tests(int index);
// True in the worker of a made-up GPU that fail_fake_gpu_for_tests named (`visibility`: its entry,
// "fake-1"). Called right after fork(): allocates nothing.
bool fake_gpu_fails_at_start(const std::string& visibility);

// The entries of a visibility list ("0,1", "GPU-3fa..,GPU-77c..", "MIG-..."), as the runtime
// reads them: up to the first empty entry.
std::vector<std::string> visibility_entries(const std::string& value);

// The GPUs `request` names among `inventory`'s, in the request's order. UsageError (exit 2) with
// the reason for one that is not there (an index beyond the list, an unknown UUID), a GPU named
// twice, or GPUs asked for where there are none.
std::vector<GpuDevice> select_gpus(const GpuRequest& request, const GpuInventory& inventory);

// "2 of 4 GPUs (CUDA_VISIBLE_DEVICES=0,1,2,3): 0 NVIDIA H100 ..., 1 ..."
std::string describe_selection(const std::vector<GpuDevice>& selected,
                               const GpuInventory& inventory);

}  // namespace runner
