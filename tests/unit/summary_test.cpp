// The summary a run prints at its end: bounded however many points the run had.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "runner/results/columns.hpp"
#include "runner/results/summary.hpp"

namespace runner {
namespace {

Record ok_record(int size, double ms) {
  Record r;
  r["point_id"] = "p" + std::to_string(size);
  r["kernel"] = "transpose";
  r["variant"] = "omp_naive";
  r["backend"] = "cpu";
  r["dtype"] = "float";
  r["m"] = size;
  r["n"] = size;
  r["status"] = "ok";
  r["time_ms_median"] = ms;
  r["point_s"] = 0.001;
  r["timed_s"] = 0.0005;
  return canonical_record(r, UnknownFields::refuse);
}

std::string summary_of(const std::vector<Record>& records, std::size_t planned) {
  char* text = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  print_summary(records, planned, out, 2.0);
  std::fclose(out);
  std::string s(text, size);
  std::free(text);
  return s;
}

std::size_t lines_with(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
    ++n;
  return n;
}

TEST(Summary, ATableOfManyProblemsIsCutAndSaysHowManyItLeftOut) {
  std::vector<Record> records;
  for (int i = 1; i <= 100; ++i) records.push_back(ok_record(i, 0.01 * i));
  const std::string s = summary_of(records, 100);
  EXPECT_EQ(lines_with(s, "transpose  float"), 40u) << s;
  EXPECT_NE(s.find("... and 60 more problems"), std::string::npos) << s;
  EXPECT_NE(s.find("100 of 100 points recorded: 100 ok"), std::string::npos) << s;
  EXPECT_NE(s.find("Time: 2.0 s wall, 0.1 s in points, 0.1 s of it timed"), std::string::npos) << s;
}

TEST(Summary, AFewProblemsAreAllShown) {
  const std::string s = summary_of({ok_record(8, 0.1), ok_record(16, 0.2)}, 3);
  EXPECT_EQ(lines_with(s, "transpose  float"), 2u) << s;
  EXPECT_EQ(s.find("more problems"), std::string::npos) << s;
  EXPECT_NE(s.find("2 of 3 points recorded"), std::string::npos) << s;
}

TEST(Summary, ManyCausesOfFailureAreCut) {
  std::vector<Record> records;
  for (int i = 0; i < 50; ++i) {
    Record r = ok_record(i, 1);
    r["status"] = "failed";
    r["message"] = "cause " + std::to_string(i);
    records.push_back(r);
  }
  const std::string s = summary_of(records, 50);
  EXPECT_EQ(lines_with(s, "  failed omp_naive: cause "), 40u) << s;
  EXPECT_NE(s.find("... and 10 more causes"), std::string::npos) << s;
}

}  // namespace
}  // namespace runner
