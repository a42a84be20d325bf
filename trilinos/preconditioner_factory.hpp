// Preconditioners by name: "FGDD" (any case) gives fgdd's DdPreconditioner, every other name goes
// to Ifpack2::Factory ("RILUK", "SCHWARZ", "RELAXATION", ...). Ifpack2 13.2's factory knows a
// fixed list of names and takes no registrations, so an app that reads its preconditioner's name
// from a parameter list calls this in place of Ifpack2::Factory::create.
#pragma once

#include "trilinos/tpetra_types.hpp"

#include <Ifpack2_Preconditioner.hpp>

#include <string>

namespace fgdd::trilinos {

using IfpackPreconditioner = Ifpack2::Preconditioner<Scalar, LocalOrdinal, GlobalOrdinal, Node>;

inline constexpr const char* fgdd_preconditioner_name = "FGDD";

// Throws std::invalid_argument (Ifpack2's) for a name neither knows.
Teuchos::RCP<IfpackPreconditioner> create_preconditioner(const std::string& name,
                                                         const Teuchos::RCP<const RowMatrix>& A);

}  // namespace fgdd::trilinos
