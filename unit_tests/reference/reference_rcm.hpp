// Serial reference of the reverse Cuthill–McKee order (partition/cuthill_mckee.hpp), written
// from its contract with plain vectors, never for speed.
#pragma once

#include <vector>

#include "core/types.hpp"

namespace fgdd::reference {

// How each component's start is chosen. PseudoPeripheral: from the component's lowest vertex
// t0, sweeps from t0, then from the last level's least (degree, number) vertex while the level
// count grows, four sweeps at most. LeastDegree: the unplaced vertex of least (degree, number).
enum class RcmStart { PseudoPeripheral, LeastDegree };

// The RCM order of the graph whose vertex t has the neighbours neighbours[t] (no t itself):
// component by component (the next one holds the lowest unplaced vertex, or for LeastDegree the
// start itself), breadth-first from the start, each vertex's unplaced neighbours by (degree,
// number); the whole order reversed. Returns the vertices in RCM order.
std::vector<Ordinal> rcm_order(const std::vector<std::vector<Ordinal>>& neighbours, RcmStart start);

}  // namespace fgdd::reference
