// docs/journal.md's list of events and schemas/journal.schema.json, made from the events'
// field tables (journal_events.h), so that neither can drift from what the writer writes:
// tests/launcher/logs/journal_docs_test.cpp fails when the files in the tree differ from
// these, and rewrites them with PAI_UPDATE_GOLDEN=1.
#pragma once

#include <string>
#include <string_view>

namespace pai::launcher::journal {

/// The markers around the generated part of docs/journal.md (the prose around it is written
/// by hand).
inline constexpr std::string_view kDocsBegin =
    "<!-- The events below are made from launcher/logs/journal_events.h "
    "(PAI_UPDATE_GOLDEN=1 ctest -R journal_docs). -->";
inline constexpr std::string_view kDocsEnd = "<!-- End of the generated events. -->";

/// The Markdown between kDocsBegin and kDocsEnd: an index of every event, then one section per
/// event (its name, journals, kAbout, and a table of its fields: key, JSON type, whether it is
/// always written, its note). Nested objects' fields are listed as `status.code`, those of a
/// list's objects as `pairs[].gbps`.
std::string journal_markdown();

/// schemas/journal.schema.json: a JSON Schema (draft 2020-12) of one record of format 2, one
/// definition per event; with its final newline.
std::string journal_schema();

}  // namespace pai::launcher::journal
