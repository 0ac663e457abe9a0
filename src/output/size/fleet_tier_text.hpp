#pragma once
// size --replicas in words: the tier per replica, the fleet's host memory, the replicas' spread,
// the other router's answer, and what llm-d's approximate prefix producer needs per replica.
#include <string>
#include <vector>

#include "size/tier_recommendation.hpp"

namespace kvb {

// The fleet's lines of the CPU tier section (each starts with two spaces and ends in a newline).
std::string fleet_tier_lines(const TierRecommendation& r);
// llm-d's producer settings for one replica, one line each (no indent).
std::vector<std::string> llmd_router_lines(const RouterCapacities& r);

}  // namespace kvb
