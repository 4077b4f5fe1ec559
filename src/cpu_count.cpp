#include "stealpool/cpu_count.hpp"

#include <charconv>
#include <cmath>
#include <fstream>
#include <iterator>
#include <system_error>
#include <thread>
#include <vector>

#include "stealpool/affinity.hpp"

namespace stealpool {
namespace detail {
namespace {

constexpr std::string_view kSpace = " \t\r\n";

// Splits on runs of whitespace; the files we parse separate fields with one space
// and end in a newline, but being lenient costs nothing and survives hand-made files.
std::vector<std::string_view> fields(std::string_view s) {
  std::vector<std::string_view> out;
  for (;;) {
    const std::size_t begin = s.find_first_not_of(kSpace);
    if (begin == std::string_view::npos) return out;
    s.remove_prefix(begin);
    const std::size_t end = s.find_first_of(kSpace);
    out.push_back(s.substr(0, end));
    if (end == std::string_view::npos) return out;
    s.remove_prefix(end);
  }
}

// Calls fn(line) for each line, without its '\n'.
template <class Fn>
void for_each_line(std::string_view text, Fn fn) {
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    fn(text.substr(0, nl));
    if (nl == std::string_view::npos) return;
    text.remove_prefix(nl + 1);
  }
}

// Whether the comma-separated `list` has `item` as a whole element ("cpu" is in
// "cpu,cpuacct" but not in "cpuacct" or "cpuset").
bool list_contains(std::string_view list, std::string_view item) {
  for (;;) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == item) return true;
    if (comma == std::string_view::npos) return false;
    list.remove_prefix(comma + 1);
  }
}

// A strictly positive decimal integer, all of `s`; "12abc", "", "0" and "-1" are not.
std::optional<long long> positive_integer(std::string_view s) {
  long long v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v <= 0) return std::nullopt;
  return v;
}

// The single field of a v1 quota/period file, or nullopt if there is not exactly one.
std::optional<std::string_view> only_field(std::string_view s) {
  const std::vector<std::string_view> f = fields(s);
  if (f.size() != 1) return std::nullopt;
  return f[0];
}

// mountinfo escapes space, tab, newline and backslash in paths as \ooo octal.
std::string unescape_mountinfo(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto is_octal = [&](std::size_t k) { return k < s.size() && s[k] >= '0' && s[k] <= '7'; };
    if (s[i] == '\\' && is_octal(i + 1) && is_octal(i + 2) && is_octal(i + 3)) {
      out.push_back(static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0')));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

// The first mount in `mountinfo` whose filesystem type is `fstype` and whose
// super-block options satisfy `wanted`. A mountinfo line is
//   id parent major:minor root mount_point options [optional...] - fstype source super_options
// and the optional fields vary in number, hence the search for the "-".
template <class Wanted>
std::optional<CgroupMount> find_mount(std::string_view mountinfo, std::string_view fstype, Wanted wanted) {
  std::optional<CgroupMount> found;
  for_each_line(mountinfo, [&](std::string_view line) {
    if (found) return;
    const std::vector<std::string_view> f = fields(line);
    std::size_t sep = 6;
    while (sep < f.size() && f[sep] != "-") ++sep;
    if (sep + 3 >= f.size() || f[sep + 1] != fstype || !wanted(f[sep + 3])) return;
    found = CgroupMount{unescape_mountinfo(f[3]), unescape_mountinfo(f[4])};
  });
  return found;
}

// The whole file, or nullopt if it cannot be opened. Read to EOF rather than by
// size because /proc files report a size of 0.
std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) return std::nullopt;
  return text;
}

void tighten(std::optional<double>& best, std::optional<double> candidate) {
  if (candidate && (!best || *candidate < *best)) best = candidate;
}

// The directories from the mount point down to the process's cgroup, outermost
// first. A quota on any ancestor caps every cgroup below it, so all of them count.
// If the process's path is not under the mount's root (a cgroup namespace can
// report paths like "/../x"), only the mount point itself is visible to us; as the
// JDK does, we take its limit, since in a container that directory is the
// container's own cgroup.
std::vector<std::string> dirs_down_to(const std::string& sysroot, const CgroupMount& mount,
                                      std::string_view cgroup_path) {
  std::string dir = sysroot + mount.mount_point;
  std::vector<std::string> dirs{dir};

  std::string_view root = mount.root;
  while (root.size() > 1 && root.back() == '/') root.remove_suffix(1);
  std::string_view rel = cgroup_path;
  if (root != "/") {
    // "/docker/ab" is not under "/docker/a": the match must end at a '/'.
    if (rel.substr(0, root.size()) != root) return dirs;
    rel.remove_prefix(root.size());
    if (!rel.empty() && rel.front() != '/') return dirs;
  }
  std::vector<std::string> below;
  while (!rel.empty()) {
    const std::size_t slash = rel.find('/');
    const std::string_view part = rel.substr(0, slash);
    rel.remove_prefix(slash == std::string_view::npos ? rel.size() : slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") return dirs;  // leaves the mount: see above
    dir += '/';
    dir += part;
    below.push_back(dir);
  }
  dirs.insert(dirs.end(), below.begin(), below.end());
  return dirs;
}

std::optional<double> tightest_v2(const std::string& sysroot, const CgroupMount& mount, std::string_view path) {
  std::optional<double> best;
  for (const std::string& dir : dirs_down_to(sysroot, mount, path))
    if (const auto text = read_file(dir + "/cpu.max")) tighten(best, parse_cgroup2_cpu_max(*text));
  return best;
}

std::optional<double> tightest_v1(const std::string& sysroot, const CgroupMount& mount, std::string_view path) {
  std::optional<double> best;
  for (const std::string& dir : dirs_down_to(sysroot, mount, path)) {
    const auto quota = read_file(dir + "/cpu.cfs_quota_us");
    const auto period = read_file(dir + "/cpu.cfs_period_us");
    if (quota && period) tighten(best, parse_cgroup1_quota(*quota, *period));
  }
  return best;
}

}  // namespace

std::optional<double> parse_cgroup2_cpu_max(std::string_view cpu_max) {
  const std::vector<std::string_view> f = fields(cpu_max);
  if (f.size() != 2 || f[0] == "max") return std::nullopt;
  const auto quota = positive_integer(f[0]);
  const auto period = positive_integer(f[1]);
  if (!quota || !period) return std::nullopt;
  return static_cast<double>(*quota) / static_cast<double>(*period);
}

std::optional<double> parse_cgroup1_quota(std::string_view quota, std::string_view period) {
  const auto q = only_field(quota);
  const auto p = only_field(period);
  if (!q || !p) return std::nullopt;
  // -1, the "no limit" value, fails positive_integer like any other non-limit.
  const auto qv = positive_integer(*q);
  const auto pv = positive_integer(*p);
  if (!qv || !pv) return std::nullopt;
  return static_cast<double>(*qv) / static_cast<double>(*pv);
}

std::optional<std::string> cgroup2_path(std::string_view proc_self_cgroup) {
  std::optional<std::string> path;
  for_each_line(proc_self_cgroup, [&](std::string_view line) {
    if (path || line.substr(0, 3) != "0::") return;
    line.remove_prefix(3);
    while (!line.empty() && kSpace.find(line.back()) != std::string_view::npos) line.remove_suffix(1);
    if (!line.empty() && line.front() == '/') path = std::string(line);
  });
  return path;
}

std::optional<std::string> cgroup1_cpu_path(std::string_view proc_self_cgroup) {
  std::optional<std::string> path;
  for_each_line(proc_self_cgroup, [&](std::string_view line) {
    if (path) return;
    const std::size_t c1 = line.find(':');
    if (c1 == std::string_view::npos) return;
    const std::size_t c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos || !list_contains(line.substr(c1 + 1, c2 - c1 - 1), "cpu")) return;
    std::string_view rest = line.substr(c2 + 1);  // the path may itself contain ':'
    while (!rest.empty() && kSpace.find(rest.back()) != std::string_view::npos) rest.remove_suffix(1);
    if (!rest.empty() && rest.front() == '/') path = std::string(rest);
  });
  return path;
}

