#include "launcher/checks/corruption_vote.h"

#include <catch2/catch.hpp>

namespace corruption_vote_test {

using namespace pai::checks;

TEST_CASE("one GPU or none cannot be voted on") {
  CHECK(vote({}).kind == VoteOutcome::TooFew);
  VoteOutcome one = vote({{0, 7}});
  CHECK(one.kind == VoteOutcome::TooFew);
  CHECK(one.outvoted.empty());
  CHECK(one.voters == 1);
}

TEST_CASE("GPUs that all agree are unanimous") {
  VoteOutcome v = vote({{0, 7}, {1, 7}, {2, 7}, {3, 7}});
  CHECK(v.kind == VoteOutcome::Unanimous);
  CHECK(v.majority_digest == 7);
  CHECK(v.majority_size == 4);
  CHECK(v.outvoted.empty());
}

TEST_CASE("the one corrupt GPU of 4 is outvoted") {
  VoteOutcome v = vote({{0, 7}, {1, 7}, {2, 9}, {3, 7}});
  CHECK(v.kind == VoteOutcome::Majority);
  CHECK(v.majority_digest == 7);
  CHECK(v.majority_size == 3);
  CHECK(v.outvoted == std::vector<int>{2});
}

TEST_CASE("a strict majority outvotes several differing GPUs - in ballot order") {
  VoteOutcome v = vote({{0, 1}, {4, 7}, {5, 7}, {6, 7}, {7, 2}});
  CHECK(v.kind == VoteOutcome::Majority);
  CHECK(v.outvoted == std::vector<int>{0, 7});
}

TEST_CASE("two GPUs that disagree have no majority - both are undecided") {
  VoteOutcome v = vote({{0, 1}, {1, 2}});
  CHECK(v.kind == VoteOutcome::NoMajority);
  CHECK(v.undecided == std::vector<int>{0, 1});
  CHECK(v.outvoted.empty());
}

TEST_CASE("a 2-2 split or a plurality short of half is no majority") {
  CHECK(vote({{0, 1}, {1, 1}, {2, 2}, {3, 2}}).kind == VoteOutcome::NoMajority);
  VoteOutcome v = vote({{0, 1}, {1, 1}, {2, 2}, {3, 3}});
  CHECK(v.kind == VoteOutcome::NoMajority);
  CHECK(v.undecided.size() == 4);
}

TEST_CASE("with 3 GPUs two agreeing outvote the third") {
  VoteOutcome v = vote({{0, 5}, {1, 6}, {2, 5}});
  CHECK(v.kind == VoteOutcome::Majority);
  CHECK(v.outvoted == std::vector<int>{1});
}

}  // namespace corruption_vote_test
