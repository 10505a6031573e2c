// `runner help [COMMAND [SUBCOMMAND]]`: the help of the runner or of one command, as `git help`
// and `cargo help` give it; `--format man|bash|zsh` writes the man page and the shell completions
// from the same option definitions (CLI11's App), which the build installs
// (cmake/InstallLayout.cmake: share/man/man1/runner.1, share/bash-completion/completions/runner,
// share/zsh/site-functions/_runner). Nothing here is written by hand per option: a new option is
// in all three the next time the runner is built.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <CLI/CLI.hpp>

#include "runner/base/build_info.hpp"
#include "runner/base/durable_file.hpp"
#include "runner/base/errors.hpp"
#include "runner/base/exit_codes.hpp"
#include "runner/cli/commands.hpp"
#include "runner/spec/did_you_mean.hpp"

namespace runner::cli {

namespace {

struct HelpCommandLine {
  CLI::App* command = nullptr;
  std::vector<std::string> words;
  std::string format = "text", out;
};

HelpCommandLine& command_line() {
  static HelpCommandLine c;
  return c;
}

// What the generators need of an option, read from CLI11.
struct OptionInfo {
  std::vector<std::string> names;    // "-q", "--quiet"; empty for a positional
  std::string positional;            // "config"; empty for a named option
  std::string value;                 // "DIR", "PCT", "TEXT": empty for a flag
  std::vector<std::string> choices;  // IsMember's values, e.g. md, csv, json
  std::string description;
  bool many = false;  // takes several values (or repeats)
};

struct CommandInfo {
  std::string path;  // "run", "plugin build"
  std::string description;
  std::vector<OptionInfo> options;
};

// The set of values of a CLI::IsMember check: CLI11 appends it to the type name, "TEXT:{a,b}".
std::vector<std::string> choices_of(const std::string& type_name) {
  const auto open = type_name.find('{'), close = type_name.rfind('}');
  if (open == std::string::npos || close == std::string::npos || close < open) return {};
  std::vector<std::string> out;
  std::string word;
  for (char c : type_name.substr(open + 1, close - open - 1)) {
    if (c == ',') {
      out.push_back(word);
      word.clear();
    } else if (c != ' ') {
      word += c;
    }
  }
  if (!word.empty()) out.push_back(word);
  return out;
}

// A value's name for synopses and for choosing what completes it: DIR completes folders, PATH
// and FILE files, the rest nothing in particular.
std::string value_name(const CLI::Option& o) {
  const std::string name = o.get_name(false, true);
  if (name.find("dir") != std::string::npos) return "DIR";
  if (name == "--out") return "PATH";
  if (name == "--reference" || name == "--plugin") return "FILE";
  if (name == "--shard") return "I/N";
  if (!choices_of(o.get_type_name()).empty()) return "WORD";
  const std::string type = o.get_type_name();
  if (type.starts_with("INT") || type.starts_with("UINT")) return "N";
  if (type.starts_with("FLOAT")) return "X";
  return "VALUE";
}

OptionInfo option_info(const CLI::Option& o) {
  OptionInfo info;
  for (const auto& s : o.get_snames()) info.names.push_back("-" + s);
  for (const auto& l : o.get_lnames()) info.names.push_back("--" + l);
  if (!o.nonpositional()) info.positional = o.get_name(true, false);
  const bool flag = o.get_items_expected_max() == 0;
  if (!flag && info.positional.empty()) info.value = value_name(o);
  info.choices = choices_of(o.get_type_name());
  info.description = o.get_description();
  info.many = o.get_expected_max() > 1;
  return info;
}

// Every command the App has, depth first ("plugin" before "plugin build"); hidden ones (an empty
// group) left out.
void collect(CLI::App& app, const std::string& prefix, std::vector<CommandInfo>& out) {
  for (CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_group().empty()) continue;
    CommandInfo info{prefix + sub->get_name(), sub->get_description(), {}};
    for (const CLI::Option* o : sub->get_options({})) info.options.push_back(option_info(*o));
    out.push_back(info);
    collect(*sub, info.path + " ", out);
  }
  // `runner help COMMAND` completes the command names.
  if (!prefix.empty()) return;
  std::vector<std::string> names;
  for (const auto& c : out)
    if (c.path.find(' ') == std::string::npos) names.push_back(c.path);
  for (auto& c : out)
    if (c.path == "help")
      for (auto& o : c.options)
        if (o.positional == "command") o.choices = names;
}

std::vector<OptionInfo> top_options(CLI::App& app) {
  std::vector<OptionInfo> out;
  for (const CLI::Option* o : app.get_options({})) out.push_back(option_info(*o));
  return out;
}

// --- man page (roff, man(7)) ---

std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else if ((c == '.' || c == '\'') && line_start)
      out += "\\&" + std::string(1, c);
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

std::string option_synopsis(const OptionInfo& o) {
  if (!o.positional.empty())
    return fmt::format("\\fI{}\\fR{}", roff(o.positional), o.many ? "..." : "");
  std::vector<std::string> names;
  for (const auto& n : o.names) names.push_back("\\fB" + roff(n) + "\\fR");
  std::string text = fmt::format("{}", fmt::join(names, ", "));
  if (!o.value.empty()) text += " \\fI" + roff(o.value) + "\\fR";
  return text;
}

// The environment variables users set, with what each does: kept here, beside the generated
// pages, because no option definition holds them.
struct Variable {
  const char* name;
  const char* meaning;
};
constexpr Variable kEnvironment[] = {
    {"RUNNER_CALIBRATION_DIR",
     "a site folder of calibrated ceilings, read before the user's cache (docs/measurement.md)"},
    {"XDG_CACHE_HOME",
     "the user's cache: calibrations in $XDG_CACHE_HOME/runner/calibration, plugins in "
     "$XDG_CACHE_HOME/runner/plugins (default ~/.cache)"},
    {"RUNNER_PYTHON",
     "the Python of runner report and compare (default: the first python3 on PATH with pandas "
     "and matplotlib)"},
    {"RUNNER_PREFIX", "the installed prefix, where the binary has none beside it"},
    {"RUNNER_JOBS_DIR", "a folder of sbatch templates in place of PREFIX/share/runner/jobs"},
    {"RUNNER_PLUGIN_CACHE", "the plugin build cache"},
    {"NO_COLOR", "no colours in messages, whatever its value (https://no-color.org)"},
    {"TERM", "dumb: no colours and no progress line rewritten in place"},
    {"OMP_PROC_BIND, OMP_PLACES",
     "thread placement of the OpenMP points (default close and cores; RUNNER_NO_PIN=1 leaves "
     "threads unpinned)"},
};

struct ExitCode {
  const char* code;
  const char* meaning;
};
constexpr ExitCode kExitCodes[] = {
    {"0", "every point ran and none failed"},
    {"1",
     "the run finished and at least one point failed; collect: some points failed; compare: its "
     "regression gate failed"},
    {"2", "usage or config error (FILE:LINE:COL): nothing was written"},
    {"3",
     "refused, or the environment failed (a locked or full output folder, another config on "
     "--resume, no Python with pandas for report)"},
    {"4", "collect: planned points have no record yet"},
    {"5", "report or compare itself failed (a crash: its traceback says where)"},
    {"128+N", "stopped by signal N; the records so far are valid"},
};

std::string man_page(CLI::App& app, const std::vector<CommandInfo>& commands) {
  std::string m;
  m += fmt::format(".TH RUNNER 1 \"\" \"runner {}\" \"User Commands\"\n", build_info::kVersion);
  m += ".\\\" Generated by `runner help --format man` from the option definitions: do not edit.\n";
  m += ".SH NAME\nrunner \\- " +
       roff(app.get_description().substr(app.get_description().find(':') + 2)) + "\n";
  m += ".SH SYNOPSIS\n.B runner\n\\fICONFIG\\fR [\\fIOPTIONS\\fR]\n.br\n.B runner\n"
       "\\fICOMMAND\\fR [\\fIARGUMENTS\\fR] [\\fIOPTIONS\\fR]\n.br\n.B runner help\n"
       "[\\fICOMMAND\\fR]\n";
  m += ".SH DESCRIPTION\n" + roff(app.get_description()) +
       ". `runner CONFIG' is `runner run CONFIG'. Every command prints its own help with "
       "\\fB\\-\\-help\\fR or `runner help COMMAND'.\n";
  m += ".SH OPTIONS\n";
  for (const auto& o : top_options(app))
    m += ".TP\n" + option_synopsis(o) + "\n" + roff(o.description) + "\n";
  m += ".SH COMMANDS\n";
  for (const auto& c : commands) {
    std::string synopsis = "runner " + c.path;
    for (const auto& o : c.options)
      if (!o.positional.empty()) synopsis += " " + o.positional + (o.many ? "..." : "");
    m += ".SS \"" + roff(synopsis) + "\"\n" + roff(c.description) + "\n";
    for (const auto& o : c.options) {
      if (o.names.size() == 2 && o.names[1] == "--help") continue;
      std::string text = o.description;
      if (!o.choices.empty()) text += fmt::format(" (one of: {})", fmt::join(o.choices, ", "));
      m += ".TP\n" + option_synopsis(o) + "\n" + roff(text) + "\n";
    }
  }
  m += ".SH EXIT STATUS\n";
  for (const auto& e : kExitCodes) m += fmt::format(".TP\n.B {}\n{}\n", e.code, roff(e.meaning));
  m += ".SH ENVIRONMENT\n";
  for (const auto& v : kEnvironment)
    m += fmt::format(".TP\n.B {}\n{}\n", roff(v.name), roff(v.meaning));
  m += ".SH FILES\n.TP\n.I PREFIX/share/runner/\nthe analysis scripts, sbatch templates, example "
       "configs, the column table and the pandas reader (python/runner_records.py)\n.TP\n"
       ".I ~/.cache/runner/calibration/HOST/\nthe ceilings measured on each machine\n";
  m += ".SH SEE ALSO\nThe documentation beside the sources: README.md, docs/configuration.md, "
       "docs/measurement.md, docs/analysis.md, docs/slurm.md, docs/install.md.\n";
  return m;
}

// --- bash ---

std::string shell_words(const std::vector<std::string>& words) {
  return fmt::format("{}", fmt::join(words, " "));
}

// What completes the value of an option or a positional: a set of words, folders, YAML files, or
// any file.
std::string bash_value_completion(const OptionInfo& o) {
  if (!o.choices.empty())
    return fmt::format("COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))", shell_words(o.choices));
  const std::string what = o.positional.empty() ? o.value : o.positional;
  if (what == "DIR" || what.find("dir") != std::string::npos)
    return "COMPREPLY=($(compgen -d -- \"$cur\"))";
  if (what == "config")
    return "COMPREPLY=($(compgen -d -S / -- \"$cur\") $(compgen -f -X '!*.@(yaml|yml)' -- "
           "\"$cur\"))";
  return "COMPREPLY=($(compgen -f -- \"$cur\"))";
}

std::string bash_completion(CLI::App& app, const std::vector<CommandInfo>& commands) {
  std::vector<std::string> top_words;
  for (const auto& c : commands)
    if (c.path.find(' ') == std::string::npos) top_words.push_back(c.path);
  std::vector<std::string> top_flags;
  for (const auto& o : top_options(app))
    top_flags.insert(top_flags.end(), o.names.begin(), o.names.end());
  std::string s;
  s +=
      "# bash completion for runner. Generated by `runner help --format bash` from the option\n"
      "# definitions: do not edit. Installed as PREFIX/share/bash-completion/completions/runner.\n";
  s += "_runner() {\n"
       "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
       "  shopt -s extglob\n"
       "  # The command: the first words that are not options (`plugin build` is two).\n"
       "  local cmd='' i w\n"
       "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
       "    w=${COMP_WORDS[i]}\n"
       "    [[ $w == -* ]] && continue\n"
       "    case \"$cmd $w\" in\n";
  std::vector<std::string> paths;
  for (const auto& c : commands) paths.push_back("\" " + c.path + "\"");
  s += fmt::format("      {}) cmd=\"${{cmd:+$cmd }}$w\" ;;\n", fmt::join(paths, " | "));
  s += "      *) break ;;\n"
       "    esac\n"
       "  done\n"
       "  case $cmd in\n";
  s += fmt::format(
      "    '')\n      if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"{}\" -- "
      "\"$cur\"))\n"
      "      else\n        COMPREPLY=($(compgen -W \"{}\" -- \"$cur\") $(compgen -d -S / -- "
      "\"$cur\") $(compgen -f -X '!*.@(yaml|yml)' -- \"$cur\"))\n"
      "      fi ;;\n",
      shell_words(top_flags), shell_words(top_words));
  for (const auto& c : commands) {
    std::vector<std::string> flags, subcommands;
    for (const auto& o : c.options) flags.insert(flags.end(), o.names.begin(), o.names.end());
    for (const auto& other : commands)
      if (other.path.starts_with(c.path + " ") &&
          other.path.find(' ', c.path.size() + 1) == std::string::npos)
        subcommands.push_back(other.path.substr(c.path.size() + 1));
    s += fmt::format("    '{}')\n      case $prev in\n", c.path);
    for (const auto& o : c.options)
      if (!o.names.empty() && !o.value.empty())
        s += fmt::format("        {}) {}; return ;;\n", fmt::join(o.names, " | "),
                         bash_value_completion(o));
    s += "      esac\n";
    s += fmt::format(
        "      if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n",
        shell_words(flags));
    if (!subcommands.empty())
      s += fmt::format("      else\n        COMPREPLY=($(compgen -W \"{}\" -- \"$cur\"))\n",
                       shell_words(subcommands));
    else if (const auto p = std::find_if(c.options.begin(), c.options.end(),
                                         [](const OptionInfo& o) { return !o.positional.empty(); });
             p != c.options.end())
      s += "      else\n        " + bash_value_completion(*p) + "\n";
    s += "      fi ;;\n";
  }
  s += "  esac\n}\ncomplete -F _runner runner\n";
  return s;
}

// --- zsh ---

// Text inside a zsh _arguments spec: brackets and colons are its syntax, quotes the shell's.
std::string zsh_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '[' || c == ']' || c == ':' || c == '\\') out += '\\';
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out;
}

