// The Tpetra types the adapter works with: Tpetra's defaults for the global ordinal and the node
// (what Trilinos was configured with), fgdd's scalar and local ordinal, which Tpetra's local
// matrix shares with fgdd's CSR arrays.
#pragma once

#include "core/types.hpp"

#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Map.hpp>
#include <Tpetra_MultiVector.hpp>
#include <Tpetra_RowMatrix.hpp>

#include <type_traits>

namespace fgdd::trilinos {

using LocalOrdinal = Ordinal;
using GlobalOrdinal = Tpetra::Map<>::global_ordinal_type;
using Node = Tpetra::Map<>::node_type;
using Map = Tpetra::Map<LocalOrdinal, GlobalOrdinal, Node>;
using RowMatrix = Tpetra::RowMatrix<Scalar, LocalOrdinal, GlobalOrdinal, Node>;
using CrsMatrix = Tpetra::CrsMatrix<Scalar, LocalOrdinal, GlobalOrdinal, Node>;
using MultiVector = Tpetra::MultiVector<Scalar, LocalOrdinal, GlobalOrdinal, Node>;
using Operator = Tpetra::Operator<Scalar, LocalOrdinal, GlobalOrdinal, Node>;

static_assert(std::is_same_v<Tpetra::Map<>::local_ordinal_type, LocalOrdinal>,
              "Tpetra's default local ordinal must be fgdd's Ordinal (int)");

}  // namespace fgdd::trilinos
