// stealpool/cpu_count.hpp: how many threads this process can actually run at once,
// the default worker count of a pool.
//
// std::thread::hardware_concurrency() counts the machine's CPUs, which overstates
// what a process in a container or under taskset gets: a pool sized from it runs
// more workers than CPUs, and the surplus only preempts the others (a worker
// descheduled while holding work delays every join waiting on it). So the count is
//
//   available_parallelism() = max(1, min(A, ceil(Q)))
//
// where A = CPUs in the sched_getaffinity mask (taskset, cpusets; falls back to
// hardware_concurrency(), then 1) and Q = the tightest cgroup CPU quota on the path
// from the process's cgroup up to the root of the mounted hierarchy (v2 cpu.max,
// v1 cpu.cfs_quota_us / cpu.cfs_period_us); no quota, or one that cannot be read or
// parsed, means Q = infinity. Rounding Q up, not down: a 1.5-CPU quota runs two
// threads at 75% each, and rounding down to 1 would leave the half CPU idle
// whenever the one worker blocks.
//
// Linux only in substance; elsewhere the cgroup files do not exist and the count is
// hardware_concurrency(). Nothing here throws: every failure means "no limit".
// Costs a few small file reads (about ten); call it once when sizing a pool, not
// per task. Not cached, because the affinity mask and the cgroup may change while
// the process runs.
//
// The detail functions are the parsing steps, pure functions over file contents so
// that tests can feed them what real systems write.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace stealpool {

// The number of threads this process can run in parallel; always >= 1.
std::size_t available_parallelism() noexcept;

namespace detail {

// A cgroup v2 "cpu.max" file ("$QUOTA $PERIOD", e.g. "150000 100000") as CPUs
// (1.5). nullopt for "max ..." (no limit) and for anything that is not two
// positive integers: a garbled limit must not shrink the pool.
std::optional<double> parse_cgroup2_cpu_max(std::string_view cpu_max);

// cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us as CPUs; nullopt for quota -1
// (no limit) and for anything that is not a positive integer.
std::optional<double> parse_cgroup1_quota(std::string_view quota, std::string_view period);

// The cgroup v2 path in /proc/self/cgroup (the "0::/path" line); nullopt if the
// process is in no v2 hierarchy.
std::optional<std::string> cgroup2_path(std::string_view proc_self_cgroup);

// The cgroup v1 path of the hierarchy that has the "cpu" controller (a line
// "N:cpu,cpuacct:/path"); nullopt if there is none.
std::optional<std::string> cgroup1_cpu_path(std::string_view proc_self_cgroup);

// A cgroup filesystem mount, from /proc/self/mountinfo: `root` is the directory of
// the hierarchy that appears at `mount_point` (not "/" when a container sees only
// its own subtree).
struct CgroupMount {
  std::string root;
  std::string mount_point;
};

// The first cgroup2 mount in /proc/self/mountinfo.
std::optional<CgroupMount> cgroup2_mount(std::string_view mountinfo);

// The first cgroup v1 mount whose options include the "cpu" controller.
std::optional<CgroupMount> cgroup1_cpu_mount(std::string_view mountinfo);

// max(1, min(allowed_cpus, ceil(quota))); a quota that is not a positive finite
// number counts as no limit, and allowed_cpus = 0 counts as 1.
std::size_t combine_parallelism(std::size_t allowed_cpus, std::optional<double> quota) noexcept;

// The tightest cgroup CPU quota (v2 and v1) on the path from this process's cgroup
// up to the mount's root, in CPUs; nullopt if there is none or nothing could be
// read. Every absolute path it reads (/proc/self/cgroup, /proc/self/mountinfo, the
// mount points mountinfo names, the fallback /sys/fs/cgroup) is prefixed with
// `sysroot`, so tests point it at a fake tree in a temporary directory. Without a
// readable mountinfo it looks where cgroups are conventionally mounted.
std::optional<double> cgroup_cpu_limit(const std::string& sysroot = "") noexcept;

}  // namespace detail
}  // namespace stealpool
