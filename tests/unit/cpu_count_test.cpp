// available_parallelism() and its parsing steps: cgroup v2 cpu.max and v1 quota
// files, /proc/self/cgroup and /proc/self/mountinfo lines as real kernels write
// them, rounding a fractional quota up, and reading a fake cgroup tree (in a temp
// directory) where the tightest limit on the path wins.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <string>
#include <thread>

#include "stealpool/affinity.hpp"
#include "stealpool/cpu_count.hpp"

namespace sp = stealpool;
namespace spd = stealpool::detail;
namespace fs = std::filesystem;

namespace {

// A scratch "filesystem root" for cgroup_cpu_limit(sysroot), removed afterwards.
class FakeRoot {
 public:
  FakeRoot() {
    std::string templ = (fs::temp_directory_path() / "stealpool_cgroup_XXXXXX").string();
    if (mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + templ);
    root_ = templ;
  }
  ~FakeRoot() {
    std::error_code ignored;  // a leftover temp dir must not fail the test
    fs::remove_all(root_, ignored);
  }
  FakeRoot(const FakeRoot&) = delete;
  FakeRoot& operator=(const FakeRoot&) = delete;

  // Writes `text` to root/relative, creating the directories on the way.
  void write(const std::string& relative, const std::string& text) const {
    const fs::path p = root_ / relative;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  std::string path() const { return root_.string(); }

 private:
  fs::path root_;
};

constexpr const char* kV2Mountinfo =
    "25 30 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
    "31 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n";

constexpr const char* kV1Mountinfo =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime shared:12 - cgroup cgroup rw,cpuset\n"
    "33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime shared:11 - cgroup cgroup rw,cpuacct\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw,relatime shared:10 - cgroup cgroup rw,cpu,cpuacct\n";

// ---- cpu.max (v2) ----------------------------------------------------------------

TEST(ParseCgroup2CpuMax, MaxMeansNoLimit) {
  EXPECT_EQ(spd::parse_cgroup2_cpu_max("max 100000"), std::nullopt);
  EXPECT_EQ(spd::parse_cgroup2_cpu_max("max 100000\n"), std::nullopt);
}

TEST(ParseCgroup2CpuMax, QuotaOverPeriodGivesCpusIncludingFractions) {
  EXPECT_EQ(spd::parse_cgroup2_cpu_max("150000 100000\n"), 1.5);
  EXPECT_EQ(spd::parse_cgroup2_cpu_max("200000 100000"), 2.0);
  EXPECT_EQ(spd::parse_cgroup2_cpu_max("50000 100000"), 0.5);
  EXPECT_EQ(spd::parse_cgroup2_cpu_max("1000 1000000"), 0.001);
}

TEST(ParseCgroup2CpuMax, ToleratesExtraWhitespaceAndNewlines) {
  EXPECT_EQ(spd::parse_cgroup2_cpu_max("  150000   100000 \n\n"), 1.5);
  EXPECT_EQ(spd::parse_cgroup2_cpu_max("\t150000\t100000\r\n"), 1.5);
  EXPECT_EQ(spd::parse_cgroup2_cpu_max("\nmax\n100000\n"), std::nullopt);
}

TEST(ParseCgroup2CpuMax, ZeroNegativeAndGarbageMeanNoLimit) {
  for (const char* text : {"0 100000", "-1 100000", "150000 0", "150000 -5", "abc 100000", "150000 100000x",
                           "1.5 1", "", "\n", "150000", "150000 100000 7", "max",
                           "99999999999999999999999 100000"})
    EXPECT_EQ(spd::parse_cgroup2_cpu_max(text), std::nullopt) << "cpu.max = \"" << text << "\"";
}

// ---- cpu.cfs_quota_us / cpu.cfs_period_us (v1) ------------------------------------

TEST(ParseCgroup1Quota, MinusOneMeansNoLimit) {
  EXPECT_EQ(spd::parse_cgroup1_quota("-1\n", "100000\n"), std::nullopt);
}

TEST(ParseCgroup1Quota, QuotaOverPeriodGivesCpus) {
  EXPECT_EQ(spd::parse_cgroup1_quota("150000\n", "100000\n"), 1.5);
  EXPECT_EQ(spd::parse_cgroup1_quota(" 400000 ", "100000"), 4.0);
}

TEST(ParseCgroup1Quota, ZeroNegativeAndGarbageMeanNoLimit) {
  EXPECT_EQ(spd::parse_cgroup1_quota("0", "100000"), std::nullopt);
  EXPECT_EQ(spd::parse_cgroup1_quota("-5", "100000"), std::nullopt);
  EXPECT_EQ(spd::parse_cgroup1_quota("x", "100000"), std::nullopt);
  EXPECT_EQ(spd::parse_cgroup1_quota("150000", ""), std::nullopt);
  EXPECT_EQ(spd::parse_cgroup1_quota("150000", "0"), std::nullopt);
  EXPECT_EQ(spd::parse_cgroup1_quota("150000", "-100000"), std::nullopt);
  EXPECT_EQ(spd::parse_cgroup1_quota("1 2", "100000"), std::nullopt);
}

// ---- /proc/self/cgroup -------------------------------------------------------------

TEST(Cgroup2Path, ReadsTheUnifiedHierarchyLine) {
  EXPECT_EQ(spd::cgroup2_path("0::/user.slice/user-1000.slice/session-2.scope\n"),
            "/user.slice/user-1000.slice/session-2.scope");
  EXPECT_EQ(spd::cgroup2_path("0::/\n"), "/");
}

TEST(Cgroup2Path, FindsTheUnifiedLineAmongV1Lines) {
  EXPECT_EQ(spd::cgroup2_path("4:memory:/x\n3:cpuset:/\n1:cpu:/\n0::/init.scope\n"), "/init.scope");
}

TEST(Cgroup2Path, NoUnifiedLineMeansNoPath) {
  EXPECT_EQ(spd::cgroup2_path("4:cpu,cpuacct:/docker/abc\n1:name=systemd:/\n"), std::nullopt);
  EXPECT_EQ(spd::cgroup2_path(""), std::nullopt);
  EXPECT_EQ(spd::cgroup2_path("0::\n"), std::nullopt);
}

TEST(Cgroup1CpuPath, FindsTheHierarchyWithTheCpuController) {
  EXPECT_EQ(spd::cgroup1_cpu_path("5:cpuset:/a\n4:cpu,cpuacct:/docker/abc\n0::/\n"), "/docker/abc");
  EXPECT_EQ(spd::cgroup1_cpu_path("2:cpuacct,cpu:/k8s/pod\n"), "/k8s/pod");
  EXPECT_EQ(spd::cgroup1_cpu_path("1:cpu:/a:b\n"), "/a:b") << "a ':' in the path is part of it";
}

TEST(Cgroup1CpuPath, CpusetAndCpuacctAloneAreNotTheCpuController) {
  EXPECT_EQ(spd::cgroup1_cpu_path("3:cpuset:/a\n2:cpuacct:/b\n0::/c\n"), std::nullopt);
}

// ---- /proc/self/mountinfo ----------------------------------------------------------

TEST(CgroupMount, FindsTheCgroup2MountPastOptionalFields) {
  const auto m = spd::cgroup2_mount(kV2Mountinfo);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->root, "/");
  EXPECT_EQ(m->mount_point, "/sys/fs/cgroup");
}

TEST(CgroupMount, FindsTheV1MountCarryingTheCpuController) {
  const auto m = spd::cgroup1_cpu_mount(kV1Mountinfo);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->mount_point, "/sys/fs/cgroup/cpu,cpuacct");
  EXPECT_EQ(spd::cgroup2_mount(kV1Mountinfo), std::nullopt);
}

