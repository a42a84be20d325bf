// Catch2 v2 (Debian 12) and v3 have different headers; tests include this one.
#pragma once

#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#define FGDD_CATCH_APPROX Catch::Approx
#else
#include <catch2/catch.hpp>
#define FGDD_CATCH_APPROX Approx
#endif
