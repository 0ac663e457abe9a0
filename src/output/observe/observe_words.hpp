#pragma once
// What each figure kvbench observe reads is called, what it means and does not mean, and the file
// of the engine that defines it (docs/observe.md is the long form).
#include <string>

#include "observe/observe_window.hpp"

namespace kvb {

enum class FigureUnit { Tokens, Bytes, Seconds, Count, Ratio };

struct FigureWords {
  const char* key;    // the JSON's name: "tier_hits"
  const char* label;  // the text's: "Tier hits"
  FigureUnit unit;
  const char* meaning;  // what it counts, and what it is not
  const char* source;   // the engine file that defines it
};

const FigureWords& figure_words(Figure f);

const char* engine_name(ObservedEngine e);   // "vLLM"
const char* engine_key(ObservedEngine e);    // "vllm"
const char* naming_key(OffloadNaming n);     // "flat_names"
std::string naming_text(OffloadNaming n);    // the release's spelling, in words
const char* verdict_key(TierVerdictKind v);  // "pays"

// The one-line verdict: what the tier does and why, from the evidence.
std::string verdict_text(const ObserveResult& r);

}  // namespace kvb
