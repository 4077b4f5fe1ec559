// replay_main.cpp: main() for a fuzz target built without libFuzzer: runs
// LLVMFuzzerTestOneInput on every file named on the command line, and on
// every file in every directory named (sorted by name). This is how the tests
// replay the checked-in corpus (corpus/<target>/) in every build, sanitizer
// builds included: a property that fails aborts, so the test fails.
// Exit status 2 when an argument cannot be read or names no file at all, so
// that a missing corpus fails instead of passing with nothing checked.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

bool run_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  if (!f) return false;
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (f.bad()) return false;
  (void)LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
    return 2;
  }
  std::size_t ran = 0;
  for (int i = 1; i < argc; ++i) {
    const std::filesystem::path arg(argv[i]);
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    if (std::filesystem::is_directory(arg, ec)) {
      for (const auto& e : std::filesystem::directory_iterator(arg, ec))
        if (e.is_regular_file()) files.push_back(e.path());
      if (ec) {
        std::fprintf(stderr, "%s: cannot list: %s\n", argv[i], ec.message().c_str());
        return 2;
      }
      std::sort(files.begin(), files.end());
    } else {
      files.push_back(arg);
    }
    for (const auto& f : files) {
      if (!run_file(f)) {
        std::fprintf(stderr, "%s: cannot read\n", f.c_str());
        return 2;
      }
      ++ran;
    }
  }
  if (ran == 0) {
    std::fprintf(stderr, "%s: no input files\n", argv[0]);
    return 2;
  }
  std::printf("%zu inputs, every property held\n", ran);
  return 0;
}
