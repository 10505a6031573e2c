#include "runner/plugin/plugin_toolchain.hpp"

#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "runner/base/build_info.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/install_layout.hpp"

namespace runner::plugin {

namespace {

namespace fs = std::filesystem;

std::vector<std::string> words(const char* text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

void append(std::vector<std::string>& to, const std::vector<std::string>& more) {
  to.insert(to.end(), more.begin(), more.end());
}

bool built_with(const char* compiler) {
  return compiler && *compiler;
}

const char* compiler_of(PluginLanguage language) {
  switch (language) {
    case PluginLanguage::cuda:
      return toolchain_data::kCudaCompiler;
    case PluginLanguage::hip:
      return toolchain_data::kHipCompiler;
    case PluginLanguage::cxx:
    case PluginLanguage::library:
      break;
  }
  return toolchain_data::kCxxCompiler;
}

const char* flags_of(PluginLanguage language) {
  switch (language) {
    case PluginLanguage::cuda:
      return toolchain_data::kCudaFlags;
    case PluginLanguage::hip:
      return toolchain_data::kHipFlags;
    case PluginLanguage::cxx:
    case PluginLanguage::library:
      break;
  }
  return toolchain_data::kCxxFlags;
}

}  // namespace

PluginLanguage plugin_language(const fs::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".so") return PluginLanguage::library;
  if (ext == ".cpp" || ext == ".cc" || ext == ".cxx") return PluginLanguage::cxx;
  if (ext == ".cu") {
    if (built_with(toolchain_data::kCudaCompiler)) return PluginLanguage::cuda;
    if (built_with(toolchain_data::kHipCompiler)) return PluginLanguage::hip;
    throw UsageError(fmt::format(
        "{}: a CUDA source, and this runner was built without a GPU compiler (no CUDA toolkit "
        "was found when it was built): rebuild the runner with CUDA, or give a .cpp plugin",
        file.string()));
  }
  if (ext == ".hip") {
    if (built_with(toolchain_data::kHipCompiler)) return PluginLanguage::hip;
    throw UsageError(fmt::format(
        "{}: a HIP source, and this runner is not a HIP build (-DRUNNER_GPU=hip): write the "
        "kernel in CUDA (.cu), which both builds compile",
        file.string()));
  }
  throw UsageError(fmt::format(
      "{}: a plugin is a .cu, .cpp (.cc, .cxx), .hip (HIP builds) or a built .so, not '{}'",
      file.string(), ext.empty() ? "a file without an extension" : ext));
}

fs::path runner_include_dir() {
  const fs::path dir = install::prefix() / "include" / "runner";
  std::error_code ec;
  if (install::prefix().empty() || !fs::exists(dir / "runner" / "api" / "workload.hpp", ec))
    throw UsageError(fmt::format(
        "the kernel author's headers are missing: looked for {} (the runner's prefix: {}); "
        "install the runner again",
        (dir / "runner" / "api" / "workload.hpp").string(), install::describe_prefix()));
  return dir;
}

std::string plugin_abi() {
  return build_info::kPluginAbi;
}

PluginCommands plugin_commands(PluginLanguage language, const PluginPaths& paths) {
  if (language == PluginLanguage::library)
    throw std::logic_error("plugin_commands: a library is not compiled");
  const std::string include = "-I" + runner_include_dir().string();
  PluginCommands c;
  c.compile_source = {compiler_of(language)};
  append(c.compile_source, words(flags_of(language)));
  append(c.compile_source, words(toolchain_data::kDefines));
  c.compile_source.push_back(include);
  append(c.compile_source, words(toolchain_data::kSystemIncludes));
  append(c.compile_source, {"-MD", "-MF", paths.depfile.string(), "-c", paths.source.string(), "-o",
                            paths.object.string()});

  c.compile_stamp = {toolchain_data::kCxxCompiler,
                     "-fPIC",
                     "-O2",
                     fmt::format("-DRUNNER_PLUGIN_ABI=\"{}\"", plugin_abi()),
                     "-c",
                     install::share_path("plugin/plugin_stamp.cpp").string(),
                     "-o",
                     paths.stamp_object.string()};

  c.link = {compiler_of(language)};
  if (language == PluginLanguage::cuda) {
    append(c.link, words(flags_of(language)));
    append(c.link, {"-shared", "-cudart", "shared"});
  } else if (language == PluginLanguage::hip) {
    append(c.link, {"-shared", "-fPIC"});  // compiled without OpenMP, as the runner's HIP sources
  } else {
    // -fopenmp: OpenMP's runtime for the CPU variants' pragmas (the binary has it loaded).
    append(c.link, {"-shared", "-fPIC", "-fopenmp"});
  }
  append(c.link,
         {paths.object.string(), paths.stamp_object.string(), "-o", paths.library.string()});
  return c;
}

std::string toolchain_description(PluginLanguage language) {
  return fmt::format("{} {} {}", compiler_of(language), flags_of(language),
                     toolchain_data::kDefines);
}

}  // namespace runner::plugin