std::optional<CgroupMount> cgroup2_mount(std::string_view mountinfo) {
  return find_mount(mountinfo, "cgroup2", [](std::string_view) { return true; });
}

std::optional<CgroupMount> cgroup1_cpu_mount(std::string_view mountinfo) {
  return find_mount(mountinfo, "cgroup", [](std::string_view opts) { return list_contains(opts, "cpu"); });
}

std::size_t combine_parallelism(std::size_t allowed_cpus, std::optional<double> quota) noexcept {
  std::size_t n = allowed_cpus == 0 ? 1 : allowed_cpus;
  // Compared as doubles so that a huge quota never overflows a size_t cast; the
  // cast happens only below n. quota > 0 makes cap >= 1.
  if (quota && std::isfinite(*quota) && *quota > 0) {
    const double cap = std::ceil(*quota);
    if (cap < static_cast<double>(n)) n = static_cast<std::size_t>(cap);
  }
  return n;
}

std::optional<double> cgroup_cpu_limit(const std::string& sysroot) noexcept {
  try {
    const auto self = read_file(sysroot + "/proc/self/cgroup");
    if (!self) return std::nullopt;
    // Unreadable mountinfo: guess the conventional mounts. Readable but naming no
    // mount of a kind: that hierarchy is not mounted, so there is nothing to read
    // (guessing there would find a v1 tmpfs, or another hierarchy's files).
    const auto mountinfo = read_file(sysroot + "/proc/self/mountinfo");
    std::optional<double> best;
    if (const auto path = cgroup2_path(*self)) {
      const auto mount = mountinfo ? cgroup2_mount(*mountinfo) : CgroupMount{"/", "/sys/fs/cgroup"};
      if (mount) tighten(best, tightest_v2(sysroot, *mount, *path));
    }
    if (const auto path = cgroup1_cpu_path(*self)) {
      if (mountinfo) {
        if (const auto mount = cgroup1_cpu_mount(*mountinfo)) tighten(best, tightest_v1(sysroot, *mount, *path));
      } else {
        // Distributions mount cpu and cpuacct together under either name (one is
        // usually a symlink to the other; reading both is harmless).
        for (const char* dir : {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"})
          tighten(best, tightest_v1(sysroot, CgroupMount{"/", dir}, *path));
      }
    }
    return best;
  } catch (...) {
    // Only allocation failures can get here; a quota we could not read is no quota.
    return std::nullopt;
  }
}

}  // namespace detail

std::size_t available_parallelism() noexcept {
  std::size_t cpus = 0;
  try {
    cpus = allowed_cpus().size();
  } catch (...) {
    // bad_alloc from the vector: fall through to hardware_concurrency().
  }
  if (cpus == 0) cpus = std::thread::hardware_concurrency();
  return detail::combine_parallelism(cpus, detail::cgroup_cpu_limit());
}

}  // namespace stealpool
