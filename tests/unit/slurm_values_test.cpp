// The Slurm values `runner submit` checks itself before anything is submitted
// (runner/spec/slurm_values.hpp): --time, --mem, --exclude and the lines of slurm.setup.
#include <gtest/gtest.h>

#include "runner/spec/slurm_values.hpp"

namespace runner {
namespace {

TEST(SlurmValues, MemorySizesSlurmReads) {
  for (const char* ok :
       {"16G", "4000M", "4000", "0", "512k", "2T", "1g", "64m", "16GB", "16gB", "16KB"})
    EXPECT_EQ(memory_size_problem(ok), std::nullopt) << ok;
}

TEST(SlurmValues, MemorySizesSlurmWouldRefuseOrMisread) {
  for (const char* bad : {"", "G", "16GiB", "16B", "16GBB", "16 G", "-1", "1.5G", "16P", "16G ",
                          " 16G", "lots", "0x10", "1234567890123456789"})
    EXPECT_NE(memory_size_problem(bad), std::nullopt) << bad;
  EXPECT_EQ(*memory_size_problem("16GiB"),
            "'16GiB' is not a memory size: a whole number of megabytes, or with a unit K, M, G or "
            "T (16G, 4000M, 0 for all of the node's memory)");
}

TEST(SlurmValues, TimeLimitsInSbatchsForms) {
  for (const char* ok :
       {"30", "30:00", "01:30:00", "2-12", "2-12:30", "2-12:30:00", "0", "UNLIMITED", "infinite"})
    EXPECT_EQ(time_limit_problem(ok), std::nullopt) << ok;
  for (const char* bad : {"", "1 hour", "1h", "1:2:3:4", "-5", "2-", "-2", "1.5", "12:", " 30"})
    EXPECT_NE(time_limit_problem(bad), std::nullopt) << bad;
}

TEST(SlurmValues, Hostlists) {
  for (const char* ok : {"gpu7", "node[01-03],gpu7", "node[1,4-6]", "rack[1-2]-n[01-10]",
                         "n1,n2,n3", "node-a.b_c", "gpu[7-7]"})
    EXPECT_EQ(hostlist_problem(ok), std::nullopt) << ok;
}

TEST(SlurmValues, NotHostlists) {
  for (const char* bad :
       {"", ",", "n1,", ",n1", "n1,,n2", "node[01-03", "node01-03]", "node[03-01]", "node[]",
        "node[a-b]", "node[1-2-3]", "node[[1]]", "n1 n2", "n1;reboot", "node[1-3]$x", "/etc/hosts"})
    EXPECT_NE(hostlist_problem(bad), std::nullopt) << bad;
  EXPECT_EQ(*hostlist_problem("node[03-01]"),
            "'node[03-01]' is not a Slurm hostlist ('[03-01]': the range 03-01 goes down): node "
            "names and ranges separated by commas, e.g. node[01-03],gpu7");
}

TEST(SlurmValues, SetupLinesAreOneLineWithoutNul) {
  EXPECT_EQ(setup_line_problem("module load cuda/12.4"), std::nullopt);
  EXPECT_EQ(setup_line_problem("source ~/venv/bin/activate && echo \"$PATH\" # 'quoted' %j"),
            std::nullopt);
  EXPECT_EQ(setup_line_problem(""), std::nullopt);
  EXPECT_NE(setup_line_problem("module load a\nmodule load b"), std::nullopt);
  EXPECT_NE(setup_line_problem("module load a\r"), std::nullopt);
  EXPECT_NE(setup_line_problem(std::string("module\0load", 11)), std::nullopt);
}

}  // namespace
}  // namespace runner
