// The journal's events as JSON objects (their fields, without `time` and `event`), for code
// that already holds JSON: the coordinator's records (what its tests look at) and the line
// writer and reader of journal.h, which everything else uses.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "launcher/logs/journal.h"

namespace pai::launcher::journal {

/// The fields of `event` as the journal writes them, nested values as JSON objects and arrays.
nlohmann::json fields_json(const Event& event);

/// The event named `name` read from `fields` (a JSON object: its other members are ignored),
/// tolerant as journal.h says: missing fields keep their defaults; nested values may be JSON
/// or, as format 1 wrote them, their JSON text in a string. nullopt, counted in `tally`, when
/// no event has that name.
std::optional<Event> read_event(std::string_view name, const nlohmann::json& fields,
                                ReadTally& tally);

}  // namespace pai::launcher::journal
