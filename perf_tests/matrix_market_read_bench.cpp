// Matrix Market read throughput: writes a synthetic `coordinate real general` file of the
// requested size (or takes an existing one, --read), times the host parse (in chunks on the
// host's threads, and in one pass) and the full read (parse + make_matrix, and with --block-size
// B the regrouping into B x B blocks), prints one JSON line.
#include "core/matrix_market.hpp"

#include "bench_main.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Options {
  double mb = 50;
  std::string path;
  std::string read;  // an existing file to time instead of a synthetic one
  int repeats = 3;
  int block_size = 1;
};

struct Written {
  std::size_t bytes = 0;
  long long rows = 0;
  long long entries = 0;
};

// Rows of about 9 entries (diagonal plus random columns, so make_matrix accepts it) with values
// printed at full precision, like a file written by a simulation code. Rows are emitted in a
// shuffled order so the reader's counting sort does real scattering. With block size b, block
// rows of about 9 / b whole b x b blocks (the diagonal block plus random block columns), the
// block rows shuffled, each written row by row.
Written write_synthetic_file(const std::string& path, double mb, int b) {
  const int blocks_per_row = std::max(1, 9 / b);
  const int per_row = blocks_per_row * b;
  constexpr double bytes_per_entry = 34;  // measured average of the lines below
  const long long target_bytes = static_cast<long long>(mb * 1e6);
  const long long block_rows = std::max<long long>(
      1, static_cast<long long>(target_bytes / (bytes_per_entry * per_row * b)));
  const long long rows = block_rows * b;
  if (rows > std::numeric_limits<int>::max()) throw std::invalid_argument("--mb too large");
  std::vector<int> order(static_cast<std::size_t>(block_rows));
  for (long long i = 0; i < block_rows; ++i)
    order[static_cast<std::size_t>(i)] = static_cast<int>(i);
  std::mt19937_64 random(42);
  std::shuffle(order.begin(), order.end(), random);
  std::uniform_int_distribution<long long> block_column(0, block_rows - 1);
  std::vector<long long> first_columns(static_cast<std::size_t>(blocks_per_row));
  std::uniform_real_distribution<double> value(-1.0, 1.0);

  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) throw std::runtime_error("cannot write " + path);
  std::vector<char> buffer(1 << 20);
  std::size_t used = 0;
  Written written;
  const auto flush = [&] {
    std::fwrite(buffer.data(), 1, used, file);
    written.bytes += used;
    used = 0;
  };
  const auto append = [&](const std::string& s) {
    std::memcpy(buffer.data() + used, s.data(), s.size());
    used += s.size();
  };
  append("%%MatrixMarket matrix coordinate real general\n% fgdd synthetic benchmark matrix\n");
  append(std::to_string(rows) + " " + std::to_string(rows) + " " + std::to_string(rows * per_row) +
         "\n");
  for (const int block_row : order) {
    for (int k = 0; k < blocks_per_row; ++k)
      first_columns[k] = (k == 0 ? block_row : block_column(random)) * b + 1;
    for (int r = 0; r < b; ++r) {
      const long long i = static_cast<long long>(block_row) * b + r + 1;
      for (int k = 0; k < per_row; ++k) {
        if (buffer.size() - used < 128) flush();
        char* out = buffer.data() + used;
        const long long j = first_columns[k / b] + k % b;
        out = std::to_chars(out, out + 24, i).ptr;
        *out++ = ' ';
        out = std::to_chars(out, out + 24, j).ptr;
        *out++ = ' ';
        // %.17g: what most writers use for full double precision.
        out += std::snprintf(out, 32, "%.17g", i == j ? 10.0 + value(random) : value(random));
        *out++ = '\n';
        used = static_cast<std::size_t>(out - buffer.data());
      }
    }
  }
  flush();
  if (std::fclose(file) != 0) throw std::runtime_error("cannot write " + path);
  written.rows = rows;
  written.entries = rows * per_row;
  return written;
}

template <class Work>
double min_seconds(int repeats, Work work) {
  double best = std::numeric_limits<double>::infinity();
  for (int r = 0; r < repeats; ++r) {
    Kokkos::Timer timer;
    work();
    Kokkos::fence();
    best = std::min(best, timer.seconds());
  }
  return best;
}

