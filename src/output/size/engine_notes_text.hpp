#pragma once
// The engine notes of `kvbench size` in words, each with its source.
#include <string>
#include <vector>

#include "size/engine_notes.hpp"

namespace kvb {

std::string engine_note_text(const EngineNote& note);
std::vector<std::string> engine_note_lines(const std::vector<EngineNote>& notes);

}  // namespace kvb
