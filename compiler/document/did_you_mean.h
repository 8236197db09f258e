// "Did you mean" suggestions for misspelled keys, enum values and names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pai {

/// Damerau-Levenshtein (optimal string alignment) distance between `a` and `b`, comparing
/// ASCII letters case-insensitively: a transposition, insertion, deletion or substitution
/// each cost 1.
int edit_distance(std::string_view a, std::string_view b);

/// The candidate closest to `word`, or "" when none is close enough to be a plausible
/// typo (distance at most max(1, length / 3) of the longer word). Ties go to the first
/// candidate in order.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

/// " (did you mean \"x\"?)" for the closest candidate, or "" when there is none.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace pai
