// diagnostics.cpp: Diagnostics (diagnostics.hpp).
#include "output/diagnostics.hpp"

#include <cerrno>

#include <unistd.h>

#include "sources/read_all.hpp"

namespace stealscan {

void Diagnostics::write_locked(std::string_view text) {
  if (capture_ != nullptr) {
    capture_->append(text);
    return;
  }
  (void)write_all(STDERR_FILENO, text);  // stderr gone: nothing sensible is left to do
}

void Diagnostics::error(std::string_view path, std::string_view what) {
  std::string line = "stealscan: ";
  line.append(path).append(": ").append(what).append("\n");
  std::lock_guard lock(mu_);
  if (progress_shown_) line.insert(0, "\r\033[K");
  write_locked(line);
}

void Diagnostics::message(std::string_view what) {
  std::string line = "stealscan: ";
  line.append(what).append("\n");
  std::lock_guard lock(mu_);
  if (progress_shown_) line.insert(0, "\r\033[K");
  write_locked(line);
}

void Diagnostics::progress(std::string_view text) {
  std::string line = "\r\033[K";
  line.append(text);
  std::lock_guard lock(mu_);
  write_locked(line);
  progress_shown_ = !text.empty();
}

}  // namespace stealscan
