#pragma once
#include <optional>
#include <string>
#include <vector>

namespace runner {

// Watches the device a point runs on while it is sampled: its SM clock after every sample (a
// sample taken while the clock is far below its default is throttled and retaken), and its
// temperature and power at the end. Only reads: nothing here ever sets a clock or a power limit.
class DeviceMonitor {
 public:
  virtual ~DeviceMonitor() = default;
  // The SM clock now, in MHz; nullopt when it cannot be read.
  virtual std::optional<double> sm_clock_mhz() = 0;
  // The SM clock a sample must at least run at to count (kThrottleFraction of the reference
  // clock); 0 when unknown, and then no sample is discarded.
  virtual double min_sm_clock_mhz() const = 0;
  virtual std::optional<double> temperature_c() = 0;
  virtual std::optional<double> power_w() = 0;
};

// A sample taken below this fraction of the device's default SM clock is discarded and retaken
// after kThrottleBackoffSeconds, the rule and figures of nvbench.
constexpr double kThrottleFraction = 0.75;
constexpr double kThrottleBackoffSeconds = 0.05;

// The monitor of the GPU that CUDA points run on (NVML, loaded at run time so that the binary needs
// no driver library to start), or null when there is none: no GPU, no NVML library, or a GPU that
// NVML cannot match (gpu_monitor_unavailable_reason() says which). Created at the first call.
DeviceMonitor* gpu_monitor();
std::string gpu_monitor_unavailable_reason();

// The CPU cores near the GPU at `pci_bus_id` (NVML's CPU affinity: the cores of its NUMA node or
// socket), for pinning the worker that measures it; empty when NVML is not there or does not say.
// Needs no GPU context.
std::vector<int> gpu_cpu_affinity(const std::string& pci_bus_id);

// One GPU as NVML sees it, for a listing that needs no GPU runtime (runner/measure/gpu_devices.hpp,
// GpuListing::nvml_where_certain).
struct NvmlGpu {
  std::string name, uuid;
  unsigned domain = 0, bus = 0, device = 0;  // its PCI address
  bool mig_enabled = false;                  // MIG mode on: CUDA sees its instances, not the GPU
};

// Every GPU NVML lists that this process may open, in NVML's order; nullopt with the reason in
// `why_not` where NVML is not there or fails. Initialises no GPU runtime.
std::optional<std::vector<NvmlGpu>> nvml_gpus(std::string& why_not);

}  // namespace runner