int benchmark_main(int argc, char* argv[]) {
  Options options;
  fgdd::bench::CommandLine("fgdd_matrix_market_read_bench",
                           "Matrix Market read throughput of a synthetic or given file (parse, full read).")
      .option("--mb", &options.mb, "MB", "size of the file written")
      .option("--path", &options.path, "FILE",
              "the synthetic file to write, which must not exist (default: a temporary one)")
      .option("--read", &options.read, "FILE",
              "time this existing file instead (--mb and --path are then unused)")
      .option("--repeats", &options.repeats, "R", "timed reads, the best is reported")
      .option("--block-size", &options.block_size, "B",
              "write B x B blocks and read them as BSR (default 1: scalar CSR)")
      .parse(argc, argv);
  if (!(options.mb > 0) || options.repeats < 1 || options.block_size < 1)
    throw fgdd::bench::UsageError("--mb must be positive, --repeats and --block-size at least 1");
  const bool given = !options.read.empty();
  const bool own_file = !given && options.path.empty();
  if (given) {
    options.path = options.read;
  } else if (own_file) {
    options.path = (std::filesystem::temp_directory_path() /
                    ("fgdd_mm_bench_" + std::to_string(std::random_device{}()) + ".mtx"))
                       .string();
  } else if (std::filesystem::exists(options.path)) {
    throw fgdd::bench::UsageError("--path " + options.path +
                                  " exists and would be overwritten; --read FILE times an "
                                  "existing file");
  }
  Written file;
  if (given) {
    file.bytes = std::filesystem::file_size(options.path);
  } else {
    file = write_synthetic_file(options.path, options.mb, options.block_size);
  }
  std::size_t parsed = 0;
  const double parse_seconds = min_seconds(options.repeats, [&] {
    const fgdd::HostMatrixArrays arrays = fgdd::read_matrix_market_arrays(options.path);
    parsed = arrays.col_ind.size();
    file.rows = arrays.num_block_rows;
  });
  // The same parse in one pass (no chunks on the host's threads).
  const double one_pass_seconds = min_seconds(options.repeats, [&] {
    fgdd::detail::read_matrix_market_arrays_in_chunks(options.path, std::size_t(1) << 62);
  });
  // Random columns may repeat within a row; make_matrix sums those, so only count the parse.
  const double full_seconds = min_seconds(
      options.repeats, [&] { fgdd::read_matrix_market(options.path, options.block_size); });
  // The same file as scalar CSR: what regrouping into blocks adds to the full read.
  const double csr_seconds =
      options.block_size == 1
          ? full_seconds
          : min_seconds(options.repeats, [&] { fgdd::read_matrix_market(options.path); });
  if (own_file) std::filesystem::remove(options.path);
  if (given) file.entries = static_cast<long long>(parsed);
  if (parsed != static_cast<std::size_t>(file.entries)) {
    throw std::runtime_error("parsed " + std::to_string(parsed) + " entries, wrote " +
                             std::to_string(file.entries));
  }
  const double file_mb = file.bytes / 1e6;
  const double parse_rate = file_mb / parse_seconds;
  const double target = 100;
  using fgdd::bench::fixed;
  fgdd::bench::JsonObject line;
  line.add("benchmark", "matrix_market_read")
      .add("file", given ? options.read : std::string("synthetic"))
      .add("host_threads", Kokkos::DefaultHostExecutionSpace().concurrency())
      .add("file_mb", file_mb, fixed(3))
      .add("rows", file.rows)
      .add("nnz", file.entries)
      .add("block_size", options.block_size)
      .add("parse_seconds_min", parse_seconds, fixed(6))
      .add("parse_mb_per_s", parse_rate, fixed(2))
      .add("one_pass_parse_seconds_min", one_pass_seconds, fixed(6))
      .add("full_seconds_min", full_seconds, fixed(6))
      .add("full_mb_per_s", file_mb / full_seconds, fixed(2))
      .add("csr_full_seconds_min", csr_seconds, fixed(6))
      .add("target_mb_per_s", target, fixed(0))
      .add("meets_target", parse_rate >= target);
  fgdd::bench::print_line(line);
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) { return fgdd::bench::run_benchmark(argc, argv, benchmark_main); }
