// Compiled into every plugin, by `runner plugin build` and by runner_add_plugin() alike, with
// RUNNER_PLUGIN_ABI set to `runner plugin abi` of the runner it was built for: the loader
// (runner/plugin/plugin_library.cpp) refuses a plugin stamped by another build of the runner, whose
// headers, compiler or flags may differ, with both stamps in the message.
extern "C" __attribute__((visibility("default"))) const char runner_plugin_abi[] =
    RUNNER_PLUGIN_ABI;
