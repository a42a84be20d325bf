#include "mpi/communicator.hpp"

#include "core/errors.hpp"

#include <mpi-ext.h>  // MPIX_Query_cuda_support where Open MPI has it

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

namespace fgdd {
namespace {

bool detect_device_pointers_ok() {
  if (const char* forced = std::getenv("FGDD_GPU_AWARE_MPI")) return std::string(forced) != "0";
  if (std::is_same_v<MemSpace, Kokkos::HostSpace>) return true;
#if defined(KOKKOS_ENABLE_CUDA) && defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#elif defined(KOKKOS_ENABLE_HIP) && defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
  return MPIX_Query_rocm_support() == 1;
#else
  return false;
#endif
}

// An fgdd error reduced to what rebuilds it on another rank.
enum class ErrorKind : int {
  Generic,
  InvalidInput,
  InvalidMatrix,
  DimensionMismatch,
  FileError,
  ZeroPivot,
  NotCompiled,
  OutOfMemory,
  Foreign
};

struct PackedError {
  int kind = 0;
  std::int64_t number[2] = {-1, -1};  // row and column, or the file line
  double value = 0;                   // the pivot
  std::string text;                   // the message without what the constructor adds
  std::string path;
};

// The part of a message before the suffix a constructor appended.
std::string strip_suffix(const std::string& text, const std::string& suffix) {
  const bool ends = text.size() >= suffix.size() &&
                    text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
  return ends ? text.substr(0, text.size() - suffix.size()) : text;
}

PackedError pack(const std::exception_ptr& failure, int rank) {
  PackedError packed;
  try {
    std::rethrow_exception(failure);
  } catch (const ZeroPivot& e) {
    packed = {int(ErrorKind::ZeroPivot), {e.row(), -1}, e.value(), {}, {}};
  } catch (const FileError& e) {
    const std::string prefix =
        e.path() + (e.line() > 0 ? ":" + std::to_string(e.line()) : std::string()) + ": ";
    packed = {int(ErrorKind::FileError), {e.line(), -1}, 0, e.what(), e.path()};
    if (packed.text.compare(0, prefix.size(), prefix) == 0) packed.text.erase(0, prefix.size());
  } catch (const InvalidMatrix& e) {
    const std::string suffix = InvalidMatrix("", e.row(), e.column()).what();
    packed = {int(ErrorKind::InvalidMatrix),
              {e.row(), e.column()},
              0,
              strip_suffix(e.what(), suffix),
              {}};
  } catch (const DimensionMismatch& e) {
    packed = {int(ErrorKind::DimensionMismatch), {-1, -1}, 0, e.what(), {}};
  } catch (const InvalidInput& e) {
    packed = {int(ErrorKind::InvalidInput), {-1, -1}, 0, e.what(), {}};
  } catch (const NotCompiled& e) {
    packed = {int(ErrorKind::NotCompiled), {-1, -1}, 0, e.what(), {}};
  } catch (const OutOfMemory& e) {
    packed = {int(ErrorKind::OutOfMemory), {-1, -1}, 0, e.what(), {}};
  } catch (const Error& e) {
    packed = {int(ErrorKind::Generic), {-1, -1}, 0, e.what(), {}};
  } catch (const std::exception& e) {
    // An allocation failure keeps its kind: every rank then reports it as out of memory.
    const bool memory = is_allocation_failure(e);
    packed = {int(memory ? ErrorKind::OutOfMemory : ErrorKind::Foreign),
              {-1, -1},
              0,
              memory ? "rank " + std::to_string(rank) + ": " + e.what() : std::string(e.what()),
              {}};
  } catch (...) {
    packed = {int(ErrorKind::Foreign), {-1, -1}, 0, "unknown exception", {}};
  }
  return packed;
}

[[noreturn]] void rethrow(const PackedError& e, int rank) {
  switch (ErrorKind(e.kind)) {
    case ErrorKind::ZeroPivot:
      throw ZeroPivot(e.number[0], e.value);
    case ErrorKind::FileError:
      throw FileError(e.path, e.number[0], e.text);
    case ErrorKind::InvalidMatrix:
      throw InvalidMatrix(e.text, e.number[0], e.number[1]);
    case ErrorKind::DimensionMismatch:
      throw DimensionMismatch(e.text);
    case ErrorKind::InvalidInput:
      throw InvalidInput(e.text);
    case ErrorKind::NotCompiled:
      throw NotCompiled(e.text);
    case ErrorKind::OutOfMemory:
      throw OutOfMemory(e.text);
    case ErrorKind::Generic:
      throw Error(e.text);
    case ErrorKind::Foreign:
      break;
  }
  throw Error("rank " + std::to_string(rank) + " failed: " + e.text);
}

void broadcast_string(std::string& text, int root, MPI_Comm comm) {
  std::uint64_t length = text.size();
  MPI_Bcast(&length, 1, MPI_UINT64_T, root, comm);
  text.resize(length);
  MPI_Bcast(text.data(), int(length), MPI_CHAR, root, comm);
}

}  // namespace

Communicator::Communicator(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  // Every rank decides alike, or one would send device pointers another cannot receive.
  int ok = detect_device_pointers_ok() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, comm_);
  device_pointers_ok_ = ok == 1;
}

