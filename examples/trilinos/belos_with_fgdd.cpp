// Belos (BiCGStab, GMRES) preconditioned by fgdd, next to Ifpack2's RILUK(0), additive Schwarz +
// RILUK(0) and additive Schwarz with fgdd inside (overlap 1), on a 3-D convection–diffusion
// matrix assembled as a Tpetra matrix; each preconditioner is set up, solves, gets new values of
// the same pattern (compute() again) and solves once more. Prints iterations, setup and solve times
// and true residuals.
//
//   mpirun -np 2 fgdd_trilinos_example [--n 32] [--peclet 100] [--tol 1e-8] [--check]
//                                      [--json FILE]
//
// --json: the printed rows as a JSON array (one object a row) for docs/PERFORMANCE.md.
// --check: exit 1 unless every solve reached the tolerance in the true residual and fgdd took at
// most 1.5 times the iterations of additive Schwarz + RILUK(0) with the same Krylov method.
#include "convdiff_problem.hpp"
#include "trilinos/dd_preconditioner.hpp"
#include "trilinos/preconditioner_factory.hpp"

#include <BelosLinearProblem.hpp>
#include <BelosSolverFactory.hpp>
#include <BelosTpetraAdapter.hpp>
#include <Ifpack2_Details_NestedPreconditioner.hpp>
#include <Tpetra_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using fgdd::trilinos::CrsMatrix;
using fgdd::trilinos::IfpackPreconditioner;
using fgdd::trilinos::MultiVector;
using fgdd::trilinos::Operator;

struct Settings {
  long long n = 32;
  double peclet = 100;
  double tol = 1e-8;
  bool check = false;
  std::string json;
};

Settings parse(int argc, char* argv[]) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "--n" && has_value) {
      settings.n = std::atoll(argv[++i]);
    } else if (flag == "--peclet" && has_value) {
      settings.peclet = std::atof(argv[++i]);
    } else if (flag == "--tol" && has_value) {
      settings.tol = std::atof(argv[++i]);
    } else if (flag == "--json" && has_value) {
      settings.json = argv[++i];
    } else if (flag == "--check") {
      settings.check = true;
    } else {
      std::fprintf(stderr, "usage: %s [--n N] [--peclet P] [--tol T] [--check] [--json FILE]\n",
                   argv[0]);
      std::exit(2);
    }
  }
  return settings;
}

// One preconditioner as the app names it, and how it is configured.
struct Candidate {
  std::string label;
  std::string ifpack_name;  // for create_preconditioner
  Teuchos::ParameterList params;
  bool fgdd_inside = false;  // Schwarz with fgdd's preconditioner as its inner solver
};

std::vector<Candidate> candidates() {
  Candidate fgdd{"fgdd ildu0-dd", fgdd::trilinos::fgdd_preconditioner_name, {}};
  Candidate riluk{"Ifpack2 RILUK(0)", "RILUK", {}};
  riluk.params.set("fact: iluk level-of-fill", 0);
  Candidate schwarz{"Ifpack2 Schwarz+RILUK(0)", "SCHWARZ", {}};
  schwarz.params.set("schwarz: overlap level", 1);
  schwarz.params.set("inner preconditioner name", "RILUK");
  Teuchos::ParameterList inner;
  inner.set("fact: iluk level-of-fill", 0);
  schwarz.params.set("inner preconditioner parameters", inner);
  Candidate schwarz_fgdd{"Ifpack2 Schwarz+fgdd", "SCHWARZ", {}, true};
  schwarz_fgdd.params.set("schwarz: overlap level", 1);
  return {fgdd, riluk, schwarz, schwarz_fgdd};
}

