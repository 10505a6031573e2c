#pragma once
// nlohmann::json for the headers of runner/api/ that GPU sources include (workload, GPU info,
// launch waves). A HIP build's compiler (clang 15, device pass, C++20) crashes inside
// nlohmann/json.hpp, so HIP sources see only its declarations: those headers name the type in
// declarations alone and define what builds a json in .cpp files. Every other file gets the whole
// library, as before.
#if defined(__HIPCC__)
#include <nlohmann/json_fwd.hpp>
#else
#include <nlohmann/json.hpp>
#endif
