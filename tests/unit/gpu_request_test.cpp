// Which GPUs a run uses (runner/spec/gpu_request.hpp, runner/measure/gpu_devices.hpp), on fake
// inventories: --gpus all|N|LIST against what the process sees, every form of
// CUDA_VISIBLE_DEVICES (indices, GPU UUIDs, MIG instances, empty), and the bad inputs of the
// multi-GPU issue, each with its message.
#include <gtest/gtest.h>

#include <stdexcept>

#include "runner/base/errors.hpp"
#include "runner/measure/gpu_devices.hpp"
#include "runner/spec/gpu_request.hpp"

namespace runner {
namespace {

GpuInventory four_gpus(const std::string& visible = "") {
  GpuInventory inv;
  inv.visibility_variable = "CUDA_VISIBLE_DEVICES";
  inv.visibility_set = !visible.empty();
  inv.visibility_value = visible;
  const auto entries = visibility_entries(visible);
  for (int i = 0; i < 4; ++i) {
    GpuDevice d;
    d.index = i;
    d.visibility = entries.empty() ? std::to_string(i) : entries.at(static_cast<std::size_t>(i));
    d.name = "NVIDIA H100 80GB HBM3";
    d.uuid = "GPU-0000000" + std::to_string(i) + "-aaaa-bbbb-cccc-dddddddddddd";
    d.pci_bus_id = "0000:0" + std::to_string(i + 1) + ":00.0";
    inv.devices.push_back(d);
  }
  return inv;
}

std::string error_of(const std::string& request, const GpuInventory& inv) {
  try {
    select_gpus(parse_gpu_request(request), inv);
  } catch (const UsageError& e) {
    return e.what();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

std::vector<int> indices(const std::vector<GpuDevice>& d) {
  std::vector<int> out;
  for (const auto& g : d) out.push_back(g.index);
  return out;
}

TEST(GpuRequest, ParsesAllACountAndAList) {
  EXPECT_EQ(parse_gpu_request("all").kind, GpuRequest::Kind::all);
  const auto two = parse_gpu_request("2");
  EXPECT_EQ(two.kind, GpuRequest::Kind::count);
  EXPECT_EQ(two.count, 2);
  const auto list = parse_gpu_request("3,1");
  EXPECT_EQ(list.kind, GpuRequest::Kind::list);
  EXPECT_EQ(list.items, (std::vector<std::string>{"3", "1"}));
  EXPECT_EQ(parse_gpu_request("2,").items, std::vector<std::string>{"2"}) << "a list of one";
  EXPECT_EQ(parse_gpu_request(" GPU-abc , MIG-def ").items,
            (std::vector<std::string>{"GPU-abc", "MIG-def"}));
}

TEST(GpuRequest, RefusesWhatNamesNoGpu) {
  for (const char* bad : {"", "0", "-1", "two", "1,,2", "0,0", "1.5", "99999", "GPU-a,GPU-a"})
    EXPECT_THROW(parse_gpu_request(bad), std::invalid_argument) << "'" << bad << "'";
  try {
    parse_gpu_request("0,0");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("GPU 0 is named twice"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_gpu_mode("spread"), GpuMode::spread);
  EXPECT_EQ(parse_gpu_mode("each"), GpuMode::each);
  EXPECT_FALSE(parse_gpu_mode("all"));
}

TEST(GpuSelection, AllACountAListAndUuids) {
  const auto inv = four_gpus();
  EXPECT_EQ(indices(select_gpus(parse_gpu_request("all"), inv)), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(indices(select_gpus(parse_gpu_request("2"), inv)), (std::vector<int>{0, 1}));
  EXPECT_EQ(indices(select_gpus(parse_gpu_request("3,1"), inv)), (std::vector<int>{3, 1}));
  EXPECT_EQ(indices(select_gpus(parse_gpu_request(inv.devices[2].uuid + ","), inv)),
            std::vector<int>{2});
}

TEST(GpuSelection, TheBadInputsOfTheIssueEachSayWhy) {
  const auto inv = four_gpus("0,1,2,3");
  EXPECT_NE(error_of("7,", inv).find("there is no GPU 7: this process sees 4 GPUs "
                                     "(CUDA_VISIBLE_DEVICES=0,1,2,3) (indices 0 to 3)"),
            std::string::npos)
      << error_of("7,", inv);
  EXPECT_NE(error_of("7", inv).find("7 GPUs asked for, and this process sees 4 GPUs"),
            std::string::npos)
      << error_of("7", inv);
  EXPECT_NE(error_of("0,0", inv).find("named twice"), std::string::npos);
  EXPECT_NE(error_of("GPU-ffffffff", inv).find("no GPU with UUID GPU-ffffffff here"),
            std::string::npos)
      << error_of("GPU-ffffffff", inv);
  // The start of a UUID names a GPU as in CUDA_VISIBLE_DEVICES, when it names one.
  EXPECT_EQ(indices(select_gpus(parse_gpu_request("GPU-00000002,"), inv)), (std::vector<int>{2}));
  EXPECT_NE(error_of("GPU-0000000", inv).find("GPU-0000000 begins the UUID of 4 GPUs"),
            std::string::npos)
      << error_of("GPU-0000000", inv);
  EXPECT_NE(error_of("2,GPU-00000002", inv).find("named twice"), std::string::npos);
  // The same GPU by index and by UUID is still one GPU.
  EXPECT_NE(error_of("1," + inv.devices[1].uuid, inv).find("named twice"), std::string::npos);
  GpuInventory none;
  none.visibility_variable = "CUDA_VISIBLE_DEVICES";
  none.visibility_set = true;
  none.absent_reason = "CUDA_VISIBLE_DEVICES is set and empty: no GPU is visible to this process";
  EXPECT_NE(error_of("1", none).find("this process sees no GPU (CUDA_VISIBLE_DEVICES is set and "
                                     "empty"),
            std::string::npos)
      << error_of("1", none);
  EXPECT_TRUE(select_gpus(parse_gpu_request("all"), none).empty()) << "all of none is none";
  // No GPU at all: the message ends with why, not with a range of indices there is not.
  EXPECT_TRUE(error_of("0,", none).ends_with("empty: no GPU is visible to this process)"))
      << error_of("0,", none);
  EXPECT_TRUE(error_of("0,", none).starts_with("--gpus 0,: there is no GPU 0"))
      << error_of("0,", none);
}

TEST(GpuSelection, AWorkerSeesItsGpuAsTheProcessListNamesIt) {
  // Indices, UUIDs and MIG instances: each worker gets its entry of the list as it is written.
  const auto by_index = four_gpus("4,5,6,7");
  EXPECT_EQ(select_gpus(parse_gpu_request("1,"), by_index)[0].visibility, "5");
  const auto by_uuid = four_gpus("GPU-a,GPU-b,GPU-c,GPU-d");
  EXPECT_EQ(select_gpus(parse_gpu_request("3,"), by_uuid)[0].visibility, "GPU-d");
  EXPECT_EQ(select_gpus(parse_gpu_request("GPU-c,"), by_uuid)[0].index, 2)
      << "a UUID as the list writes it names the GPU too";
  const auto mig = four_gpus("MIG-1,MIG-2,MIG-3,MIG-4");
  EXPECT_EQ(select_gpus(parse_gpu_request("MIG-2,"), mig)[0].visibility, "MIG-2");
  EXPECT_EQ(visibility_entries("0,1,,2"), (std::vector<std::string>{"0", "1"}))
      << "the runtime stops at the first empty entry";
  EXPECT_TRUE(visibility_entries("").empty());
}

}  // namespace
}  // namespace runner
