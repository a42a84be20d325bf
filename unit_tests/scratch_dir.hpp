// A unique directory under /tmp for a test's files, removed with everything in it.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>
#include <vector>

#include "catch_compat.hpp"

namespace fgdd::testing {

struct ScratchDir {
  std::string path;
  ScratchDir() {
    char pattern[] = "/tmp/fgdd_test_XXXXXX";
    const char* made = mkdtemp(pattern);
    REQUIRE(made != nullptr);
    path = made;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  // Writes text verbatim (binary, so CRLF and a missing final newline survive); returns the path.
  std::string file(const std::string& name, const std::string& text) const {
    const std::string full = path + "/" + name;
    std::ofstream(full, std::ios::binary) << text;
    return full;
  }

  // The names in the directory, sorted.
  std::vector<std::string> names() const {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(path))
      found.push_back(entry.path().filename().string());
    std::sort(found.begin(), found.end());
    return found;
  }
};

}  // namespace fgdd::testing