TEST(CgroupMount, ReportsAContainersSubtreeRootAndUnescapesPaths) {
  const auto m = spd::cgroup2_mount("40 31 0:38 /docker/abc /mnt/my\\040cgroups ro - cgroup2 cgroup2 rw\n");
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->root, "/docker/abc");
  EXPECT_EQ(m->mount_point, "/mnt/my cgroups");
}

// ---- combining ---------------------------------------------------------------------

TEST(CombineParallelism, FractionalQuotaRoundsUp) {
  EXPECT_EQ(spd::combine_parallelism(8, 0.5), 1u);
  EXPECT_EQ(spd::combine_parallelism(8, 1.5), 2u);
  EXPECT_EQ(spd::combine_parallelism(8, 2.0), 2u);
  EXPECT_EQ(spd::combine_parallelism(8, 0.001), 1u);
}

TEST(CombineParallelism, QuotaAboveTheAllowedCpusLeavesTheCpus) {
  EXPECT_EQ(spd::combine_parallelism(4, 6.0), 4u);
  EXPECT_EQ(spd::combine_parallelism(4, 1e30), 4u);
  EXPECT_EQ(spd::combine_parallelism(4, std::nullopt), 4u);
}

TEST(CombineParallelism, NonsenseQuotaIsNoLimitAndZeroCpusIsOne) {
  EXPECT_EQ(spd::combine_parallelism(4, 0.0), 4u);
  EXPECT_EQ(spd::combine_parallelism(4, -1.0), 4u);
  EXPECT_EQ(spd::combine_parallelism(4, std::numeric_limits<double>::quiet_NaN()), 4u);
  EXPECT_EQ(spd::combine_parallelism(4, std::numeric_limits<double>::infinity()), 4u);
  EXPECT_EQ(spd::combine_parallelism(0, std::nullopt), 1u);
  EXPECT_EQ(spd::combine_parallelism(0, 3.0), 1u);
}

