// inflater.cpp: Inflater (inflater.hpp).
#include "sources/git/inflater.hpp"

#include <libdeflate.h>

#include <cstdint>
#include <new>

namespace stealscan::git {

Inflater::Inflater() : d_(libdeflate_alloc_decompressor()) {
  if (d_ == nullptr) throw std::bad_alloc();
}

Inflater::~Inflater() { libdeflate_free_decompressor(d_); }

bool Inflater::inflate(std::string_view in, std::uint64_t size, Bytes& out) {
  if (size > SIZE_MAX / 2) return false;
  out.resize_for_overwrite(static_cast<std::size_t>(size));
  char spare = 0;  // an empty object: somewhere to point, nothing to write
  std::size_t used = 0;
  std::size_t got = 0;
  const libdeflate_result r =
      libdeflate_zlib_decompress_ex(d_, in.data(), in.size(), size == 0 ? &spare : out.data(),
                                    static_cast<std::size_t>(size), &used, &got);
  return r == LIBDEFLATE_SUCCESS && got == size;
}

}  // namespace stealscan::git
