// The file's data section [data_offset, size) is cut into P equal byte ranges; a rank parses the
// lines that start in its range (a line crossing the end belongs to the rank where it starts),
// learns its first line number from the newlines before it (one exclusive scan), and the
// entries then travel to the owners of their rows (mirrored ones to the owners of theirs).
#include "dist/read_matrix_market_rows.hpp"

#include "core/errors.hpp"
#include "core/matrix_market.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <optional>
#include <type_traits>
#include <vector>

namespace fgdd {
namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};

// An open file read at byte offsets; errors name the path.
class RandomAccessFile {
 public:
  explicit RandomAccessFile(const std::string& path)
      : path_(path), file_(std::fopen(path.c_str(), "rb")) {
    if (!file_) throw FileError(path, 0, std::string("cannot open: ") + std::strerror(errno));
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw FileError(path, 0, "cannot read: is a directory");
    size_ = std::filesystem::file_size(path, ec);
    if (ec) throw FileError(path, 0, "cannot read: " + ec.message());
  }
  std::size_t size() const { return size_; }

  // Bytes [offset, offset + count) (clamped to the file), with a NUL after them.
  std::vector<char> read(std::size_t offset, std::size_t count) const {
    count = offset >= size_ ? 0 : std::min(count, size_ - offset);
    std::vector<char> bytes(count + 1, '\0');
    if (count > 0 && (std::fseek(file_.get(), long(offset), SEEK_SET) != 0 ||
                      std::fread(bytes.data(), 1, count, file_.get()) != count))
      throw FileError(path_, 0, std::string("cannot read: ") + std::strerror(errno));
    return bytes;
  }

 private:
  std::string path_;
  std::unique_ptr<std::FILE, FileCloser> file_;
  std::size_t size_ = 0;
};

detail::MatrixMarketLayout read_layout(const RandomAccessFile& file, const std::string& path) {
  for (std::size_t prefix = 1 << 16;; prefix *= 2) {
    const std::vector<char> bytes = file.read(0, prefix);
    const bool whole = bytes.size() - 1 == file.size();
    if (const auto layout =
            detail::parse_matrix_market_layout(path, bytes.data(), bytes.size() - 1, whole))
      return *layout;
  }
}

// The first line start at or after offset (offset itself when a line ends just before it).
std::size_t next_line_start(const RandomAccessFile& file, std::size_t offset) {
  constexpr std::size_t piece = 1 << 16;
  for (std::size_t at = offset - 1; at < file.size(); at += piece) {
    const std::vector<char> bytes = file.read(at, piece);
    const void* newline = std::memchr(bytes.data(), '\n', bytes.size() - 1);
    if (newline) return at + (static_cast<const char*>(newline) - bytes.data()) + 1;
  }
  return file.size();
}

template <class T>
std::vector<T> exchange(const Communicator& comm, const std::vector<T>& sent,
                        const std::vector<int>& send_counts, const std::vector<int>& recv_counts) {
  std::vector<int> send_displs(send_counts.size() + 1, 0), recv_displs(recv_counts.size() + 1, 0);
  std::partial_sum(send_counts.begin(), send_counts.end(), send_displs.begin() + 1);
  std::partial_sum(recv_counts.begin(), recv_counts.end(), recv_displs.begin() + 1);
  std::vector<T> received(recv_displs.back());
  const MPI_Datatype type = std::is_same_v<T, Ordinal> ? MPI_INT : MPI_DOUBLE;
  MPI_Alltoallv(sent.data(), send_counts.data(), send_displs.data(), type, received.data(),
                recv_counts.data(), recv_displs.data(), type, comm.get());
  return received;
}

}  // namespace

