#include "krylov/solve_result.hpp"

namespace fgdd {

const char* to_string(SolveStatus status) noexcept {
  switch (status) {
    case SolveStatus::Converged:
      return "converged";
    case SolveStatus::MaxIterations:
      return "max_iterations";
    case SolveStatus::Breakdown:
      return "breakdown";
    case SolveStatus::Diverged:
      return "diverged";
    case SolveStatus::Stagnated:
      return "stagnated";
    case SolveStatus::NanOrInf:
      return "nan_or_inf";
    case SolveStatus::PreconditionerFailed:
      return "preconditioner_failed";
    case SolveStatus::Inaccurate:
      return "inaccurate";
  }
  return "unknown";
}

const char* to_string(ReturnedIterate iterate) noexcept {
  switch (iterate) {
    case ReturnedIterate::Last:
      return "last";
    case ReturnedIterate::Best:
      return "best";
    case ReturnedIterate::Initial:
      return "initial";
  }
  return "unknown";
}

}  // namespace fgdd
