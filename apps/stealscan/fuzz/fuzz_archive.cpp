// fuzz_archive.cpp: archives for `stealscan secrets` (sources/archive/
// archive_scanner.hpp: the magic sniffed, libarchive reading, members handed
// on, nested archives opened) from any bytes, with small limits, so that a
// zip bomb or an endless nest runs into them quickly.
//
// Checks: no crash or read outside a buffer (ASan), no exception; no member
// handed on is larger than the per-member limit, all of them together stay
// within the per-file limit, and every member is shown below the archive
// ("archive.bin!member"). (How deep a member was is not checked: a member's
// own name may hold a '!'.)
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "output/diagnostics.hpp"
#include "scan/tally.hpp"
#include "scan/whole_file_task.hpp"
#include "sources/archive/archive_scanner.hpp"

namespace {

constexpr stealscan::ArchiveSettings kSettings{/*max_depth=*/3, /*max_entry=*/std::uint64_t{1} << 20,
                                               /*max_total=*/std::uint64_t{4} << 20, /*binary_as_text=*/true};
constexpr std::string_view kShown = "archive.bin";

class CheckMembers final : public stealscan::FileWork {
 public:
  std::uint64_t on_file(std::string_view path, std::string_view bytes) override {
    FUZZ_CHECK(bytes.size() <= kSettings.max_entry);
    total_ += bytes.size();
    FUZZ_CHECK(total_ <= kSettings.max_total);
    // A member is shown as "archive.bin!NAME"; a single compressed stream's
    // content (nested ones too) as the compressed file itself.
    FUZZ_CHECK(path == kShown ||
               (path.size() > kShown.size() && path.substr(0, kShown.size() + 1) == std::string(kShown) + "!"));
    return 0;
  }

 private:
  std::uint64_t total_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string warnings;  // captured, not printed
  stealscan::Diagnostics diag(warnings);
  stealscan::Tally tally;
  stealscan::ArchiveScanner scanner(kSettings, diag, tally);
  CheckMembers work;
  (void)scanner.scan_if_archive(kShown, std::string_view(reinterpret_cast<const char*>(data), size), work);
  return 0;
}