LocalRows read_matrix_market_rows(const Communicator& comm, const std::string& path) {
  const int ranks = comm.size(), me = comm.rank();
  std::optional<RandomAccessFile> file;
  detail::MatrixMarketLayout layout;
  comm.run_collectively([&] {
    file.emplace(path);
    layout = read_layout(*file, path);
    if (layout.rows < ranks)
      throw InvalidInput(path + " has " + std::to_string(layout.rows) + " rows for " +
                         std::to_string(ranks) + " MPI ranks; every rank needs at least one");
  });

  // This rank's lines: from the first line start in its byte range to the next rank's.
  const std::size_t data = layout.data_offset, span = file->size() - data;
  std::size_t my_start = 0;
  comm.run_collectively([&] {
    const std::size_t begin = data + span * std::size_t(me) / std::size_t(ranks);
    my_start = me == 0 ? data : next_line_start(*file, begin);
  });
  std::vector<unsigned long long> starts(ranks + 1, file->size());
  const unsigned long long mine = my_start;
  MPI_Allgather(&mine, 1, MPI_UNSIGNED_LONG_LONG, starts.data(), 1, MPI_UNSIGNED_LONG_LONG,
                comm.get());
  const std::size_t my_end = std::max<std::size_t>(my_start, starts[me + 1]);
  std::vector<char> text;
  long long newlines = 0;
  comm.run_collectively([&] {
    text = file->read(my_start, my_end - my_start);
    newlines = std::count(text.begin(), text.end() - 1, '\n');
  });
  long long lines_before = 0, entries_before = 0;
  MPI_Exscan(&newlines, &lines_before, 1, MPI_LONG_LONG, MPI_SUM, comm.get());
  if (me == 0) lines_before = 0;

  // Parse; a rank can hold at most the entries the size line announces.
  detail::MatrixMarketEntries entries;
  comm.run_collectively([&] {
    entries = detail::parse_matrix_market_entries(path, layout, text.data(), text.size() - 1,
                                                  layout.data_line + lines_before, layout.entries);
  });
  long long count = (long long)entries.rows.size(), total = 0;
  MPI_Exscan(&count, &entries_before, 1, MPI_LONG_LONG, MPI_SUM, comm.get());
  if (me == 0) entries_before = 0;
  MPI_Allreduce(&count, &total, 1, MPI_LONG_LONG, MPI_SUM, comm.get());
  long long all_newlines = 0;
  MPI_Allreduce(&newlines, &all_newlines, 1, MPI_LONG_LONG, MPI_SUM, comm.get());
  comm.run_collectively([&] {
    if (total < layout.entries) {  // the same message as read_matrix_market's
      const bool ends_with_newline = file->read(file->size() - 1, 1)[0] == '\n';
      const long long last_line = layout.data_line + all_newlines - (ends_with_newline ? 1 : 0);
      throw FileError(path, last_line,
                      "truncated data: expected " + std::to_string(layout.entries) +
                          " entries, found " + std::to_string(total) +
                          " (last line read: " + std::to_string(last_line) + ")");
    }
    // Too many: the rank holding entry number `entries` (0-based) reparses up to it and fails
    // there, naming its line.
    if (total > layout.entries && entries_before <= layout.entries &&
        layout.entries < entries_before + count)
      detail::parse_matrix_market_entries(path, layout, text.data(), text.size() - 1,
                                          layout.data_line + lines_before,
                                          layout.entries - entries_before);
  });
  text = {};

  // Rows [N r / P, N (r + 1) / P) per rank; each entry to its row's owner, mirrored ones too.
  const std::int64_t n = layout.rows;
  const auto owner = [&](Ordinal row) {
    int r = int(std::int64_t(row) * ranks / n);
    while (std::int64_t(r + 1) * n / ranks <= row) ++r;  // the integer division's rounding
    while (std::int64_t(r) * n / ranks > row) --r;
    return r;
  };
  std::vector<std::vector<Ordinal>> rows(ranks), cols(ranks);
  std::vector<std::vector<Scalar>> values(ranks);
  const Scalar mirror_sign = layout.skew ? -1.0 : 1.0;
  for (std::size_t k = 0; k < entries.rows.size(); ++k) {
    const Ordinal i = entries.rows[k], j = entries.columns[k];
    const Scalar v = entries.values[k];
    const int to = owner(i);
    rows[to].push_back(i), cols[to].push_back(j), values[to].push_back(v);
    if (layout.mirror && i != j) {
      const int back = owner(j);
      rows[back].push_back(j), cols[back].push_back(i), values[back].push_back(mirror_sign * v);
    }
  }
  entries = {};
  std::vector<int> send_counts(ranks), recv_counts(ranks);
  for (int r = 0; r < ranks; ++r) send_counts[r] = int(rows[r].size());
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, comm.get());
  const auto flatten = [](auto& per_rank) {
    std::decay_t<decltype(per_rank[0])> flat;
    for (auto& part : per_rank) flat.insert(flat.end(), part.begin(), part.end()), part = {};
    return flat;
  };
  const std::vector<Ordinal> my_rows = exchange(comm, flatten(rows), send_counts, recv_counts);
  const std::vector<Ordinal> my_cols = exchange(comm, flatten(cols), send_counts, recv_counts);
  const std::vector<Scalar> my_values = exchange(comm, flatten(values), send_counts, recv_counts);

  // CSR of this rank's rows, each row sorted by column with duplicates summed.
  LocalRows out;
  out.first_block_row = Ordinal(n * me / ranks);
  const Ordinal local_rows = Ordinal(n * (me + 1) / ranks) - out.first_block_row;
  std::vector<std::size_t> order(my_rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return my_rows[a] != my_rows[b] ? my_rows[a] < my_rows[b] : my_cols[a] < my_cols[b];
  });
  out.row_map.assign(std::size_t(local_rows) + 1, 0);
  for (std::size_t t = 0; t < order.size(); ++t) {
    const std::size_t k = order[t];
    const bool repeat =
        t > 0 && my_rows[order[t - 1]] == my_rows[k] && my_cols[order[t - 1]] == my_cols[k];
    if (repeat) {
      out.values.back() += my_values[k];
      continue;
    }
    out.col_ind.push_back(my_cols[k]);
    out.values.push_back(my_values[k]);
    ++out.row_map[std::size_t(my_rows[k] - out.first_block_row) + 1];
  }
  std::partial_sum(out.row_map.begin(), out.row_map.end(), out.row_map.begin());
  return out;
}

}  // namespace fgdd
