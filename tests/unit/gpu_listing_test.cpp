// CUDA's list of GPUs predicted from NVML's (runner/measure/gpu_devices.hpp, GpuListing): in PCI
// order, each with the visibility entry its worker gets, wherever CUDA's list follows for certain,
// and nothing (with the reason) wherever it does not: MIG, GPUs of several models in CUDA's default
// order, entries NVML does not list, a GPU named twice.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "runner/measure/gpu_devices.hpp"

namespace runner {
namespace {

NvmlGpu gpu(unsigned bus, const std::string& name = "NVIDIA H100 80GB HBM3") {
  NvmlGpu g;
  g.name = name;
  g.uuid = "GPU-" + std::to_string(bus) + "aaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee";
  g.bus = bus;
  return g;
}

// NVML's list out of PCI order: bus 0x40 first, then 0x19, 0x1a, 0x5e.
std::vector<NvmlGpu> node() {
  return {gpu(0x40), gpu(0x19), gpu(0x1a), gpu(0x5e)};
}

std::vector<GpuDevice> predict(const std::vector<NvmlGpu>& gpus,
                               std::optional<std::string> visibility, std::string& why,
                               const std::string& order = "") {
  why.clear();
  return predict_runtime_listing(gpus, visibility, order, why);
}

TEST(GpuListing, UnsetVisibilityListsEveryGpuInPciOrder) {
  std::string why;
  const auto d = predict(node(), std::nullopt, why);
  ASSERT_EQ(d.size(), 4u) << why;
  const unsigned buses[] = {0x19, 0x1a, 0x40, 0x5e};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d[i].index, i);
    EXPECT_EQ(d[i].visibility, std::to_string(i));
    EXPECT_EQ(d[i].uuid, gpu(buses[i]).uuid);
    EXPECT_TRUE(d[i].cpus.empty());
  }
  EXPECT_EQ(d[0].pci_bus_id, "0000:19:00.0");
  EXPECT_EQ(d[3].pci_bus_id, "0000:5e:00.0");
}

TEST(GpuListing, IndicesAndUuidsNameTheGpusInTheirOrder) {
  std::string why;
  auto d = predict(node(), "2,0", why);
  ASSERT_EQ(d.size(), 2u) << why;
  EXPECT_EQ(d[0].visibility, "2");
  EXPECT_EQ(d[0].uuid, gpu(0x40).uuid);
  EXPECT_EQ(d[1].visibility, "0");
  EXPECT_EQ(d[1].uuid, gpu(0x19).uuid);
  // A UUID, and the start of one, as CUDA reads them; the worker gets the entry as written.
  d = predict(node(), "GPU-94aaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee, GPU-26", why);
  ASSERT_EQ(d.size(), 2u) << why;
  EXPECT_EQ(d[0].uuid, gpu(0x5e).uuid);
  EXPECT_EQ(d[1].uuid, gpu(0x1a).uuid);
  EXPECT_EQ(d[1].visibility, "GPU-26");
}

TEST(GpuListing, SeveralModelsNeedCudasOrderToBeThePciOrder) {
  std::vector<NvmlGpu> mixed = {gpu(0x19, "NVIDIA H100 80GB HBM3"), gpu(0x40, "NVIDIA A100")};
  std::string why;
  EXPECT_TRUE(predict(mixed, std::nullopt, why).empty());
  EXPECT_NE(why.find("several models"), std::string::npos) << why;
  EXPECT_TRUE(predict(mixed, "1", why).empty());
  EXPECT_EQ(predict(mixed, std::nullopt, why, "PCI_BUS_ID").size(), 2u) << why;
  // UUIDs name a GPU whatever the order.
  EXPECT_EQ(predict(mixed, gpu(0x40).uuid, why).size(), 1u) << why;
}

TEST(GpuListing, WhatNvmlCannotSayIsLeftToTheRuntime) {
  std::string why;
  std::vector<NvmlGpu> mig = node();
  mig[2].mig_enabled = true;
  EXPECT_TRUE(predict(mig, std::nullopt, why).empty());
  EXPECT_NE(why.find("MIG mode"), std::string::npos) << why;
  for (const std::string& visible :
       std::vector<std::string>{"", "4", "0,7", "MIG-5c1b7a37-5b1a-5b5e-9c2a-7a7b2b1e1d2c",
                                "GPU-ffff", "0,0", gpu(0x19).uuid + ",0", "GPU-", "1,x"}) {
    EXPECT_TRUE(predict(node(), visible, why).empty()) << visible;
    EXPECT_FALSE(why.empty()) << visible;
  }
  predict(node(), gpu(0x19).uuid + ",0", why);
  EXPECT_NE(why.find("names " + gpu(0x19).uuid + " twice"), std::string::npos) << why;
  EXPECT_TRUE(predict({}, std::nullopt, why).empty());
  EXPECT_EQ(why, "NVML lists no GPU");
}

}  // namespace
}  // namespace runner
