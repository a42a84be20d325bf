// Catch2 v2 (Debian 12) and v3 differ in headers and matcher names; tests include this one.
// CMake sets FGDD_CATCH2_MAJOR from the Catch2 package it found, so headers and library match.
#pragma once

#if FGDD_CATCH2_MAJOR >= 3
#include <catch2/catch_all.hpp>
#define FGDD_CATCH_APPROX Catch::Approx
#define FGDD_CONTAINS(text) Catch::Matchers::ContainsSubstring(text)
#else
#include <catch2/catch.hpp>
#define FGDD_CATCH_APPROX Approx
#define FGDD_CONTAINS(text) Catch::Contains(text)
#endif
