// The split-K plan of the tuned GEMMs (kernels/gemm/gemm_split_k.cuh): k is cut only where the
// tiles of C do not fill the GPU, into whole k-steps that cover k exactly once.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <tuple>

#include "kernels/gemm/gemm_split_k.cuh"

namespace runner::kernels::gemm::split_k {
namespace {

// regtile on an H100: 132 SMs × 2 blocks, 128×128 tiles, k-steps of 16.
CostModel regtile_h100() {
  CostModel c;
  c.slots = 264;
  c.step_us = 2.9;
  c.bytes_per_us = 3.0e6;
  return c;
}

Plan plan_for(std::int64_t m, std::int64_t n, std::int64_t k,
              const CostModel& cost = regtile_h100()) {
  const std::int64_t tiles = ceil_div(m, 128) * ceil_div(n, 128);
  return plan(cost, tiles, m, n, k, 16, 4);
}

// Every split is a whole number of k-steps, none is empty, and together they cover k.
void expect_covers(const Plan& p, std::int64_t k, int bk) {
  ASSERT_GE(p.splits, 1);
  if (p.splits == 1) {
    EXPECT_GE(p.k_chunk, k);
    return;
  }
  EXPECT_EQ(p.k_chunk % bk, 0);
  EXPECT_GE(p.k_chunk * p.splits, k);
  EXPECT_LT(p.k_chunk * (p.splits - 1), k);
}

TEST(SplitKPlan, LargeProblemsAreNotSplit) {
  for (std::int64_t s : {2048, 4096, 8192}) {
    const Plan p = plan_for(s, s, s);
    EXPECT_EQ(p.splits, 1) << s;
    EXPECT_EQ(p.k_chunk, s) << s;
  }
  EXPECT_EQ(plan_for(4095, 4097, 4099).splits, 1);
  EXPECT_EQ(plan_for(8192, 8192, 256).splits, 1);
}

TEST(SplitKPlan, FewTilesSplitKToFillTheGpu) {
  const Plan small = plan_for(1024, 1024, 1024);  // 64 tiles for 264 slots
  EXPECT_GE(small.splits, 3);
  EXPECT_LE(64 * small.splits, 264);  // one wave
  expect_covers(small, 1024, 16);

  const Plan deep = plan_for(256, 256, 65536);  // 4 tiles, 4096 k-steps
  EXPECT_GE(deep.splits, 32);
  EXPECT_LE(4 * deep.splits, 264);
  expect_covers(deep, 65536, 16);
}

TEST(SplitKPlan, ShortKIsNeverCutBelowTheMinimumChunk) {
  EXPECT_EQ(plan_for(128, 128, 48).splits, 1);    // 3 k-steps
  const Plan p = plan_for(128, 128, 16 * 9 + 5);  // 10 k-steps, the last partial
  EXPECT_LE(p.splits, 2);
  expect_covers(p, 16 * 9 + 5, 16);
}

TEST(SplitKPlan, OddKIsCoveredExactly) {
  for (std::int64_t k : {257, 1023, 3999, 20001, 65537}) {
    const Plan p = plan_for(200, 136, k);
    expect_covers(p, k, 16);
  }
}

// dmma on an H200: one block an SM, 128×128 tiles, k-steps of 32; 2 to 4 splits summed in a
// cluster (no workspace traffic, no second launch, about one k-step to exchange the tiles), with
// `cluster_slots` blocks resident at once in clusters of 3 and 4 (all 132 in pairs).
CostModel dmma_h200(bool clusters, std::int64_t cluster_slots = 132) {
  CostModel c;
  c.slots = 132;
  c.step_us = 3.2;
  c.bytes_per_us = 3.0e6;
  if (clusters) c.cluster_slots = {0, 0, 132, cluster_slots, cluster_slots};
  return c;
}

TEST(SplitKPlan, ASumInTheClusterMakesSplitsWorthItWhereTheWorkspaceIsNot) {
  // 1100³ in doubles: 81 tiles on 132 SMs, 35 k-steps. Through the workspace three splits (two
  // waves) cost about what the idle SMs do; in clusters that all fit at once they are cheaper.
  const std::int64_t tiles = ceil_div(1100, 128) * ceil_div(1100, 128);
  EXPECT_EQ(plan(dmma_h200(false), tiles, 1100, 1100, 1100, 32, 8).splits, 1);
  const Plan in_cluster = plan(dmma_h200(true), tiles, 1100, 1100, 1100, 32, 8);
  EXPECT_EQ(in_cluster.splits, 3);
  expect_covers(in_cluster, 1100, 32);
  // Where the GPU places fewer clusters of 3 (243 blocks would take three waves of 120), k
  // stays whole.
  EXPECT_EQ(plan(dmma_h200(true, 120), tiles, 1100, 1100, 1100, 32, 8).splits, 1);
  // Beyond the cluster's splits the workspace's costs come back: deep K still splits, further.
  const Plan deep = plan(dmma_h200(true), 4, 256, 256, 65536, 32, 8);
  EXPECT_GT(deep.splits, 4);
  expect_covers(deep, 65536, 32);
}

TEST(SplitKPlan, ExpensiveWorkspaceTrafficKeepsKWhole) {
  CostModel slow_memory = regtile_h100();
  slow_memory.bytes_per_us = 1.0e3;  // 1 GB/s: the slices would cost more than idle SMs
  EXPECT_EQ(plan_for(1024, 1024, 1024, slow_memory).splits, 1);
}

TEST(SplitKPlan, PathNamesTheSplit) {
  EXPECT_EQ(describe(128, 128, Plan{1, 4096}), "128x128 tiles");
  EXPECT_EQ(describe(128, 128, Plan{4, 256}), "128x128 tiles, split-K 4");
}

// With the SMs given (a tiling whose blocks share an SM), a last wave is charged by its blocks on
// the busiest SM: 132 blocks where 264 fit (one an SM) cost half of a full wave, 133 a whole one;
// without them every wave counts as full, as before.
TEST(SplitKPlan, PartialLastWaveCostsItsShareWhereBlocksShareAnSm) {
  CostModel c = regtile_h100();
  const double full = modelled_us(c, 264, 10, 1, 1, 4);
  EXPECT_DOUBLE_EQ(modelled_us(c, 132, 10, 1, 1, 4), full);
  c.sms = 132;
  EXPECT_DOUBLE_EQ(modelled_us(c, 264, 10, 1, 1, 4), full);
  EXPECT_DOUBLE_EQ(modelled_us(c, 132, 10, 1, 1, 4), full / 2);
  EXPECT_DOUBLE_EQ(modelled_us(c, 133, 10, 1, 1, 4), full);
  EXPECT_DOUBLE_EQ(modelled_us(c, 264 + 132, 10, 1, 1, 4), 1.5 * full);
  // The plan reports the time it chose by.
  const Plan p = plan(c, 16, 512, 512, 4096, 16, 4);
  EXPECT_GT(p.splits, 1);
  EXPECT_DOUBLE_EQ(p.modelled_us, modelled_us(c, 16, 256, p.splits, 512 * 512, 4));
}

// regtile's figures since it was measured alone on an SM (gemm_regtile.cu): a lone block's k-step
// takes 0.572 of a shared one's, so a last wave of one block an SM is not free, and not full.
TEST(SplitKPlan, ALoneBlockCostsItsMeasuredShareOfAnSm) {
  CostModel c = regtile_h100();
  const double full = modelled_us(c, 264, 10, 1, 1, 4);
  c.sms = 132;
  c.lone_block_share = 0.572;
  EXPECT_DOUBLE_EQ(modelled_us(c, 132, 10, 1, 1, 4), 0.572 * full);
  EXPECT_DOUBLE_EQ(modelled_us(c, 64, 10, 1, 1, 4), 0.572 * full);
  EXPECT_DOUBLE_EQ(modelled_us(c, 133, 10, 1, 1, 4), full);
  EXPECT_DOUBLE_EQ(modelled_us(c, 264 + 1, 10, 1, 1, 4), 1.572 * full);
  // 513³, 25 tiles of 33 k-steps: 7 chunks put two blocks on 43 SMs, 5 chunks (125 blocks) none;
  // measured on an H200, 32.2 against 26.4 µs. Counting every wave as full, the plan took 7.
  const std::int64_t tiles = 5 * 5;
  EXPECT_EQ(plan(regtile_h100(), tiles, 513, 513, 513, 16, 4).splits, 7);
  c.min_chunk_steps = 2;
  EXPECT_EQ(plan(c, tiles, 513, 513, 513, 16, 4).splits, 5);
  // 256³, 4 tiles of 16 k-steps: chunks of 2 steps (8 splits, 8.8 µs) beat chunks of 4 (11.5).
  EXPECT_EQ(plan(c, 4, 256, 256, 256, 16, 4).splits, 8);
}

// A split a variant times (dmma where its 64×64 tiles leave SMs idle): exactly that many chunks of
// whole k-steps that cover k, with the model's time for them, and none where the chunks would be
// shorter than the plan allows or the same as those of fewer splits.
TEST(SplitKPlan, AGivenSplitCoversKInThatManyChunks) {
  const CostModel c = regtile_h100();  // min_chunk_steps 4
  const std::optional<Plan> whole = plan_of_splits(c, 16, 256, 256, 256, 16, 4, 1);
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->splits, 1);
  EXPECT_EQ(whole->k_chunk, 256);
  EXPECT_DOUBLE_EQ(whole->modelled_us, modelled_us(c, 16, 16, 1, 256 * 256, 4));
  for (const auto& [k, splits, chunk] :
       {std::tuple{256, 4, 64}, std::tuple{256, 3, 96}, std::tuple{256, 2, 128},
        std::tuple{257, 4, 80}, std::tuple{257, 2, 144}, std::tuple{4099, 4, 1040}}) {
    const std::optional<Plan> p = plan_of_splits(c, 16, 256, 256, k, 16, 4, splits);
    ASSERT_TRUE(p) << k << " in " << splits;
    EXPECT_EQ(p->splits, splits) << k;
    EXPECT_EQ(p->k_chunk, chunk) << k << " in " << splits;
    expect_covers(*p, k, 16);
    EXPECT_DOUBLE_EQ(p->modelled_us,
                     modelled_us(c, 16, (k + 15) / 16, splits, std::int64_t{256} * 256, 4));
  }
  // 16 k-steps: 5 splits make the chunks of 4 (4 steps each), 8 chunks of 2 steps are too short.
  EXPECT_FALSE(plan_of_splits(c, 16, 256, 256, 256, 16, 4, 5));
  EXPECT_FALSE(plan_of_splits(c, 16, 256, 256, 256, 16, 4, 8));
  EXPECT_FALSE(plan_of_splits(c, 16, 3, 5, 7, 16, 4, 2));  // one k-step
  EXPECT_FALSE(plan_of_splits(c, 16, 256, 256, 256, 16, 4, 0));
}

// The one rule of both: exactly that many chunks, none of them a smaller split's, and no more
// splits than chunks of min_chunk_steps fit (the last chunk may be shorter than the others).
TEST(SplitKPlan, ChunkStepsOfASplit) {
  EXPECT_EQ(chunk_steps_of(16, 1, 4), 16);
  EXPECT_EQ(chunk_steps_of(1, 1, 4), 1);
  EXPECT_EQ(chunk_steps_of(16, 4, 4), 4);
  EXPECT_EQ(chunk_steps_of(17, 4, 4), 5);  // 5, 5, 5, 2
  EXPECT_EQ(chunk_steps_of(10, 4, 1), 3);  // 3, 3, 3, 1
  EXPECT_FALSE(chunk_steps_of(16, 5, 4));  // 16 steps hold 4 chunks of 4, not 5
  EXPECT_FALSE(chunk_steps_of(15, 4, 4));  // 4, 4, 4, 3: fewer than 4 steps a chunk on average
  EXPECT_FALSE(chunk_steps_of(10, 6, 1));  // chunks of 2 make 5 splits, not 6
  EXPECT_FALSE(chunk_steps_of(16, 0, 4));
  EXPECT_EQ(chunk_steps_of(16, 16, 0), 1);  // no minimum: a step a chunk
}

// plan() chooses among the splits plan_of_splits() offers for timing: its choice is always one of
// them, with the same chunks and time, under a model that rarely splits and one that splits
// wherever it can; and a split that plan() may not choose is not offered either.
TEST(SplitKPlan, PlanChoosesAmongTheSplitsOfferedForTiming) {
  CostModel splits_freely = regtile_h100();
  splits_freely.slots = 100000;
  splits_freely.fixed_steps = 0;
  splits_freely.launch_us = 0;
  splits_freely.bytes_per_us = 1e12;
  int split = 0;
  for (std::int64_t k = 1; k <= 4000; k += 7) {
    for (const CostModel& c : {regtile_h100(), splits_freely}) {
      const Plan p = plan(c, 1, 64, 64, k, 16, 4);
      const std::optional<Plan> offered = plan_of_splits(c, 1, 64, 64, k, 16, 4, p.splits);
      ASSERT_TRUE(offered) << k << " in " << p.splits;
      EXPECT_EQ(offered->k_chunk, p.k_chunk) << k;
      EXPECT_DOUBLE_EQ(offered->modelled_us, p.modelled_us) << k;
      split += p.splits > 1;
    }
  }
  EXPECT_GT(split, 500);  // most of them split under the second model
  // 15 k-steps with chunks of at least 4: 3 splits of 5 at most.
  EXPECT_EQ(plan(splits_freely, 1, 64, 64, 240, 16, 4).splits, 3);
  EXPECT_FALSE(plan_of_splits(splits_freely, 1, 64, 64, 240, 16, 4, 4));
}

}  // namespace
}  // namespace runner::kernels::gemm::split_k
