// Runs a piece of a test in a forked child, so that what would abort, hang or exhaust memory on
// a broken build fails one test instead of the whole suite: the child gets an address-space
// limit above its current size and an alarm. Host-only code in the child (POSIX only).
#pragma once

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <new>
#include <string>

namespace fgdd::test {

struct ChildResult {
  int exit_code = -1;  // body's return value; 125 for std::bad_alloc, 124 for another exception
  int signal = 0;      // the signal that ended the child (SIGALRM: it ran out of time)
  std::string output;  // what body wrote to its `report` string
  bool ok() const { return signal == 0 && exit_code == 0; }
};

// The process's address-space size in bytes (/proc/self/statm), 0 when unknown.
inline std::size_t address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return pages * std::size_t(sysconf(_SC_PAGESIZE));
}

// body(report) runs in a child that may grow its address space by at most headroom bytes and
// is killed after seconds. Its return value is the exit code; report comes back as output.
inline ChildResult run_in_child(std::size_t headroom, unsigned seconds,
                                const std::function<int(std::string& report)>& body) {
  int channel[2];
  if (pipe(channel) != 0) return {};
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) return {};
  if (child == 0) {
    close(channel[0]);
    std::string report;
    int code = 0;
    const std::size_t now = address_space_bytes();
    const rlimit limit{now + headroom, now + headroom};
    if (now == 0 || setrlimit(RLIMIT_AS, &limit) != 0) {
      report = "cannot limit the address space";
      code = 123;
    } else {
      alarm(seconds);
      try {
        code = body(report);
      } catch (const std::bad_alloc&) {
        report += " [std::bad_alloc]";
        code = 125;
      } catch (const std::exception& error) {
        report += std::string(" [exception: ") + error.what() + "]";
        code = 124;
      } catch (...) {
        code = 124;
      }
    }
    for (std::size_t sent = 0; sent < report.size();) {
      const ssize_t n = write(channel[1], report.data() + sent, report.size() - sent);
      if (n <= 0) break;
      sent += std::size_t(n);
    }
    _exit(code);  // no atexit handlers, no Kokkos finalize in the child
  }
  close(channel[1]);
  ChildResult result;
  char buffer[4096];
  for (ssize_t n; (n = read(channel[0], buffer, sizeof buffer)) > 0;)
    result.output.append(buffer, n);
  close(channel[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

}  // namespace fgdd::test