void Communicator::sum(double* values, int count) const {
  if (size_ > 1) MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm_);
}

double Communicator::max(double value) const {
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_DOUBLE, MPI_MAX, comm_);
  return value;
}

void Communicator::run_collectively(const std::function<void()>& step) const {
  std::exception_ptr failure;
  try {
    step();
  } catch (...) {
    failure = std::current_exception();
  }
  int first_failing = failure ? rank_ : size_;
  MPI_Allreduce(MPI_IN_PLACE, &first_failing, 1, MPI_INT, MPI_MIN, comm_);
  if (first_failing == size_) return;
  PackedError packed;
  if (rank_ == first_failing) packed = pack(failure, rank_);
  MPI_Bcast(&packed.kind, 1, MPI_INT, first_failing, comm_);
  MPI_Bcast(packed.number, 2, MPI_INT64_T, first_failing, comm_);
  MPI_Bcast(&packed.value, 1, MPI_DOUBLE, first_failing, comm_);
  broadcast_string(packed.text, first_failing, comm_);
  broadcast_string(packed.path, first_failing, comm_);
  rethrow(packed, first_failing);
}

void Communicator::require_same_on_all_ranks(const std::vector<std::string>& items,
                                             const std::string& what) const {
  std::string text;
  for (const std::string& item : items) text += item + '\n';
  std::string roots = text;
  broadcast_string(roots, 0, comm_);
  run_collectively([&] {
    if (text == roots) return;
    std::vector<std::string> root_items;
    for (std::size_t begin = 0; begin < roots.size();) {
      const std::size_t end = roots.find('\n', begin);
      root_items.push_back(roots.substr(begin, end - begin));
      begin = end + 1;
    }
    std::size_t k = 0;
    while (k < items.size() && k < root_items.size() && items[k] == root_items[k]) ++k;
    const auto quoted = [](const std::vector<std::string>& list, std::size_t at) {
      return at < list.size() ? "'" + list[at] + "'" : std::string("nothing");
    };
    throw InvalidInput(what + " differ between ranks: rank " + std::to_string(rank_) + " has " +
                       quoted(items, k) + " where rank 0 has " + quoted(root_items, k) +
                       " (every rank must be given the same options)");
  });
}

void abort_all_ranks(const Communicator& comm, const std::exception& error) {
  std::fprintf(stderr, "fgdd: rank %d: %s\n", comm.rank(), error.what());
  std::fflush(stderr);
  MPI_Abort(comm.get(), 1);
  std::abort();  // MPI_Abort does not return; this keeps [[noreturn]] honest
}

}  // namespace fgdd
