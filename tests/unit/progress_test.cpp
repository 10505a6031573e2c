// The progress lines of a run without a terminal, and the ETA weighted by each variant's cost.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "runner/run/progress.hpp"

namespace runner {
namespace {

TEST(Progress, TheEtaWeighsEachPointByTheCostOfItsVariantSoFar) {
  Progress p(Progress::Mode::off, {"cpu", "cpu", "gpu", "gpu", "gpu"});
  EXPECT_LT(p.eta_seconds(), 0);  // nothing measured yet
  p.finish(0, "ok", 1.0);
  EXPECT_DOUBLE_EQ(p.eta_seconds(), 4.0);  // 1 cpu at 1 s; 3 gpu at the run's mean, 1 s
  p.finish(2, "ok", 10.0);
  EXPECT_DOUBLE_EQ(p.eta_seconds(), 1.0 + 2 * 10.0);
  p.skip(3);  // done by an earlier run: nothing left to pay for it
  EXPECT_DOUBLE_EQ(p.eta_seconds(), 1.0 + 10.0);
}

TEST(Progress, WithoutATerminalALineAtTheStartOnFailuresEveryIntervalAndAtTheEnd) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  {
    Progress p(Progress::Mode::log, {"k/a", "k/a", "k/a", "k/b", "k/b"}, out, 1e9);
    const char* statuses[] = {"ok", "ok", "failed", "skipped", "ok"};
    for (std::size_t i = 0; i < 5; ++i) {
      p.start("point " + std::to_string(i));
      p.finish(i, statuses[i], 0.5);
    }
    p.clear();
  }
  std::fclose(out);
  const std::string s(text, size);
  std::free(text);
  EXPECT_NE(s.find("[1/5 20 %] 0:00 spent, ETA 0:02; last: point 0 ok (500 ms)\n"),
            std::string::npos)
      << s;
  EXPECT_EQ(s.find("point 1 "), std::string::npos) << s;  // within the interval
  EXPECT_NE(s.find("[3/5 60 %]"), std::string::npos) << s;
  EXPECT_NE(s.find("point 2 failed"), std::string::npos) << s;
  EXPECT_EQ(s.find("point 3 "), std::string::npos) << s;  // skipped: waits its turn
  EXPECT_NE(s.find("[5/5 100 %] 0:00 spent, ETA 0:00; last: point 4 ok"), std::string::npos) << s;
  EXPECT_EQ(s.find('\r'), std::string::npos) << "no terminal control in a log";
}

}  // namespace
}  // namespace runner
