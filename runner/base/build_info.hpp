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
// What a plugin compiled for this binary depends on: headers, compilers, flags (16 hex digits;
// cmake/WriteBuildInfo.cmake).
extern const char* const kPluginAbi;
}  // namespace runner::build_info
