#pragma once
// What this binary was built from; defined in a file generated at build time
// (cmake/BuildInfo.cmake).
namespace runner::build_info {
extern const char* const kVersion;
extern const char* const kGitRevision;
extern const char* const kCxxCompiler;
extern const char* const kCudaCompiler;
extern const char* const kCudaArchitectures;
extern const char* const kHipCompiler;       // empty outside HIP builds
extern const char* const kHipArchitectures;  // gfx906,gfx90a; empty outside HIP builds
extern const char* const kBuildType;
}  // namespace runner::build_info
