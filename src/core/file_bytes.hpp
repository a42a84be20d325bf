// A file opened for reading bytes at offsets, with errors that name it (FileError, line 0):
// the Matrix Market readers' access to the disk.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace fgdd::detail {

class FileBytes {
 public:
  // Opens a regular file. A file whose size the system reports as 0 (a /proc or /sys file) is
  // read whole, by content, at once. Throws FileError when the file cannot be opened or read, or
  // is not a regular file (a directory, FIFO, socket or device: never waited on).
  explicit FileBytes(const std::string& path);
  std::size_t size() const noexcept { return size_; }

  // Bytes [offset, offset + count) into out. Throws FileError on a read error, or when the file
  // ends early (it shrank after it was opened).
  void read_into(std::size_t offset, std::size_t count, char* out) const;
  // Bytes [offset, offset + count), clamped to the file, with a NUL after them.
  std::vector<char> read(std::size_t offset, std::size_t count) const;

 private:
  struct Closer {
    void operator()(std::FILE* file) const { std::fclose(file); }
  };
  std::string path_;
  std::unique_ptr<std::FILE, Closer> file_;
  std::size_t size_ = 0;
  std::vector<char> content_;  // the whole file when its size was unknown (file_ is then closed)
};

}  // namespace fgdd::detail