// The candidate's preconditioner, set up with its parameters.
Teuchos::RCP<IfpackPreconditioner> make(const Candidate& candidate,
                                        const Teuchos::RCP<CrsMatrix>& A) {
  const auto M = fgdd::trilinos::create_preconditioner(candidate.ifpack_name, A);
  M->setParameters(candidate.params);
  if (candidate.fgdd_inside) {
    // Overlap from Ifpack2, fgdd's subdomains inside each rank's overlapped block.
    auto& nested = dynamic_cast<Ifpack2::Details::NestedPreconditioner<IfpackPreconditioner>&>(*M);
    nested.setInnerPreconditioner(
        Teuchos::RCP<IfpackPreconditioner>(new fgdd::trilinos::DdPreconditioner(Teuchos::null)));
  }
  return M;
}

struct Outcome {
  std::string preconditioner, method;
  int step = 0;
  double setup_seconds = 0, solve_seconds = 0, apply_ms = 0, true_residual = 0;
  int iterations = 0;
  bool converged = false;
};

double seconds_since(const Teuchos::Comm<int>& comm, double start) {
  comm.barrier();
  return MPI_Wtime() - start;
}

Outcome solve(const Teuchos::Comm<int>& comm, const Teuchos::RCP<CrsMatrix>& A,
              const Teuchos::RCP<IfpackPreconditioner>& M, const std::string& method, double tol) {
  Outcome outcome;
  outcome.method = method;
  const auto B = Teuchos::rcp(new MultiVector(A->getRangeMap(), 1));
  const auto X = Teuchos::rcp(new MultiVector(A->getDomainMap(), 1));
  B->putScalar(1.0);
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("Convergence Tolerance", tol);
  params->set("Maximum Iterations", 2000);
  if (method == "GMRES") params->set("Num Blocks", 30);
  Belos::SolverFactory<double, MultiVector, Operator> factory;
  const auto solver = factory.create(method, params);
  const auto problem =
      Teuchos::rcp(new Belos::LinearProblem<double, MultiVector, Operator>(A, X, B));
  problem->setRightPrec(M);
  problem->setProblem();
  solver->setProblem(problem);
  const double start = MPI_Wtime();
  const double apply_seconds = M->getApplyTime();
  const int applies = M->getNumApply();
  const Belos::ReturnType result = solver->solve();
  outcome.solve_seconds = seconds_since(comm, start);
  if (M->getNumApply() > applies)
    outcome.apply_ms = 1e3 * (M->getApplyTime() - apply_seconds) / (M->getNumApply() - applies);
  outcome.iterations = solver->getNumIters();
  // The true residual ‖b − A x‖ / ‖b‖, whatever Belos' own test measured.
  MultiVector R(A->getRangeMap(), 1);
  A->apply(*X, R);
  R.update(1.0, *B, -1.0);
  std::vector<double> r_norm(1), b_norm(1);
  R.norm2(r_norm);
  B->norm2(b_norm);
  outcome.true_residual = r_norm[0] / b_norm[0];
  outcome.converged = result == Belos::Converged && outcome.true_residual <= tol;
  return outcome;
}

void write_json(const std::string& path, const Settings& settings, int ranks,
                const std::vector<Outcome>& outcomes) {
  std::FILE* file = std::fopen(path.c_str(), "w");
  if (file == nullptr) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    std::exit(2);
  }
  std::fprintf(file, "[\n");
  for (std::size_t k = 0; k < outcomes.size(); ++k) {
    const Outcome& o = outcomes[k];
    std::fprintf(file,
                 "  {\"n\": %lld, \"peclet\": %g, \"ranks\": %d, \"preconditioner\": \"%s\", "
                 "\"method\": \"%s\", \"step\": %d, \"setup_s\": %.6f, \"iterations\": %d, "
                 "\"solve_s\": %.6f, \"apply_ms\": %.6f, \"true_residual\": %.3e, "
                 "\"converged\": %s}%s\n",
                 settings.n, settings.peclet, ranks, o.preconditioner.c_str(), o.method.c_str(),
                 o.step, o.setup_seconds, o.iterations, o.solve_seconds, o.apply_ms,
                 o.true_residual, o.converged ? "true" : "false",
                 k + 1 < outcomes.size() ? "," : "");
  }
  std::fprintf(file, "]\n");
  std::fclose(file);
}

}  // namespace

