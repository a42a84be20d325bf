// The file's data section [data_offset, size) is cut into P equal byte ranges; a rank parses the
// lines that start in its range (a line crossing the end belongs to the rank where it starts),
// learns its first line number from the newlines before it (one exclusive scan), and the
// entries then travel to the owners of their rows (mirrored ones to the owners of theirs).
#include "mpi/read_matrix_market_rows.hpp"

#include "core/block_pattern.hpp"
#include "core/errors.hpp"
#include "core/file_bytes.hpp"
#include "core/host_copy.hpp"
#include "core/matrix_market.hpp"
#include "mpi/mpi_transfer.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <vector>

namespace fgdd {
namespace {

using detail::FileBytes;

detail::MatrixMarketLayout read_layout(const FileBytes& file, const std::string& path) {
  for (std::size_t prefix = 1 << 16;; prefix *= 2) {
    const std::vector<char> bytes = file.read(0, prefix);
    const bool whole = bytes.size() - 1 == file.size();
    if (const auto layout =
            detail::parse_matrix_market_layout(path, bytes.data(), bytes.size() - 1, whole))
      return *layout;
  }
}

// The first line start at or after offset (offset itself when a line ends just before it).
std::size_t next_line_start(const FileBytes& file, std::size_t offset) {
  constexpr std::size_t piece = 1 << 16;
  for (std::size_t at = offset - 1; at < file.size(); at += piece) {
    const std::vector<char> bytes = file.read(at, piece);
    const void* newline = std::memchr(bytes.data(), '\n', bytes.size() - 1);
    if (newline) return at + (static_cast<const char*>(newline) - bytes.data()) + 1;
  }
  return file.size();
}

// This rank's scalar rows (sorted unique columns, global) regrouped into block_size blocks, as
// read_matrix_market(path, block_size) regroups the whole matrix; a block row that is not
// blocked is the same FileError, numbered in the whole matrix.
void regroup_rows(const std::string& path, int block_size, LocalRows& rows) {
  const Ordinal scalar_rows = rows.num_block_rows();
  detail::SortedArrays scalar;
  scalar.row_map = detail::to_device(rows.row_map, "fgdd::mpi::row_map");
  scalar.col_ind = detail::to_device(rows.col_ind, "fgdd::mpi::col_ind");
  scalar.values = detail::to_device(rows.values, "fgdd::mpi::values");
  if (auto gap = detail::first_block_gap(scalar_rows, block_size, scalar)) {
    gap->block_row += Offset(rows.first_block_row);
    gap->row += Offset(rows.first_block_row) * Offset(block_size);
    throw FileError(path, 0, "the matrix is " + detail::describe_block_gap(block_size, *gap));
  }
  const detail::SortedArrays blocks = detail::regroup_into_blocks(scalar_rows, block_size, scalar);
  rows.block_size = block_size;
  rows.row_map = detail::to_host_vector(blocks.row_map);
  rows.col_ind = detail::to_host_vector(blocks.col_ind);
  rows.values = detail::to_host_vector(blocks.values);
}

// Entries (row, column, value), in arrival order.
struct Triplets {
  std::vector<Ordinal> rows, cols;
  std::vector<Scalar> values;
};

// Each entry to the rank owning its block row (block rows [N r / P, N (r + 1) / P) on rank r),
// mirrored ones too; returns what this rank receives (ranks send in rank order, each in file
// order).
Triplets send_to_owners(const Communicator& comm, detail::MatrixMarketEntries entries,
                        const detail::MatrixMarketLayout& layout, int block_size) {
  const int ranks = comm.size();
  const std::int64_t n = layout.rows / block_size;
  // The largest r with floor(n r / P) <= the row's block row.
  const auto owner = [&](Ordinal row) {
    return int(((std::int64_t(row / block_size) + 1) * ranks + n - 1) / n - 1);
  };
  // Two passes over the entries: count per owner, then fill the send arrays in owner order.
  const Scalar mirror_sign = layout.skew ? -1.0 : 1.0;
  std::vector<int> send_counts(ranks, 0);
  for (std::size_t k = 0; k < entries.rows.size(); ++k) {
    const Ordinal i = entries.rows[k], j = entries.columns[k];
    ++send_counts[owner(i)];
    if (layout.mirror && i != j) ++send_counts[owner(j)];
  }
  std::vector<Offset> next(ranks + 1, 0);
  std::partial_sum(send_counts.begin(), send_counts.end(), next.begin() + 1);
  Triplets send;
  send.rows.resize(next.back()), send.cols.resize(next.back()), send.values.resize(next.back());
  const auto put = [&](int to, Ordinal i, Ordinal j, Scalar v) {
    const Offset at = next[to]++;
    send.rows[at] = i, send.cols[at] = j, send.values[at] = v;
  };
  for (std::size_t k = 0; k < entries.rows.size(); ++k) {
    const Ordinal i = entries.rows[k], j = entries.columns[k];
    put(owner(i), i, j, entries.values[k]);
    if (layout.mirror && i != j) put(owner(j), j, i, mirror_sign * entries.values[k]);
  }
  entries = {};
  const std::vector<int> recv_counts = receive_counts(comm, send_counts);
  Triplets received;
  received.rows = all_to_all(comm, send.rows, send_counts, recv_counts);
  received.cols = all_to_all(comm, send.cols, send_counts, recv_counts);
  received.values = all_to_all(comm, send.values, send_counts, recv_counts);
  return received;
}

// CSR of this rank's scalar rows from out.first_block_row (counting scalar rows): a counting
// sort by row keeps the arrival order, then each row is sorted by column, stably, and duplicates
// are summed in that order (as read_matrix_market's make_matrix does).
void fill_local_rows(const Triplets& mine, Ordinal local_rows, LocalRows& out) {
  std::vector<Offset> start(std::size_t(local_rows) + 1, 0);
  for (const Ordinal row : mine.rows) ++start[std::size_t(row - out.first_block_row) + 1];
  std::partial_sum(start.begin(), start.end(), start.begin());
  std::vector<std::size_t> order(mine.rows.size());
  {
    std::vector<Offset> next(start.begin(), start.end() - 1);
    for (std::size_t k = 0; k < mine.rows.size(); ++k)
      order[next[std::size_t(mine.rows[k] - out.first_block_row)]++] = k;
  }
  out.row_map.assign(1, 0);
  out.col_ind.reserve(mine.rows.size());
  out.values.reserve(mine.rows.size());
  for (Ordinal r = 0; r < local_rows; ++r) {
    const auto begin = order.begin() + start[r], end = order.begin() + start[r + 1];
    std::stable_sort(begin, end,
                     [&](std::size_t a, std::size_t b) { return mine.cols[a] < mine.cols[b]; });
    for (auto k = begin; k != end; ++k) {
      if (k != begin && mine.cols[*k] == mine.cols[*(k - 1)]) {
        out.values.back() += mine.values[*k];
        continue;
      }
      out.col_ind.push_back(mine.cols[*k]);
      out.values.push_back(mine.values[*k]);
    }
    out.row_map.push_back(Offset(out.col_ind.size()));
  }
}

}  // namespace

LocalRows read_matrix_market_rows(const Communicator& comm, const std::string& path,
                                  int block_size) {
  const int ranks = comm.size(), me = comm.rank();
  std::optional<FileBytes> file;
  detail::MatrixMarketLayout layout;
  comm.run_collectively([&] {
    if (block_size < 1)
      throw InvalidInput("read_matrix_market_rows: block size must be at least 1, got " +
                         std::to_string(block_size) + " (for " + path + ")");
    file.emplace(path);
    layout = read_layout(*file, path);
    detail::check_rows_divisible(path, layout.size_line, layout.rows, block_size);
    const std::int64_t block_rows = layout.rows / block_size;
    if (block_rows < ranks) {
      const std::string blocks = " (" + std::to_string(block_rows) + " block row" +
                                 (block_rows == 1 ? "" : "s") + " of " +
                                 std::to_string(block_size) + ")";
      throw InvalidInput(path + " has " + std::to_string(layout.rows) + " rows" +
                         (block_size > 1 ? blocks : std::string()) + " for " +
                         std::to_string(ranks) + " MPI ranks; every rank needs at least one" +
                         (block_size > 1 ? " block row" : ""));
    }
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
  const long long count = (long long)entries.rows.size();
  MPI_Exscan(&count, &entries_before, 1, MPI_LONG_LONG, MPI_SUM, comm.get());
  if (me == 0) entries_before = 0;
  long long totals[2] = {count, newlines};
  MPI_Allreduce(MPI_IN_PLACE, totals, 2, MPI_LONG_LONG, MPI_SUM, comm.get());
  const long long total = totals[0], all_newlines = totals[1];
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
    if (total > layout.entries) {
      if (entries_before <= layout.entries && layout.entries < entries_before + count)
        detail::parse_matrix_market_entries(path, layout, text.data(), text.size() - 1,
                                            layout.data_line + lines_before,
                                            layout.entries - entries_before);
      return;
    }
    // The entries are all there: only now may the rows (this rank's share) cost memory.
    detail::check_rows_fit_entries(path, layout.size_line, layout.rows, layout.entries,
                                   layout.skew);
  });
  text = {};

  // Block rows [N r / P, N (r + 1) / P) per rank.
  const std::int64_t n = layout.rows / block_size;
  const Triplets owned = send_to_owners(comm, std::move(entries), layout, block_size);
  LocalRows out;
  out.first_block_row = Ordinal(n * me / ranks) * block_size;
  const Ordinal local_rows = Ordinal(n * (me + 1) / ranks) * block_size - out.first_block_row;
  fill_local_rows(owned, local_rows, out);
  if (block_size > 1) {
    out.first_block_row /= block_size;
    comm.run_collectively([&] { regroup_rows(path, block_size, out); });
  }
  return out;
}

}  // namespace fgdd
