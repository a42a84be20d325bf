#include "core/file_bytes.hpp"

#include "core/errors.hpp"
#include "core/huge_pages.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace fgdd::detail {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "is a directory";
  if (S_ISFIFO(mode)) return "not a regular file (a FIFO or pipe)";
  if (S_ISSOCK(mode)) return "not a regular file (a socket)";
  if (S_ISCHR(mode)) return "not a regular file (a character device)";
  if (S_ISBLK(mode)) return "not a regular file (a block device)";
  return "not a regular file";
}

[[noreturn]] void fail_with_errno(const std::string& path, const char* what) {
  throw FileError(path, 0, std::string(what) + ": " + std::strerror(errno));
}

}  // namespace

FileBytes::FileBytes(const std::string& path) : path_(path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer, forever. The type
  // is checked on the open descriptor (fstat), so nothing can be swapped in between.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail_with_errno(path, "cannot open");
  struct stat status {};
  if (::fstat(fd, &status) != 0) {
    const int error = errno;
    ::close(fd);
    throw FileError(path, 0, std::string("cannot read: ") + std::strerror(error));
  }
  if (!S_ISREG(status.st_mode)) {
    ::close(fd);
    throw FileError(path, 0, std::string("cannot read: ") + kind_of(status.st_mode));
  }
  // Blocking reads again (a no-op for regular files, but say what we mean).
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  file_.reset(::fdopen(fd, "rb"));
  if (!file_) {
    const int error = errno;
    ::close(fd);
    throw FileError(path, 0, std::string("cannot open: ") + std::strerror(error));
  }
  size_ = static_cast<std::size_t>(status.st_size);
  if (size_ > 0) return;
  // st_size 0: empty, or a /proc-style file whose size is known only by reading it.
  char chunk[1 << 16];
  for (;;) {
    const std::size_t got = std::fread(chunk, 1, sizeof chunk, file_.get());
    content_.insert(content_.end(), chunk, chunk + got);
    if (got < sizeof chunk) break;
  }
  if (std::ferror(file_.get())) fail_with_errno(path, "cannot read");
  size_ = content_.size();
  file_.reset();
}

void FileBytes::read_into(std::size_t offset, std::size_t count, char* out) const {
  if (count == 0) return;
  if (!file_) {
    const std::size_t got = offset >= size_ ? 0 : std::min(count, size_ - offset);
    if (got > 0) std::memcpy(out, content_.data() + offset, got);
    if (got == count) return;
    throw FileError(path_, 0,
                    "cannot read: past the end of the file (" + std::to_string(got) + " of " +
                        std::to_string(count) + " bytes)");
  }
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
  std::vector<char> bytes;
  reserve_advised(bytes, count + 1);  // huge pages: faults cost more than the copy
  bytes.resize(count + 1, '\0');
  read_into(offset, count, bytes.data());
  return bytes;
}

}  // namespace fgdd::detail