int main(int argc, char* argv[]) {
  Tpetra::ScopeGuard tpetra(&argc, &argv);
  const Settings settings = parse(argc, argv);
  const auto comm = Tpetra::getDefaultComm();
  const bool root = comm->getRank() == 0;
  const auto A = fgdd_example::convection_diffusion(comm, settings.n, settings.peclet);
  if (root)
    std::printf(
        "convection-diffusion %lld^3 (%lld rows, Peclet %g) on %d rank(s), tol %g\n\n"
        "%-26s %-9s %4s %9s %6s %9s %9s %10s %s\n",
        settings.n, settings.n * settings.n * settings.n, settings.peclet, comm->getSize(),
        settings.tol, "preconditioner", "method", "step", "setup s", "its", "solve s", "apply ms",
        "true res", "status");
  // Two rounds, the first a warm-up (first-touch allocations inside Belos and Tpetra would
  // otherwise go to whichever preconditioner runs first); the second is printed and checked.
  std::vector<Outcome> outcomes;
  for (int round = 0; round < 2; ++round) {
    outcomes.clear();
    for (const Candidate& candidate : candidates()) {
      for (const std::string method : {"BICGSTAB", "GMRES"}) {
        const auto M = make(candidate, A);
        for (int step = 1; step <= 2; ++step) {
          // Step 2: new values of the same pattern, so compute() alone refreshes the factors.
          if (step == 2) fgdd_example::shift_diagonal(*A, 0.5);
          const double start = MPI_Wtime();
          if (step == 1) M->initialize();
          M->compute();
          const double setup = seconds_since(*comm, start);
          Outcome outcome = solve(*comm, A, M, method, settings.tol);
          if (step == 2) fgdd_example::shift_diagonal(*A, -0.5);
          outcome.preconditioner = candidate.label;
          outcome.step = step;
          outcome.setup_seconds = setup;
          outcomes.push_back(outcome);
          if (root && round == 1)
            std::printf("%-26s %-9s %4d %9.4f %6d %9.4f %9.4f %10.3e %s\n", candidate.label.c_str(),
                        method.c_str(), step, setup, outcome.iterations, outcome.solve_seconds,
                        outcome.apply_ms, outcome.true_residual,
                        outcome.converged ? "converged" : "NOT CONVERGED");
        }
        if (root && round == 1 &&
            candidate.ifpack_name == fgdd::trilinos::fgdd_preconditioner_name &&
            method == "BICGSTAB")
          std::printf("  %s\n", M->description().c_str());
      }
    }
  }
  if (root && !settings.json.empty())
    write_json(settings.json, settings, comm->getSize(), outcomes);
  if (!settings.check) return 0;
  bool ok = true;
  for (const Outcome& outcome : outcomes) {
    if (!outcome.converged) {
      ok = false;
      if (root)
        std::printf("check: %s %s step %d did not converge\n", outcome.preconditioner.c_str(),
                    outcome.method.c_str(), outcome.step);
    }
    if (outcome.preconditioner.rfind("fgdd", 0) != 0) continue;
    for (const Outcome& peer : outcomes) {
      if (peer.preconditioner.find("Schwarz+RILUK") == std::string::npos ||
          peer.method != outcome.method || peer.step != outcome.step)
        continue;
      if (outcome.iterations > 1.5 * peer.iterations) {
        ok = false;
        if (root)
          std::printf("check: fgdd %s step %d took %d iterations, more than 1.5 x Schwarz's %d\n",
                      outcome.method.c_str(), outcome.step, outcome.iterations, peer.iterations);
      }
    }
  }
  if (root) std::printf("check: %s\n", ok ? "passed" : "FAILED");
  return ok ? 0 : 1;
}