std::string zsh_action(const OptionInfo& o) {
  if (!o.choices.empty()) return fmt::format("({})", shell_words(o.choices));
  const std::string what = o.positional.empty() ? o.value : o.positional;
  if (what == "DIR" || what.find("dir") != std::string::npos) return "_files -/";
  if (what == "config") return "_files -g \"*.(yaml|yml)\"";
  return "_files";
}

std::string zsh_completion(CLI::App& app, const std::vector<CommandInfo>& commands) {
  std::string s;
  s += "#compdef runner\n# zsh completion for runner. Generated by `runner help --format zsh` "
       "from the option\n# definitions: do not edit. Installed as "
       "PREFIX/share/zsh/site-functions/_runner.\n\n";
  s += "_runner() {\n  local -a commands\n  commands=(\n";
  for (const auto& c : commands)
    if (c.path.find(' ') == std::string::npos)
      s += fmt::format("    '{}:{}'\n", c.path, zsh_text(c.description));
  s += "  )\n";
  s += "  local cmd=${words[2]}\n";
  s += "  if (( CURRENT == 2 )); then\n    _describe -t commands 'runner command' commands\n"
       "    _files -g '*.(yaml|yml)'\n    return\n  fi\n";
  s += "  [[ $cmd == plugin && CURRENT -gt 3 ]] && cmd=\"plugin ${words[3]}\"\n";
  s += "  case $cmd in\n";
  for (const auto& c : commands) {
    s += fmt::format("    '{}')\n      _arguments -s", c.path);
    for (const auto& o : c.options) {
      if (!o.positional.empty()) {
        s += fmt::format(" \\\n        '{}:{}:{}'", o.many ? "*" : "", zsh_text(o.positional),
                         zsh_action(o));
        continue;
      }
      const std::string excl =
          o.names.size() > 1 ? fmt::format("({})", fmt::join(o.names, " ")) : std::string();
      for (const auto& n : o.names) {
        s += fmt::format(" \\\n        '{}{}{}[{}]", excl, o.many ? "*" : "", n,
                         zsh_text(o.description));
        if (!o.value.empty()) s += fmt::format(":{}:{}", zsh_text(o.value), zsh_action(o));
        s += "'";
      }
    }
    std::vector<std::string> subcommands;
    for (const auto& other : commands)
      if (other.path.starts_with(c.path + " ") &&
          other.path.find(' ', c.path.size() + 1) == std::string::npos)
        subcommands.push_back(other.path.substr(c.path.size() + 1));
    if (!subcommands.empty())
      s += fmt::format(" \\\n        '1:subcommand:({})'", shell_words(subcommands));
    s += " ;;\n";
  }
  (void)app;
  s += "  esac\n}\n\n_runner \"$@\"\n";
  return s;
}

