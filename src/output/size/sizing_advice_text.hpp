#pragma once
// size's alternatives and notes in words (size/sizing_advice.hpp), for the text, a size document
// read back and the simulator's refusal of weights that do not fit.
#include <string>
#include <vector>

#include "size/sizing_advice.hpp"

namespace kvb {

std::string search_tried_text(const SearchTried& t);
std::string configuration_flags_text(const ConfigurationFlags& f);
std::string sizing_alternative_text(const SizingAlternative& a);
std::string sizing_note_text(const SizingNote& n);
std::vector<std::string> sizing_alternative_lines(const std::vector<SizingAlternative>& all);
std::vector<std::string> sizing_note_lines(const std::vector<SizingNote>& all);
// The refusal's message and its alternatives: "...: do not fit ...; <alternative>; ...".
std::string weights_do_not_fit_text(const WeightsDoNotFit& e);

}  // namespace kvb
