#pragma once
// How this runner compiles a plugin source: with the compiler, flags, definitions and GPU
// architectures of its own build (cmake/PluginToolchain.cmake writes them into the binary), against
// the kernel author's headers of its prefix (PREFIX/include/runner). A plugin built so shares the
// binary's ABI; its stamp (share/runner/plugin/plugin_stamp.cpp) says which build it was made for.
#include <filesystem>
#include <string>
#include <vector>

namespace runner::plugin {

namespace toolchain_data {  // generated: build/generated/plugin_toolchain_data.cpp
extern const char* const kCxxCompiler;
extern const char* const kCxxFlags;
extern const char* const kCudaCompiler;
extern const char* const kCudaFlags;
extern const char* const kCudaLibraryDir;
extern const char* const kHipCompiler;
extern const char* const kHipFlags;
extern const char* const kDefines;
extern const char* const kSystemIncludes;
}  // namespace toolchain_data

// The language of a plugin file, from its extension: .cu (CUDA; HIP in a HIP build), .hip (HIP
// builds), .cpp/.cc/.cxx (C++), .so (built already).
enum class PluginLanguage { cxx, cuda, hip, library };

// The language of `file`; throws UsageError for an extension that is none of them, or a GPU
// source this build cannot compile (a .cu file in a build without CUDA or HIP, a .hip file in a
// CUDA build), saying why.
PluginLanguage plugin_language(const std::filesystem::path& file);

// The commands that turn one source into a loadable plugin: compile it (with a dependency file),
// compile the stamp, link both.
struct PluginCommands {
  std::vector<std::string> compile_source;  // SOURCE -> OBJECT, writes DEPFILE
  std::vector<std::string> compile_stamp;   // plugin_stamp.cpp -> STAMP_OBJECT
  std::vector<std::string> link;            // OBJECT STAMP_OBJECT -> LIBRARY
};

struct PluginPaths {
  std::filesystem::path source, object, depfile, stamp_object, library;
};

PluginCommands plugin_commands(PluginLanguage language, const PluginPaths& paths);

// The compiler and flags of `language` in one line (the manifest's record of a plugin, and part of
// its cache key).
std::string toolchain_description(PluginLanguage language);

// PREFIX/include/runner: the kernel author's headers (UsageError naming it when missing).
std::filesystem::path runner_include_dir();

// The plugin ABI of this binary (runner/base/build_info.hpp kPluginAbi).
std::string plugin_abi();

}  // namespace runner::plugin