// ---- a fake cgroup tree --------------------------------------------------------------

TEST(CgroupCpuLimit, TightestV2LimitOnThePathWinsWhereverItIs) {
  FakeRoot root;
  root.write("proc/self/cgroup", "0::/a/b/c\n");
  root.write("proc/self/mountinfo", kV2Mountinfo);
  root.write("sys/fs/cgroup/a/cpu.max", "400000 100000\n");
  root.write("sys/fs/cgroup/a/b/cpu.max", "150000 100000\n");
  root.write("sys/fs/cgroup/a/b/c/cpu.max", "max 100000\n");
  root.write("sys/fs/cgroup/a/sibling/cpu.max", "10000 100000\n");  // not on our path
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), 1.5) << "the middle level is the tightest";

  root.write("sys/fs/cgroup/a/b/c/cpu.max", "50000 100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), 0.5) << "now the leaf is";

  root.write("sys/fs/cgroup/a/b/c/cpu.max", "max 100000\n");
  root.write("sys/fs/cgroup/a/cpu.max", "100000 100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), 1.0) << "now the outermost is";
}

TEST(CgroupCpuLimit, NoLimitAnywhereMeansNullopt) {
  FakeRoot root;
  root.write("proc/self/cgroup", "0::/a/b\n");
  root.write("proc/self/mountinfo", kV2Mountinfo);
  root.write("sys/fs/cgroup/a/cpu.max", "max 100000\n");
  root.write("sys/fs/cgroup/a/b/cpu.max", "max 100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), std::nullopt);
}

TEST(CgroupCpuLimit, GarbledLevelsAreSkippedNotFatal) {
  FakeRoot root;
  root.write("proc/self/cgroup", "0::/a/b\n");
  root.write("proc/self/mountinfo", kV2Mountinfo);
  root.write("sys/fs/cgroup/a/cpu.max", "lots\n");
  root.write("sys/fs/cgroup/a/b/cpu.max", "200000 100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), 2.0);
}

TEST(CgroupCpuLimit, ContainerMountRootIsStrippedFromTheProcessPath) {
  FakeRoot root;
  // The container sees only /docker/abc, mounted at /sys/fs/cgroup.
  root.write("proc/self/cgroup", "0::/docker/abc/sub\n");
  root.write("proc/self/mountinfo", "31 25 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  root.write("sys/fs/cgroup/cpu.max", "300000 100000\n");
  root.write("sys/fs/cgroup/sub/cpu.max", "200000 100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), 2.0);
}

TEST(CgroupCpuLimit, PathNotUnderTheMountRootUsesOnlyTheMountPoint) {
  FakeRoot root;
  // "/docker/abcd" shares a prefix with the mount root "/docker/abc" but is not
  // under it, so "d/..." must not be looked up below the mount.
  root.write("proc/self/cgroup", "0::/docker/abcd/x\n");
  root.write("proc/self/mountinfo", "31 25 0:26 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  root.write("sys/fs/cgroup/cpu.max", "300000 100000\n");
  root.write("sys/fs/cgroup/d/x/cpu.max", "100000 100000\n");
  root.write("sys/fs/cgroup/x/cpu.max", "100000 100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), 3.0);
}

TEST(CgroupCpuLimit, WithoutMountinfoLooksWhereCgroupsAreConventionallyMounted) {
  FakeRoot root;
  root.write("proc/self/cgroup", "0::/a\n");
  root.write("sys/fs/cgroup/a/cpu.max", "300000 100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), 3.0);

  FakeRoot v1;
  v1.write("proc/self/cgroup", "2:cpu,cpuacct:/grp\n");
  v1.write("sys/fs/cgroup/cpu,cpuacct/grp/cpu.cfs_quota_us", "250000\n");
  v1.write("sys/fs/cgroup/cpu,cpuacct/grp/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(v1.path()), 2.5);
}

TEST(CgroupCpuLimit, UnmountedHierarchyIsNotGuessedAt) {
  FakeRoot root;
  // mountinfo is readable and names no cgroup2 mount, so the tmpfs file below is
  // not a cgroup file and must be ignored.
  root.write("proc/self/cgroup", "0::/a\n");
  root.write("proc/self/mountinfo", "31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n");
  root.write("sys/fs/cgroup/a/cpu.max", "100000 100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), std::nullopt);
}

TEST(CgroupCpuLimit, V1QuotaUnderTheCpuMountCountsAndMinusOneDoesNot) {
  FakeRoot root;
  root.write("proc/self/cgroup", "4:cpu,cpuacct:/grp/leaf\n3:cpuset:/\n0::/\n");
  root.write("proc/self/mountinfo", kV1Mountinfo);
  root.write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "-1\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/grp/cpu.cfs_quota_us", "250000\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/grp/cpu.cfs_period_us", "100000\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/grp/leaf/cpu.cfs_quota_us", "-1\n");
  root.write("sys/fs/cgroup/cpu,cpuacct/grp/leaf/cpu.cfs_period_us", "100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), 2.5);
}

TEST(CgroupCpuLimit, UnreadableProcSelfCgroupMeansNoLimit) {
  FakeRoot root;
  root.write("sys/fs/cgroup/cpu.max", "100000 100000\n");
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path()), std::nullopt);
  EXPECT_EQ(spd::cgroup_cpu_limit(root.path() + "/does/not/exist"), std::nullopt);
}

// ---- the real thing ----------------------------------------------------------------

TEST(AvailableParallelism, IsAtLeastOneAndWithinTheAffinityMaskAndQuota) {
  const std::size_t n = sp::available_parallelism();
  EXPECT_GE(n, 1u);
  const std::size_t allowed = sp::allowed_cpus().size();
  if (allowed != 0) {
    EXPECT_LE(n, allowed);
  } else if (std::thread::hardware_concurrency() != 0) {
    EXPECT_LE(n, std::thread::hardware_concurrency());
  }
  if (const auto quota = spd::cgroup_cpu_limit()) {
    EXPECT_LE(static_cast<double>(n), std::ceil(*quota));
  }
}

}  // namespace
