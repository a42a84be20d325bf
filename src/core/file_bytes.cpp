#include "core/file_bytes.hpp"

#include "core/errors.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace fgdd::detail {

FileBytes::FileBytes(const std::string& path) : path_(path), file_(std::fopen(path.c_str(), "rb")) {
  if (!file_) throw FileError(path, 0, std::string("cannot open: ") + std::strerror(errno));
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw FileError(path, 0, "cannot read: is a directory");
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw FileError(path, 0, "cannot read: " + ec.message());
  size_ = static_cast<std::size_t>(size);
}

void FileBytes::read_into(std::size_t offset, std::size_t count, char* out) const {
  if (count == 0) return;
  if (std::fseek(file_.get(), long(offset), SEEK_SET) != 0)
    throw FileError(path_, 0, std::string("cannot read: ") + std::strerror(errno));
  const std::size_t got = std::fread(out, 1, count, file_.get());
  if (got == count) return;
  if (std::ferror(file_.get()))
    throw FileError(path_, 0, std::string("cannot read: ") + std::strerror(errno));
  throw FileError(path_, 0,
                  "cannot read: file shrank while reading (" + std::to_string(got) + " of " +
                      std::to_string(count) + " bytes)");
}

std::vector<char> FileBytes::read(std::size_t offset, std::size_t count) const {
  count = offset >= size_ ? 0 : std::min(count, size_ - offset);
  std::vector<char> bytes(count + 1, '\0');
  read_into(offset, count, bytes.data());
  return bytes;
}

}  // namespace fgdd::detail
