#include "core/output_file.hpp"

#include "core/errors.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace fgdd {

namespace {

// Six characters from [A-Za-z0-9], as mkstemp uses; a fresh engine per thread so concurrent
// writers in one process draw different names too.
std::string random_suffix() {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 engine(std::random_device{}() ^ (std::uint64_t(::getpid()) << 32));
  std::string suffix(6, 'X');
  for (char& c : suffix) c = alphabet[engine() % (sizeof(alphabet) - 1)];
  return suffix;
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

OutputFile::OutputFile(std::string path) : path_(std::move(path)), buffer_(1 << 20) {
  struct stat target;
  if (::stat(path_.c_str(), &target) == 0 && S_ISDIR(target.st_mode))
    throw FileError(path_, 0, "is a directory, not a file to write");
  // mkstemp would do, but makes the file 0600; open() with 0666 applies the umask as fopen does.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string candidate = path_ + "." + random_suffix();
    fd_ = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ >= 0) {
      temporary_ = candidate;
      return;
    }
    if (errno != EEXIST) fail("cannot create a temporary file " + candidate, errno);
  }
  fail("cannot create a temporary file " + path_ + ".XXXXXX", EEXIST);
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::write(std::string_view bytes) {
  if (bytes.size() > buffer_.size() - used_) flush();
  if (bytes.size() > buffer_.size()) buffer_.resize(bytes.size());
  std::memcpy(buffer_.data() + used_, bytes.data(), bytes.size());
  used_ += bytes.size();
}

char* OutputFile::line_start() {
  if (buffer_.size() - used_ < max_line) flush();
  return buffer_.data() + used_;
}

void OutputFile::line_end(char* position) {
  used_ = static_cast<std::size_t>(position - buffer_.data());
}

void OutputFile::flush() {
  const char* next = buffer_.data();
  std::size_t left = used_;
  while (left > 0) {
    const ssize_t written = ::write(fd_, next, left);
    if (written < 0 && errno == EINTR) continue;
    // A short write is retried; the retry reports why the rest does not fit (ENOSPC, EFBIG).
    if (written < 0) fail("cannot write " + temporary_, errno);
    next += written;
    left -= std::size_t(written);
  }
  used_ = 0;
}

void OutputFile::commit() {
  flush();
  // fsync before the rename: after a crash, path holds the old file or the new one, never an
  // empty one whose bytes were still in the page cache.
  if (::fsync(fd_) != 0 && errno != EINVAL) fail("cannot write " + temporary_, errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot write " + temporary_, errno);
  if (std::rename(temporary_.c_str(), path_.c_str()) != 0)
    fail("cannot rename " + temporary_ + " onto it", errno);
  temporary_.clear();
  // The rename itself durable; a directory that cannot be synced loses nothing written.
  const int directory = ::open(directory_of(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (directory >= 0) {
    ::fsync(directory);
    ::close(directory);
  }
}

void OutputFile::discard() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
}

void OutputFile::fail(const std::string& what, int error) {
  discard();
  throw FileError(path_, 0, what + ": " + std::strerror(error));
}

}  // namespace fgdd
