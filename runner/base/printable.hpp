#pragma once
#include <string>
#include <string_view>

namespace runner {

// Text from users' files (a config's names and values, a folder's name) shown in a message, made
// safe to print: control characters (NUL included, which ended the message there), C1 controls,
// and the invisible characters that reorder or hide text on a terminal (bidi controls such as
// U+202E, zero-width spaces and joiners, the byte-order mark) are shown escaped: \x00, \n,
// \u{202e}. A message then says exactly what the file holds, on one line unless `keep_newlines`.
std::string printable(std::string_view text, bool keep_newlines = false);

}  // namespace runner
