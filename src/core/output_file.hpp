// A file written in full or not at all, the one way fgdd writes files (Matrix Market output,
// fgdd-solve's JSON report). Host-only file I/O.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace fgdd {

// Bytes go to a new temporary file beside the target, `path.XXXXXX`, created exclusively
// (O_CREAT | O_EXCL | O_NOFOLLOW): a planted symlink or another writer's temporary file is
// never opened, so concurrent writers of one path each rename a whole file of their own. The
// mode is 0666 less the umask, as fopen gives. commit() checks every write, fsync and close
// before renaming onto path; destroyed without a commit (an error, an exception unwinding), the
// temporary file is removed and path keeps what it held.
class OutputFile {
 public:
  // Throws FileError(path, 0, reason) when path is a directory or no temporary file can be
  // created in its directory.
  explicit OutputFile(std::string path);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();

  // Buffered; throws FileError when a write fails (a full disk, a file size limit).
  void write(std::string_view bytes);
  // Room for max_line bytes at the returned position; line_end(one past the last) keeps them.
  // For number formatting with std::to_chars straight into the buffer.
  static constexpr std::size_t max_line = 128;
  char* line_start();
  void line_end(char* position);

  // Writes the rest, fsyncs, closes and renames onto path. Throws FileError, and then path is
  // unchanged and the temporary file gone.
  void commit();

  const std::string& path() const noexcept { return path_; }
  const std::string& temporary_path() const noexcept { return temporary_; }

 private:
  void flush();
  void discard() noexcept;
  [[noreturn]] void fail(const std::string& what, int error);

  std::string path_;
  std::string temporary_;
  std::vector<char> buffer_;
  std::size_t used_ = 0;
  int fd_ = -1;
};

}  // namespace fgdd
