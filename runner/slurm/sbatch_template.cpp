#include "runner/slurm/sbatch_template.hpp"

#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "runner/base/install_layout.hpp"
#include "runner/spec/slurm_values.hpp"

namespace runner::slurm {

std::filesystem::path jobs_dir() {
  // A site's own templates first (docs/slurm.md), else the installed ones.
  if (const char* dir = std::getenv("RUNNER_JOBS_DIR"); dir && *dir) return dir;
  return install::share_path("jobs");
}

std::string render_template(const std::string& text,
                            const std::map<std::string, std::string>& fields,
                            const std::string& template_name) {
  std::string out;
  out.reserve(text.size() + 1024);
  std::size_t pos = 0;
  int line = 1;
  while (true) {
    const std::size_t open = text.find("{{", pos);
    const std::string_view chunk(text.data() + pos,
                                 (open == std::string::npos ? text.size() : open) - pos);
    for (char c : chunk) line += c == '\n';
    out += chunk;
    if (open == std::string::npos) break;
    const std::size_t close = text.find("}}", open + 2);
    const std::string name =
        close == std::string::npos ? std::string() : text.substr(open + 2, close - open - 2);
    const auto it = fields.find(name);
    if (close == std::string::npos || name.find_first_of("{}\n") != std::string::npos)
      throw std::invalid_argument(
          fmt::format("{}:{}: '{{{{' without a field name and '}}}}'", template_name, line));
    if (it == fields.end())
      throw std::invalid_argument(
          fmt::format("{}:{}: unknown field {{{{{}}}}} (jobs/README.md lists the fields)",
                      template_name, line, name));
    out += it->second;
    pos = close + 2;
  }
  return out;
}

std::string sbatch_line(const std::string& option, const std::string& value) {
  return value.empty() ? std::string() : fmt::format("#SBATCH {}={}", option, value);
}

std::string sbatch_extra_lines(const std::vector<std::string>& options) {
  std::vector<std::string> lines;
  for (const auto& word : options) {
    if (word.find_first_of("\r\n") != std::string::npos)
      throw std::invalid_argument(fmt::format("sbatch option '{}' holds a line break", word));
    if (word.empty()) continue;
    if (word[0] == '-') {
      lines.push_back("#SBATCH " + word);
    } else if (lines.empty()) {
      throw std::invalid_argument(
          fmt::format("'{}' is not an sbatch option (options after -- must start with '-')", word));
    } else {
      lines.back() += " " + word;
    }
  }
  std::string text;
  for (const auto& l : lines) text += (text.empty() ? "" : "\n") + l;
  return text;
}

std::string setup_lines(const std::vector<std::string>& lines) {
  std::string text;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (const auto why = setup_line_problem(lines[i]))
      throw std::invalid_argument(fmt::format("setup line '{}' {}", lines[i], *why));
    text += (i > 0 ? "\n" : "") + lines[i];
  }
  return text;
}

void require_plain_path(const std::filesystem::path& path, const std::string& what) {
  const std::string s = path.string();
  for (char c : s)
    if (std::isspace(static_cast<unsigned char>(c)) ||
        std::string_view("'\"$`\\%;&|<>*?!#(){}[]").find(c) != std::string_view::npos)
      throw std::invalid_argument(fmt::format(
          "{} '{}' contains '{}': the sbatch scripts use paths verbatim, so they may not contain "
          "whitespace, quotes or any of $ ` \\ % ; & | < > * ? ! # ( ) {{ }} [ ]; choose another "
          "path",
          what, s, c));
}

void require_plain_value(const std::string& value, const std::string& what) {
  if (value.find_first_of("\r\n") != std::string::npos ||
      (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))))
    throw std::invalid_argument(fmt::format("{} '{}' must be one word on one line", what, value));
  for (char c : value)
    if (std::isspace(static_cast<unsigned char>(c)))
      throw std::invalid_argument(fmt::format("{} '{}' must not contain whitespace", what, value));
}

}  // namespace runner::slurm
