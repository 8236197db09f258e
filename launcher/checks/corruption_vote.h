// The silent-data-corruption vote of the burn: every GPU multiplied the same inputs with the
// same algorithm, so every GPU's output digest must be the same; a GPU whose digest differs
// from the majority's computes wrong numbers without raising any error.
#pragma once

#include <cstdint>
#include <vector>

namespace pai::checks {

/// One GPU's vote: the digest of its output of the common GEMM.
struct Ballot {
  int gpu = 0;
  std::uint64_t digest = 0;
};

/// How a vote came out.
struct VoteOutcome {
  enum Kind {
    TooFew,      ///< fewer than two ballots: nothing to compare (iterations still are)
    Unanimous,   ///< every ballot agrees
    Majority,    ///< more than half agree; `outvoted` holds the others
    NoMajority,  ///< no digest has more than half: `undecided` holds every GPU
  };
  Kind kind = TooFew;
  std::uint64_t majority_digest = 0;  ///< Unanimous and Majority only
  int majority_size = 0;              ///< ballots with majority_digest
  int voters = 0;
  std::vector<int> outvoted;   ///< GPUs that differ from the majority, in ballot order
  std::vector<int> undecided;  ///< NoMajority: every GPU, in ballot order
};

/// Decides the vote. A digest wins with a strict majority (more than half the ballots): with
/// 3 GPUs, 2 agreeing outvote the third; with 4, a 3-1 split outvotes one GPU but a 2-2 split
/// has no majority. Without a majority (two GPUs that disagree, 2-2, 1-1-1) the corrupt GPU
/// cannot be told from the healthy ones: the outcome names every GPU as undecided and the node
/// fails as a whole rather than blaming a GPU at random.
VoteOutcome vote(const std::vector<Ballot>& ballots);

}  // namespace pai::checks
