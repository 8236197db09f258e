#include "compiler/document/did_you_mean.h"

#include <catch2/catch.hpp>

namespace did_you_mean_test {

using pai::closest_match;
using pai::did_you_mean;
using pai::edit_distance;

TEST_CASE("edit_distance counts insertions - deletions - substitutions - transpositions") {
  CHECK(edit_distance("", "") == 0);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("nprocPerNod", "nprocPerNode") == 1);
  CHECK(edit_distance("synk", "sync") == 1);
  CHECK(edit_distance("sycn", "sync") == 1);  // transposition costs one
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("edit_distance ignores ASCII letter case") {
  CHECK(edit_distance("NPROCPERNODE", "nprocPerNode") == 0);
  CHECK(edit_distance("Job", "job") == 0);
}

TEST_CASE("closest_match picks the nearest plausible candidate") {
  const std::vector<std::string> keys = {"instances", "nprocPerNode", "resources", "command"};
  CHECK(closest_match("nprocPerNod", keys) == "nprocPerNode");
  CHECK(closest_match("instance", keys) == "instances");
  CHECK(closest_match("comand", keys) == "command");
  CHECK(closest_match("zzz", keys).empty());
  CHECK(closest_match("x", {}).empty());
}

TEST_CASE("closest_match prefers the smaller distance - then the first candidate") {
  CHECK(closest_match("synk", {"async", "sync"}) == "sync");
  CHECK(closest_match("ab", {"ax", "ay"}) == "ax");
}

TEST_CASE("did_you_mean formats a suggestion or nothing") {
  CHECK(did_you_mean("synk", {"sync", "async"}) == " (did you mean \"sync\"?)");
  CHECK(did_you_mean("completely-different", {"sync", "async"}).empty());
}

}  // namespace did_you_mean_test
