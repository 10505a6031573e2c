// summarize(): median, extremes, mean, sample standard deviation, relative standard deviation.
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "runner/measure/statistics.hpp"

namespace runner {
namespace {

TEST(Statistics, MedianOfAnOddCount) {
  const std::vector<double> x = {5.0, 1.0, 3.0};
  EXPECT_DOUBLE_EQ(summarize(x).median, 3.0);
}

TEST(Statistics, MedianOfAnEvenCountIsTheMeanOfTheMiddleTwo) {
  const std::vector<double> x = {4.0, 1.0, 3.0, 2.0};
  EXPECT_DOUBLE_EQ(summarize(x).median, 2.5);
}

TEST(Statistics, SampleStandardDeviationDividesByNMinusOne) {
  const std::vector<double> x = {2, 4, 4, 4, 5, 5, 7, 9};  // mean 5, squared deviations sum to 32
  const SampleStats s = summarize(x);
  EXPECT_EQ(s.samples, 8);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(32.0 / 7.0));
  EXPECT_DOUBLE_EQ(s.rsd, std::sqrt(32.0 / 7.0) / 5.0);
}

TEST(Statistics, OneSampleHasNoSpread) {
  const std::vector<double> x = {1.25};
  const SampleStats s = summarize(x);
  EXPECT_EQ(s.samples, 1);
  EXPECT_DOUBLE_EQ(s.median, 1.25);
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
  EXPECT_DOUBLE_EQ(s.rsd, 0.0);
}

TEST(Statistics, NoSamples) {
  const SampleStats s = summarize({});
  EXPECT_EQ(s.samples, 0);
  EXPECT_DOUBLE_EQ(s.median, 0.0);
  EXPECT_DOUBLE_EQ(s.rsd, 0.0);
}

TEST(Statistics, IdenticalSamplesHaveZeroRsd) {
  const std::vector<double> x(10, 0.5);
  const SampleStats s = summarize(x);
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
  EXPECT_DOUBLE_EQ(s.rsd, 0.0);
}

TEST(Statistics, DoesNotReorderTheCallersSamples) {
  const std::vector<double> x = {3.0, 1.0, 2.0};
  summarize(x);
  EXPECT_EQ(x, (std::vector<double>{3.0, 1.0, 2.0}));
}

}  // namespace
}  // namespace runner
