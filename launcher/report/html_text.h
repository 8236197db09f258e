// Text from a journal made safe for the report's HTML and SVG: whatever a node name, a
// message or a matched log line holds (`<script>`, `&`, quotes, control characters, bytes
// that are not UTF-8), it is shown as text and never read as markup.
#pragma once

#include <string>
#include <string_view>

namespace pai::launcher::report {

/// `text` escaped for HTML element content and for quoted attribute values alike: `&`, `<`,
/// `>`, `"` and `'` as entities; control characters (tab kept, newline included), DEL, C1
/// controls and bytes that are not well-formed UTF-8 written as `\xHH` (libpai/terminal_text.h).
std::string html_text(std::string_view text);

/// html_text of each line of `text`, newlines kept (for a <pre>).
std::string html_lines(std::string_view text);

}  // namespace pai::launcher::report