// The App of `runner WORDS...`, or null with the closest name when a word names none.
CLI::App* find_command(CLI::App& app, const std::vector<std::string>& words, std::string& near) {
  CLI::App* at = &app;
  for (const auto& w : words) {
    std::vector<std::string> names;
    CLI::App* next = nullptr;
    for (CLI::App* sub : at->get_subcommands({})) {
      if (sub->get_group().empty()) continue;
      names.push_back(sub->get_name());
      if (sub->get_name() == w) next = sub;
    }
    if (!next) {
      near = closest_match(w, names);
      return nullptr;
    }
    at = next;
  }
  return at;
}

}  // namespace

void add_help_command(CLI::App& app) {
  HelpCommandLine& c = command_line();
  c.command = app.add_subcommand("help", "Show the help of the runner, or of one command");
  c.command->add_option("command", c.words, "A command, e.g. run, or plugin build");
  c.command
      ->add_option("--format", c.format,
                   "text (default); man, bash or zsh write the man page or a shell completion "
                   "(the build installs them)")
      ->check(CLI::IsMember({"text", "man", "bash", "zsh"}));
  c.command->add_option("--out", c.out, "Write it to this file instead of stdout");
}

int run_help_command(CLI::App& app) {
  const HelpCommandLine& c = command_line();
  if (!c.command || !*c.command) return -1;
  if (c.format != "text") {
    std::vector<CommandInfo> commands;
    collect(app, "", commands);
    const std::string text = c.format == "man"    ? man_page(app, commands)
                             : c.format == "bash" ? bash_completion(app, commands)
                                                  : zsh_completion(app, commands);
    if (c.out.empty())
      fmt::print("{}", text);
    else
      write_file_atomically(c.out, text);
    return exit_code::kOk;
  }
  // report and compare: their options are analysis/*.py's, which prints its own help.
  if (!c.words.empty() && (c.words[0] == "report" || c.words[0] == "compare"))
    return exec_analysis(c.words[0] + ".py", {"--help"});
  std::string near;
  CLI::App* command = find_command(app, c.words, near);
  if (!command)
    throw UsageError(fmt::format("no command '{}'{}; `runner help` lists them",
                                 fmt::join(c.words, " "),
                                 near.empty() ? "" : fmt::format(" (did you mean '{}'?)", near)));
  // Through the formatter: App::help() would give the help of the command parsed, `help` itself.
  const std::string name = c.words.empty()
                               ? app.get_name()
                               : fmt::format("{} {}", app.get_name(), fmt::join(c.words, " "));
  fmt::print("{}", command->get_formatter()->make_help(command, name, CLI::AppFormatMode::Normal));
  return exit_code::kOk;
}

}  // namespace runner::cli
